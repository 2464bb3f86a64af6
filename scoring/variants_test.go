package scoring_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/grading"
	"github.com/mcpeval/mcpeval/internal/sampleserver"
	"github.com/mcpeval/mcpeval/scoring"
)

// labelled is one case of testdata/code_variants.yaml.
type labelled struct {
	Case    string    `yaml:"case"`
	Correct []variant `yaml:"correct"`
	Flawed  []variant `yaml:"flawed"`
}

type variant struct {
	Name   string `yaml:"name"`
	Code   string `yaml:"code"`
	Lowers string `yaml:"lowers"`
}

// scored is a variant's run and metrics.
type scored struct {
	text    string
	metrics eval.Metrics
}

// The metrics catch what they claim to catch: for every bundled code case,
// the reference and every other correct way to write it score at least 0.9
// on understanding and coverage, and every flawed variant scores strictly
// below the reference on the metric its flaw targets. With pandas, every
// variant runs through run_pandas (the real worker pool) and the correct
// ones must pass the case's checks; without it, the code is only read (with
// any python3) and the checks are left out.
func TestLabelledVariants(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	cases, err := evalcase.LoadFile(filepath.Join(root, "cases", "code.yaml"))
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join("testdata", "code_variants.yaml"))
	require.NoError(t, err)
	var set []labelled
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&set))

	byName := map[string]labelled{}
	for _, l := range set {
		byName[l.Case] = l
	}
	pandas := sampleserver.NewPandas(sampleserver.PandasConfig{Datasets: filepath.Join(root, "testdata", "datasets"),
		MaxConcurrent: 2})
	t.Cleanup(pandas.Close)
	datasets, err := pandas.Datasets()
	require.NoError(t, err)
	run := runner(t, pandas)

	coded := 0
	for _, c := range cases {
		if c.Kind != eval.KindCode {
			continue
		}
		coded++
		t.Run(c.Name, func(t *testing.T) {
			l, ok := byName[c.Name]
			require.True(t, ok, "no labelled variants for %q", c.Name)
			require.NotEmpty(t, l.Correct, "at least one other correct way")
			require.GreaterOrEqual(t, len(l.Flawed), 3, "at least three flawed variants")
			ref := c.Reference[len(c.Reference)-1]
			require.False(t, ref.ExpectError)
			dataset := ref.Args["dataset"].(string)
			columns, values := schemaOf(datasets, dataset)
			score := func(code string) scored {
				t.Helper()
				text, attempt := run(code, dataset)
				return scored{text, scoring.ScoreCode(scoring.CodeCase{Question: c.Input, Columns: columns, Values: values,
					Attempts: []eval.Attempt{attempt}})}
			}

			reference := score(ref.Args["code"].(string))
			for _, v := range append([]variant{{Name: "reference", Code: ref.Args["code"].(string)}}, l.Correct...) {
				got := reference
				if v.Name != "reference" {
					got = score(v.Code)
				}
				u, cov := got.metrics.PromptUnderstanding, got.metrics.RequirementCoverage
				require.NotNil(t, u.Details, v.Name)
				t.Logf("correct %-45s understanding %.2f coverage %.2f", v.Name, u.Score, cov.Score)
				assert.GreaterOrEqual(t, u.Score, 0.9, "%s: understanding %+v", v.Name, *u.Details)
				assert.GreaterOrEqual(t, cov.Score, 0.9, "%s: coverage missing %v of %v", v.Name,
					cov.Details.MissingRequirements, cov.Details.Requirements)
				if got.text != "" {
					assert.Empty(t, grading.Failed(grading.CheckAnswer(c, got.text)), "%s answers the case:\n%s", v.Name, got.text)
				}
			}
			for _, v := range l.Flawed {
				got := score(v.Code)
				t.Logf("flawed  %-45s understanding %.2f coverage %.2f (lowers %s)", v.Name,
					got.metrics.PromptUnderstanding.Score, got.metrics.RequirementCoverage.Score, v.Lowers)
				switch v.Lowers {
				case "understanding":
					assert.Less(t, got.metrics.PromptUnderstanding.Score, reference.metrics.PromptUnderstanding.Score,
						"%s: understanding %+v", v.Name, *got.metrics.PromptUnderstanding.Details)
				case "coverage":
					assert.Less(t, got.metrics.RequirementCoverage.Score, reference.metrics.RequirementCoverage.Score,
						"%s: coverage missing %v", v.Name, got.metrics.RequirementCoverage.Details.MissingRequirements)
				default:
					t.Errorf("%s: lowers %q: want understanding or coverage", v.Name, v.Lowers)
				}
			}
		})
	}
	assert.Equal(t, 19, coded, "the bundled code cases")
	assert.Len(t, set, coded, "one entry per bundled code case")
}

// runner returns how a variant is run: through run_pandas when pandas is
// installed (the attempt then carries the worker's reading of the code and
// its timing, and text is the result), else only read with python3 (text
// is empty).
func runner(t *testing.T, pandas *sampleserver.Pandas) func(code, dataset string) (string, eval.Attempt) {
	if _, err := sampleserver.PythonWithPandas(); err == nil {
		return func(code, dataset string) (string, eval.Attempt) {
			t.Helper()
			out, err := pandas.Run(context.Background(), code, dataset)
			require.NoError(t, err)
			require.False(t, out.Failed, "the variant runs:\n%s\n%s", code, out.Text)
			require.NotNil(t, out.Execution)
			return out.Text, eval.Attempt{Code: code, Dataset: dataset, Output: out.Text, Execution: out.Execution}
		}
	}
	python, err := sampleserver.Python()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err.Error())
	}
	t.Log("pandas is not installed: the variants are read, not run (apt-get install python3-pandas to run them)")
	return func(code, dataset string) (string, eval.Attempt) {
		t.Helper()
		facts, err := sampleserver.AnalyzeCode(context.Background(), python, []string{code})
		require.NoError(t, err)
		return "", eval.Attempt{Code: code, Dataset: dataset, Execution: &eval.CodeExecution{Facts: &facts[0]}}
	}
}

// schemaOf returns the columns and listed values of the named datasets, as
// the agent reads them from list_datasets.
func schemaOf(datasets []sampleserver.Dataset, arg string) ([]string, map[string][]string) {
	var columns []string
	values := map[string][]string{}
	for _, name := range strings.Split(arg, ",") {
		i := slices.IndexFunc(datasets, func(d sampleserver.Dataset) bool { return d.Name == strings.TrimSpace(name) })
		if i < 0 {
			continue
		}
		for _, col := range datasets[i].Columns {
			if !slices.Contains(columns, col.Name) {
				columns = append(columns, col.Name)
			}
			values[col.Name] = append(values[col.Name], col.Values...)
		}
	}
	return columns, values
}

// The same code scores the same performance with the machine idle and with
// every core busy: the time scored is the CPU time of the code's own
// execution, which the load does not change (the duration of the whole call
// does, and is logged for comparison).
func TestPerformanceDoesNotDependOnTheLoad(t *testing.T) {
	if _, err := sampleserver.PythonWithPandas(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err.Error())
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	cases, err := evalcase.LoadFile(filepath.Join(root, "cases", "code.yaml"))
	require.NoError(t, err)
	pandas := sampleserver.NewPandas(sampleserver.PandasConfig{Datasets: filepath.Join(root, "testdata", "datasets"),
		MaxConcurrent: 1})
	t.Cleanup(pandas.Close)

	measure := func() (scores []float64, calls []time.Duration) {
		for _, c := range cases {
			ref := c.Reference[len(c.Reference)-1]
			code, dataset := ref.Args["code"].(string), ref.Args["dataset"].(string)
			start := time.Now()
			out, err := pandas.Run(context.Background(), code, dataset)
			calls = append(calls, time.Since(start))
			require.NoError(t, err)
			require.False(t, out.Failed, out.Text)
			m := scoring.ScoreCode(scoring.CodeCase{Question: c.Input, Attempts: []eval.Attempt{
				{Code: code, Dataset: dataset, Output: out.Text, Seconds: time.Since(start).Seconds(), Execution: out.Execution}}})
			scores = append(scores, m.Performance.Score)
		}
		return scores, calls
	}
	measure() // the workers start
	idle, idleCalls := measure()

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 * runtime.NumCPU() {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				_ = n * n
			}
		})
	}
	busy, busyCalls := measure()
	stop()
	wg.Wait()

	assert.Equal(t, idle, busy, "performance scores, idle and busy")
	t.Logf("tool call p50: idle %s, busy %s", median(idleCalls), median(busyCalls))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
