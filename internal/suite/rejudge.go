package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/grading"
	"github.com/mcpeval/mcpeval/internal/llm"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/stats"
	"github.com/mcpeval/mcpeval/scoring"
)

// Rejudged is what Rejudge wrote: the new run's directory and summary.
type Rejudged struct {
	Dir     string
	Summary eval.Summary
}

// Rejudge grades the answers of the finished run in source again, with
// the checks of cases (the case files as they are now), the judges and the
// labels of st, and writes them as a new run under st.Out whose summary
// names its source (eval.Summary.Rejudged). The evaluated model is asked
// nothing: only the judges' requests are made, and only they count in the
// new run's usage and cost; each record keeps its answer's own usage from
// the source run besides. A record without an answer to grade (an error,
// a limit, a cut reply, no final answer) is taken over as it was, and so
// is the record of a case no longer in cases, which the summary names.
// log receives notices.
func Rejudge(ctx context.Context, st settings.Settings, cases []eval.Case, source string, log io.Writer) (Rejudged, error) {
	src, err := runs.ReadSummary(source)
	if err != nil {
		return Rejudged{}, err
	}
	records, err := runs.ReadRecords(filepath.Join(source, eval.RecordsFile))
	if err != nil {
		return Rejudged{}, err
	}
	s, err := newRun(st, cases, log)
	if err != nil {
		return Rejudged{}, err
	}
	s.limiter = llm.NewLimiter(st.Concurrency)
	if st.JudgeEnabled() {
		s.chat = NewChat(st, s.limiter)
	}
	s.runID = runs.NewID(s.started)
	if err := s.openRunDir(log, nil); err != nil {
		s.Close()
		return Rejudged{}, err
	}

	byName := map[string]eval.Case{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	info := &eval.RejudgedInfo{Source: src.RunID, SourceDir: source}
	if info.Source == "" {
		info.Source = filepath.Base(source)
	}
	out := make([]eval.Record, len(records))
	regraded := make([]bool, len(records))
	gone := map[string]bool{}
	var wg sync.WaitGroup
	for i, r := range records {
		c, ok := byName[r.Name]
		switch {
		case !ok:
			out[i] = r
			if !gone[r.Name] {
				gone[r.Name] = true
				info.Gone = append(info.Gone, r.Name)
			}
			continue
		case !answered(r) || !sameConversation(c, r):
			out[i] = r
			continue
		}
		regraded[i] = true
		wg.Go(func() {
			if err := s.limiter.Acquire(ctx); err != nil {
				out[i] = r
				out[i].Status, out[i].Reason = eval.Error, "not re-judged: "+describeCtx(ctx, err)
				return
			}
			defer s.limiter.Release()
			out[i] = s.regrade(ctx, c, r)
		})
	}
	wg.Wait()

	var spent eval.Usage
	for i, r := range out {
		if regraded[i] {
			info.Regraded++
			if r.JudgeUsage != nil {
				spent.Add(*r.JudgeUsage)
			}
			if r.Status != records[i].Status {
				info.Changed++
			}
		} else {
			info.Kept++
		}
		s.records.Write(r)
	}
	sum := s.rejudgedSummary(src, info, spent)
	if errs := s.Finish(sum); len(errs) > 0 {
		return Rejudged{Dir: s.RunDir, Summary: sum}, errors.Join(errs...)
	}
	return Rejudged{Dir: s.RunDir, Summary: sum}, nil
}

// answered reports whether a record holds an answer that was graded: one
// the checks or the judges decided, not a run that ended before it had an
// answer (an error of the provider or a server, a token limit, a cut
// reply, no final answer). A conversation holds one when every turn was
// sent and its last reply graded: one that ended at an earlier turn never
// had a final answer.
func answered(r eval.Record) bool {
	if len(r.Turns) > 0 {
		for _, t := range r.Turns {
			if t.Status == eval.NotRun {
				return false
			}
		}
		r.Reason = r.Turns[len(r.Turns)-1].Reason // without the turn's name
	}
	switch r.Status {
	case eval.Pass, eval.Undecided:
		return true
	case eval.Fail:
		return len(r.Checks) > 0 || r.Verdict != "" || len(r.Judges) > 0 || strings.HasPrefix(r.Reason, grading.NoDecider) || len(r.Claims) > 0
	case eval.Error:
		return strings.HasPrefix(r.Reason, "judge: ") || strings.HasSuffix(r.Reason, grading.InChecks)
	case eval.TokenLimit:
		return r.JudgeUsage != nil // the judge's prompt was over the limit, not the model's
	}
	return false
}

// sameConversation reports whether the record holds replies to the
// user's messages of c as it now stands: a case whose turns changed is
// another conversation, whose replies nothing can grade.
func sameConversation(c eval.Case, r eval.Record) bool {
	if c.User != nil { // the simulated user's messages are the record's own
		if len(r.Turns) == 0 || r.Turns[0].User != c.Input {
			return false
		}
		for _, t := range r.Turns[1:] {
			if !t.Simulated {
				return false
			}
		}
		return true
	}
	users := c.UserMessages()
	if len(r.Turns) == 0 {
		return len(users) == 1
	}
	if len(r.Turns) != len(users) {
		return false
	}
	for i, t := range r.Turns {
		if t.User != users[i] {
			return false
		}
	}
	return true
}

// regrade grades the answer of r again as the case c now stands. The
// record's question and expected answer become the case's; its answer,
// tool calls and the model's usage stay. A conversation is graded again
// turn by turn, from its stored replies.
func (s *Run) regrade(ctx context.Context, c eval.Case, r eval.Record) eval.Record {
	st := s.Settings
	rec := r
	rec.Question, rec.Expected, rec.Category, rec.File, rec.Line, rec.Kind = c.Input, c.Expected, c.Category, c.File, c.Line, c.Kind
	rec.Checks, rec.Judges, rec.JudgeDisagreement, rec.Verdict, rec.JudgeRaw = nil, nil, false, "", ""
	rec.JudgeModel, rec.JudgeUsage, rec.Cached = strings.Join(st.JudgeModels(), ","), nil, false
	rec.Usage = stats.OwnUsage(r)
	if r.UserUsage != nil { // the conversation's, as the source run had it
		rec.Usage.Add(*r.UserUsage)
	}
	rec.ToolCalls = slices.Clone(r.ToolCalls) // the calls' failures are judged as the case now asks
	markExpectedErrors(c, rec.ToolCalls)
	cfg := agent.Config{Model: rec.Model, MaxIterations: st.MaxIterations, TokenLimit: st.MaxTokens,
		LimitCounter: s.limitCounter, Counter: s.counters[rec.Model], Prices: s.prices}
	caseCtx, cancel := context.WithTimeoutCause(ctx, st.CaseTimeout,
		fmt.Errorf("timed out: the case took longer than EVAL_CASE_TIMEOUT (%s)", st.CaseTimeout))
	if len(rec.Turns) > 0 {
		cv := s.newConversation(simulatedTurns(c, r.Turns), &rec, cfg)
		for k := range rec.Turns {
			rec.Turns[k] = r.Turns[k]
			rec.Turns[k].Checks, rec.Turns[k].Verdict = nil, ""
		}
		for k := range rec.Turns {
			if cv.grade(caseCtx, k) {
				continue
			}
			for later := k + 1; later < len(rec.Turns); later++ {
				t := &rec.Turns[later]
				t.Status, t.Reason = eval.NotRun, "not graded again: an earlier turn ends the conversation as the case now stands (the reply is the source run's)"
			}
			break
		}
	} else {
		s.grade(caseCtx, c, &rec, cfg, rec.Response, rec.ToolCalls)
	}
	cancel()
	if rec.JudgeUsage == nil {
		rec.JudgeUsage = &eval.Usage{} // graded now, without a judge: nothing spent
	}
	s.redactor.Value(&rec)
	rec.Limit(eval.MaxStoredText)
	rec.Metrics = nil
	if rec.Status != eval.Error && rec.Status != eval.Undecided {
		var m eval.Metrics
		switch {
		case c.Kind != eval.KindCode:
			m = scoring.ScoreTool(c, rec)
		case r.Metrics != nil:
			m = scoring.RegradedCode(*r.Metrics, rec.Status == eval.Pass)
		default: // a code case's metrics need its run, which a record without them does not keep
			return rec
		}
		s.redactor.Value(&m)
		rec.Metrics = &m
	}
	return rec
}

// regradeCached grades a cached result decided by other grading rules
// again from its stored answer, as rejudge does: only the judges are
// asked. The result is stored under key (a pass stays cached; anything
// else removes the entry, and the one it was found under, at) and served
// as cached: its answer is the cache's.
func (s *Run) regradeCached(ctx context.Context, c eval.Case, cached eval.Record, key, at string) eval.Record {
	before := cached.Status
	if err := s.limiter.Acquire(ctx); err != nil {
		cached.Status, cached.Reason = eval.Error, "not graded again: "+describeCtx(ctx, err)
		return cached
	}
	r := s.regrade(ctx, c, cached)
	s.limiter.Release()
	if r.Status != eval.Error {
		for _, k := range slices.Compact([]string{key, at}) {
			if err := s.cache.Put(k, r); err != nil {
				fmt.Fprintln(s.log, "warning: cache:", err)
			}
		}
	}
	r.Cached, r.Regraded = true, true
	r.Reason = fmt.Sprintf("graded again from the cached answer (its grading was of version %d, now %d; it was %s): %s", cached.Grading, grading.Version, before, r.Reason)
	return r
}

// rejudgedSummary is the summary of a re-judged run: the source's, with
// the outcomes, verdicts and judges of the records written, and as usage
// only the judges' requests made now.
func (s *Run) rejudgedSummary(src eval.Summary, info *eval.RejudgedInfo, spent eval.Usage) eval.Summary {
	st := s.Settings
	sum := eval.Summary{
		RunID: s.runID, Started: s.started.UTC(), Finished: time.Now().UTC(), Model: src.Model, CaseFiles: st.Cases,
		Servers: src.Servers, Reference: src.Reference, Provider: src.Provider, GitCommit: gitCommit(st.Root),
		MinPassRate: st.MinPassRate, MinRunPassRate: st.MinRunPassRate, Stopped: src.Stopped,
		Skipped: src.Skipped, NotRun: src.NotRun, ServerRestarts: src.ServerRestarts,
		Tools: src.Tools, Replay: src.Replay, Rejudged: info,
	}
	s.describeVerdicts(&sum)
	sum.Seconds = sum.Finished.Sub(sum.Started).Seconds()
	records := s.records.records()
	for _, r := range records {
		sum.Count(r)
	}
	sum.Usage, sum.CostUSD, sum.SavedUSD, sum.Cached = spent, spent.CostUSD, 0, 0
	var arms []string
	for _, m := range src.Models {
		arms = append(arms, m.Model)
	}
	stats.Summarize(&sum, records, arms)
	sum.User = nil // the simulated users were asked nothing now: their requests are the source run's
	for i := range sum.Models {
		for _, m := range src.Models {
			if m.Model == sum.Models[i].Model {
				sum.Models[i].Arm, sum.Models[i].Tools, sum.Models[i].ToolTokens = m.Arm, m.Tools, m.ToolTokens
			}
		}
	}
	sum.ArmEffects = stats.ArmEffects(sum.Models, sum.ModelPairs)
	sum.ArmVerdicts = stats.Verdicts(records, sum.Models)
	if len(src.Arms) > 0 {
		sum.Arms = sum.Models
	}
	s.redactor.Value(&sum)
	return sum
}

// RejudgedLine is the closing line of a re-judged run: its source, what
// was graded again, and the cases no longer there.
func RejudgedLine(r *eval.RejudgedInfo) string {
	line := fmt.Sprintf("mcpeval: RE-JUDGED: the answers of run %s graded again with the current checks and judges, the model asked nothing: %d graded, %d changed status, %d taken over as they were",
		escapeHidden(r.Source), r.Regraded, r.Changed, r.Kept)
	if len(r.Gone) > 0 {
		line += fmt.Sprintf("\nmcpeval: RE-JUDGED: %d cases of run %s are no longer in the case files, their records taken over as they were: %s",
			len(r.Gone), escapeHidden(r.Source), escapeHidden(strings.Join(r.Gone, ", ")))
	}
	return line // what came from the run directory is escaped: it is untrusted
}

// Regrader grades records' answers again as Rejudge does, with the cases
// as they now stand and the judges of the settings, writing nothing: a
// comparison with a baseline asks it whether the current judge gives the
// baseline's answers the verdicts it gave then. It is safe for concurrent
// use; at most the settings' concurrency of gradings run at once.
type Regrader struct{ run *Run }

// NewRegrader returns a Regrader for the cases under st; log receives
// notices.
func NewRegrader(st settings.Settings, cases []eval.Case, log io.Writer) (*Regrader, error) {
	s, err := newRun(st, cases, log)
	if err != nil {
		return nil, err
	}
	s.limiter = llm.NewLimiter(st.Concurrency)
	if st.JudgeEnabled() {
		s.chat = NewChat(st, s.limiter)
	}
	return &Regrader{run: s}, nil
}

// Grade grades the answer of r again with the case c as it now stands.
// A record that holds no graded answer is an error.
func (g *Regrader) Grade(ctx context.Context, c eval.Case, r eval.Record) (eval.Record, error) {
	if !answered(r) {
		return r, fmt.Errorf("the record of %q holds no answer that was graded (%s)", r.Name, r.Status)
	}
	if !sameConversation(c, r) {
		return r, fmt.Errorf("the record of %q holds replies to other messages than the case's as it now stands", r.Name)
	}
	if err := g.run.limiter.Acquire(ctx); err != nil {
		return r, err
	}
	defer g.run.limiter.Release()
	return g.run.regrade(ctx, c, r), nil
}
