package grading

import (
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// checkElicited holds when some call of the tool met an elicitation that
// got the reply asked for (any reply when no action is given).
func checkElicited(calls []eval.ToolCall, e eval.Elicited) eval.CheckResult {
	name := "elicited " + e.Tool
	if e.Action != "" {
		name += " " + e.Action
	}
	var got []string
	for _, call := range calls {
		if !call.Is(e.Tool) || call.NotRun {
			continue
		}
		for _, el := range call.Elicitations {
			if e.Action == "" || el.Action == e.Action {
				return check(name, true, "")
			}
			got = append(got, el.Action)
		}
	}
	if len(got) == 0 {
		return check(name, false, "no elicitation")
	}
	return check(name, false, "the elicitations got "+strings.Join(got, ", "))
}

// checkRead holds when the model read a resource of the URI (a final "*"
// matches any rest) through eval.ReadResourceTool.
func checkRead(calls []eval.ToolCall, uri string) eval.CheckResult {
	for _, call := range calls {
		if call.Name == eval.ReadResourceTool && !call.IsError && uriMatches(uri, call.Resource) {
			return check("must_read "+uri, true, "")
		}
	}
	return check("must_read "+uri, false, "never read")
}

func uriMatches(pattern, uri string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(uri, prefix)
	}
	return pattern == uri
}
