package suite

import (
	"context"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/grading"
)

// converse runs a case with turns (see eval.Turn): its input, then each
// turn's message, the agent answering each with a loop of its own (or,
// in a reference run, the turn's reference calls), the conversation
// carrying over. Each reply is graded as it comes (see conversation); a
// turn that fails, or that ends without a reply to grade (an error, a
// limit, no final answer), ends the conversation there: the later turns
// are not sent, and the record's reason names the turn ("turn 2 of 3:
// ..."). The case's time limit bounds the whole conversation.
func (s *Run) converse(ctx context.Context, c eval.Case, rec *eval.Record, cfg agent.Config, tools agent.ToolBox) *agent.Transcript {
	st := s.Settings
	users := c.UserMessages()
	cv := s.newConversation(c, rec, cfg)
	var tr *agent.Transcript
	for k, user := range users {
		from := 0
		if tr != nil {
			from = len(tr.ToolCalls)
		}
		var err error
		switch {
		case st.Reference:
			tr = agent.ReferenceTurn(ctx, tools, cfg, tr, user, c.TurnReference(k), c.TurnExpected(k))
			err = tr.Fault
		case k == 0:
			tr, err = agent.Run(ctx, s.chat, tools, cfg, user)
		default:
			err = tr.Continue(ctx, s.chat, tools, cfg, user)
		}
		s.take(c, rec, tr)
		rec.Usage.Add(cv.judged)
		turn := &rec.Turns[k]
		turn.Reply = tr.Answer
		for i := from; i < len(rec.ToolCalls); i++ {
			turn.ToolCalls = append(turn.ToolCalls, i)
		}
		if s.ended(ctx, rec, tr, err) {
			turn.Status, turn.Reason = rec.Status, rec.Reason
			if k > 0 {
				rec.Grading = grading.Version // the turns before were graded
			}
			cv.stop(k)
			return tr
		}
		if !cv.grade(ctx, k) {
			break
		}
	}
	if st.Reference && rec.Status == eval.Pass {
		whole := c
		whole.Input = strings.Join(users, "\n") // the terms the user gave are not looked for
		supported(whole, rec, tr.Results)
	}
	return tr
}

// conversation grades the turns of a case's conversation as they come:
// each reply by grading.Grader.GradeTurn, the judges' requests added to
// the record's usage. A turn that fails ends it; a turn left undecided
// (no judge to decide what the checks could not) leaves the case
// undecided unless a later turn fails.
type conversation struct {
	s   *Run
	g   grading.Grader
	c   eval.Case
	rec *eval.Record
	// judged is the usage of the judges asked about the turns before the
	// last, judgedAny whether any was.
	judged    eval.Usage
	judgedAny bool
	// open is the first turn left undecided, -1 while there is none.
	open int
}

// newConversation readies rec for a conversation of c: a result for each
// of its turns, not run until it is.
func (s *Run) newConversation(c eval.Case, rec *eval.Record, cfg agent.Config) *conversation {
	users := c.UserMessages()
	rec.Turns = make([]eval.TurnResult, len(users))
	for k, u := range users {
		rec.Turns[k] = eval.TurnResult{Turn: k + 1, User: u, Status: eval.NotRun}
	}
	return &conversation{s: s, g: s.grader(cfg), c: c, rec: rec, open: -1}
}

// grade grades the reply at turn k, which rec's turn holds with its tool
// calls, and reports whether the conversation goes on. At the last turn
// it decides the record.
func (cv *conversation) grade(ctx context.Context, k int) bool {
	rec, turn := cv.rec, &cv.rec.Turns[k]
	calls := make([]eval.ToolCall, len(turn.ToolCalls))
	for i, at := range turn.ToolCalls {
		calls[i] = rec.ToolCalls[at]
	}
	d, err := cv.g.GradeTurn(ctx, cv.c, k, rec.Turns[:k], turn.Reply, calls, rec.ToolCalls)
	if k == len(rec.Turns)-1 {
		cv.s.decided(ctx, cv.c, rec, d, err)
		turn.Checks, turn.Verdict, turn.Status, turn.Reason = rec.Checks, rec.Verdict, rec.Status, rec.Reason
		cv.judgeUsage()
		switch {
		case rec.Status != eval.Pass:
			rec.Reason = eval.TurnName(k, len(rec.Turns)) + ": " + rec.Reason
		case cv.open >= 0:
			rec.Status = eval.Undecided
			rec.Reason = eval.TurnName(cv.open, len(rec.Turns)) + ": " + rec.Turns[cv.open].Reason
		}
		return false
	}
	if d.Judged {
		cv.judged.Add(d.Usage)
		rec.Usage.Add(d.Usage)
		cv.judgedAny = true
	}
	turn.Checks, turn.Verdict, turn.Status, turn.Reason = d.Checks, d.Verdict.Verdict, d.Status, d.Reason
	if err != nil {
		turn.Status, turn.Reason = eval.Error, "judge: "+cv.s.providerError(ctx, err)
	}
	switch turn.Status {
	case eval.Pass:
		return true
	case eval.Undecided:
		if cv.open < 0 {
			cv.open = k
		}
		return true
	}
	rec.Status, rec.Reason, rec.Checks, rec.Verdict = turn.Status, turn.Reason, turn.Checks, turn.Verdict
	rec.Grading = grading.Version
	cv.stop(k)
	return false
}

// stop ends the conversation at turn k, whose result says why: the
// record's reason names the turn, and the judges' usage so far is the
// record's.
func (cv *conversation) stop(k int) {
	cv.rec.Reason = eval.TurnName(k, len(cv.rec.Turns)) + ": " + cv.rec.Reason
	cv.judgeUsage()
}

// judgeUsage makes the record's judge usage that of every turn's judges.
func (cv *conversation) judgeUsage() {
	if !cv.judgedAny {
		return
	}
	total := cv.judged
	if cv.rec.JudgeUsage != nil {
		total.Add(*cv.rec.JudgeUsage)
	}
	cv.rec.JudgeUsage = &total
}
