package evalcase

import (
	"fmt"
	"reflect"
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
		case last && strings.TrimSpace(t.Expected) != "":
			return fail(k, "expected", "the reply to the last turn is the final answer: give its expected answer as the case's expected, not the turn's")
		case last && checksAnything(t.Checks):
			return fail(k, "checks", "the reply to the last turn is the final answer: check it with the case's own checks, not the turn's")
		case last && len(t.Asks) > 0:
			return fail(k, "asks", "the reply to the last turn is the final answer, not a question: ask for a clarifying question at an earlier turn")
		}
		if field, err := validateReply(t.ReplyExpect, item, "turn's"); err != nil {
			return fail(k, field, "%v", err)
		}
		if err := validateReference(t.Reference, "reference"); err != nil {
			return fail(k, "reference", "%v", err)
		}
	}
	return nil
}

// validateReply refuses what a reply before the final answer cannot be
// graded by (see eval.ReplyExpect): asks without a subject, checks or
// asks without the expected reply they are proved on, checks and tools
// that a case's own would be refused for. node is the reply's mapping
// node (nil when not known), whose is "turn's" or "first reply's" in the
// message; the field returned is the one at fault ("" for the reply
// itself).
func validateReply(r eval.ReplyExpect, node *yaml.Node, whose string) (string, error) {
	switch {
	case node != nil && hasKey(node, "asks") && emptySpellings(r.Asks):
		return "asks", fmt.Errorf("asks: name what the agent's clarifying question must be about: a word or phrase its question names, or a list of them")
	case (checksAnything(r.Checks) || len(r.Asks) > 0) && !r.Graded():
		return "", fmt.Errorf("checks and asks need the %s expected reply (expected:), the reply a correct agent gives: the reference run proves the checks accept it, and a judge grades against it", whose)
	}
	if err := validateChecks(r.Checks, "checks"); err != nil {
		return "checks", err
	}
	if err := validateTools(r.Tools, "tools"); err != nil {
		return "tools", err
	}
	return "", nil
}

// validateFirstReply refuses a first_reply (eval.Case.FirstReply) that
// cannot be graded: one of a case that is no conversation (its reply to
// the input is the final answer, which the case's own expectations
// grade), one that expects nothing, and what validateReply refuses. body
// is the case's mapping node.
func validateFirstReply(path string, body *yaml.Node, c *eval.Case) error {
	node := valueOf(body, "first_reply")
	if node == nil {
		return nil
	}
	fail := func(field, format string, args ...any) error {
		at := fieldLine(body, c.Line, "first_reply")
		if field != "" {
			at = fieldLine(node, at, field)
		}
		return fmt.Errorf("%s:%d: %s: first_reply: %s", path, at, label(c), fmt.Sprintf(format, args...))
	}
	r := c.FirstReply
	switch {
	case c.Kind == eval.KindCode:
		return fail("", "a code case is one question answered with code; it has no first reply before its answer")
	case len(c.Turns) == 0 && c.User == nil:
		return fail("", "the reply to the input of a case without turns: or user: is its final answer: check it with the case's own expected, checks and tools, or add the user's later messages (turns:) or a simulated user (user:)")
	case r == nil || node.Kind != yaml.MappingNode:
		return fail("", "give the first reply as a map: expected (the reply a correct agent gives), asks, checks, tools")
	case !r.Graded() && len(r.Asks) == 0 && !checksAnything(r.Checks) && reflect.ValueOf(r.Tools).IsZero() && !hasKey(node, "asks"):
		return fail("", "it expects nothing of the reply: give expected with asks (a clarifying question the agent must put), checks, or tools (expectations on its calls at this turn)")
	}
	if field, err := validateReply(*r, node, "first reply's"); err != nil {
		return fail(field, "%v", err)
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
