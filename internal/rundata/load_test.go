package rundata_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/rundata/rundatatest"
)

func TestMain(m *testing.M) {
	m.Run()
	rundatatest.RemoveFixture()
}

// outcome is what the tests compare per case.
type outcome struct {
	Status   eval.Status
	Category string
	Action   string // the test's go test action
	Record   bool
}

func outcomes(d *rundata.Data) map[string]outcome {
	m := map[string]outcome{}
	for _, c := range d.Cases {
		m[c.Name] = outcome{Status: c.Status, Category: c.Category, Action: c.Event.Action, Record: c.Record != nil}
	}
	return m
}

const (
	gene = "Gene and Variant Utilities"
	lit  = "Literature"
)

// fixtureOutcomes is what a full run of testdata/fixture gives.
var fixtureOutcomes = map[string]outcome{
	"NUTM2G OMIM entries":    {eval.Pass, gene, "pass", true},
	"BRCA1 <b>injection</b>": {eval.Fail, gene, "pass", true},
	"huge result":            {eval.TokenLimit, gene, "pass", true},
	"harness_crash":          {eval.Error, gene, "fail", false},
	"PubMed search":          {eval.Pass, lit, "pass", true},
	"provider down":          {eval.Error, lit, "pass", true},
	"slow server":            {eval.Pass, lit, "pass", true},
	"needs_key":              {rundata.Skip, lit, "skip", false},
}

func TestLoadFixtureRun(t *testing.T) {
	run := rundatatest.Fixture(t)
	d := rundatatest.Load(t, run.OutDir, run.Stream)

	assert.Equal(t, fixtureOutcomes, outcomes(d))
	// The cached PubMed search's 700 tokens were spent by an earlier run.
	assert.Equal(t, rundata.Totals{Total: 8, Passed: 3, Failed: 1, Errors: 2, TokenLimit: 1, Skipped: 1, Cached: 1, NoRecord: 1,
		Tokens: 1000 + 2000 + 150000 + 300, Ran: 7, Rate: 100 * 3.0 / 7}, d.Totals)
	assert.InDelta(t, 100*3.0/7, d.Totals.Rate, 1e-9, "skipped cases are not in the rate")
	require.Len(t, d.Categories, 2)
	assert.Equal(t, gene, d.Categories[0].Name)
	assert.Equal(t, 4, d.Categories[0].Total)
	assert.Equal(t, 1, d.Categories[0].Passed)
	assert.Equal(t, 2, d.Categories[1].Passed)

	// The header comes from summary.json.
	assert.True(t, d.FromSummary)
	assert.Equal(t, "judge-model", d.Run.JudgeModel)
	assert.Equal(t, []string{"marrvel-mock"}, d.Run.Servers)
	assert.Equal(t, "cases/marrvel.yaml", d.Run.CaseFiles)
	assert.Equal(t, 42.5, d.Run.Seconds)
	assert.Equal(t, 5, d.Run.Usage.Retries)
	assert.Equal(t, 1, d.Run.ServerRestarts)

	byName := map[string]rundata.Case{}
	for _, c := range d.Cases {
		byName[c.Name] = c
	}
	crash := byName["harness_crash"]
	assert.Equal(t, "TestEval_Gene_and_Variant_Utilities/harness_crash", crash.Test)
	assert.Contains(t, crash.Reason, "without writing a record")
	assert.Contains(t, crash.Reason, "mcp server exited: connection refused")
	assert.NotContains(t, crash.Reason, "===", "go test's framing lines are dropped")
	assert.Equal(t, map[string]string{"server": "marrvel-mock"}, crash.Event.Attrs)
	assert.Contains(t, byName["needs_key"].Reason, "NCBI_API_KEY not set")
	assert.Equal(t, "TestEval_Literature/PubMed_search", byName["PubMed search"].Test)

	// The failing plain test is a run problem; the passing one is nowhere.
	require.Len(t, d.Problems, 1)
	assert.Contains(t, d.Problems[0], "TestServerStarts failed")
	assert.Contains(t, d.Problems[0], "server binary marrvel-mock not found")

	assert.Equal(t, []string{"overall", "correctness", "performance", "coverage", "recovery"}, d.MetricNames,
		"no case has quality or understanding")
	assert.Equal(t, map[string]float64{"overall": 0.91, "correctness": 1, "performance": 1, "coverage": 0.75, "recovery": 1},
		byName["NUTM2G OMIM entries"].Scores)
	assert.Nil(t, byName["huge result"].Scores)
}

func TestLoadMergesShards(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "out")
	shards := []string{filepath.Join(base, "shard1.json"), filepath.Join(base, "shard2.json")}
	require.NoError(t, rundatatest.GoTestJSON(out, shards[0], "^TestEval_Gene"))
	require.NoError(t, rundatatest.GoTestJSON(out, shards[1], "^(TestEval_Literature|TestServerStarts|TestCaseFileValid)$"))

	d := rundatatest.Load(t, out, shards...)
	assert.Equal(t, fixtureOutcomes, outcomes(d))
	require.Len(t, d.Problems, 2)
	assert.Contains(t, strings.Join(d.Problems, "\n"), "TestServerStarts failed")
	// Each shard wrote summary.json; the second's does not cover the first
	// shard's cases.
	assert.Contains(t, strings.Join(d.Problems, "\n"), "summary.json belongs to another run")
	assert.False(t, d.FromSummary)

	// A shard's stream missing: its cases still show from their records.
	d = rundatatest.Load(t, out, shards[1])
	got := outcomes(d)
	assert.Equal(t, fixtureOutcomes["PubMed search"], got["PubMed search"])
	assert.Equal(t, outcome{eval.Fail, gene, "", true}, got["BRCA1 <b>injection</b>"])
	assert.NotContains(t, got, "harness_crash", "a case without record or event is unknown")
}

func TestLoadRecordsWithoutEvents(t *testing.T) {
	run := rundatatest.Fixture(t)
	d, err := rundata.Load(run.OutDir, nil)
	require.NoError(t, err)
	want := map[string]outcome{}
	for name, o := range fixtureOutcomes {
		if o.Record {
			o.Action = ""
			want[name] = o
		}
	}
	assert.Equal(t, want, outcomes(d))
	assert.Equal(t, d.Totals.Total, len(want))
	assert.Empty(t, d.Problems)
}

func TestLoadRunKilledByTimeout(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "out")
	stream := filepath.Join(base, "run.json")
	t.Setenv("FIXTURE_HANG", "1")
	require.NoError(t, rundatatest.GoTestJSON(out, stream, "^TestEval_Literature$", "-timeout=1s"))

	d := rundatatest.Load(t, out, stream)
	byName := map[string]rundata.Case{}
	for _, c := range d.Cases {
		byName[c.Name] = c
	}
	slow := byName["slow_server"]
	require.NotEmpty(t, slow.Test, "the unfinished case is shown")
	assert.Equal(t, eval.Error, slow.Status)
	assert.True(t, slow.Event.Unfinished)
	assert.Nil(t, slow.Record)
	assert.Contains(t, slow.Reason, "ended before this case finished")
	assert.Contains(t, slow.Reason, "waiting for the server")
	// The timeout panic is a run problem, not the output of the case it
	// happened to be printed under.
	require.Len(t, d.Problems, 1)
	assert.Contains(t, d.Problems[0], "panic: test timed out after 1s")
	assert.NotContains(t, byName["provider down"].Event.Output, "panic:")
	assert.Equal(t, eval.Error, byName["provider down"].Status)
}

func TestLoadRerunTakesLastOutcome(t *testing.T) {
	// gotestsum --rerun-fails appends the rerun's events to the same stream:
	// a second go test process, which starts the package again.
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	ev := func(action, test, extra string) string {
		return `{"Action":"` + action + `","Package":"p","Test":"` + test + `"` + extra + `}`
	}
	start := `{"Action":"start","Package":"p"}`
	rundatatest.WriteStream(t, path,
		start, ev("run", "TestEval_A", ""), ev("run", "TestEval_A/flaky", ""),
		ev("output", "TestEval_A/flaky", `,"Output":"    a_test.go:9: first attempt broke\n"`),
		ev("fail", "TestEval_A/flaky", `,"Elapsed":1.5`), ev("fail", "TestEval_A", `,"Elapsed":1.5`),
		start, ev("run", "TestEval_A", ""), ev("run", "TestEval_A/flaky", ""),
		ev("output", "TestEval_A/flaky", `,"Output":"    a_test.go:9: second attempt\n"`),
		ev("pass", "TestEval_A/flaky", `,"Elapsed":0.5`), ev("pass", "TestEval_A", `,"Elapsed":0.5`),
	)
	d := rundatatest.Load(t, dir, path)
	require.Len(t, d.Cases, 1)
	c := d.Cases[0]
	assert.Equal(t, "flaky", c.Name)
	assert.Equal(t, "TestEval_A", c.Category, "without records the parent test names the category")
	assert.Equal(t, eval.Pass, c.Status)
	assert.Equal(t, 0.5, c.Seconds)
	assert.NotContains(t, c.Event.Output, "first attempt", "the earlier process's run is replaced")
	assert.Empty(t, d.Problems, "the category test failed because its case did")
}

// Cases known only from their events are read by their test names: under
// TestOtherCategories the second level is the category, and a level below
// the case is its arm, so the arms of one case are two runs of it, not
// cases named after the arms.
func TestLoadEventsOfArmsAndOtherCategories(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	ev := func(action, test string) string {
		return `{"Action":"` + action + `","Package":"p","Test":"` + test + `","Elapsed":1}`
	}
	var events []string
	for _, test := range []string{"TestOtherCategories", "TestOtherCategories/Odd_Things", "TestOtherCategories/Odd_Things/spell",
		"TestOtherCategories/Odd_Things/spell/plain", "TestOtherCategories/Odd_Things/spell/terse", "TestGene", "TestGene/lookup"} {
		events = append(events, ev("run", test))
	}
	for _, test := range []string{"TestOtherCategories/Odd_Things/spell/plain", "TestOtherCategories/Odd_Things/spell/terse",
		"TestOtherCategories/Odd_Things/spell", "TestOtherCategories/Odd_Things", "TestOtherCategories", "TestGene/lookup", "TestGene"} {
		events = append(events, ev("skip", test))
	}
	rundatatest.WriteStream(t, path, append([]string{`{"Action":"start","Package":"p"}`}, events...)...)

	d := rundatatest.Load(t, dir, path)
	type row struct{ name, category, arm string }
	var got []row
	for _, c := range d.Cases {
		got = append(got, row{c.Name, c.Category, c.Arm})
	}
	assert.ElementsMatch(t, []row{{"spell", "Odd_Things", "plain"}, {"spell", "Odd_Things", "terse"}, {"lookup", "TestGene", ""}}, got)
	var groups []string
	for _, g := range d.Groups {
		groups = append(groups, g.Name+"/"+g.Model)
	}
	assert.ElementsMatch(t, []string{"spell/plain", "spell/terse", "lookup/"}, groups)
}

func TestLoadRepeatedFixtureRun(t *testing.T) {
	d := rundatatest.Repeated(t)
	type run struct {
		Name   string
		Repeat int
		Status eval.Status
		Action string
		Record bool
	}
	var got []run
	for _, c := range d.Cases {
		got = append(got, run{c.Name, c.Repeat, c.Status, c.Event.Action, c.Record != nil})
		if c.Record != nil {
			assert.Equal(t, c.Repeat, c.Record.Repeat, "%s: each run has the record of its repeat", c.Name)
		}
	}
	assert.Equal(t, []run{
		{"PubMed search", 0, eval.Pass, "pass", true},
		{"PubMed search", 1, eval.Pass, "pass", true},
		{"needs_key", 0, rundata.Skip, "skip", false},
		{"needs_key", 1, rundata.Skip, "skip", false},
		{"provider down", 0, eval.Error, "pass", true},
		{"provider down", 1, eval.Error, "pass", true},
		{"slow server", 0, eval.Pass, "pass", true},
		{"slow server", 1, eval.Pass, "pass", true},
	}, got)
	assert.Equal(t, 8, d.Totals.Total)
}

// repeatedRun is a go test -count=3 stream of one case: one process runs
// the category test and its case three times. The second repeat fails and
// the third writes no record.
func repeatedRun(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "run.json")
	ev := func(action, test, extra string) string {
		return `{"Action":"` + action + `","Package":"p","Test":"` + test + `"` + extra + `}`
	}
	lines := []string{`{"Action":"start","Package":"p"}`}
	for i, action := range []string{"pass", "fail", "fail"} {
		lines = append(lines,
			ev("run", "TestEval_K", ""), ev("run", "TestEval_K/c", ""),
			ev("output", "TestEval_K/c", `,"Output":"    eval_test.go:9: repeat `+strconv.Itoa(i)+`\n"`),
			ev(action, "TestEval_K/c", `,"Elapsed":`+strconv.Itoa(i+1)), ev(action, "TestEval_K", `,"Elapsed":3`))
	}
	rundatatest.WriteStream(t, path, lines...)
	return path
}

func TestLoadRepeatsOfACase(t *testing.T) {
	rec := func(repeat int, status eval.Status, reason string) eval.Record {
		return eval.Record{Name: "c", Category: "K", Test: "TestEval_K/c", Repeat: repeat, Status: status, Reason: reason}
	}
	type want struct {
		Repeat int
		Status eval.Status
		Reason string
		Action string
		Output string
	}
	tests := []struct {
		name    string
		records []eval.Record
		stream  bool
		want    []want
	}{
		{
			name: "every repeat has its record and its run",
			records: []eval.Record{
				rec(0, eval.Pass, "first"), rec(1, eval.Fail, "second"), rec(2, eval.Fail, "third"),
			},
			stream: true,
			// A passed test's output is not kept (gotestsum's testjson drops
			// it once its parent passes): the record says it all.
			want: []want{
				{0, eval.Pass, "first", "pass", ""},
				{1, eval.Fail, "second", "fail", "eval_test.go:9: repeat 1"},
				{2, eval.Fail, "third", "fail", "eval_test.go:9: repeat 2"},
			},
		},
		{
			name: "a repeat without record is known from its run",
			records: []eval.Record{
				rec(0, eval.Pass, "first"), rec(1, eval.Fail, "second"),
			},
			stream: true,
			want: []want{
				{0, eval.Pass, "first", "pass", ""},
				{1, eval.Fail, "second", "fail", "eval_test.go:9: repeat 1"},
				{2, eval.Error, "The test failed without writing a record.\neval_test.go:9: repeat 2", "fail", "eval_test.go:9: repeat 2"},
			},
		},
		{
			name: "records alone, the last record of a repeat wins",
			records: []eval.Record{
				rec(1, eval.Fail, "second"), rec(0, eval.Fail, "first, superseded"), rec(0, eval.Pass, "first"),
			},
			want: []want{
				{0, eval.Pass, "first", "", ""},
				{1, eval.Fail, "second", "", ""},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			rundatatest.WriteRecords(t, dir, tt.records...)
			var streams []string
			if tt.stream {
				streams = append(streams, repeatedRun(t, dir))
			}
			d := rundatatest.Load(t, dir, streams...)
			var got []want
			for _, c := range d.Cases {
				assert.Equal(t, "c", c.Name)
				got = append(got, want{c.Repeat, c.Status, c.Reason, c.Event.Action, c.Event.Output})
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, len(tt.want), d.Totals.Total)
			assert.Empty(t, d.Problems)
		})
	}
}

func TestLoadLastRecordOfATestWins(t *testing.T) {
	dir := t.TempDir()
	first := eval.Record{Name: "c", Category: "K", Test: "TestEval_K/c", Status: eval.Fail, Reason: "first"}
	second := first
	second.Status, second.Reason = eval.Pass, "second"
	other := eval.Record{Name: "no test name", Category: "K", Status: eval.Pass}
	rundatatest.WriteRecords(t, dir, first, other, second)
	d, err := rundata.Load(dir, nil)
	require.NoError(t, err)
	require.Len(t, d.Cases, 2)
	assert.Equal(t, "second", d.Cases[0].Reason)
	assert.Equal(t, "no test name", d.Cases[1].Name)
}

func TestLoadBadInput(t *testing.T) {
	run := rundatatest.Fixture(t)
	records, err := os.ReadFile(filepath.Join(run.OutDir, eval.RecordsFile))
	require.NoError(t, err)
	lines := strings.Count(string(records), "\n")

	tests := []struct {
		name    string
		files   map[string]string // written into a fresh output directory
		stream  string            // prepended to the fixture stream
		problem string
		cases   int
	}{
		{
			name:    "record line cut off by a killed run",
			files:   map[string]string{eval.RecordsFile: string(records) + `{"name":"half`},
			problem: "line " + strconv.Itoa(lines+1) + " is not a record",
			cases:   len(fixtureOutcomes),
		},
		{
			name:    "summary that is not JSON",
			files:   map[string]string{eval.RecordsFile: string(records), eval.SummaryFile: "{"},
			problem: eval.SummaryFile,
			cases:   len(fixtureOutcomes),
		},
		{
			name:    "stream with lines that are not events",
			files:   map[string]string{eval.RecordsFile: string(records)},
			stream:  "go: downloading example.com/x v1.0.0\n# example.com/x\nbuild exploded\n",
			problem: "Lines that are not test events",
			cases:   len(fixtureOutcomes),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
			}
			f, err := os.Open(run.Stream)
			require.NoError(t, err)
			defer f.Close()
			d, err := rundata.Load(dir, []rundata.Stream{{Name: "run.json", R: io.MultiReader(strings.NewReader(tt.stream), f)}})
			require.NoError(t, err)
			assert.Len(t, d.Cases, tt.cases)
			assert.Contains(t, strings.Join(d.Problems, "\n"), tt.problem)
		})
	}
}

func TestLoadSummaryOfAnotherRun(t *testing.T) {
	t0 := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	recs := []eval.Record{
		{Name: "a", Test: "T/a", Status: eval.Pass, Model: "model-now", StartedAt: t0.Add(2 * time.Second), Seconds: 3,
			Usage: eval.Usage{TotalTokens: 100, Requests: 1, Retries: 1}},
		{Name: "b", Test: "T/b", Status: eval.Fail, Model: "model-now", StartedAt: t0.Add(10 * time.Second), Seconds: 5,
			Usage: eval.Usage{TotalTokens: 200, Requests: 2}},
		// A cached record keeps the start time of the run that made it.
		{Name: "c", Test: "T/c", Status: eval.Pass, Model: "model-now", Cached: true, StartedAt: t0.Add(-48 * time.Hour),
			Usage: eval.Usage{TotalTokens: 4000, Requests: 3, Retries: 7}},
	}
	summary := func(started, finished time.Time) eval.Summary {
		return eval.Summary{Started: started, Finished: finished, Seconds: finished.Sub(started).Seconds(),
			Model: "model-of-summary", ServerRestarts: 2, Usage: eval.Usage{TotalTokens: 300, Requests: 3, Retries: 1}}
	}
	tests := []struct {
		name    string
		summary eval.Summary
		ours    bool
	}{
		{"covers the cases", summary(t0, t0.Add(20*time.Second)), true},
		{"covers the cases to the nanosecond", summary(t0.Add(2*time.Second), t0.Add(10*time.Second)), true},
		{"started after the first case", summary(t0.Add(3*time.Second), t0.Add(20*time.Second)), false},
		{"finished before the last case started", summary(t0.Add(-time.Hour), t0.Add(9*time.Second)), false},
		{"an earlier run", summary(t0.Add(-2*time.Hour), t0.Add(-time.Hour)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			rundatatest.WriteRecords(t, dir, recs...)
			b, err := json.Marshal(tt.summary)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), b, 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, eval.MetricsSummaryFile),
				[]byte(`{"summary": {"entries": 2, "average_overall_score": 0.5}}`), 0o644))

			d, err := rundata.Load(dir, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.ours, d.FromSummary)
			assert.Equal(t, 300, d.Totals.Tokens, "tokens of the cases run now")
			if tt.ours {
				assert.Empty(t, d.Problems)
				assert.Equal(t, "model-of-summary", d.Run.Model)
				assert.Equal(t, tt.summary.Started, d.Run.Started)
				assert.Equal(t, 2, d.Run.ServerRestarts)
				assert.Equal(t, rundata.Metric{Name: "overall", Label: "Overall", Kind: rundata.Score, Value: 0.5, Entries: 2}, d.MetricsSummary[0])
				return
			}
			require.Len(t, d.Problems, 1)
			assert.True(t, strings.HasPrefix(d.Problems[0], "summary.json belongs to another run\n"), d.Problems[0])
			assert.Contains(t, d.Problems[0], "metrics_summary.json")
			assert.Empty(t, d.MetricsSummary, "written with the other run's summary")
			// The header comes from the records: the first case that ran
			// started it and the last one to end ended it.
			assert.Equal(t, eval.Summary{
				Started: t0.Add(2 * time.Second), Seconds: 13, Model: "model-now",
				Usage: eval.Usage{TotalTokens: 300, Requests: 3, Retries: 1},
			}, d.Run)
		})
	}
}

func TestLoadNothingToReport(t *testing.T) {
	_, err := rundata.Load(t.TempDir(), []rundata.Stream{{Name: "empty", R: strings.NewReader("")}})
	require.ErrorContains(t, err, "nothing to report")
}

// The tiles come from the typed metrics summary: every average score once
// (overall first, in the guide's order), then the counts and the rate.
func TestLoadMetricsSummary(t *testing.T) {
	score := func(name, label string, v float64, entries int) rundata.Metric {
		return rundata.Metric{Name: name, Label: label, Kind: rundata.Score, Value: v, Entries: entries}
	}
	ptr := func(v float64) *float64 { return &v }
	tests := []struct {
		name    string
		summary eval.MetricsSummary
		want    []rundata.Metric
	}{
		{
			name: "scores then counts",
			summary: eval.MetricsSummary{Entries: 3, AverageOverallScore: ptr(0.8646), ErrorsEncountered: 2,
				TotalRecoveryAttempts: 3, SuccessfulRecoveries: 1, RecoverySuccessRate: ptr(0.5),
				AverageScores:  map[string]float64{"correctness": 0.6667, "coverage": 0.8333, "performance": 1, "recovery": 1, "understanding": 1},
				AverageEntries: map[string]int{"correctness": 3, "coverage": 2, "performance": 3, "recovery": 3, "understanding": 1},
				ByCategory:     map[string]eval.MetricsGroup{"A": {Entries: 3, AverageOverallScore: ptr(0.1)}}},
			want: []rundata.Metric{
				score("overall", "Overall", 0.8646, 3), score("correctness", "Correctness", 0.6667, 3),
				score("performance", "Performance", 1, 3), score("understanding", "Understanding", 1, 1),
				score("coverage", "Coverage", 0.8333, 2), score("recovery", "Recovery", 1, 3),
				{Name: "entries", Label: "Cases scored", Kind: rundata.Count, Value: 3},
				{Name: "errors_encountered", Label: "Errors encountered", Kind: rundata.Count, Value: 2},
				{Name: "total_recovery_attempts", Label: "Recovery attempts", Kind: rundata.Count, Value: 3},
				{Name: "successful_recoveries", Label: "Successful recoveries", Kind: rundata.Count, Value: 1},
				{Name: "recovery_success_rate", Label: "Recovery success rate", Kind: rundata.Rate, Value: 0.5, Entries: 3},
			},
		},
		{
			name: "a recovery rate without errors means nothing",
			summary: eval.MetricsSummary{Entries: 1, AverageOverallScore: ptr(1), AverageScores: map[string]float64{"quality": 0.5},
				AverageEntries: map[string]int{"quality": 1}},
			want: []rundata.Metric{
				score("overall", "Overall", 1, 1), score("quality", "Quality", 0.5, 1),
				{Name: "entries", Label: "Cases scored", Kind: rundata.Count, Value: 1},
				{Name: "errors_encountered", Label: "Errors encountered", Kind: rundata.Count, Value: 0},
				{Name: "total_recovery_attempts", Label: "Recovery attempts", Kind: rundata.Count, Value: 0},
				{Name: "successful_recoveries", Label: "Successful recoveries", Kind: rundata.Count, Value: 0},
				{Name: "recovery_success_rate", Label: "Recovery success rate", Kind: rundata.Rate, Value: 0, NotApplicable: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			rundatatest.WriteRecords(t, dir, eval.Record{Name: "c", Test: "T/c", Status: eval.Pass})
			data, err := json.Marshal(eval.MetricsFileSummary{Summary: tt.summary})
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, eval.MetricsSummaryFile), data, 0o644))
			d, err := rundata.Load(dir, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, d.MetricsSummary)
			assert.Empty(t, d.MetricNames, "no case has metrics")
		})
	}
}

// A case's columns are its applicable scores, read from its typed metrics:
// a metric that does not apply shows nothing, not 0.
func TestLoadMetricColumnsFromTypedMetrics(t *testing.T) {
	m := eval.Metrics{
		Kind:                eval.KindTool,
		Correctness:         eval.CorrectnessMetric{Score: 1},
		Performance:         eval.PerformanceMetric{Score: 1},
		PromptUnderstanding: eval.UnderstandingMetric{Score: 0.5},
		RequirementCoverage: eval.CoverageMetric{Score: 1},
		ErrorRecovery:       eval.RecoveryMetric{RecoveryScore: 1},
		Overall:             eval.OverallMetric{Score: 0.9},
	}
	na := m
	na.PromptUnderstanding = eval.UnderstandingMetric{NotApplicable: true}
	dir := t.TempDir()
	rundatatest.WriteRecords(t, dir, eval.Record{Name: "c", Test: "T/c", Status: eval.Pass, Metrics: &m},
		eval.Record{Name: "d", Test: "T/d", Status: eval.Pass, Metrics: &na})
	d, err := rundata.Load(dir, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"overall", "correctness", "performance", "understanding", "coverage", "recovery"}, d.MetricNames)
	assert.Equal(t, 0.5, d.Cases[0].Scores["understanding"])
	assert.Equal(t, 0.9, d.Cases[0].Scores["overall"])
	assert.NotContains(t, d.Cases[1].Scores, "understanding", "no score where it does not apply")
	assert.Len(t, d.Cases[1].Scores, 5)
}

// The suite's notices and the output of a category test that failed only
// because its cases did are notices, not run problems; a test failing on
// its own is a problem.
func TestLoadNoticesAreNotProblems(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	ev := func(action, test, extra string) string {
		return `{"Action":"` + action + `","Package":"p","Test":"` + test + `"` + extra + `}`
	}
	rundatatest.WriteStream(t, path,
		`{"Action":"start","Package":"p"}`,
		`{"Action":"output","Package":"p","Output":"mcpeval: notice: categories without a test function of their own run as TestOtherCategories/<category>: Gene Magic\n"}`,
		ev("run", "TestOtherCategories", ""),
		ev("output", "TestOtherCategories", `,"Output":"    harness.go:9: category \"Gene Magic\" has no test function of its own\n"`),
		ev("run", "TestOtherCategories/Gene_Magic", ""),
		ev("run", "TestOtherCategories/Gene_Magic/spell", ""),
		ev("output", "TestOtherCategories/Gene_Magic/spell", `,"Output":"    harness.go:9: fail: wrong\n"`),
		ev("fail", "TestOtherCategories/Gene_Magic/spell", `,"Elapsed":1`),
		ev("fail", "TestOtherCategories/Gene_Magic", `,"Elapsed":1`),
		ev("fail", "TestOtherCategories", `,"Elapsed":1`),
		ev("run", "TestSetup", ""),
		ev("output", "TestSetup", `,"Output":"    setup_test.go:3: the fixture is missing\n"`),
		ev("fail", "TestSetup", `,"Elapsed":0`),
		`{"Action":"output","Package":"p","Output":"mcpeval: notice: -failfast: no case started after \"spell\" failed (0 not run)\n"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\n"}`,
		`{"Action":"fail","Package":"p","Elapsed":2}`,
	)
	d := rundatatest.Load(t, dir, path)
	require.Len(t, d.Cases, 1)
	assert.Equal(t, []string{
		"categories without a test function of their own run as TestOtherCategories/<category>: Gene Magic",
		`-failfast: no case started after "spell" failed (0 not run)`,
		"TestOtherCategories says:\n" + `harness.go:9: category "Gene Magic" has no test function of its own`,
	}, d.Notices)
	require.Len(t, d.Problems, 1, "%q", d.Problems)
	assert.Contains(t, d.Problems[0], "TestSetup failed")
}

// A run that stopped says why among the problems, once, even when the
// test stream that would carry the reason is missing.
func TestLoadStoppedRun(t *testing.T) {
	dir := t.TempDir()
	rundatatest.WriteRecords(t, dir, eval.Record{Name: "a", Test: "T/a", Status: eval.Pass},
		eval.Record{Name: "b", Test: "T/b", Status: eval.NotRun, Reason: "not started: run stopped: interrupted (Ctrl-C)"})
	reason := "the provider at http://127.0.0.1:9/v1 cannot be reached. Check OPENAI_BASE_URL (or -base-url): no case was run"
	data, err := json.Marshal(eval.Summary{Stopped: reason})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), data, 0o644))
	d, err := rundata.Load(dir, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"The run stopped: " + reason}, d.Problems)
	// A case not run is counted as such, not as run nor as skipped (and
	// JUnit skips it: internal/junit's TestWriteJUnitSkipsACaseNotRun).
	assert.Equal(t, rundata.Totals{Total: 2, Passed: 1, NotRun: 1, Ran: 1, Rate: 100}, d.Totals)

	stream := strings.NewReader(`{"Action":"start","Package":"p"}
{"Action":"output","Package":"p","Output":"mcpeval: error: run stopped: ` + reason + `\n"}
{"Action":"fail","Package":"p"}
`)
	d, err = rundata.Load(dir, []rundata.Stream{{Name: "test.json", R: stream}})
	require.NoError(t, err)
	require.Len(t, d.Problems, 1, "said once: the stream has it")
	assert.Contains(t, d.Problems[0], "run stopped: "+reason)
}

// A case's runs that did not run are no runs of it: the row's status,
// pass rate and flakiness are those of the runs that ran, and the not run
// are counted beside them, and as not run in the totals.
func TestLoadGroupLeavesNotRunOut(t *testing.T) {
	P, F, E, N := eval.Pass, eval.Fail, eval.Error, eval.NotRun
	tests := []struct {
		name     string
		statuses []eval.Status
		status   eval.Status
		ran      int
		passes   int
		notRun   int
		rate     float64
		flaky    bool
		shown    int // the repeat whose texts the row shows
	}{
		{"interrupted after repeat 0", []eval.Status{P, N, N, N, N}, P, 1, 1, 4, 1, false, 0},
		{"a failure, then stopped", []eval.Status{P, F, N}, F, 2, 1, 1, 0.5, true, 1},
		{"the worst of those that ran", []eval.Status{N, E, F, P}, E, 3, 1, 1, 1.0 / 3, true, 1},
		{"none ran", []eval.Status{N, N}, N, 0, 0, 2, 0, false, 0},
		{"all ran", []eval.Status{P, P}, P, 2, 2, 0, 1, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var recs []eval.Record
			for i, s := range tt.statuses {
				recs = append(recs, eval.Record{Name: "c", Category: "K", Test: "TestK/c", Repeat: i, Status: s, Reason: "repeat " + strconv.Itoa(i)})
			}
			d := rundata.FromRecords(recs)
			require.Len(t, d.Groups, 1)
			g := d.Groups[0]
			assert.Equal(t, tt.status, g.Status)
			assert.Equal(t, tt.ran, g.Ran(d.Cases))
			assert.Equal(t, tt.passes, g.Passes)
			assert.Equal(t, tt.notRun, g.NotRun)
			assert.InDelta(t, tt.rate, g.Rate(d.Cases), 1e-12)
			assert.Equal(t, tt.flaky, g.Flaky)
			assert.Equal(t, tt.shown, d.Cases[g.Shown].Repeat)
			assert.Equal(t, tt.notRun, d.Totals.NotRun)
			assert.Equal(t, tt.ran, d.Totals.Ran)
		})
	}
}

// A case test skipped because its run did not run, without a record (the
// run stopped before its records file took any), is not run, not skipped.
func TestLoadNotRunTestWithoutRecord(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	ev := func(action, test, extra string) string {
		return `{"Action":"` + action + `","Package":"p","Test":"` + test + `"` + extra + `}`
	}
	rundatatest.WriteStream(t, path,
		ev("run", "TestK", ""),
		ev("run", "TestK/a", ""),
		ev("output", "TestK/a", `,"Output":"not run: the run stopped (why is the last line of the run's output)\n"`),
		ev("skip", "TestK/a", `,"Elapsed":0`),
		ev("run", "TestK/b", ""),
		ev("output", "TestK/b", `,"Output":"reference run: the case has no reference trajectory to replay\n"`),
		ev("skip", "TestK/b", `,"Elapsed":0`),
		ev("pass", "TestK", `,"Elapsed":0`),
	)
	d := rundatatest.Load(t, dir, path)
	require.Len(t, d.Cases, 2)
	assert.Equal(t, eval.NotRun, d.Cases[0].Status)
	assert.Equal(t, rundata.Skip, d.Cases[1].Status, "a case the run could not evaluate is skipped")
	assert.Equal(t, 1, d.Totals.NotRun)
	assert.Equal(t, 1, d.Totals.Skipped)
	assert.Zero(t, d.Totals.NoRecord)
}
