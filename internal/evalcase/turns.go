package evalcase

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// A case's turns (eval.Turn) are the user's later messages of a
// conversation its input begins. Each is checked where it stands in the
// file: a turn's problems are reported at the turn's own line, or at the
// line of the field at fault.

// validateTurns refuses turns that cannot be sent or graded: a code case
// with turns, a turn without a message, asks without a subject, checks
// without the expected reply they are proved on, a last turn that grades
// its reply (the case's own expected, checks or claims grade the final
// answer), and checks, tools and reference calls that a case's own would
// be refused for. body is the case's mapping node.
func validateTurns(path string, body *yaml.Node, c *eval.Case) error {
	if len(c.Turns) == 0 {
		return nil
	}
	list := valueOf(body, "turns")
	at := func(k int, field string) int {
		line := fieldLine(body, c.Line, "turns")
		if list == nil || list.Kind != yaml.SequenceNode || k >= len(list.Content) {
			return line
		}
		item := resolve(list.Content[k])
		if field == "" {
			return item.Line
		}
		return fieldLine(item, item.Line, field)
	}
	fail := func(k int, field, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s: turns[%d] (turn %d of %d): %s", path, at(k, field), label(c), k, k+2, len(c.Turns)+1, fmt.Sprintf(format, args...))
	}
	if c.Kind == eval.KindCode {
		return fmt.Errorf("%s:%d: %s: turns: a code case is one question answered with code; it has no turns", path, fieldLine(body, c.Line, "turns"), label(c))
	}
	for k, t := range c.Turns {
		last := k == len(c.Turns)-1
		item := (*yaml.Node)(nil)
		if list != nil && list.Kind == yaml.SequenceNode && k < len(list.Content) {
			item = resolve(list.Content[k])
		}
		switch {
		case strings.TrimSpace(t.User) == "":
			return fail(k, "user", "the user's message (user:) is empty")
		case item != nil && hasKey(item, "asks") && emptySpellings(t.Asks):
			return fail(k, "asks", "asks: name what the agent's clarifying question must be about: a word or phrase its question names, or a list of them")
		case last && strings.TrimSpace(t.Expected) != "":
			return fail(k, "expected", "the reply to the last turn is the final answer: give its expected answer as the case's expected, not the turn's")
		case last && checksAnything(t.Checks):
			return fail(k, "checks", "the reply to the last turn is the final answer: check it with the case's own checks, not the turn's")
		case last && len(t.Asks) > 0:
			return fail(k, "asks", "the reply to the last turn is the final answer, not a question: ask for a clarifying question at an earlier turn")
		case (checksAnything(t.Checks) || len(t.Asks) > 0) && strings.TrimSpace(t.Expected) == "":
			return fail(k, "", "checks and asks need the turn's expected reply (expected:), the reply a correct agent gives: the reference run proves the checks accept it, and a judge grades against it")
		}
		if err := validateChecks(t.Checks, "checks"); err != nil {
			return fail(k, "checks", "%v", err)
		}
		if err := validateTools(t.Tools, "tools"); err != nil {
			return fail(k, "tools", "%v", err)
		}
		if err := validateReference(t.Reference, "reference"); err != nil {
			return fail(k, "reference", "%v", err)
		}
	}
	return nil
}

// checksAnything reports whether checks check anything.
func checksAnything(ch eval.Checks) bool {
	return len(ch.Contains)+len(ch.NotContains)+len(ch.Regexp)+len(ch.NotRegexp)+len(ch.Numbers) > 0
}

// emptySpellings reports whether spellings name nothing: none, or one
// that is blank.
func emptySpellings(sp eval.Spellings) bool {
	if len(sp) == 0 {
		return true
	}
	for _, s := range sp {
		if strings.TrimSpace(s) == "" {
			return true
		}
	}
	return false
}
