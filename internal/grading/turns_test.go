package grading

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/llm"
)

func TestCheckAsks(t *testing.T) {
	tests := []struct {
		name   string
		asks   eval.Spellings
		reply  string
		want   string // passed, failed or undecided
		detail string
	}{
		{"a question naming it", eval.Spellings{"transcript"}, "I found two variants. Which transcript do you mean?", "passed", ""},
		{"a question naming one of the spellings", eval.Spellings{"build", "assembly"}, "Is that on the GRCh37 assembly?", "passed", ""},
		{"whole words, any case", eval.Spellings{"build"}, "Which genome BUILD, hg19 or hg38?", "passed", ""},
		{"named only outside a question", eval.Spellings{"transcript"}, "Please tell me the transcript you mean.", "undecided",
			`named, but in no question, at "Please tell me the transcript you mean.": the reply may ask for it in other words`},
		{"a question about something else", eval.Spellings{"transcript"}, "The score is 8.103. Anything else?", "failed",
			`its questions name none of them, as "Anything else?"`},
		{"no question at all", eval.Spellings{"transcript"}, "The CADD phred score is 8.103.", "failed",
			`the reply asks nothing: no sentence of it ends in "?"`},
		{"only inside a longer word", eval.Spellings{"build"}, "Which rebuilding do you mean?", "failed",
			`its questions name none of them, as "Which rebuilding do you mean?"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckAsks(tt.asks, tt.reply)
			require.Len(t, got, 1)
			state := "failed"
			switch {
			case got[0].Passed:
				state = "passed"
			case got[0].Undecided:
				state = "undecided"
			}
			assert.Equal(t, tt.want, state)
			assert.Equal(t, tt.detail, got[0].Detail)
			assert.True(t, strings.HasPrefix(got[0].Check, "asks "), got[0].Check)
		})
	}
	assert.Nil(t, CheckAsks(nil, "Which transcript?"), "no asks, no check")
}

// conversation is a case of three turns: the input, a correction whose
// reply must state a score and ask for the build, and a last question.
func conversation() eval.Case {
	return eval.Case{
		Name: "corrected", Kind: eval.KindTool,
		Input:    "What is the CADD phred score of NM_000546.6:c.181T>G?",
		Expected: "ClinVar classifies it as Pathogenic.",
		Checks:   eval.Checks{Contains: eval.Terms{{Any: []string{"pathogenic"}}}},
		Tools:    eval.ToolExpect{MustCall: []string{"get_variant_dbnsfp"}, MaxCalls: 3},
		Turns: []eval.Turn{
			{
				User: "Sorry, the transcript is NM_007294.4.", ReplyExpect: eval.ReplyExpect{Expected: "Its CADD phred score is 31.835. Which build do you use?",
					Checks: eval.Checks{Numbers: []eval.NumberCheck{{Value: 31.835, Tolerance: 0.0005}}},
					Asks:   eval.Spellings{"build"},
					Tools:  eval.ToolExpect{MustCall: []string{"get_variant_dbnsfp"}}},
			},
			{User: "hg19. How does ClinVar classify it?", ReplyExpect: eval.ReplyExpect{Tools: eval.ToolExpect{MustCall: []string{"get_variant_clinvar"}}}},
		},
	}
}

func TestGradeTurn(t *testing.T) {
	dbnsfp := eval.ToolCall{Name: "get_variant_dbnsfp", Arguments: "{}"}
	clinvar := eval.ToolCall{Name: "get_variant_clinvar", Arguments: "{}"}
	tests := []struct {
		name   string
		k      int
		reply  string
		calls  []eval.ToolCall
		all    []eval.ToolCall
		status eval.Status
		reason string
		checks []string // each "check: passed|failed|undecided"
	}{
		{name: "the first turn expects nothing", k: 0, reply: "I could not find that variant.", status: eval.Pass, reason: NothingExpected},
		{
			name: "a turn whose reply states the value and asks", k: 1,
			reply: "Its CADD phred score is 31.835. Which build do you use?", calls: []eval.ToolCall{dbnsfp},
			status: eval.Pass, reason: "all 3 deterministic checks hold",
			checks: []string{"number 31.835 ± 0.0005: passed", `asks "build": passed`, "must_call get_variant_dbnsfp: passed"},
		},
		{
			name: "a turn whose reply gives another value", k: 1,
			reply: "Its CADD phred score is 8.103. Which build do you use?", calls: []eval.ToolCall{dbnsfp},
			status: eval.Fail,
			checks: []string{"number 31.835 ± 0.0005: failed", `asks "build": passed`, "must_call get_variant_dbnsfp: passed"},
		},
		{
			name: "a turn whose reply does not ask", k: 1,
			reply: "Its CADD phred score is 31.835.", calls: []eval.ToolCall{dbnsfp},
			status: eval.Fail, reason: `deterministic check failed: asks "build": the reply asks nothing: no sentence of it ends in "?"`,
			checks: []string{"number 31.835 ± 0.0005: passed", `asks "build": failed`, "must_call get_variant_dbnsfp: passed"},
		},
		{
			name: "a turn's tool expectations hold over its own calls", k: 1,
			reply: "Its CADD phred score is 31.835. Which build do you use?", calls: nil, all: []eval.ToolCall{dbnsfp},
			status: eval.Fail, reason: "deterministic check failed: must_call get_variant_dbnsfp: never called",
			checks: []string{"number 31.835 ± 0.0005: passed", `asks "build": passed`, "must_call get_variant_dbnsfp: failed"},
		},
		{
			name: "the final answer: the case's checks, its tools over every turn, the last turn's over its own", k: 2,
			reply: "ClinVar classifies it as Pathogenic.", calls: []eval.ToolCall{clinvar}, all: []eval.ToolCall{dbnsfp, clinvar},
			status: eval.Pass, reason: "all 4 deterministic checks hold",
			checks: []string{`contains "pathogenic": passed`, "turn 3: must_call get_variant_clinvar: passed", "must_call get_variant_dbnsfp: passed", "max_calls 3: passed"},
		},
		{
			name: "the last turn's own call missing", k: 2,
			reply: "ClinVar classifies it as Pathogenic.", calls: nil, all: []eval.ToolCall{dbnsfp, clinvar},
			status: eval.Fail, reason: "deterministic check failed: turn 3: must_call get_variant_clinvar: never called",
			checks: []string{`contains "pathogenic": passed`, "turn 3: must_call get_variant_clinvar: failed", "must_call get_variant_dbnsfp: passed", "max_calls 3: passed"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Grader{}.GradeTurn(context.Background(), conversation(), tt.k, nil, tt.reply, tt.calls, tt.all)
			require.NoError(t, err)
			assert.Equal(t, tt.status, d.Status, d.Reason)
			if tt.reason != "" {
				assert.Equal(t, tt.reason, d.Reason)
			}
			var checks []string
			for _, c := range d.Checks {
				if c.Check == "rest" { // the clause the checks account for: not this test's
					continue
				}
				state := "failed"
				switch {
				case c.Passed:
					state = "passed"
				case c.Undecided:
					state = "undecided"
				}
				checks = append(checks, c.Check+": "+state)
			}
			if len(tt.checks) > 0 {
				assert.Subset(t, checks, tt.checks)
			}
			assert.False(t, d.Judged, "no judge configured")
		})
	}
}

func TestGradeTurnWithoutExpectedReply(t *testing.T) {
	c := conversation()
	c.Turns = append([]eval.Turn{{User: "Look it up on BRCA1.", ReplyExpect: eval.ReplyExpect{Tools: eval.ToolExpect{MustNotCall: []string{"search_pubmed"}}}}, {User: "Thanks."}}, c.Turns...)
	d, err := Grader{}.GradeTurn(context.Background(), c, 1, nil, "anything", []eval.ToolCall{{Name: "search_pubmed"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, eval.Fail, d.Status)
	assert.Equal(t, "deterministic check failed: must_not_call search_pubmed: was called", d.Reason)
	d, err = Grader{}.GradeTurn(context.Background(), c, 1, nil, "anything", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, eval.Pass, d.Status)
	assert.Equal(t, "all 1 tool checks hold", d.Reason)
	d, err = Grader{}.GradeTurn(context.Background(), c, 2, nil, "", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, eval.Pass, d.Status)
	assert.Equal(t, NothingExpected, d.Reason, "a turn that expects nothing passes whatever the reply")
}

// The reply to the input is graded by the case's first_reply as a turn's
// reply is by the turn's; when the first turn is also the last (a
// simulated user done at once), the first reply's checks stand beside
// the final answer's, named as turn 1's.
func TestGradeFirstReply(t *testing.T) {
	gene := eval.ToolCall{Name: "get_gene_by_position", Arguments: "{}"}
	first := &eval.ReplyExpect{Expected: "Which genome build are the coordinates on: GRCh37 or GRCh38?",
		Asks: eval.Spellings{"build", "GRCh*"}, Tools: eval.ToolExpect{MustNotCall: []string{"get_gene_by_position"}}}
	scripted := eval.Case{Name: "gene", Kind: eval.KindTool, Input: "Which gene is at chr17:7675088?", Expected: "TP53.",
		Checks: eval.Checks{Contains: eval.Terms{{Any: []string{"TP53"}}}}, FirstReply: first,
		Turns: []eval.Turn{{User: "GRCh38."}}}
	simulated := scripted
	simulated.Turns, simulated.User = nil, &eval.User{Instructions: "A geneticist."}
	tests := []struct {
		name   string
		c      eval.Case
		k      int
		reply  string
		calls  []eval.ToolCall
		status eval.Status
		reason string
	}{
		{"a first reply that asks", scripted, 0, "Which genome build are the coordinates on?", nil, eval.Pass, "all 2 deterministic checks hold"},
		{"a first reply that answers at once", scripted, 0, "It is TP53.", []eval.ToolCall{gene}, eval.Fail,
			`deterministic check failed: asks "build" or "GRCh*": the reply asks nothing: no sentence of it ends in "?"; must_not_call get_gene_by_position: was called`},
		{"a first reply that asks about something else", scripted, 0, "Which patient is it?", nil, eval.Fail,
			`deterministic check failed: asks "build" or "GRCh*": its questions name none of them, as "Which patient is it?"`},
		{"the final answer after it", scripted, 1, "It is TP53.", []eval.ToolCall{gene}, eval.Pass, "all 1 deterministic checks hold"},
		{"a simulated user done at the first reply, which answered", simulated, 0, "It is TP53.", []eval.ToolCall{gene}, eval.Fail,
			`deterministic check failed: turn 1: asks "build" or "GRCh*": the reply asks nothing: no sentence of it ends in "?"; turn 1: must_not_call get_gene_by_position: was called`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Grader{}.GradeTurn(context.Background(), tt.c, tt.k, nil, tt.reply, tt.calls, tt.calls)
			require.NoError(t, err)
			assert.Equal(t, tt.status, d.Status, d.Reason)
			assert.Equal(t, tt.reason, d.Reason)
		})
	}
	without := scripted
	without.FirstReply = nil
	d, err := Grader{}.GradeTurn(context.Background(), without, 0, nil, "It is TP53.", []eval.ToolCall{gene}, nil)
	require.NoError(t, err)
	assert.Equal(t, eval.Pass, d.Status)
	assert.Equal(t, NothingExpected, d.Reason, "without first_reply the first reply expects nothing")
}

// A judge of a reply in a conversation sees the turns before it, and may
// take values from them: a reason that cites the first reply's score is no
// misfit.
func TestJudgeSeesTheWholeExchange(t *testing.T) {
	args, _ := json.Marshal(map[string]any{"verdict": "yes", "reason": "it corrects 8.103 to 31.835 and gives ClinVar's Pathogenic",
		"quote": "Pathogenic", "answer_is_correct": true})
	chat := &script{turns: []llm.Response{{
		Message:  eval.Message{Role: "assistant", ToolCalls: []eval.MessageToolCall{{ID: "1", Type: "function", Function: eval.FunctionCall{Name: verdictTool, Arguments: string(args)}}}},
		HasUsage: true,
	}}}
	c := conversation()
	c.Checks = eval.Checks{}
	earlier := []eval.TurnResult{
		{Turn: 1, User: c.Input, Reply: "Its CADD phred score is 8.103."},
		{Turn: 2, User: c.Turns[0].User, Reply: "Its CADD phred score is 31.835. Which build do you use?"},
	}
	g := Grader{Panel: Panel{Models: []string{"judge"}}, Chat: chat, Config: agent.Config{Model: "judge"}}
	clinvar := eval.ToolCall{Name: "get_variant_clinvar", Arguments: "{}"}
	all := []eval.ToolCall{{Name: "get_variant_dbnsfp", Arguments: "{}"}, clinvar}
	d, err := g.GradeTurn(context.Background(), c, 2, earlier, "ClinVar classifies it as Pathogenic.", all[1:], all)
	require.NoError(t, err)
	assert.Equal(t, eval.Pass, d.Status, d.Reason)
	require.Len(t, chat.got, 1)
	user := chat.got[0].Messages[1].Content
	assert.Contains(t, user, conversationNote)
	var fields struct {
		Question string              `json:"question"`
		Earlier  []map[string]string `json:"earlier_turns"`
		Answer   string              `json:"actual_answer"`
	}
	require.NoError(t, json.Unmarshal([]byte(user[strings.Index(user, "{"):]), &fields))
	assert.Equal(t, c.Turns[1].User, fields.Question, "the question is the last user message")
	assert.Equal(t, []map[string]string{
		{"user": c.Input, "assistant": "Its CADD phred score is 8.103."},
		{"user": c.Turns[0].User, "assistant": "Its CADD phred score is 31.835. Which build do you use?"},
	}, fields.Earlier)
	assert.Equal(t, "ClinVar classifies it as Pathogenic.", fields.Answer)

	// A single answer's judge is told nothing of conversations.
	assert.NotContains(t, judgeInput(nil, "q", "e", "a"), earlierKey)
	assert.NotContains(t, judgeInput(nil, "q", "e", "a"), conversationNote)
}
