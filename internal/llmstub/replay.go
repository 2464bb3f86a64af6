package llmstub

import (
	"encoding/json"
	"strings"

	"github.com/mcpeval/mcpeval/internal/eval"
)

// JudgeTool is the tool name through which the suite's judge answers.
const JudgeTool = "submit_verdict"

// Replay answers like a correct agent: for a known question it makes the
// case's reference calls, one per turn, then answers with the text of the
// successful results; as judge it says yes to every non-empty answer.
// Unknown questions get "I do not know.".
func Replay(cases []eval.Case) Responder {
	byQuestion := map[string]eval.Case{}
	for _, c := range cases {
		byQuestion[c.Input] = c
	}
	return func(req Request) Reply {
		if req.ForcedTool() == JudgeTool {
			return Verdict("yes", "the answer contains the expected information")
		}
		c, ok := byQuestion[req.Question()]
		if !ok {
			return Reply{Content: "I do not know."}
		}
		var results []string
		for _, m := range req.Messages {
			if m.Role == "tool" {
				results = append(results, m.Content)
			}
		}
		if done := len(results); done < len(c.Reference) {
			ref := c.Reference[done]
			args, _ := json.Marshal(ref.Args)
			return Reply{ToolCalls: []Call{{Name: ref.Tool, Arguments: string(args)}}}
		}
		var answer []string
		for i, text := range results {
			if i < len(c.Reference) && !c.Reference[i].ExpectError {
				answer = append(answer, text)
			}
		}
		return Reply{Content: strings.Join(answer, "\n")}
	}
}

// Verdict is a judge reply through the submit_verdict tool.
func Verdict(verdict, reason string) Reply {
	args, _ := json.Marshal(map[string]string{"verdict": verdict, "reason": reason})
	return Reply{ToolCalls: []Call{{Name: JudgeTool, Arguments: string(args)}}}
}
