package junit

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/rundata/rundatatest"
)

// junitData is a run of five cases: one passes, two fail, one errors, one
// was skipped; the flaky one ran three times.
func junitData(t *testing.T) *rundata.Data {
	t.Helper()
	rec := func(name, category string, repeat int, status eval.Status, reason string, seconds float64) eval.Record {
		return eval.Record{Name: name, Category: category, Test: "Test" + category + "/" + name, File: "cases/genes.yaml", Line: 7 + repeat,
			Repeat: repeat, Status: status, Reason: reason, Seconds: seconds}
	}
	dir := t.TempDir()
	rundatatest.WriteRecords(t, dir,
		rec("Right", "Genes", 0, eval.Pass, "fine", 1.5),
		rec("Wrong", "Genes", 0, eval.Fail, "the answer names\n<BRCA1>, not NUTM2G", 4),
		rec("Provider down", "Literature", 0, eval.Error, "provider returned HTTP 503", 0.5),
		rec("Flaky", "Literature", 0, eval.Pass, "ok", 1),
		rec("Flaky", "Literature", 1, eval.Fail, "wrong this time", 1),
		rec("Flaky", "Literature", 2, eval.Pass, "ok", 1),
	)
	summary := eval.Summary{Started: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC), Model: "m"}
	data, err := json.Marshal(summary)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), data, 0o644))
	stream := filepath.Join(dir, "run.json")
	rundatatest.WriteStream(t, stream,
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestLiterature"}`,
		`{"Action":"run","Package":"p","Test":"TestLiterature/Needs_key"}`,
		`{"Action":"output","Package":"p","Test":"TestLiterature/Needs_key","Output":"    eval_test.go:9: NCBI_API_KEY not set\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestLiterature/Needs_key","Elapsed":0}`,
		`{"Action":"fail","Package":"p","Test":"TestLiterature","Elapsed":1}`,
	)
	return rundatatest.Load(t, dir, stream)
}

func writeJUnitString(t *testing.T, d *rundata.Data) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, Write(&b, d, ""))
	return b.String()
}

func TestWriteJUnitOneTestcasePerCase(t *testing.T) {
	d := junitData(t)
	out := writeJUnitString(t, d)
	var doc junitSuites
	require.NoError(t, xml.Unmarshal([]byte(out), &doc))
	assert.Equal(t, 5, doc.Tests, "one testcase per case: repeats together, no parent tests")
	assert.Equal(t, 2, doc.Failures)
	assert.Equal(t, 1, doc.Errors)
	require.Len(t, doc.Suites, 2)

	cases := map[string]junitCase{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			assert.Equal(t, s.Name, c.Classname, "the category is the classname")
			cases[c.Name] = c
		}
	}
	assert.Len(t, cases, 5)
	assert.Nil(t, cases["Right"].Failure)
	assert.Equal(t, "1.500", cases["Right"].Time, "the case's own running time")
	assert.Equal(t, "cases/genes.yaml", cases["Right"].File)
	assert.Equal(t, "7", cases["Right"].Line)

	wrong := cases["Wrong"].Failure
	require.NotNil(t, wrong)
	assert.Equal(t, "fail: the answer names <BRCA1>, not NUTM2G", wrong.Message)
	assert.Equal(t, "fail", wrong.Type)

	require.NotNil(t, cases["Provider down"].Error, "an error is an <error>, not a failure")
	assert.Nil(t, cases["Provider down"].Failure)
	require.NotNil(t, cases["Needs_key"].Skipped)

	flaky := cases["Flaky"]
	require.NotNil(t, flaky.Failure)
	assert.Contains(t, flaky.Failure.Message, "2 of 3 runs passed (flaky)")
	assert.Equal(t, "3.000", flaky.Time)
	assert.Contains(t, flaky.SystemOut, "3 runs: pass rate 0.67, pass@2 1.00, pass^2 0.33")
	assert.Contains(t, flaky.SystemOut, "statuses pass fail pass")
}

// With a pass-rate gate, a case fails only below it.
func TestWriteJUnitGate(t *testing.T) {
	d := junitData(t)
	d.Run.MinPassRate = 0.6
	var doc junitSuites
	require.NoError(t, xml.Unmarshal([]byte(writeJUnitString(t, d)), &doc))
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			switch c.Name {
			case "Flaky":
				assert.Nil(t, c.Failure, "2/3 is above the gate")
			case "Wrong":
				assert.NotNil(t, c.Failure, "0/1 is below it")
			}
		}
	}
}

// The file validates against the JUnit schema CI reporters use, with
// xmllint (Debian's libxml2-utils).
func TestWriteJUnitValidates(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed: apt-get install libxml2-utils")
	}
	path := filepath.Join(t.TempDir(), "junit.xml")
	require.NoError(t, os.WriteFile(path, []byte(writeJUnitString(t, junitData(t))), 0o644))
	out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit.xsd", path).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "validates")

	// The schema does reject what CI reporters would misread.
	bad := filepath.Join(t.TempDir(), "bad.xml")
	require.NoError(t, os.WriteFile(bad, []byte(`<testsuites><testsuite name="x" tests="1"><testcase name="a"><properties/></testcase></testsuite></testsuites>`), 0o644))
	out, err = exec.Command(xmllint, "--noout", "--schema", "testdata/junit.xsd", bad).CombinedOutput()
	require.Error(t, err, string(out))
}

func TestJUnitNamesCaseFilesFromTheRoot(t *testing.T) {
	root := filepath.Join(string(filepath.Separator), "src", "eval")
	for _, tt := range []struct{ file, want string }{
		{filepath.Join(root, "cases", "genes.yaml"), "cases/genes.yaml"},
		{filepath.Join(string(filepath.Separator), "src", "evaluation", "x.yaml"), filepath.ToSlash(filepath.Join(string(filepath.Separator), "src", "evaluation", "x.yaml"))},
		{filepath.Join(string(filepath.Separator), "elsewhere", "x.yaml"), filepath.ToSlash(filepath.Join(string(filepath.Separator), "elsewhere", "x.yaml"))},
		{"cases/relative.yaml", "cases/relative.yaml"},
	} {
		d := &rundata.Data{Groups: []rundata.Group{{Name: "c", Category: "k", Runs: []int{0}}},
			Cases: []rundata.Case{{Name: "c", Category: "k", Status: eval.Pass, Record: &eval.Record{Name: "c", File: tt.file, Line: 3, Status: eval.Pass}}}}
		var b bytes.Buffer
		require.NoError(t, Write(&b, d, root))
		var doc junitSuites
		require.NoError(t, xml.Unmarshal(b.Bytes(), &doc))
		require.Len(t, doc.Suites, 1)
		assert.Equal(t, tt.want, doc.Suites[0].Cases[0].File, tt.file)
	}
}

// A replay's JUnit file says so: its tool results came from a recording.
func TestWriteJUnitLabelsAReplay(t *testing.T) {
	d := junitData(t)
	var doc junitSuites
	require.NoError(t, xml.Unmarshal([]byte(writeJUnitString(t, d)), &doc))
	assert.Equal(t, "mcpeval", doc.Name)
	d.Run.Replay = &eval.ReplayInfo{Source: "20261128T000000.000Z-aaaaaa"}
	require.NoError(t, xml.Unmarshal([]byte(writeJUnitString(t, d)), &doc))
	assert.Equal(t, "mcpeval (replay of run 20261128T000000.000Z-aaaaaa)", doc.Name)
}

// A case recorded as not run (a stopped run) is skipped, with its reason.
func TestWriteJUnitSkipsACaseNotRun(t *testing.T) {
	dir := t.TempDir()
	rundatatest.WriteRecords(t, dir, eval.Record{Name: "a", Test: "T/a", Status: eval.Pass},
		eval.Record{Name: "b", Test: "T/b", Status: eval.NotRun, Reason: "not started: run stopped: interrupted (Ctrl-C)"})
	d, err := rundata.Load(dir, nil)
	require.NoError(t, err)
	assert.Contains(t, writeJUnitString(t, d), `<skipped message="not started: run stopped: interrupted (Ctrl-C)">`)
}

// A case's runs that did not run (a run interrupted after its first
// repeat) are no runs of it: neither failures nor part of its rates.
func TestWriteJUnitRepeatsNotRun(t *testing.T) {
	P, F, N := eval.Pass, eval.Fail, eval.NotRun
	tests := []struct {
		name     string
		statuses []eval.Status
		gate     float64
		outcome  string // "pass", "failure" or "skipped"
		out      string
		message  string
	}{
		{"ran once, then interrupted", []eval.Status{P, N, N, N, N}, 0, "pass",
			"1 run (4 not run): pass rate 1.00; statuses pass not_run not_run not_run not_run", ""},
		{"a failure among those that ran", []eval.Status{F, P, N}, 0, "failure",
			"2 runs (1 not run): pass rate 0.50, pass@2 1.00, pass^2 0.00, flaky; statuses fail pass not_run",
			"1 of 2 runs passed (flaky), 1 not run; fail: wrong"},
		{"the gate decides over those that ran", []eval.Status{F, P, N}, 0.5, "pass",
			"2 runs (1 not run): pass rate 0.50, pass@2 1.00, pass^2 0.00, flaky; statuses fail pass not_run", ""},
		{"none ran", []eval.Status{N, N}, 0, "skipped", "0 runs (2 not run); statuses not_run not_run", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var recs []eval.Record
			for i, s := range tt.statuses {
				reason := "right"
				switch s {
				case F:
					reason = "wrong"
				case N:
					reason = "not started: run stopped: interrupted (Ctrl-C)"
				}
				recs = append(recs, eval.Record{Name: "c", Category: "K", Test: "TestK/c", Repeat: i, Status: s, Reason: reason})
			}
			d := rundata.FromRecords(recs)
			d.Run.MinPassRate = tt.gate
			var doc junitSuites
			require.NoError(t, xml.Unmarshal([]byte(writeJUnitString(t, d)), &doc))
			require.Len(t, doc.Suites, 1)
			s, tc := doc.Suites[0], doc.Suites[0].Cases[0]
			assert.Equal(t, tt.out, tc.SystemOut)
			switch tt.outcome {
			case "pass":
				assert.Nil(t, tc.Failure)
				assert.Nil(t, tc.Error)
				assert.Nil(t, tc.Skipped)
				assert.Zero(t, s.Failures+s.Errors+s.Skipped)
			case "failure":
				require.NotNil(t, tc.Failure)
				assert.Equal(t, tt.message, tc.Failure.Message)
				assert.Equal(t, 1, s.Failures)
			case "skipped":
				assert.NotNil(t, tc.Skipped)
				assert.Equal(t, 1, s.Skipped)
			}
		})
	}
}

// A conversation that failed at a turn says so in the message, and lists
// every turn, the ones never sent included, in the failure's text.
func TestWriteJUnitNamesTheFailedTurn(t *testing.T) {
	dir := t.TempDir()
	rundatatest.WriteRecords(t, dir, eval.Record{Name: "a", Test: "T/a", Status: eval.Fail,
		Reason: "turn 2 of 3: deterministic check failed: number 31.835 ± 0.0005: absent",
		Turns: []eval.TurnResult{
			{Turn: 1, User: "What is it?", Reply: "I could not find it.", Status: eval.Pass},
			{Turn: 2, User: "It is on BRCA1.", Reply: "Still nothing.", Status: eval.Fail, Reason: "deterministic check failed: number 31.835 ± 0.0005: absent"},
			{Turn: 3, User: "And ClinVar?", Status: eval.NotRun},
		}})
	d, err := rundata.Load(dir, nil)
	require.NoError(t, err)
	var doc junitSuites
	require.NoError(t, xml.Unmarshal([]byte(writeJUnitString(t, d)), &doc))
	f := doc.Suites[0].Cases[0].Failure
	require.NotNil(t, f)
	assert.Equal(t, "fail: turn 2 of 3: deterministic check failed: number 31.835 ± 0.0005: absent", f.Message)
	assert.Equal(t, "turn 2 of 3: deterministic check failed: number 31.835 ± 0.0005: absent\n"+
		"turn 1 of 3 pass: What is it? → I could not find it.\n"+
		"turn 2 of 3 fail: It is on BRCA1. → Still nothing. (deterministic check failed: number 31.835 ± 0.0005: absent)\n"+
		"turn 3 of 3 not_run: And ClinVar? (not sent)", f.Contents)
}

// A fact the simulated user gave unasked makes a pass questionable: the
// passing testcase names the turn in its output, each run's when the case
// ran several times, and the turns stay out of the testcases.
func TestWriteJUnitShowsLeaksOfAPass(t *testing.T) {
	turns := func(leaks ...string) []eval.TurnResult {
		return []eval.TurnResult{
			{Turn: 1, User: "Which gene is at chr17:7675088?", Reply: "Which build?", Status: eval.Pass},
			{Turn: 2, User: "GRCh38, and it is a <b>missense</b> variant.", Reply: "TP53.", Status: eval.Pass, Simulated: true, Leaks: leaks},
		}
	}
	dir := t.TempDir()
	rundatatest.WriteRecords(t, dir,
		eval.Record{Name: "gene", Test: "T/gene", Status: eval.Pass, Reason: "fine", Turns: turns("The variant is a <b>missense</b> variant.")},
		eval.Record{Name: "flaky", Test: "T/flaky", Status: eval.Pass, Reason: "fine", Turns: turns()},
		eval.Record{Name: "flaky", Test: "T/flaky#01", Repeat: 1, Status: eval.Pass, Reason: "fine", Turns: turns("The coordinates are on GRCh38.")},
		eval.Record{Name: "asked", Test: "T/asked", Status: eval.Pass, Reason: "fine", Turns: turns()},
	)
	d, err := rundata.Load(dir, nil)
	require.NoError(t, err)
	out := writeJUnitString(t, d)
	var doc junitSuites
	require.NoError(t, xml.Unmarshal([]byte(out), &doc))
	cases := map[string]junitCase{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			cases[c.Name] = c
		}
	}
	require.Len(t, cases, 3, "a testcase per case: the turns are not testcases")
	gene := cases["gene"]
	assert.Nil(t, gene.Failure)
	assert.Nil(t, gene.Error)
	assert.Equal(t, `leak at turn 2 of 2: the simulated user gave "The variant is a <b>missense</b> variant." unasked`, gene.SystemOut)
	assert.Contains(t, out, "&lt;b&gt;missense&lt;/b&gt;", "the fact is escaped in the XML")
	assert.Contains(t, cases["flaky"].SystemOut, `run 2 of 2: leak at turn 2 of 2: the simulated user gave "The coordinates are on GRCh38." unasked`)
	assert.NotContains(t, cases["flaky"].SystemOut, "run 1 of 2")
	assert.Empty(t, cases["asked"].SystemOut)
}

// TestWriteJUnitTraceIDs: each case run's trace ID is a property of its
// suite, named by the testcase (and the run, for a case run several
// times), in a file the schema accepts.
func TestWriteJUnitTraceIDs(t *testing.T) {
	dir := t.TempDir()
	const a, b, c = "0af7651916cd43dd8448eb211c80319c", "4bf92f3577b34da6a3ce929d0e0e4736", "5b8aa5a2d2c872e8321cf37308d69df2"
	rundatatest.WriteRecords(t, dir,
		eval.Record{Name: "Right", Category: "Genes", Status: eval.Pass, TraceID: a},
		eval.Record{Name: "Untraced", Category: "Genes", Status: eval.Pass},
		eval.Record{Name: "Twice", Category: "Genes", Status: eval.Pass, TraceID: b},
		eval.Record{Name: "Twice", Category: "Genes", Repeat: 1, Status: eval.Fail, TraceID: c},
	)
	out := writeJUnitString(t, rundatatest.Load(t, dir))
	var doc junitSuites
	require.NoError(t, xml.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Suites, 1)
	require.NotNil(t, doc.Suites[0].Properties)
	assert.Equal(t, []junitProp{
		{Name: "trace_id Right", Value: a},
		{Name: "trace_id Twice (run 1)", Value: b},
		{Name: "trace_id Twice (run 2)", Value: c},
	}, doc.Suites[0].Properties.Props)

	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed: apt-get install libxml2-utils")
	}
	path := filepath.Join(t.TempDir(), "junit.xml")
	require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
	msg, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit.xsd", path).CombinedOutput()
	require.NoError(t, err, string(msg))
}
