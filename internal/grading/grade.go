package grading

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/llm"
)

// Version numbers the grading rules: the checks' meaning (CheckVersion),
// the judge prompts and how a reply is read. Each record and cache entry
// holds the version it was graded by; one graded by another is graded
// again from its stored answer, never re-run.
const Version = 2

// Grader decides an answer: the case's deterministic checks, then the
// judges (for the whole answer, or claim by claim) where any are
// configured. Runs and rejudge grade through it.
type Grader struct {
	// Panel are the judges; none when the run has no judge.
	Panel Panel
	Chat  llm.Chatter
	// Config bounds the judge prompt (TokenLimit, LimitCounter) and
	// prices the judges' requests.
	Config agent.Config
}

// Graded is a Grader's decision on one answer.
type Graded struct {
	// Status is eval.Pass, eval.Fail, eval.Undecided, eval.TokenLimit (the
	// judge prompt was over the limit) or eval.Error (a judge's provider
	// failed, or the case's time ran out); Reason says why.
	Status eval.Status
	Reason string
	Checks []eval.CheckResult
	// Judged is true when judges were asked; Verdict is theirs on the
	// whole answer, Claims and Coverage the claims' of a case graded by
	// claims.
	Judged   bool
	Verdict  Verdict
	Claims   []eval.ClaimResult
	Coverage *float64
	// Prompt, Reply and Raw are the judges' input, the replies that
	// decided and those that were unclear, for a case graded by claims.
	Prompt, Reply, Raw string
	Usage              eval.Usage
}

// The reasons of a decision that rejudge recognises.
const (
	// InChecks ends the reason of a case whose time ran out in the checks.
	InChecks = " (in the deterministic checks)"
	// NoDecider begins the reason of a case nothing can decide.
	NoDecider = "no judge model and no deterministic checks"
	// ChecksUndecided begins the reason of a case the checks left open
	// and no judge decided.
	ChecksUndecided = "the deterministic checks could not decide: "
)

// Grade decides answer, with the tool calls that led to it. A check that
// fails fails the case; checks that are not sure leave it to the judges,
// and without judges it is undecided. The error is a provider failure of
// a judge; the decision holds what was obtained.
func (g Grader) Grade(ctx context.Context, c eval.Case, answer string, calls []eval.ToolCall) (Graded, error) {
	return g.grade(ctx, c, answer, calls, inTurn{})
}

// inTurn is what grading a reply in a conversation adds to grading a
// single answer.
type inTurn struct {
	// extra are checks of the reply the case's own do not hold: a turn's
	// asks, the last turn's own tool expectations.
	extra []eval.CheckResult
	// earlier are the turns before the reply, which the judges see.
	earlier []eval.TurnResult
	// question is the user's message the reply answers, which the judges
	// are shown as the question ("": the case's input); the checks read
	// the reply against the case's input, every message of the user so
	// far.
	question string
}

// grade is Grade for a reply in a conversation (see inTurn).
func (g Grader) grade(ctx context.Context, c eval.Case, answer string, calls []eval.ToolCall, in inTurn) (Graded, error) {
	answerChecks, err := CheckAnswerWithin(ctx, c, answer)
	if err != nil {
		return Graded{Status: eval.Error, Reason: DescribeContext(ctx, err) + InChecks}, nil
	}
	question := cmp.Or(in.question, c.Input)
	out := Graded{Checks: append(append(answerChecks, in.extra...), CheckTools(c, calls)...)}
	if failed := Failed(out.Checks); len(failed) > 0 {
		out.Status, out.Reason = eval.Fail, describeChecks("deterministic check failed: ", failed)
		return out, nil
	}
	unsure := Unsure(out.Checks)
	judges := len(g.Panel.Models) > 0
	if len(c.Claims) > 0 {
		return g.gradeClaims(ctx, c, answer, out, unsure, in.earlier, question)
	}
	switch {
	case !judges && len(out.Checks) == 0:
		out.Status, out.Reason = eval.Fail, NoDecider+": nothing can decide this case (add checks: to the case)"
		return out, nil
	case !judges && len(unsure) > 0:
		out.Status, out.Reason = eval.Undecided, describeChecks(ChecksUndecided, unsure)+"; no judge ran to decide (set EVAL_JUDGE_MODEL, or a provider)"
		return out, nil
	case !judges:
		out.Status, out.Reason = eval.Pass, fmt.Sprintf("all %d deterministic checks hold", len(out.Checks))
		return out, nil
	}
	v, err := g.Panel.judge(ctx, g.Chat, g.Config, in.earlier, question, c.Expected, answer, checkedValues(c))
	out.Judged, out.Verdict, out.Usage = true, v, v.Usage
	switch {
	case err != nil:
		out.Status = eval.Error
		return out, err
	case v.Skipped != "":
		out.Status, out.Reason = eval.TokenLimit, v.Skipped
	case v.Undecided: // neither the model's pass nor its failure
		out.Status, out.Reason = eval.Undecided, v.Reason
	case v.Pass:
		out.Status, out.Reason = eval.Pass, v.Reason
	default:
		out.Status, out.Reason = eval.Fail, v.Reason
	}
	return out, nil
}

// CheckVerdict is the verdict of a case's deterministic checks alone on an
// answer, without tool calls: "yes", "no", or Undecided when they are not
// sure; "" when nothing checks the answer (no answer checks, and no claim
// with checks of its own). A case graded by claims is decided by the mean
// score of its claims, each decided by its own checks.
func CheckVerdict(c eval.Case, answer string) (string, []eval.CheckResult) {
	own := CheckAnswer(c, answer)
	claimed := claimChecks(c, answer)
	checks := slices.Clone(own)
	decides := HasAnswerChecks(c.Checks)
	for _, cc := range claimed {
		decides = decides || len(cc) > 0
		checks = append(checks, cc...)
	}
	switch {
	case !decides:
		return "", nil
	case len(Failed(own)) > 0:
		return "no", checks
	case len(c.Claims) > 0:
		status, _, _ := scoreClaims(decideClaims(c, claimed, nil), c.Coverage())
		if status == eval.Pass && len(Unsure(own)) > 0 {
			status = eval.Undecided
		}
		return verdictOf(status), checks
	case len(Unsure(checks)) > 0:
		return Undecided, checks
	}
	return "yes", checks
}

// Undecided is the verdict of checks or judges that could not decide.
const Undecided = "undecided"

// verdictOf is a case status as a verdict.
func verdictOf(s eval.Status) string {
	switch s {
	case eval.Pass:
		return "yes"
	case eval.Fail:
		return "no"
	}
	return Undecided
}

// JudgeCase asks the judges alone about an answer to c: for a case graded
// by claims, claim by claim, the verdict being whether the claims' mean
// score reaches its pass coverage (an undecided claim that could tip it
// leaves it undecided); otherwise as Judge does.
func (p Panel) JudgeCase(ctx context.Context, chat llm.Chatter, cfg agent.Config, c eval.Case, answer string) (Verdict, error) {
	if len(c.Claims) == 0 {
		return p.JudgeValues(ctx, chat, cfg, c.Input, c.Expected, answer, checkedValues(c))
	}
	v, err := p.JudgeClaims(ctx, chat, cfg, c.Input, c.Claims, answer)
	out := Verdict{Prompt: v.Prompt, Reply: v.Reply, Raw: v.Raw, Skipped: v.Skipped, Usage: v.Usage}
	if err != nil || v.Skipped != "" {
		return out, err
	}
	status, _, reason := scoreClaims(decideClaims(c, make([][]eval.CheckResult, len(c.Claims)), &v), c.Coverage())
	out.Reason = reason
	switch status {
	case eval.Pass:
		out.Pass, out.Verdict = true, "yes"
	case eval.Fail:
		out.Verdict = "no"
	default:
		out.Undecided = true
	}
	return out, nil
}

// gradeClaims decides a case graded by claims: each claim by its checks
// and the judges' majority, the case by the claims' mean score (see
// scoreClaims). Case checks that are not sure leave a case without judges
// undecided.
func (g Grader) gradeClaims(ctx context.Context, c eval.Case, answer string, out Graded, unsure []eval.CheckResult, earlier []eval.TurnResult, question string) (Graded, error) {
	checks := claimChecks(c, answer)
	var judged *ClaimsVerdict
	if len(g.Panel.Models) > 0 {
		v, err := g.Panel.judgeClaims(ctx, g.Chat, g.Config, earlier, question, c.Claims, answer)
		out.Judged, out.Usage, out.Prompt, out.Reply, out.Raw = true, v.Usage, v.Prompt, v.Reply, v.Raw
		switch {
		case err != nil:
			out.Status = eval.Error
			return out, err
		case v.Skipped != "":
			out.Status, out.Reason = eval.TokenLimit, v.Skipped
			return out, nil
		}
		judged = &v
	}
	out.Claims = decideClaims(c, checks, judged)
	out.Status, out.Coverage, out.Reason = scoreClaims(out.Claims, c.Coverage())
	if judged == nil && len(unsure) > 0 && out.Status == eval.Pass {
		out.Status, out.Reason = eval.Undecided, describeChecks(ChecksUndecided, unsure)+"; "+out.Reason
	}
	return out, nil
}

// checkedValues returns the values a case's number checks ask for.
func checkedValues(c eval.Case) []float64 {
	var out []float64
	for _, n := range c.Checks.Numbers {
		out = append(out, n.Value)
	}
	return out
}

// describeChecks lists checks with why each did not pass.
func describeChecks(prefix string, checks []eval.CheckResult) string {
	parts := make([]string, len(checks))
	for i, f := range checks {
		parts[i] = f.Check + ": " + f.Detail
	}
	return prefix + strings.Join(parts, "; ")
}

// DescribeContext says why a case's context ended: its cause, or its time
// limit.
func DescribeContext(ctx context.Context, err error) string {
	if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
		return cause.Error()
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return "timed out: the case exceeded its time limit (EVAL_CASE_TIMEOUT)"
	}
	return err.Error()
}
