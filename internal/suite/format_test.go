package suite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// The failure paragraph shows each elicitation round trip and the stderr
// of the first failed call that has some; the server's text is escaped.
func TestFormatFailureShowsServerInput(t *testing.T) {
	rec := eval.Record{Status: eval.Fail, Reason: "deterministic check failed", File: "cases.yaml", Line: 3,
		ToolCalls: []eval.ToolCall{
			{Name: "ask", Arguments: `{}`, Elicitations: []eval.Elicitation{
				{Message: "Your name?", Fields: []string{"name"}, Action: eval.ElicitAccept, Content: map[string]any{"name": "Ada"}, Scripted: true},
				{Message: "Your pet?\x1b[2J", Fields: []string{"pet"}, Action: eval.ElicitDecline},
			}},
			{Name: "read_text_file", Server: "files", Arguments: `{}`, IsError: true, Stderr: "Secure MCP Filesystem Server running on stdio\nwaiting for client to provide roots"},
			{Name: "read_text_file", Server: "files", Arguments: `{}`, IsError: true, Stderr: "a later failure"},
		}}
	got := FormatFailure(rec)
	assert.Contains(t, got, "\nelicitation: ask asked \"Your name?\" for name → accept {\"name\":\"Ada\"}\n")
	assert.Contains(t, got, "\nelicitation: ask asked \"Your pet?\\x1b[2J\" for pet → decline (no reply scripted: declined)\n")
	assert.Contains(t, got, "\nstderr of files when read_text_file failed: Secure MCP Filesystem Server running on stdio waiting for client to provide roots\n")
	assert.NotContains(t, got, "a later failure", "the first failure's stderr only")
	assert.NotContains(t, got, "\x1b")
}

// The closing line says why cases are undecided: no judge ran and the
// checks were not sure, or the judge could not decide.
func TestFormatSummarySaysWhyCasesAreUndecided(t *testing.T) {
	s := eval.Summary{Model: "m", Total: 2, Passed: 1, Undecided: 1, Verdicts: eval.VerdictsByChecks}
	assert.Contains(t, FormatSummary(s, "out"), ", 1 undecided (no judge ran, and the checks were not sure)")
	s.Verdicts = eval.VerdictsByJudge
	assert.Contains(t, FormatSummary(s, "out"), ", 1 undecided (the judge could not decide)")
}

// The run's cost line names the judge's part of it.
func TestCostLineNamesTheJudgesPart(t *testing.T) {
	s := eval.Summary{CostUSD: 0.03, Judge: &eval.JudgeCost{Model: "j", Requests: 2, CostUSD: 0.02}}
	assert.Equal(t, "$0.0300 spent (the judge's $0.0200 included)", costLine(s))
	s.Judge = nil
	assert.Equal(t, "$0.0300 spent", costLine(s))
}

// The closing line's tokens and cache share are the run's, as
// summary.json's usage: it says when they include the judge's.
func TestSummaryLineSaysTheJudgesTokensAreIn(t *testing.T) {
	s := eval.Summary{Model: "m", Total: 1, Passed: 1, CostUSD: 0.03,
		Usage:  eval.Usage{TotalTokens: 1200, PromptTokens: 1000, CachedTokens: 500},
		Judge:  &eval.JudgeCost{Model: "j", Requests: 1, CostUSD: 0.01},
		Models: []eval.ModelResult{{Model: "m"}}}
	assert.Contains(t, FormatSummary(s, "out"), "; 1200 tokens (the judge's included) (50% of prompt tokens from the provider's prompt cache), $0.0300 spent (the judge's $0.0100 included)")
	s.Judge = nil
	assert.Contains(t, FormatSummary(s, "out"), "; 1200 tokens (50% of prompt tokens from the provider's prompt cache), $0.0300 spent,")
}

// A case that names a tool as server/tool sees its calls named so.
func TestFailureNamesTheServerOfACallWhenTheCaseDoes(t *testing.T) {
	calls := []eval.ToolCall{{Name: "get-sum", Server: "ev1", Arguments: `{"a":2}`}}
	r := eval.Record{Status: eval.Fail, Reason: "must_call ev2/get-sum: never called", ToolCalls: calls,
		Checks: []eval.CheckResult{{Check: "must_call ev2/get-sum", Detail: "never called"}}}
	assert.Contains(t, FormatFailure(r), "tools: ev1/get-sum({\"a\":2})")
	r.Checks[0].Check = "must_call get-sum"
	assert.Contains(t, FormatFailure(r), "tools: get-sum({\"a\":2})")
}

// What a closing line takes from a run directory (its id, its cases'
// names) is escaped: a run directory is untrusted. A replay whose
// unmatched calls went to the live servers does not say no server
// answered.
func TestReplayAndRejudgeLinesEscapeTheirSource(t *testing.T) {
	line := RejudgedLine(&eval.RejudgedInfo{Source: "run\x1b[2J", Gone: []string{"case\rX"}})
	assert.NotContains(t, line, "\x1b")
	assert.NotContains(t, line, "\r")
	assert.Contains(t, line, `run\x1b[2J`)

	r := &eval.ReplayInfo{Source: "id\x07", Recorded: 3, Unmatched: "live", Live: 2}
	line = replayLine(r)
	assert.NotContains(t, line, "\x07")
	assert.NotContains(t, line, "no server answered them")
	assert.Contains(t, line, "2 matched no recording and went to the live servers")
	r.Unmatched, r.Live = "", 0
	assert.Contains(t, replayLine(r), "no server answered them")
}

// With many arms the effects come first, and the pairwise lines are
// bounded, pointing to summary.json for the rest.
func TestManyArmsShowEffectsFirst(t *testing.T) {
	s := eval.Summary{Model: "a0", Total: 1}
	for i := range 37 {
		s.Models = append(s.Models, eval.ModelResult{Model: fmt.Sprintf("a%d", i), Runs: 1})
	}
	s.Arms = s.Models
	for i := range 666 {
		s.ModelPairs = append(s.ModelPairs, eval.ModelPair{A: fmt.Sprintf("x%d", i), B: "y", Cases: 1})
	}
	s.ArmEffects = []eval.ArmEffect{{Kind: "leave_one_out", From: "all", To: "all-minus-x", Hidden: "x", Cases: 1}}
	out := FormatSummary(s, "out")
	effect := strings.Index(out, "leaving x out of all")
	pair := strings.Index(out, "x0 vs y")
	require.Positive(t, effect)
	require.Positive(t, pair)
	assert.Less(t, effect, pair, "the effects first")
	assert.Equal(t, maxPairLines, strings.Count(out, " vs y on "))
	assert.Contains(t, out, "mcpeval: and 646 more pairs of arms (model_pairs in summary.json)")
	assert.Contains(t, out, "mcpeval: 37 arms (a0, a1, a2, a3, a4, a5, a6, … a36)")
}

// The failure paragraph of a conversation names the turn that failed and
// shows every turn, escaped as the rest is.
func TestFormatFailureShowsTheTurns(t *testing.T) {
	rec := eval.Record{Status: eval.Fail, Reason: "turn 2 of 3: deterministic check failed: number 31.835 ± 0.0005: absent", File: "cases.yaml", Line: 3,
		Response: "Still nothing.",
		Turns: []eval.TurnResult{
			{Turn: 1, User: "What is it?", Reply: "I could not find it.\x1b[2J", Status: eval.Pass},
			{Turn: 2, User: "It is on BRCA1.", Reply: "Still nothing.", Status: eval.Fail, Reason: "deterministic check failed: number 31.835 ± 0.0005: absent"},
			{Turn: 3, User: "And ClinVar?", Status: eval.NotRun},
		}}
	got := FormatFailure(rec)
	assert.True(t, strings.HasPrefix(got, "fail: turn 2 of 3: deterministic check failed: number 31.835 ± 0.0005: absent\n"), got)
	assert.Contains(t, got, "\nturn 1 of 3 pass: What is it? → I could not find it.\\x1b[2J\n"+
		"turn 2 of 3 fail: It is on BRCA1. → Still nothing. (deterministic check failed: number 31.835 ± 0.0005: absent)\n"+
		"turn 3 of 3 not_run: And ClinVar? (not sent)\n")
}

// A simulated user's conversation says so on its line, with the facts the
// user leaked; its requests have their own closing line, apart from the
// models' costs, and the run's leaks are named.
func TestSimulatedUserLines(t *testing.T) {
	rec := eval.Record{Status: eval.Pass, Reason: "all 3 deterministic checks hold", ToolCalls: []eval.ToolCall{{Name: "get"}}, Usage: eval.Usage{TotalTokens: 900}, Seconds: 1.25,
		Turns: []eval.TurnResult{{Turn: 1, User: "Which gene?", Reply: "TP53?"}, {Turn: 2, User: "hg38", Reply: "TP53.", Simulated: true, Leaks: []string{"GRCh38"}}}}
	assert.Equal(t, `pass: 1 tool call, 900 tokens, 1.2s, 2 turns with the simulated user: all 3 deterministic checks hold (leak at turn 2: the simulated user gave "GRCh38" unasked)`, FormatLine(rec))
	rec.Turns[1].Leaks = nil
	assert.Equal(t, "pass: 1 tool call, 900 tokens, 1.2s, 2 turns with the simulated user: all 3 deterministic checks hold", FormatLine(rec))
	rec.Turns = rec.Turns[:1]
	assert.Equal(t, "pass: 1 tool call, 900 tokens, 1.2s: all 3 deterministic checks hold", FormatLine(rec), "a user done at once")

	s := eval.Summary{Model: "m", Total: 1, Passed: 1, CostUSD: 0.03, Usage: eval.Usage{TotalTokens: 1200, Requests: 6},
		Judge: &eval.JudgeCost{Model: "j", Requests: 1, CostUSD: 0.01}, User: &eval.UserCost{Model: "u", Requests: 2, Retries: 1, CostUSD: 0.005},
		Leaks: []string{`"a" with m, turn 2: GRCh38`}}
	out := FormatSummary(s, "out")
	assert.Contains(t, out, "; 1200 tokens (the judge's and the simulated users' included), $0.0300 spent (the judge's $0.0100 and the simulated users' $0.0050 included),")
	assert.Contains(t, out, "\nmcpeval: simulated user u: 2 requests (1 retry), $0.0050 (not in the models' costs)\n")
	assert.Contains(t, out, "\nmcpeval: the simulated user gave a fact unasked (a leak: the agent was not tested on asking for it) in 1 turn: \"a\" with m, turn 2: GRCh38\n")
	s.Reference, s.User, s.Leaks = true, nil, nil
	assert.NotContains(t, FormatSummary(s, "out"), "simulated user")
}
