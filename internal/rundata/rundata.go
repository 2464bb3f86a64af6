// Package rundata is one evaluation run as its report shows it: the run's
// `go test -json` event stream (one or several shards, read with gotestsum's
// testjson package) joined with the output directory the suite wrote.
//
// The directory holds results.jsonl (one eval.Record per case run),
// summary.json, when scoring ran, metrics_summary.json and, when make
// calibrate wrote one, calibration.json (see Trust). Test events say which
// case tests passed, failed, were skipped or never finished; records carry
// the question, answer, judge verdict, tool calls, conversation and typed
// metrics. The two are joined on the subtest name (Record.Test) and, for go
// test -count=N, the run's number (Record.Repeat): every run of a case is a
// case of the data, and a case test without a record and a record without a
// test event both still appear.
//
// The HTML pages (internal/htmlreport), the JUnit file (internal/junit) and
// the comparison with a baseline (internal/baseline) are made from a Data.
package rundata

import (
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Skip is the status of a case whose test was skipped. The other statuses are
// those of eval.Status.
const Skip eval.Status = "skip"

// Ran reports whether a case with the status ran: neither skipped nor
// not run.
func Ran(s eval.Status) bool { return s != Skip && s != eval.NotRun }

// Data is everything the report shows.
type Data struct {
	// Flips are, in a comparison with a baseline, the change and cause of
	// each flipped case, by name and model
	// (baseline.Comparison.FlipMessages): its JUnit message names them.
	Flips map[eval.CaseRun]string
	// Run is the header: summary.json, or what the records and test events
	// say when there is none (FromSummary false). Its Usage and Retries
	// count the requests of the cases run now; cached cases' were made by
	// an earlier run.
	Run         eval.Summary
	FromSummary bool
	Totals      Totals
	Categories  []CategoryTotals
	// Cases are the runs of cases: a case run go test -count=N times is N
	// cases here. Groups gather them by case (and model), in order.
	Cases  []Case
	Groups []Group
	// MetricNames are the metric columns: "overall", then the metrics some
	// case has, in the guide's order; empty when no case has metrics.
	MetricNames []string
	// MetricsSummary holds the tiles of metrics_summary.json: scores first
	// ("overall" first), then counts and rates.
	MetricsSummary []Metric
	// Trust says how far the verdicts can be trusted: the calibration of
	// the run's judge (or of the checks, without a judge), from
	// calibration.json.
	Trust Trust
	// Problems are run-level findings shown above the cases: build errors,
	// failed non-case tests, test binary panics and timeouts, unreadable
	// input lines.
	Problems []string
	// Comparison links the comparison with a baseline written beside the
	// report (compare.html); nil without one.
	Comparison *ComparisonLink
	// Notices are what the run said that is no problem: the suite's
	// notices ("mcpeval: notice: ..."), and the output of a test whose
	// only failure is that of its cases.
	Notices []string
	// Generated is when the report was made.
	Generated time.Time
	// Models compares the run's models and ModelPairs each two of them
	// (stats.Models over the records); empty with one model.
	Models     []eval.ModelResult
	ModelPairs []eval.ModelPair
	// ArmEffects are what the arms change (with -arms; see
	// eval.ArmEffect).
	ArmEffects []eval.ArmEffect
	// ArmVerdicts are each arm's verdict against the baseline arm (see
	// eval.ArmVerdict).
	ArmVerdicts []eval.ArmVerdict
	// History is the pass rate of the kept runs of the same case set
	// evaluated with the same models or arms (reference runs apart; see
	// History), oldest first, this run included; empty when unknown.
	History []HistoryPoint
}

// HistoryPoint is one run's pass rate, for the chart of a case set's runs.
type HistoryPoint struct {
	RunID    string    `json:"run_id"`
	Started  time.Time `json:"started"`
	PassRate float64   `json:"pass_rate"`
	Cases    int       `json:"cases"`
}

// Totals counts the cases by outcome.
type Totals struct {
	Total      int `json:"total"`
	Passed     int `json:"passed"`
	Failed     int `json:"failed"`
	Errors     int `json:"errors"`
	TokenLimit int `json:"token_limit"`
	Cut        int `json:"cut"`
	// Undecided counts the cases the judge could not decide.
	Undecided int `json:"undecided"`
	Skipped   int `json:"skipped"`
	// NotRun counts the cases recorded as not run (eval.NotRun).
	NotRun int `json:"not_run"`
	Cached int `json:"cached"`
	// NoRecord counts cases that ran but are known only from test events.
	NoRecord int `json:"no_record"`
	// Split counts the cases whose judges did not all agree.
	Split int `json:"split"`
	// Tokens is the sum of the total tokens of the cases run now: cached
	// cases are left out, as in summary.json's usage.
	Tokens int `json:"tokens"`
	// Ran is the number of cases that ran (skipped ones excluded) and Rate
	// the success rate in percent over them.
	Ran  int     `json:"ran"`
	Rate float64 `json:"rate"`
}

func (t *Totals) count(c Case) {
	t.Total++
	switch c.Status {
	case eval.Pass:
		t.Passed++
	case eval.Fail:
		t.Failed++
	case eval.Error:
		t.Errors++
	case eval.TokenLimit:
		t.TokenLimit++
	case eval.Cut:
		t.Cut++
	case eval.Undecided:
		t.Undecided++
	case Skip:
		t.Skipped++
	case eval.NotRun:
		t.NotRun++
	}
	t.Ran = t.Total - t.Skipped - t.NotRun
	t.Rate = 0
	if t.Ran > 0 {
		t.Rate = 100 * float64(t.Passed) / float64(t.Ran)
	}
	if c.Record == nil {
		if Ran(c.Status) {
			t.NoRecord++
		}
		return
	}
	if c.Record.JudgeDisagreement {
		t.Split++
	}
	if c.Record.Cached {
		t.Cached++
		return
	}
	t.Tokens += c.Record.Usage.TotalTokens
}

// CategoryTotals counts the cases of one category.
type CategoryTotals struct {
	Name string `json:"name"`
	Totals
}

// Metric is one tile of the metrics summary.
type Metric struct {
	// Name is a score's metric name ("overall", "coverage") or the
	// summary's field ("errors_encountered").
	Name string `json:"name"`
	// Label is the name shown ("Coverage", "Errors encountered").
	Label string     `json:"label"`
	Kind  MetricKind `json:"kind"`
	Value float64    `json:"value"`
	// NotApplicable is true when the value means nothing, such as a
	// recovery success rate without errors to recover from.
	NotApplicable bool `json:"not_applicable,omitempty"`
	// Entries is, for an average, how many cases it is taken over.
	Entries int `json:"entries,omitempty"`
}

// MetricKind says how a metric's value reads.
type MetricKind string

// The kinds of metric values.
const (
	// Score: a score from 0 to 1.
	Score MetricKind = "score"
	// Rate: a fraction from 0 to 1, shown as a percentage.
	Rate MetricKind = "rate"
	// Count: a number of things.
	Count MetricKind = "count"
)

// Case is one evaluated case: its record, its test's outcome, or both.
type Case struct {
	Name     string
	Category string
	// Test is the go test name of the case's subtest; Package its package.
	Test    string
	Package string
	// Repeat numbers the runs of the case in a go test -count=N run, from 0.
	Repeat int
	Status eval.Status
	// Reason explains the status: the record's reason, or for a case without
	// record the test's output.
	Reason string
	// Seconds is the record's wall time, else the test's elapsed time.
	Seconds float64
	// Record is nil for a case known only from its test events. LoadLean
	// leaves out its texts that only the case's own view shows.
	Record *eval.Record
	// Raw is the record's line of results.jsonl, JSON, as LoadLean read
	// it; nil otherwise.
	Raw []byte
	// Arm is the arm of a case known only from its test events, from its
	// test name; "" otherwise.
	Arm string
	// Event is the test's outcome in the go test stream.
	Event TestOutcome
	// Scores holds the record's applicable scores by metric name, and
	// "overall"; nil without metrics.
	Scores map[string]float64
}

// ComparisonLink is where a run's comparison with a baseline is, and
// what it found.
type ComparisonLink struct {
	// Href is compare.html, relative to the report.
	Href string `json:"href"`
	// Baseline is the baseline's run id; Causes the flips by cause.
	Baseline string `json:"baseline"`
	Causes   string `json:"causes"`
}

// TestOutcome is what the go test stream says about one test.
type TestOutcome struct {
	// Action is "pass", "fail" or "skip"; empty when the test has no event.
	Action string
	// Unfinished is true when the stream ended while the test was running
	// (a killed or timed-out run).
	Unfinished bool
	Elapsed    float64
	// Output is the test's own output with go test's framing lines removed.
	Output string
	// Attrs holds the test's t.Attr key/value pairs.
	Attrs map[string]string
}
