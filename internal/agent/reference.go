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
	if len(c.Reference) == 0 {
		return &Transcript{Conversation: []eval.Message{{Role: "user", Content: c.Input}}, Incomplete: "the case has no reference trajectory"}
	}
	return ReferenceTurn(ctx, tools, cfg, nil, c.Input, c.Reference, c.ReferenceAnswer())
}

// NoReplyExpected is the reply of a reference run at a turn whose case
// expects no particular reply and whose reference calls returned nothing.
const NoReplyExpected = "(the reference run expects no particular reply at this turn)"

// ReferenceTurn runs one turn of a conversation as Reference runs a case:
// the user's message, the turn's reference calls in order, then answer, or
// where the case expects no particular reply ("") the text of the turn's
// results that were not errors (NoReplyExpected without any). tr is the
// conversation so far, nil at its first turn; the transcript returned
// holds it, with Results grown by the turn's, and Incomplete and Fault
// saying how this turn went.
func ReferenceTurn(ctx context.Context, tools ToolBox, cfg Config, tr *Transcript, user string, refs []eval.RefCall, answer string) *Transcript {
	if tr == nil {
		tr = &Transcript{}
	}
	tr.start(cfg)
	tr.Conversation = append(tr.Conversation, eval.Message{Role: "user", Content: user})
	var results, problems []string
	l := tr.links
	for i, ref := range refs {
		call := eval.MessageToolCall{ID: fmt.Sprintf("ref_%d", len(tr.ToolCalls)+1), Type: "function",
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
			results = append(results, rec.Result)
		}
	}
	tr.Results = append(tr.Results, results...)
	switch {
	case strings.TrimSpace(answer) != "":
		tr.Answer = answer
	case len(results) > 0:
		tr.Answer = strings.Join(results, "\n")
	default:
		tr.Answer = NoReplyExpected
	}
	tr.Conversation = append(tr.Conversation, eval.Message{Role: "assistant", Content: tr.Answer})
	if len(problems) > 0 {
		tr.Incomplete = strings.Join(problems, "; ")
	}
	return tr
}
