package baseline

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
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
		{"the case's conversation", eval.Record{Status: eval.Fail, Verdict: "no", Response: "no idea", ToolCalls: []eval.ToolCall{call(`{"id":"d"}`, "item d", "f1")},
			Turns: []eval.TurnResult{{Turn: 1}, {Turn: 2, User: "and item e?"}}}, nil, eval.CauseCase},
		{"a simulated user's messages, which answer the model", eval.Record{Status: eval.Fail, Verdict: "no", Response: "no idea", ToolCalls: []eval.ToolCall{call(`{"id":"d"}`, "item d", "f1")},
			Turns: []eval.TurnResult{{Turn: 1}, {Turn: 2, User: "item e, I meant", Simulated: true}}}, nil, eval.CauseModel},
		{"a simulated user that failed", eval.Record{Status: eval.Error, Reason: "simulated user: HTTP 500",
			Turns: []eval.TurnResult{{Turn: 1, Status: eval.Error, Reason: "simulated user: HTTP 500"}}}, nil, eval.CauseInfrastructure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cur.Grading == 0 {
				tc.cur.Grading = pass.Grading // graded alike, unless the case says
			}
			d := CaseDiff{Base: outcome(pass), Current: outcome(tc.cur), Change: Regression}
			a := attribute(d, tc.toolChanges)
			assert.Equal(t, tc.want, a.Cause, a.Why)
			assert.NotEmpty(t, a.Why)
			if tc.want == eval.CauseCase && len(tc.cur.Turns) > 0 {
				assert.Equal(t, `the case's conversation changed: 1 turn, now 2 (turn 2: "and item e?")`, a.Why)
			}
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

// A flip names every cause its evidence supports, the one that decided
// the verdict first: the primary cause (which the gate and the counts
// weigh) is the first of them.
func TestAttributeCauses(t *testing.T) {
	call := func(name, args, result, fp string) eval.ToolCall {
		return eval.ToolCall{Name: name, Server: "s", Arguments: args, Result: result, ResultFingerprint: fp}
	}
	outcome := func(r eval.Record) *CaseOutcome {
		o := &CaseOutcome{records: []*eval.Record{&r}}
		for _, c := range r.ToolCalls {
			o.Tools = append(o.Tools, c.Name)
		}
		return o
	}
	lookup := call("lookup", `{"id":"d"}`, `{"name":"item d"}`, "f1")
	withdrawn := call("lookup", `{"id":"d"}`, `{"name":"withdrawn"}`, "f2")
	legacy := call("legacy", `{"id":"x"}`, `{"name":"legacy x"}`, "f3")
	base := eval.Record{Status: eval.Pass, Verdict: "yes", Expected: "item d", Response: "item d, legacy x", Grading: 1,
		ToolCalls: []eval.ToolCall{lookup, legacy}}
	surface := []string{"legacy: description changed"}
	for _, tc := range []struct {
		name        string
		cur         eval.Record
		toolChanges []string
		want        string
	}{
		{"a changed result the answer carries decides before a changed description",
			eval.Record{Status: eval.Fail, Verdict: "no", Expected: "item d", Response: `{"name":"withdrawn"}`, ToolCalls: []eval.ToolCall{withdrawn, legacy}},
			surface, "data, surface"},
		{"a changed result the answers do not carry comes after a changed description",
			eval.Record{Status: eval.Fail, Verdict: "no", Expected: "item d", Response: "I cannot tell", ToolCalls: []eval.ToolCall{call("lookup", `{"id":"d"}`, `{"name":"item d","stock":"zero"}`, "f4"), legacy}},
			surface, "surface, data"},
		{"the same answer graded otherwise: the judge before the tools",
			eval.Record{Status: eval.Fail, Verdict: "no", Expected: "item d", Response: "item d, legacy x", ToolCalls: []eval.ToolCall{lookup, legacy}},
			surface, "judge, surface"},
		{"an edited case re-judged is the case's, not the judge's too",
			eval.Record{Status: eval.Fail, Verdict: "no", Expected: "item f", Response: "item d, legacy x", ToolCalls: []eval.ToolCall{lookup, legacy}},
			nil, "case"},
		{"an edited case and moved data: the same answer, the case decides",
			eval.Record{Status: eval.Fail, Verdict: "no", Expected: "item f", Response: "item d, legacy x", ToolCalls: []eval.ToolCall{withdrawn, legacy}},
			nil, "case, data"},
		{"the suite's grading, not the judge too",
			eval.Record{Status: eval.Fail, Verdict: "no", Grading: 2, Expected: "item d", Response: "item d, legacy x", ToolCalls: []eval.ToolCall{lookup, legacy}},
			nil, "grading"},
		{"an error first, the changed tool after it",
			eval.Record{Status: eval.Error, Reason: "HTTP 500"},
			surface, "infrastructure, surface"},
		{"nothing else: the model",
			eval.Record{Status: eval.Fail, Verdict: "no", Expected: "item d", Response: "no idea", ToolCalls: []eval.ToolCall{lookup}},
			nil, "model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cur.Grading == 0 {
				tc.cur.Grading = base.Grading
			}
			a := attribute(CaseDiff{Base: outcome(base), Current: outcome(tc.cur), Change: Regression}, tc.toolChanges)
			assert.Equal(t, tc.want, a.Names(), a.Explanation())
			require.NotEmpty(t, a.Causes)
			assert.Equal(t, a.Causes[0].Cause, a.Cause, "the primary cause is the first")
			assert.Equal(t, a.Causes[0].Why, a.Why)
			for _, c := range a.Causes {
				assert.NotEmpty(t, c.Why, c.Cause)
				if c.Cause == eval.CauseData {
					assert.NotEmpty(t, c.DataChanges, "the data's evidence is its changed calls")
				}
			}
			assert.Equal(t, len(a.Causes)-1, len(a.Further()))
		})
	}
}

// Asking again decides among the causes: the named cause moves first with
// its evidence extended, one no longer supported leaves.
func TestDecide(t *testing.T) {
	a := newAttribution(CauseEvidence{Cause: eval.CauseSurface, Why: "a tool changed"},
		CauseEvidence{Cause: eval.CauseData, Why: "a result changed", DataChanges: []DataChange{{Tool: "get"}}})
	a.Decide(eval.CauseData, "the old results give the old outcome")
	assert.Equal(t, "data, surface", a.Names())
	assert.Equal(t, "a result changed; the old results give the old outcome", a.Why)
	assert.Equal(t, []DataChange{{Tool: "get"}}, a.DataChanges)

	a.Decide(eval.CauseModel, "the model changed", eval.CauseData)
	assert.Equal(t, "model, surface", a.Names())
	assert.Equal(t, "the model changed", a.Why)
	assert.Empty(t, a.DataChanges)

	old := &Attribution{Cause: eval.CauseJudge, Why: "another verdict"} // read from an older compare.json
	assert.Equal(t, "judge", old.Names())
	old.Decide(eval.CauseModel, old.Why, eval.CauseJudge)
	assert.Equal(t, "model", old.Names())
	assert.Equal(t, "another verdict", old.Why)
}

// Every place a flip is shown names all its causes; compare.json keeps
// "cause" (the deciding one) for the readers it had and adds "causes".
func TestTwoCausesShown(t *testing.T) {
	a := newAttribution(CauseEvidence{Cause: eval.CauseData, Why: "a result changed", DataChanges: []DataChange{{Tool: "get", Arguments: "{}", Diff: "[-a-]{+b+}"}}},
		CauseEvidence{Cause: eval.CauseSurface, Why: "a tool changed"})
	c := &Comparison{Base: eval.Summary{RunID: "base"}, Current: eval.Summary{RunID: "now"},
		Cases: []CaseDiff{{Name: "case a", Change: Regression, Attribution: a}}}
	assert.Equal(t, "1 flipped case by cause: 1 data; further causes: 1 surface", c.CauseLine())
	assert.Equal(t, "data: a result changed; also surface: a tool changed", a.Explanation())
	assert.Equal(t, map[eval.CaseRun]string{{Name: "case a"}: "regression since base, cause data: a result changed\nalso surface: a tool changed"}, c.FlipMessages())
	assert.Equal(t, []string{"cause data: 1 flipped case", "  regression case a: data: a result changed; also surface: a tool changed", "    get {}: [-a-]{+b+}"}, c.CauseLines())

	raw, err := json.Marshal(c.JSON())
	require.NoError(t, err)
	var flips struct {
		Flips []struct {
			Cause  string `json:"cause"`
			Why    string `json:"why"`
			Causes []struct {
				Cause string `json:"cause"`
				Why   string `json:"why"`
			} `json:"causes"`
		} `json:"flips"`
	}
	require.NoError(t, json.Unmarshal(raw, &flips))
	require.Len(t, flips.Flips, 1)
	f := flips.Flips[0]
	assert.Equal(t, "data", f.Cause)
	assert.Equal(t, "a result changed", f.Why)
	require.Len(t, f.Causes, 2)
	assert.Equal(t, "surface", f.Causes[1].Cause)
	assert.Equal(t, "a tool changed", f.Causes[1].Why)
	// compare.html names them too: internal/htmlreport's
	// TestComparisonShowsTwoCauses.
}

// A tool whose definition changed and whose results changed with it is
// the surface's doing: its changed results are the surface's evidence,
// not a second cause.
func TestChangedToolsResultsAreTheSurfaces(t *testing.T) {
	rec := func(status eval.Status, result string) *CaseOutcome {
		r := eval.Record{Status: status, Expected: "item a", Response: result, Grading: 1,
			ToolCalls: []eval.ToolCall{{Name: "lookup_item", Arguments: `{"id":"a"}`, Result: result, ResultFingerprint: result}}}
		return &CaseOutcome{records: []*eval.Record{&r}, Tools: []string{"lookup_item"}}
	}
	a := attribute(CaseDiff{Base: rec(eval.Pass, "item a"), Current: rec(eval.Fail, "source is required"), Change: Regression},
		[]string{"lookup_item: description and input schema changed"})
	assert.Equal(t, "surface", a.Names(), a.Explanation())
	require.Len(t, a.DataChanges, 1)
	assert.Equal(t, "[-item a-]{+source is required+}", a.DataChanges[0].Diff)
	assert.Len(t, a.AllDataChanges(), 1)
}

// A conversation whose earlier reply is checked otherwise now changed as a
// case; a turn one run never sent is no change of the case.
func TestAttributeTurnChecks(t *testing.T) {
	check := func(names ...string) []eval.CheckResult {
		var out []eval.CheckResult
		for _, n := range names {
			out = append(out, eval.CheckResult{Check: n})
		}
		return out
	}
	conversation := func(status eval.Status, first []eval.CheckResult, firstStatus eval.Status) eval.Record {
		reply := "Which build?"
		if firstStatus == eval.NotRun {
			reply = ""
		}
		return eval.Record{Status: status, Verdict: "no", Expected: "BRCA1", Response: "BRCA1", Grading: 1, Turns: []eval.TurnResult{
			{Turn: 1, User: "Which gene is at 17:43044295?", Reply: reply, Checks: first, Status: firstStatus},
			{Turn: 2, User: "GRCh38.", Reply: "BRCA1", Status: status},
		}}
	}
	base := conversation(eval.Pass, check(`asks "build"`), eval.Pass)
	for _, tc := range []struct {
		name string
		cur  eval.Record
		want string
	}{
		{"a check added to the first reply", conversation(eval.Fail, check(`asks "build"`, "must_not_call get_gene"), eval.Fail), "case"},
		{"the first reply's checks removed", conversation(eval.Fail, nil, eval.Pass), "case"},
		{"the same checks: the model", conversation(eval.Fail, check(`asks "build"`), eval.Fail), "model"},
		{"a turn not sent is no change", conversation(eval.Fail, nil, eval.NotRun), "model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := func(r eval.Record) *CaseOutcome { return &CaseOutcome{records: []*eval.Record{&r}} }
			a := attribute(CaseDiff{Base: o(base), Current: o(tc.cur), Change: Regression}, nil)
			assert.Equal(t, tc.want, a.Names(), a.Explanation())
			if tc.want == "case" {
				assert.Contains(t, a.Why, "at turn 1 changed")
			}
		})
	}
}
