package evalcase

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/suggest"
	"github.com/mcpeval/mcpeval/internal/usersim"
)

// A case's simulated user (eval.User) is checked where it stands in the
// file, as its turns are: a problem is reported at the line of the field
// at fault, or of the fact it is in.

// validateUser refuses a simulated user that cannot be played or judged:
// one beside scripted turns (a conversation's later messages come from
// one or the other), of a code case, without instructions, with a fact
// that is empty, names no word that asks for it, or that the case's input
// already gives, with another stop rule than user or answer, or with a
// bound of turns that leaves no room for a reply or is beyond
// eval.MaxTurns. body is the case's mapping node.
func validateUser(path string, body *yaml.Node, c *eval.Case) error {
	node := valueOf(body, "user")
	if node == nil {
		return nil
	}
	line := func(field ...string) int { return fieldLine(body, c.Line, append([]string{"user"}, field...)...) }
	fail := func(at int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s: user: %s", path, at, label(c), fmt.Sprintf(format, args...))
	}
	switch {
	case len(c.Turns) > 0 || hasKey(body, "turns"):
		return fmt.Errorf("%s:%d: %s: user and turns: the user's later messages come either from turns (written out) or from user (a model plays the user), not both: keep one", path, fieldLine(body, c.Line, "turns"), label(c))
	case c.Kind == eval.KindCode:
		return fail(line(), "a code case is one question answered with code; it has no simulated user")
	case c.User == nil || node.Kind != yaml.MappingNode:
		return fail(line(), "give the user as a map: instructions (who they are, what they want), knows, stop, max_turns")
	}
	u := c.User
	if strings.TrimSpace(u.Instructions) == "" {
		return fail(line("instructions"), "instructions are empty: say who the user is and what they want, for the model that plays them")
	}
	if u.Stop != "" && u.Stop != eval.StopUser && u.Stop != eval.StopAnswer {
		hint := ""
		if near, ok := suggest.Closest(u.Stop, []string{eval.StopUser, eval.StopAnswer}); ok {
			hint = " (did you mean " + near + "?)"
		}
		return fail(line("stop"), "stop must be %q (the user says when they are done) or %q (the first reply that asks nothing ends it), not %q%s", eval.StopUser, eval.StopAnswer, u.Stop, hint)
	}
	switch {
	case hasKey(node, "max_turns") && u.MaxTurns < 2:
		return fail(line("max_turns"), "max_turns %d leaves no turn for the user to answer the agent: give 2 or more (the input is the first; default %d)", u.MaxTurns, eval.DefaultMaxTurns)
	case u.MaxTurns > eval.MaxTurns:
		return fail(line("max_turns"), "max_turns %d is more than %d turns", u.MaxTurns, eval.MaxTurns)
	}
	knows := valueOf(node, "knows")
	factLine := func(k int, field string) int {
		if knows == nil || knows.Kind != yaml.SequenceNode || k >= len(knows.Content) {
			return line("knows")
		}
		item := resolve(knows.Content[k])
		return fieldLine(item, item.Line, field)
	}
	for k, f := range u.Knows {
		switch {
		case strings.TrimSpace(f.Fact) == "":
			return fail(factLine(k, "fact"), "knows[%d]: the fact is empty: give what the user knows, in their words", k)
		case emptySpellings(f.When):
			return fail(factLine(k, "when"), "knows[%d]: when: name the words of the agent's message that ask for this fact (a word, or a list of them): a reply that gives it to a message naming none of them is a leak", k)
		case f.Any != nil && emptySpellings(f.Any):
			return fail(factLine(k, "any"), "knows[%d]: any: a spelling is empty", k)
		case usersim.States(f, c.Input):
			return fail(factLine(k, "fact"), "knows[%d]: the case's input already gives %q: a fact the user gives only when asked must not be in their first message", k, strings.Join(slices.DeleteFunc(slices.Clone(f.Spellings()), func(s string) bool { return !usersim.Mentions(c.Input, []string{s}) }), ", "))
		}
	}
	return nil
}
