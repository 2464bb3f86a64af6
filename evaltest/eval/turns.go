package eval

import (
	"fmt"
	"strings"

	"github.com/mcpeval/mcpeval/internal/prose"
)

// Turn is one more message of the user in a case's conversation: the
// case's Input is the first, each Turn a later one. The agent answers each
// with a full loop of its own (tool calls included), the conversation
// carrying over; its reply at the turn is graded as it comes, and a turn
// that fails ends the conversation there. The reply to the last turn is
// the final answer, graded against the case's own Expected, Checks or
// Claims.
type Turn struct {
	// User is the user's message.
	User string `yaml:"user" json:"user"`
	// ReplyExpect is what the agent's reply to User must do; the last
	// turn has no Expected, Checks or Asks (its reply is the final
	// answer).
	ReplyExpect `yaml:",inline"`
	// Reference is what a correct agent calls at this turn, in order (the
	// case's own Reference is what it calls at the first).
	Reference []RefCall `yaml:"reference" json:"reference,omitempty"`
}

// ReplyExpect is what the agent's reply at one turn of a conversation
// must do, before its final answer: a turn's (see Turn), or the reply to
// the case's Input (Case.FirstReply). A reply with an expected reply is
// graded as an answer is, by its checks and asks, its tool expectations
// on its own calls, then by the judges against Expected; one without, by
// its tool expectations alone.
type ReplyExpect struct {
	// Expected is the reply a correct agent gives at this turn: the
	// reference run and the stub model give it, and the judge grades the
	// reply against it. A reply checked (Checks, Asks) needs it.
	Expected string `yaml:"expected" json:"expected,omitempty"`
	// Checks are the deterministic checks of the reply at this turn, read
	// as a final answer's are.
	Checks Checks `yaml:"checks" json:"checks,omitzero"`
	// Asks says that the reply must ask the user something: a question (a
	// sentence ending in "?") that names one of these spellings.
	Asks Spellings `yaml:"asks" json:"asks,omitempty"`
	// Tools are expectations on the tool calls made at this turn alone
	// (the case's own Tools hold over every turn's calls).
	Tools ToolExpect `yaml:"tools" json:"tools,omitzero"`
}

// Graded reports whether the reply is graded as an answer: it has an
// expected reply (which checks and asks need).
func (r ReplyExpect) Graded() bool { return strings.TrimSpace(r.Expected) != "" }

// ReplyAt returns what the agent's reply at turn k (from 0: the reply to
// the input) must do before the final answer: the case's FirstReply at
// the first turn, a turn's own at a later one; ok is false where nothing
// is given (no FirstReply, past the turns).
func (c Case) ReplyAt(k int) (r ReplyExpect, ok bool) {
	switch {
	case k == 0 && c.FirstReply != nil:
		return *c.FirstReply, true
	case k > 0 && k <= len(c.Turns):
		return c.Turns[k-1].ReplyExpect, true
	}
	return ReplyExpect{}, false
}

// UserMessages returns the user's messages of the case, in order: its
// input, then each turn's.
func (c Case) UserMessages() []string {
	out := make([]string, 0, 1+len(c.Turns))
	out = append(out, c.Input)
	for _, t := range c.Turns {
		out = append(out, t.User)
	}
	return out
}

// TurnReference returns the reference calls of turn k, from 0 (the
// input's).
func (c Case) TurnReference(k int) []RefCall {
	if k == 0 {
		return c.Reference
	}
	if k <= len(c.Turns) {
		return c.Turns[k-1].Reference
	}
	return nil
}

// TurnExpected returns the reply a correct agent gives at turn k, from 0:
// the case's reference answer at the last turn, FirstReply's or a turn's
// Expected before it; "" where the case expects no particular reply (a
// first turn without FirstReply, a turn without Expected).
func (c Case) TurnExpected(k int) string {
	if k == len(c.Turns) {
		return c.ReferenceAnswer()
	}
	r, _ := c.ReplyAt(k)
	return r.Expected
}

// AllReference returns the reference calls of every turn, in order.
func (c Case) AllReference() []RefCall {
	out := append([]RefCall(nil), c.Reference...)
	for _, t := range c.Turns {
		out = append(out, t.Reference...)
	}
	return out
}

// TurnResult is what one turn of a case's conversation left: the user's
// message, the agent's reply, the tool calls it made for it and how the
// reply was graded.
type TurnResult struct {
	// Turn numbers the turn from 1 (the case's input).
	Turn int `json:"turn"`
	// User is the user's message at the turn.
	User string `json:"user"`
	// Reply is the agent's reply at the turn; "" for a turn not sent.
	Reply string `json:"reply"`
	// ToolCalls are the indexes, in the record's ToolCalls, of the calls
	// the agent made at this turn.
	ToolCalls []int `json:"tool_calls,omitempty"`
	// Checks are the checks of the reply at this turn; at the last turn,
	// those of the final answer (the record's Checks).
	Checks []CheckResult `json:"checks,omitempty"`
	// Verdict is the judges' verdict on the reply ("yes", "no"), "" when
	// no judge was asked about it or none could decide.
	Verdict string `json:"verdict,omitempty"`
	// Status is the turn's outcome: pass, fail or undecided for a reply
	// graded, the case's status for a turn that ended it without a reply
	// to grade (an error, a limit), NotRun for a turn never sent because
	// an earlier one ended the conversation.
	Status Status `json:"status"`
	// Reason says why the turn has its status.
	Reason string `json:"reason,omitempty"`
	// Simulated is true for a message of the case's simulated user (see
	// User): played by a model, or replayed from a run that recorded it.
	Simulated bool `json:"simulated,omitempty"`
	// Leaks are the facts the simulated user's message gave without the
	// agent asking for them (see UserFact), each as its Fact says it.
	Leaks []string `json:"leaks,omitempty"`
}

// TurnName names turn k (from 0) of n in messages: "turn 2 of 3".
func TurnName(k, n int) string { return fmt.Sprintf("turn %d of %d", k+1, n) }

// TurnLines describes each turn on a line: "turn 2 of 3 fail: <the
// user's message> → <the reply> (<why>)"; a turn not sent says so, and
// a simulated user's message is marked, with the facts it leaked:
// "turn 2 of 3 pass (simulated user, leaked GRCh38): ...".
func TurnLines(turns []TurnResult) []string {
	lines := make([]string, len(turns))
	for i, t := range turns {
		status := string(t.Status)
		switch {
		case len(t.Leaks) > 0:
			status += " (simulated user, leaked " + oneLine(strings.Join(t.Leaks, "; "), 120) + ")"
		case t.Simulated:
			status += " (simulated user)"
		}
		line := fmt.Sprintf("%s %s: %s", TurnName(i, len(turns)), status, oneLine(t.User, 120))
		if t.Status == NotRun {
			lines[i] = line + " (not sent)"
			continue
		}
		line += " → " + oneLine(t.Reply, 160)
		if t.Reason != "" && t.Status != Pass {
			line += " (" + oneLine(t.Reason, 300) + ")"
		}
		lines[i] = line
	}
	return lines
}

// LeakLines describes each fact the simulated user gave unasked (see
// TurnResult.Leaks) on a line, naming its turn: "leak at turn 2 of 3: the
// simulated user gave "The coordinates are on GRCh38." unasked"; none
// when no turn leaked.
func LeakLines(turns []TurnResult) []string {
	var lines []string
	for i, t := range turns {
		for _, f := range t.Leaks {
			lines = append(lines, fmt.Sprintf("leak at %s: the simulated user gave %q unasked", TurnName(i, len(turns)), oneLine(f, 120)))
		}
	}
	return lines
}

// oneLine folds s to one line of at most n bytes; an empty text shows
// as "".
func oneLine(s string, n int) string {
	if s = prose.Shorten(prose.OneLine(s), n); s == "" {
		return `""`
	}
	return s
}
