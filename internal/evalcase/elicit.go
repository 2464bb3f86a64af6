package evalcase

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// The user's replies to the servers' requests for input (MCP elicitation)
// are scripted per case: a reply with a field answers every request that
// asks for that field; the others answer, in order, the requests no reply
// by field answers. A request nothing answers is declined, and recorded as
// unscripted.

// Replies returns the replier of a case's script: for a request's message
// and the fields it asks for, the scripted action and content, and
// whether the script answers it. Replies is safe for concurrent use; nil
// for a case that scripts nothing.
func Replies(script []eval.ElicitReply) func(message string, fields []string) (string, map[string]any, bool) {
	if len(script) == 0 {
		return nil
	}
	var mu sync.Mutex
	next := 0 // the next reply in order (one without a field)
	return func(_ string, fields []string) (string, map[string]any, bool) {
		for _, r := range script {
			if r.Field != "" && slices.Contains(fields, r.Field) {
				return action(r), r.Content, true
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for ; next < len(script); next++ {
			if r := script[next]; r.Field == "" {
				next++
				return action(r), r.Content, true
			}
		}
		return "", nil, false
	}
}

// action is a reply's action: accept when it gives content and no action.
func action(r eval.ElicitReply) string {
	if r.Action == "" {
		return eval.ElicitAccept
	}
	return r.Action
}

var elicitActions = []string{eval.ElicitAccept, eval.ElicitDecline, eval.ElicitCancel}

// validateElicitation refuses replies without an action, with an unknown
// one, with content that is not accepted, or with an empty field, and
// expectations that name no tool or an unknown action.
func validateElicitation(c *eval.Case) error {
	for i, r := range c.Elicitation {
		switch {
		case r.Action == "" && r.Content == nil:
			return &fieldError{path: []string{"elicitation"}, err: fmt.Errorf("%s: elicitation[%d]: give an action (%s) or the content to accept", label(c), i, strings.Join(elicitActions, ", "))}
		case r.Action != "" && !slices.Contains(elicitActions, r.Action):
			return &fieldError{path: []string{"elicitation"}, err: fmt.Errorf("%s: elicitation[%d]: action must be %s, not %q", label(c), i, strings.Join(elicitActions, ", "), r.Action)}
		case r.Content != nil && action(r) != eval.ElicitAccept:
			return &fieldError{path: []string{"elicitation"}, err: fmt.Errorf("%s: elicitation[%d]: content goes with action accept, not %s", label(c), i, r.Action)}
		case strings.TrimSpace(r.Field) == "" && r.Field != "":
			return &fieldError{path: []string{"elicitation"}, err: fmt.Errorf("%s: elicitation[%d]: field is empty", label(c), i)}
		}
		if err := jsonArgs(r.Content); err != nil {
			return &fieldError{path: []string{"elicitation"}, err: fmt.Errorf("%s: elicitation[%d]: content %w", label(c), i, err)}
		}
	}
	for i, e := range c.Tools.Elicited {
		switch {
		case strings.TrimSpace(e.Tool) == "":
			return &fieldError{path: []string{"tools", "elicited"}, err: fmt.Errorf("%s: tools.elicited[%d] has no tool", label(c), i)}
		case e.Action != "" && !slices.Contains(elicitActions, e.Action):
			return &fieldError{path: []string{"tools", "elicited"}, err: fmt.Errorf("%s: tools.elicited[%d]: action must be %s, not %q", label(c), i, strings.Join(elicitActions, ", "), e.Action)}
		}
	}
	return nil
}
