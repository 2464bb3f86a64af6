package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Reference runs a case's reference trajectory on the real servers, without
// a model: each reference call is executed in order, and the answer is the
// case's own expected answer (its claims, one a line, for a case graded by
// claims), so that the case's checks show they accept a right answer; the
// text of the results that were not errors is kept in Results, to tell
// which facts of that answer the server still gives. A call marked
// expect_error that succeeds, or an unmarked call that fails, makes the run
// fail (returned as Incomplete) since the reference no longer matches the
// server.
func Reference(ctx context.Context, tools ToolBox, cfg Config, c eval.Case) *Transcript {
	tr := &Transcript{Conversation: []eval.Message{{Role: "user", Content: c.Input}}}
	if len(c.Reference) == 0 {
		tr.Incomplete = "the case has no reference trajectory"
		return tr
	}
	var answers, problems []string
	l := newLinks(cfg.FollowLinks)
	for i, ref := range c.Reference {
		call := eval.MessageToolCall{ID: fmt.Sprintf("ref_%d", i+1), Type: "function",
			Function: eval.FunctionCall{Name: ref.Tool, Arguments: eval.ArgumentsJSON(ref.Args)}}
		tr.Conversation = append(tr.Conversation, eval.Message{Role: "assistant", ToolCalls: []eval.MessageToolCall{call}})
		rec, err := execute(ctx, tools, l, call)
		exact := measure(cfg, &rec)
		if err != nil {
			tr.reply(call, rec)
			tr.Fault = err
			return tr
		}
		if tr.stopAtLimit(cfg, call, rec, exact) {
			return tr
		}
		tr.reply(call, rec)
		switch {
		case ref.ExpectError && !rec.IsError:
			problems = append(problems, fmt.Sprintf("reference call %d (%s) was expected to fail but succeeded", i+1, ref.Tool))
		case !ref.ExpectError && rec.IsError:
			problems = append(problems, fmt.Sprintf("reference call %d (%s) failed: %s", i+1, ref.Tool, truncate(rec.Result, 300)))
		case !rec.IsError:
			answers = append(answers, rec.Result)
		}
	}
	tr.Results = answers
	tr.Answer = c.ReferenceAnswer()
	tr.Conversation = append(tr.Conversation, eval.Message{Role: "assistant", Content: tr.Answer})
	if len(problems) > 0 {
		tr.Incomplete = strings.Join(problems, "; ")
	}
	return tr
}
