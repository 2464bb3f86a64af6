package grading

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// NothingExpected is the reason of a turn whose reply nothing is expected
// of: the first of a conversation without a first reply's expectations
// (eval.Case.FirstReply), or one with neither an expected reply nor tool
// expectations.
const NothingExpected = "nothing is expected of the reply at this turn"

// GradeTurn decides the agent's reply at turn k (from 0: the case's input)
// of a case's conversation (see eval.Turn). earlier are the turns before
// it, with their replies, which the judges see beside it; calls are the
// tool calls made at this turn, all those of every turn so far.
//
// Before the last turn the reply is graded by what the turn expects of it
// (eval.Case.ReplyAt: the case's FirstReply at the first turn, a turn's
// own later), as Grade grades an answer: its checks and asks, its tool
// expectations on its own calls, then the judges against its expected
// reply; a reply without an expected one is decided by its tool
// expectations alone, and one that nothing is expected of passes. The
// reply to the last turn is the final answer, graded by the case's own
// expected answer, checks or claims, its tool expectations on every
// turn's calls and the last turn's on its own; when the first turn is the
// last (a simulated user done at once), the first reply's expectations
// are checked beside the final answer's, without a judge of their own.
// The checks read each reply against every message of the user so far (a
// sentence of any of them repeated is no evidence); the judges are shown
// the turn's own message as the question, the earlier turns beside it. A
// case without turns is graded as Grade grades it.
func (g Grader) GradeTurn(ctx context.Context, c eval.Case, k int, earlier []eval.TurnResult, reply string, calls, all []eval.ToolCall) (Graded, error) {
	users := c.UserMessages()
	switch {
	case k == 0 && len(c.Turns) == 0:
		var in inTurn
		if c.FirstReply != nil {
			first, err := replyChecks(ctx, c, *c.FirstReply, c.Input, reply, calls)
			if err != nil {
				return Graded{Status: eval.Error, Reason: DescribeContext(ctx, err) + InChecks}, nil
			}
			in.extra = turnChecks(0, first)
		}
		return g.grade(ctx, c, reply, all, in)
	case k >= len(c.Turns):
		in := inTurn{earlier: earlier, question: users[len(users)-1],
			extra: turnChecks(k, CheckTools(eval.Case{Tools: c.Turns[len(c.Turns)-1].Tools}, calls))}
		c.Input = strings.Join(users, "\n")
		return g.grade(ctx, c, reply, all, in)
	}
	r, ok := c.ReplyAt(k)
	if !ok {
		return Graded{Status: eval.Pass, Reason: NothingExpected}, nil
	}
	tc := replyCase(c, r, strings.Join(users[:k+1], "\n"))
	tc.Reference = c.TurnReference(k)
	if r.Graded() {
		return g.grade(ctx, tc, reply, calls, inTurn{extra: CheckAsks(r.Asks, reply), earlier: earlier, question: users[k]})
	}
	out := Graded{Checks: CheckTools(tc, calls)}
	switch failed := Failed(out.Checks); {
	case len(failed) > 0:
		out.Status, out.Reason = eval.Fail, describeChecks("deterministic check failed: ", failed)
	case len(out.Checks) == 0:
		out.Status, out.Reason = eval.Pass, NothingExpected
	default:
		out.Status, out.Reason = eval.Pass, fmt.Sprintf("all %d tool checks hold", len(out.Checks))
	}
	return out, nil
}

// replyCase is the case a reply before the final answer is graded as: the
// user's messages so far (asked) as its question, the reply's
// expectations as its own.
func replyCase(c eval.Case, r eval.ReplyExpect, asked string) eval.Case {
	return eval.Case{Name: c.Name, Category: c.Category, Kind: c.Kind, Input: asked,
		Expected: r.Expected, Checks: r.Checks, Tools: r.Tools}
}

// replyChecks are the deterministic checks of what r expects of a reply
// to asked: its checks and asks, its tool expectations on calls.
func replyChecks(ctx context.Context, c eval.Case, r eval.ReplyExpect, asked, reply string, calls []eval.ToolCall) ([]eval.CheckResult, error) {
	tc := replyCase(c, r, asked)
	var out []eval.CheckResult
	if r.Graded() {
		answerChecks, err := CheckAnswerWithin(ctx, tc, reply)
		if err != nil {
			return nil, err
		}
		out = append(answerChecks, CheckAsks(r.Asks, reply)...)
	}
	return append(out, CheckTools(tc, calls)...), nil
}

// turnChecks names checks as turn k's (from 0): "turn 3: must_call x",
// set apart from the case's own checks of the same kind.
func turnChecks(k int, checks []eval.CheckResult) []eval.CheckResult {
	for i := range checks {
		checks[i].Check = fmt.Sprintf("turn %d: %s", k+1, checks[i].Check)
	}
	return checks
}

// CheckAsks checks that reply asks the user about one of asks: it passes
// on a question (a sentence that ends in "?") that names one of the
// spellings as whole words. A reply that names them only outside its
// questions may ask in other words ("tell me which build you use"): the
// check is undecided, and the judge decides. A reply that names none of
// them fails, with its questions or the lack of any. No asks, no check.
func CheckAsks(asks eval.Spellings, reply string) []eval.CheckResult {
	if len(asks) == 0 {
		return nil
	}
	quoted := make([]string, len(asks))
	for i, s := range asks {
		quoted[i] = quote(s)
	}
	name := "asks " + strings.Join(quoted, " or ")
	t := Parse(reply)
	outside := ""
	for _, sp := range asks {
		for _, span := range Find(reply, sp) {
			if i := t.TokenAt(span.Start); i < len(t.Tokens) && t.Tokens[i].Question {
				return []eval.CheckResult{check(name, true, "")}
			}
			if outside == "" {
				outside = t.Snippet(span.Start, span.End, 80)
			}
		}
	}
	if outside != "" {
		return []eval.CheckResult{decided(name, undecided, fmt.Sprintf("named, but in no question, at %s: the reply may ask for it in other words", quote(outside)))}
	}
	for i, tok := range t.Tokens {
		if tok.Question {
			return []eval.CheckResult{check(name, false, "its questions name none of them, as "+quote(questionAt(t, i)))}
		}
	}
	return []eval.CheckResult{check(name, false, `the reply asks nothing: no sentence of it ends in "?"`)}
}

// questionAt returns the sentence of t that token i begins, a question.
func questionAt(t *Text, i int) string {
	start, end := t.Tokens[i].Start, t.Tokens[i].End
	for k := i; k < len(t.Tokens) && t.Tokens[k].Sentence == t.Tokens[i].Sentence; k++ {
		end = t.Tokens[k].End
	}
	return truncateRunes(strings.TrimSpace(t.Raw[start:end]), 120)
}
