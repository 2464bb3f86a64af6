package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
)

func TestTextDiff(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{`{"name":"item d"}`, `{"name":"withdrawn"}`, `{"name":"[-item d-]{+withdrawn+}"}`},
		{"same", "same", "same[--]{++}"},
		{"abc", "abXc", "ab[--]{+X+}c"},
		{"é1", "é2", "é[-1-]{+2+}"},
	} {
		assert.Equal(t, tc.want, textDiff(tc.a, tc.b, 60), "%q → %q", tc.a, tc.b)
	}
	long := textDiff("0123456789abcdefghij-old-tail0123456789", "0123456789abcdefghij-new-tail0123456789", 5)
	assert.Equal(t, "…ghij-[-old-]{+new+}-tail…", long, "context is cut")
}

func TestAttribute(t *testing.T) {
	call := func(args, result, fp string) eval.ToolCall {
		return eval.ToolCall{Name: "get", Server: "s", Arguments: args, Result: result, ResultFingerprint: fp}
	}
	outcome := func(r eval.Record) *CaseOutcome {
		o := &CaseOutcome{records: []*eval.Record{&r}}
		for _, c := range r.ToolCalls {
			o.Tools = append(o.Tools, c.Name)
		}
		return o
	}
	pass := eval.Record{Status: eval.Pass, Verdict: "yes", Response: "item d", Grading: 1, Checks: []eval.CheckResult{{Check: `contains "item d"`, Passed: true}},
		ToolCalls: []eval.ToolCall{call(`{"id":"d"}`, "item d", "f1")}}
	for _, tc := range []struct {
		name        string
		cur         eval.Record
		toolChanges []string
		want        string
	}{
		{"a cut reply", eval.Record{Status: eval.Cut, Reason: "length"}, nil, eval.CauseInfrastructure},
		{"an error", eval.Record{Status: eval.Error, Reason: "HTTP 500"}, nil, eval.CauseInfrastructure},
		{"a token limit", eval.Record{Status: eval.TokenLimit, Reason: "over"}, []string{"get: description changed"}, eval.CauseInfrastructure},
		{"the surface", eval.Record{Status: eval.Fail}, []string{"get: description changed"}, eval.CauseSurface},
		{"the data", eval.Record{Status: eval.Fail, ToolCalls: []eval.ToolCall{call(`{"id": "D"}`, "gone", "f2")}}, nil, eval.CauseData},
		{"the judge", eval.Record{Status: eval.Fail, Verdict: "no", Response: "item d", ToolCalls: []eval.ToolCall{call(`{"id":"d"}`, "item d", "f1")}}, nil, eval.CauseJudge},
		{"an undecided judge", eval.Record{Status: eval.Undecided, Response: "item d", ToolCalls: []eval.ToolCall{call(`{"id":"d"}`, "item d", "f1")}}, nil, eval.CauseJudge},
		{"the case's expected answer", eval.Record{Status: eval.Fail, Verdict: "no", Expected: "item e", Response: "item d", ToolCalls: []eval.ToolCall{call(`{"id":"d"}`, "item d", "f1")}}, nil, eval.CauseCase},
		{"the case's checks", eval.Record{Status: eval.Fail, Response: "item d", Checks: []eval.CheckResult{{Check: `contains "item e"`}}, ToolCalls: []eval.ToolCall{call(`{"id":"d"}`, "item d", "f1")}}, nil, eval.CauseCase},
		{"the suite's grading", eval.Record{Status: eval.Fail, Grading: 2, Response: "item d", Checks: []eval.CheckResult{{Check: `contains "item d" (as a whole word)`}}, ToolCalls: []eval.ToolCall{call(`{"id":"d"}`, "item d", "f1")}}, nil, eval.CauseGrading},
		{"other calls", eval.Record{Status: eval.Fail, ToolCalls: []eval.ToolCall{call(`{"id":"e"}`, "item e", "f3")}}, nil, eval.CauseModel},
		{"another answer", eval.Record{Status: eval.Fail, Verdict: "no", Response: "no idea", ToolCalls: []eval.ToolCall{call(`{"id":"d"}`, "item d", "f1")}}, nil, eval.CauseModel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cur.Grading == 0 {
				tc.cur.Grading = pass.Grading // graded alike, unless the case says
			}
			d := CaseDiff{Base: outcome(pass), Current: outcome(tc.cur), Change: Regression}
			a := attribute(d, tc.toolChanges)
			assert.Equal(t, tc.want, a.Cause, a.Why)
			assert.NotEmpty(t, a.Why)
			if tc.want == eval.CauseData {
				assert.Equal(t, []DataChange{{Tool: "get", Server: "s", Arguments: `{"id": "D"}`, Before: "f1", Now: "f2", Diff: "[-item d-]{+gone+}"}}, a.DataChanges)
			}
		})
	}
}

// With repeats, the runs that ended in an error explain a flip only when
// they are at least half of the failing side's runs.
func TestInfrastructureWithRepeats(t *testing.T) {
	runs := func(statuses ...eval.Status) *CaseOutcome {
		o := &CaseOutcome{}
		for _, st := range statuses {
			o.records = append(o.records, &eval.Record{Status: st, Reason: "why " + string(st)})
		}
		return o
	}
	assert.Equal(t, "now: 2 of 4 runs ended in an error, a cut or a limit, the first error: why error",
		infrastructure(runs(eval.Fail, eval.Error, eval.Fail, eval.Error), "now"))
	assert.Empty(t, infrastructure(runs(eval.Fail, eval.Error, eval.Fail, eval.Fail), "now"), "one error of four explains nothing")
	assert.Equal(t, "baseline: token_limit: why token_limit", infrastructure(runs(eval.TokenLimit), "baseline"))
	assert.Empty(t, infrastructure(runs(eval.Fail), "now"))
}

// The causes printed for a terminal carry the servers' and the model's
// text without its control characters: a tool result cannot move the
// cursor or recolour the terminal.
func TestCauseLinesAreSafeForATerminal(t *testing.T) {
	c := &Comparison{Cases: []CaseDiff{{Name: "case a", Model: "m", Change: Regression, Attribution: &Attribution{
		Cause: eval.CauseData, Why: "a tool returned something else",
		DataChanges: []DataChange{{Tool: "get\x1b[2J", Arguments: "{\"id\":\"\x1b]0;x\x07\"}", Diff: "[-ok-]{+\x1b[31mgone\x1b[0m+}"}},
	}}}}
	lines := c.CauseLines()
	require.Len(t, lines, 3)
	for _, l := range lines {
		assert.NotContains(t, l, "\x1b", l)
		assert.NotContains(t, l, "\x07", l)
	}
	assert.Contains(t, lines[2], `"get\x1b[2J"`, "an odd tool name is quoted")
	assert.Contains(t, lines[2], "gone", "the text stays readable")
}
