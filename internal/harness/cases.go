package harness

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/progress"
	"github.com/mcpeval/mcpeval/internal/suite"
	"github.com/mcpeval/mcpeval/internal/testname"
)

// An Arm is what a case runs with, one of the run's arms (of an arms file,
// or one per model of -models), and the name of its subtests: "" when the
// run has one arm, which gets no subtest of its own.
type Arm struct{ Name, Subtest string }

// A CaseTest is a selected case as a subtest: its subtest name and the
// arms it runs with in this process.
type CaseTest struct {
	// Case is the loaded case (the harness keeps it: a CaseTest adds no
	// copy of it).
	Case *eval.Case
	// Name is the case's subtest name: unique, without '/' and free of
	// regexp metacharacters.
	Name string
	// Arms are the arms -run and -skip select, of this process's shard.
	Arms []Arm
}

// Outcome is how a case run ended: its record, or why it was skipped.
type Outcome struct {
	Record eval.Record
	// Skip is why the case run was skipped, "" when it ran.
	Skip string
	// NotRun says the skip is the not_run status (the run stopped), not a
	// case the run cannot run.
	NotRun bool
}

// errTestTimeout is the cause given to cases still running when go test's
// -timeout is about to expire.
var errTestTimeout = errors.New("go test -timeout is about to expire: finished cases are saved; raise it (e.g. -timeout 2h) to finish the run")

// notRun is the skip message of the cases a stopped run did not run; the
// run prints why it stopped once, at its end.
const notRun = "not run: the run stopped (why is the last line of the run's output)"

// Repeat returns how many times a test function (by name) ran before in
// this process: go test -count=N runs every test function N times, one
// after the other, and the n-th time (from 0) runs every case's repeat n,
// an independent run with its own cache entry.
func (h *Harness) Repeat(test string) int {
	h.repeatMu.Lock()
	defer h.repeatMu.Unlock()
	if h.repeats == nil {
		h.repeats = map[string]int{}
	}
	n := h.repeats[test]
	h.repeats[test] = n + 1
	return n
}

// Category returns the selected cases of a category that run in this
// repeat of this process, and whether the category has loaded cases at
// all.
func (h *Harness) Category(category string, repeat int) (tests []CaseTest, loaded bool) {
	cases := h.casesOf(category)
	for _, c := range cases {
		if !h.selected[c.Name] {
			continue
		}
		if arms := h.caseArms(*c, repeat); len(arms) > 0 {
			tests = append(tests, CaseTest{Case: c, Name: h.names[c.Name], Arms: arms})
		}
	}
	return tests, len(cases) > 0
}

// OtherCategories lists the loaded categories without a test function of
// their own, with their subtest names under testname.Other.
func (h *Harness) OtherCategories() (names, subtests []string) {
	names = h.otherCategoryNames()
	return names, testname.Subtests(names)
}

// caseArms returns the arms a case runs with in this repeat: those of
// this process's shard that -run and -skip select.
func (h *Harness) caseArms(c eval.Case, repeat int) []Arm {
	arms := h.shardArms(c, h.arms(), repeat)
	if len(arms) == 0 || arms[0].Subtest == "" {
		return arms // of another shard, or the run's one arm
	}
	return slices.DeleteFunc(arms, func(a Arm) bool {
		return !h.categoryOf[c.Category].Selects(h.runPattern, h.skipPattern, h.names[c.Name], a.Subtest)
	})
}

// arms returns the run's arms with their subtest names: unique, without
// '/' and free of regexp metacharacters, so -run can select one
// ("google/gemini-2.5-flash" is "google_gemini-2_5-flash").
func (h *Harness) arms() []Arm {
	names := h.run.Arms()
	if len(names) < 2 {
		return []Arm{{Name: names[0]}}
	}
	out := make([]Arm, len(names))
	for i, sub := range testname.Subtests(names) {
		out[i] = Arm{Name: names[i], Subtest: sub}
	}
	return out
}

// Run runs a case with its arms, side by side (suite.Run.Case): started
// together, they meet the provider at the same time, and a budget admits
// or refuses them together. test is the case's subtest name as go test
// gives it (t.Name()); deadline, when ok, is go test's -timeout.
func (h *Harness) Run(ct CaseTest, repeat int, test string, deadline time.Time, ok bool) []Outcome {
	ctx, cancel := h.caseContext(deadline, ok)
	defer cancel()
	names := make([]string, len(ct.Arms))
	tests := make([]string, len(ct.Arms))
	for i, a := range ct.Arms {
		names[i], tests[i] = a.Name, test
		if a.Subtest != "" {
			tests[i] = h.testName(*ct.Case, a).String()
		}
	}
	recs, errs := h.run.Case(ctx, *ct.Case, repeat, names, tests)
	out := make([]Outcome, len(ct.Arms))
	for i := range out {
		out[i] = outcomeOf(recs[i], errs[i])
	}
	return out
}

// caseContext is the context of a case's runs: it ends shortly before go
// test's -timeout would, so that the cases running end as errors that say
// to raise it, or when a second interrupt cancels the cases.
func (h *Harness) caseContext(deadline time.Time, ok bool) (context.Context, context.CancelFunc) {
	if ok {
		return context.WithDeadlineCause(h.casesCtx, deadline.Add(-5*time.Second), errTestTimeout)
	}
	return context.WithCancel(h.casesCtx)
}

// outcomeOf reads what suite.Run returned: a record, or why the case was
// skipped.
func outcomeOf(rec eval.Record, err error) Outcome {
	var skip *suite.SkipError
	switch {
	case errors.As(err, &skip):
		return Outcome{Skip: skip.Reason}
	case err != nil:
		return Outcome{Skip: notRun, NotRun: true}
	case rec.Status == eval.NotRun:
		return Outcome{Skip: rec.Reason, NotRun: true}
	}
	return Outcome{Record: rec}
}

// Done counts a case run's outcome in the progress and returns the
// paragraph its subtest prints, and whether the subtest fails: a case
// that did not pass fails it, unless a pass-rate gate decides over the
// repeats (in Finish).
func (h *Harness) Done(o Outcome) (text string, fail bool) {
	if o.Skip != "" {
		if o.NotRun {
			h.progress.Done(progress.NotRun)
		} else {
			h.progress.Done(progress.Skipped)
		}
		return o.Skip, false
	}
	rec := o.Record
	h.progress.Done(progressOutcome(rec.Status))
	if rec.Status == eval.Pass {
		return suite.FormatLine(rec), false
	}
	paragraph := strings.ReplaceAll(suite.FormatFailure(rec), "\n", "\n    ")
	if h.settings.Gated() {
		h.remember(rec, paragraph)
	}
	return paragraph, !h.settings.Gated()
}

// progressOutcome is how the progress counts a status.
func progressOutcome(st eval.Status) progress.Outcome {
	switch st {
	case eval.Pass:
		return progress.Pass
	case eval.Error, eval.Cut: // neither is a verdict on the model's answer
		return progress.Error
	case eval.Undecided:
		return progress.Undecided
	}
	return progress.Fail
}
