package suite_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// conversationCases are cases of three turns about NUTM2G on the bundled
// server; each first question names what its stub model does (see
// conversationModel).
const conversationCases = `
- case:
    name: "%s"
    category: "Gene and Variant Utilities"
    input: "%s"
    expected: "NUTM2G's Entrez id is 441457."
    checks: {contains: ["441457"]}
    tools: {must_call: [get_gene_by_symbol]}
    turns:
      - user: "Which build should I use?"
        expected: "Which build do you use, hg19 or hg38?"
        asks: [build]
      - user: "hg19. And its Entrez id?"
        tools: {must_call: [get_gene_by_symbol]}
`

// conversationModel answers each turn (from 1) as the first question of its
// conversation says, a line a turn ("2: ask" asks for the build at turn
// 2), and otherwise: at turn 1 it calls get_gene_by_symbol, at turn 2 it
// asks which build, at turn 3 it calls get_gene_by_symbol unless it did
// before, then gives the id. As judge it says no to a reply holding
// "wrong", yes to any other.
func conversationModel(req llmstub.Request) llmstub.Reply {
	if g, ok := req.Graded(); ok {
		if strings.Contains(g.Answer, "wrong") {
			return llmstub.Verdict("no", "the reply is wrong")
		}
		return llmstub.Verdict("yes", "the reply is right")
	}
	turn := req.Turn()
	called := 0
	for _, m := range req.Messages[lastUser(req.Messages):] {
		if m.Role == "tool" {
			called++
		}
	}
	lookup := llmstub.Reply{ToolCalls: []llmstub.Call{{Name: "get_gene_by_symbol", Arguments: `{"gene_symbol":"NUTM2G"}`}}}
	for _, line := range strings.Split(req.Question(), ";") {
		at, do, _ := strings.Cut(strings.TrimSpace(line), ": ")
		if at != string(rune('0'+turn)) {
			continue
		}
		switch do {
		case "refuse":
			return llmstub.Reply{Status: 400, Body: `{"error":{"message":"the request was refused"}}`}
		case "loop":
			return lookup
		case "wrong":
			return llmstub.Reply{Content: "This is wrong: which build?"}
		case "tell":
			return llmstub.Reply{Content: "Please tell me the build you use."}
		case "answer":
			if called == 0 {
				return llmstub.Reply{Content: "NUTM2G's Entrez id is 441457."}
			}
		}
	}
	switch {
	case turn == 2:
		return llmstub.Reply{Content: "Which build do you use, hg19 or hg38?"}
	case called == 0:
		return lookup
	}
	return llmstub.Reply{Content: "NUTM2G's Entrez id is 441457."}
}

// lastUser is the index of the last user message.
func lastUser(msgs []eval.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return i
		}
	}
	return 0
}

// Each way a conversation ends, in one run: the record's status, its
// reason naming the turn, and which turns were sent.
func TestConversationOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		script   string // what the model does, turn by turn (see conversationModel)
		judge    bool
		status   eval.Status
		reason   string // a prefix of the record's reason
		statuses []eval.Status
	}{
		{name: "every turn holds", script: "0: none", status: eval.Pass,
			statuses: []eval.Status{eval.Pass, eval.Pass, eval.Pass}},
		{name: "a turn the checks cannot decide, without a judge", script: "2: tell", status: eval.Undecided,
			reason:   `turn 2 of 3: the deterministic checks could not decide: asks "build": named, but in no question`,
			statuses: []eval.Status{eval.Pass, eval.Undecided, eval.Pass}},
		{name: "a provider error at a turn", script: "2: refuse", status: eval.Error, reason: "turn 2 of 3: ",
			statuses: []eval.Status{eval.Pass, eval.Error, eval.NotRun}},
		{name: "no final answer at the last turn", script: "3: loop", status: eval.Fail,
			reason:   "turn 3 of 3: no final answer after 3 iterations",
			statuses: []eval.Status{eval.Pass, eval.Pass, eval.Fail}},
		{name: "the last turn's own call missing", script: "3: answer", status: eval.Fail,
			reason:   "turn 3 of 3: deterministic check failed: turn 3: must_call get_gene_by_symbol: never called",
			statuses: []eval.Status{eval.Pass, eval.Pass, eval.Fail}},
		{name: "the judge says no at a turn", script: "2: wrong", judge: true, status: eval.Fail,
			reason:   "turn 2 of 3: the reply is wrong",
			statuses: []eval.Status{eval.Pass, eval.Fail, eval.NotRun}},
		{name: "the judge sees every reply", script: "0: none", judge: true, status: eval.Pass,
			statuses: []eval.Status{eval.Pass, eval.Pass, eval.Pass}},
	}
	stub := llmstub.Start(conversationModel, llmstub.Options{})
	defer stub.Close()
	for _, judge := range []bool{false, true} {
		var cases strings.Builder
		for _, tt := range tests {
			if tt.judge == judge {
				cases.WriteString(strings.ReplaceAll(strings.Replace(conversationCases, "%s", tt.name, 1), "%s", tt.script))
			}
		}
		e := withEnv(stubEnv(stub), env{"EVAL_MAX_ITERATIONS": "3", "EVAL_MAX_RETRIES": "0"})
		if !judge {
			e["EVAL_JUDGE_MODEL"] = "none"
		}
		r := runSuite(t, t.TempDir(), cases.String(), e)
		for _, tt := range tests {
			if tt.judge != judge {
				continue
			}
			t.Run(tt.name, func(t *testing.T) {
				rec, ok := r.records[tt.name]
				require.True(t, ok, "no record: %s", r.output)
				assert.Equal(t, tt.status, rec.Status, rec.Reason)
				assert.True(t, strings.HasPrefix(rec.Reason, tt.reason), "reason %q, want it to begin %q", rec.Reason, tt.reason)
				require.Len(t, rec.Turns, 3)
				var statuses []eval.Status
				for i, turn := range rec.Turns {
					statuses = append(statuses, turn.Status)
					assert.Equal(t, i+1, turn.Turn)
					if turn.Status == eval.NotRun {
						assert.Empty(t, turn.Reply, "a turn not sent has no reply")
					}
				}
				assert.Equal(t, tt.statuses, statuses)
				if judge && tt.status == eval.Pass {
					assert.Equal(t, "yes", rec.Turns[1].Verdict, "the judge decided turn 2")
					require.NotNil(t, rec.JudgeUsage)
					assert.Equal(t, 2, rec.JudgeUsage.Requests, "turn 2's judge and the final answer's")
					assert.Contains(t, rec.JudgePrompt, `"earlier_turns"`)
				}
			})
		}
	}
}
