package suite

import (
	"context"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/grading"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/usersim"
)

// converse runs a case with turns (see eval.Turn) or a simulated user
// (see eval.User): its input, then each of the user's messages, the agent
// answering each with a loop of its own (or, in a reference run, the
// turn's reference calls), the conversation carrying over. Each reply is
// graded as it comes (see conversation); a turn that fails, or that ends
// without a reply to grade (an error, a limit, no final answer), ends the
// conversation there: the later turns are not sent, and the record's
// reason names the turn ("turn 2 of 3: ..."). A simulated user that fails
// (its provider down) ends it as an error, the agent's reply ungraded.
// The case's time limit bounds the whole conversation.
func (s *Run) converse(ctx context.Context, c eval.Case, rec *eval.Record, cfg agent.Config, tools agent.ToolBox) *agent.Transcript {
	st := s.Settings
	src, model := s.userSource(c, rec)
	cv := s.newConversation(c, rec, cfg)
	if model != nil {
		cv.model = model
		rec.UserModel = model.cfg.Model
		if len(c.Elicitation) == 0 {
			ctx = mcpconn.WithSimulatedUser(ctx, model.replier(ctx))
		}
	}
	var tr *agent.Transcript
	for k := 0; ; k++ {
		from := 0
		if tr != nil {
			from = len(tr.ToolCalls)
		}
		user := rec.Turns[k].User
		var err error
		switch {
		case st.Reference:
			refs, answer := cv.reference(k)
			tr = agent.ReferenceTurn(ctx, tools, cfg, tr, user, refs, answer)
			err = tr.Fault
		case k == 0:
			tr, err = agent.Run(ctx, s.chat, tools, cfg, user)
		default:
			err = tr.Continue(ctx, s.chat, tools, cfg, user)
		}
		s.take(c, rec, tr)
		cv.usage(tr)
		turn := &rec.Turns[k]
		turn.Reply = tr.Answer
		for i := from; i < len(rec.ToolCalls); i++ {
			turn.ToolCalls = append(turn.ToolCalls, i)
		}
		if s.ended(ctx, rec, tr, err) {
			cv.end(k)
			return tr
		}
		if err := cv.next(ctx, src, k); err != nil {
			cv.usage(tr)
			rec.Status, rec.Reason = eval.Error, "simulated user: "+s.providerError(ctx, err)
			cv.end(k)
			return tr
		}
		cv.usage(tr)
		if !cv.grade(ctx, k) {
			break
		}
	}
	if st.Reference && rec.Status == eval.Pass {
		whole := cv.c
		whole.Input = strings.Join(whole.UserMessages(), "\n") // the terms the user gave are not looked for
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
	// model is the simulated user played by a model, nil for another
	// source of the user's messages.
	model *simulated
}

// newConversation readies rec for a conversation of c: a result for each
// of its turns, not run until it is. A simulated user's turns are added
// as the user gives them (see next); c's turns then grow with them.
func (s *Run) newConversation(c eval.Case, rec *eval.Record, cfg agent.Config) *conversation {
	users := c.UserMessages()
	rec.Turns = make([]eval.TurnResult, len(users))
	for k, u := range users {
		rec.Turns[k] = eval.TurnResult{Turn: k + 1, User: u, Status: eval.NotRun}
	}
	return &conversation{s: s, g: s.grader(cfg), c: c, rec: rec, open: -1}
}

// simulatedTurns returns c with the messages of its simulated user in
// turns (a record's) as its turns, to grade the replies to them again;
// c itself for a case without a simulated user.
func simulatedTurns(c eval.Case, turns []eval.TurnResult) eval.Case {
	if c.User == nil || len(turns) == 0 {
		return c
	}
	c.Turns = make([]eval.Turn, 0, len(turns)-1)
	for _, t := range turns[1:] {
		c.Turns = append(c.Turns, eval.Turn{User: t.User})
	}
	return c
}

// next asks src for the user's message after the agent's reply at turn k
// and, from a simulated user, adds it to the conversation as turn k+1,
// with the facts it leaked. A simulated user is not asked once the
// conversation has its most turns, nor, under the stop rule answer,
// after a reply that asks nothing: that reply is the final answer.
func (cv *conversation) next(ctx context.Context, src source, k int) error {
	u := cv.c.User
	if u == nil {
		_, _, err := src.Next(ctx, cv.rec.Turns[:k+1])
		return err // the turns are the case's, there already
	}
	reply := cv.rec.Turns[k].Reply
	if k+1 >= u.Turns() || u.StopRule() == eval.StopAnswer && asksNothing(reply) {
		return nil
	}
	msg, done, err := src.Next(ctx, cv.rec.Turns[:k+1])
	if err != nil || done {
		return err
	}
	users := make([]string, k+1)
	for i, t := range cv.rec.Turns[:k+1] {
		users[i] = t.User
	}
	cv.rec.Turns = append(cv.rec.Turns, eval.TurnResult{Turn: k + 2, User: msg, Status: eval.NotRun, Simulated: true,
		Leaks: usersim.Leaks(*u, users, reply, msg)})
	cv.c.Turns = append(cv.c.Turns, eval.Turn{User: msg})
	return nil
}

// reference returns the reference calls and the reply of a reference
// run at turn k. A case with turns has them written; the reference agent
// of a simulated user's case first gives the expected first reply, when
// the case has one, then asks for what the user knows and has not given
// (see usersim.Question), then makes the case's reference calls and gives
// its expected answer.
func (cv *conversation) reference(k int) ([]eval.RefCall, string) {
	c := cv.c
	if c.User == nil {
		return c.TurnReference(k), c.TurnExpected(k)
	}
	users := make([]string, k+1)
	for i, t := range cv.rec.Turns[:k+1] {
		users[i] = t.User
	}
	if k == 0 && c.FirstReply != nil && c.FirstReply.Graded() {
		return nil, c.FirstReply.Expected
	}
	if q := usersim.Question(*c.User, users); q != "" {
		return nil, q
	}
	return c.Reference, c.ReferenceAnswer()
}

// usage makes rec's usage that of the agent's transcript tr so far, with
// the judges' of the turns graded before the last and the simulated
// user's.
func (cv *conversation) usage(tr *agent.Transcript) {
	rec := cv.rec
	rec.Usage = tr.Usage
	rec.Usage.Add(cv.judged)
	if cv.model == nil {
		return
	}
	if u, asked := cv.model.spent(); asked {
		rec.Usage.Add(u)
		rec.UserUsage = &u
	}
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

// end ends the conversation at turn k without grading its reply: the
// record's status and reason say why, and become the turn's.
func (cv *conversation) end(k int) {
	turn := &cv.rec.Turns[k]
	turn.Status, turn.Reason = cv.rec.Status, cv.rec.Reason
	if k > 0 {
		cv.rec.Grading = grading.Version // the turns before were graded
	}
	cv.stop(k)
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
