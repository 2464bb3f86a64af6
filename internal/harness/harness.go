// Package harness runs an evaluation in one go test process: it loads the
// cases, selects them by go test's -run and -skip, plans a split run's
// shard, starts the servers and the model, checks the budget and the
// provider before any case runs, turns each case run into its subtest's
// outcome, and ends the run with its closing lines and gates. Package
// evaltest wires it to package testing: flags, TestMain and subtests.
package harness

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/progress"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/selection"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/shard"
	"github.com/mcpeval/mcpeval/internal/suite"
)

// Config is what a module's suite declares.
type Config struct {
	// Generated lists the categories with a test function of their own;
	// the others run under testname.Other.
	Generated []string
	// ServersFile is the client configuration file whose servers are
	// evaluated when none is configured ("" for none).
	ServersFile string
	// Bundled is the server the test binary serves itself, evaluated when
	// none is configured (Spec "" for none).
	Bundled suite.Server
}

// GoTest is what the harness reads of go test's own flags.
type GoTest struct {
	// Run and Skip are -run and -skip as given.
	Run, Skip string
	// Count is -count: how many times every case runs.
	Count int
	// Short is -short: the reference run, which sends no model request.
	Short bool
	// FailFast is -failfast.
	FailFast bool
	// Verbose is -v; JSON is -v=test2json (go test -json).
	Verbose, JSON bool
	// Other says benchmarks or fuzzing were asked for (-bench, -fuzz):
	// a -run that selects no case is then on purpose.
	Other bool
	// Parallel is -parallel when given, else 0.
	Parallel int
	// List returns the names of the package's tests, examples and
	// benchmarks whose top level a pattern selects (go test's -test.list).
	List func(pattern string) []string
}

// Harness is one go test process's evaluation: Load, Select, Start, the
// tests (each case run through Case), then Finish.
type Harness struct {
	config         Config
	gotest         GoTest
	stdout, stderr io.Writer

	settings settings.Settings
	cases    []eval.Case
	run      *suite.Run
	// names are the cases' subtest names and selected the cases that -run
	// and -skip select, by case name.
	names    map[string]string
	selected map[string]bool
	// runPattern and skipPattern are -run and -skip as given; categoryOf
	// describes each category as they see it, by name: they select the
	// arms of a case too.
	runPattern, skipPattern *selection.Pattern
	categoryOf              map[string]selection.Category
	progress                *progress.Reporter
	// shown is progress once it shows, for the interrupt notices.
	shown atomic.Pointer[progress.Reporter]
	// failures holds, with a pass-rate gate, the last failure paragraph
	// of each case and arm, for the closing lines of the cases below the
	// gate: their subtests do not fail, so go test does not show them.
	failureMu sync.Mutex
	failures  map[[2]string]string
	// casesCtx is the context every case runs under: a second interrupt
	// cancels it (see suite.Run.WatchInterrupts).
	casesCtx       context.Context
	stopInterrupts func()
	shard          *shard.Split // nil unless the run is split (-shard k/n)
	// repeats counts the calls of each category's test function: the
	// n-th call (from 0) of go test -count=N is every case's repeat n.
	repeatMu sync.Mutex
	repeats  map[string]int
	// slots holds a token for each case running (see Slot).
	slots chan struct{}
	// caseDir is the directory case files are named relative to (see
	// caseFile), "" before it is needed.
	caseDirOnce sync.Once
	caseDir     string
}

// Load resolves the settings (the flags of fs, the environment, .env) and
// loads the cases. Messages go to stdout and stderr.
func Load(fs *flag.FlagSet, c Config, gt GoTest, stdout, stderr io.Writer) (*Harness, error) {
	st, err := settings.Resolve(fs)
	if err == nil {
		err = st.UseServersFile(c.ServersFile)
	}
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	cases, err := evalcase.LoadPath(st.Cases)
	if err != nil {
		return nil, err
	}
	return &Harness{config: c, gotest: gt, stdout: stdout, stderr: stderr, settings: st, cases: cases}, nil
}

// Start prints the run's opening notices, starts the servers and the
// model, and checks what must hold before any case runs: the budget and
// the provider. An interrupt while the servers start stops the start. A
// Start that fails has said why on stderr and kept no run; its error is
// for the exit status only.
func (h *Harness) Start() error {
	if other := h.otherCategories(); len(other) > 0 {
		fmt.Fprintf(h.stdout, "mcpeval: notice: categories without a test function of their own run as %s/<category> (make generate gives them one): %s\n", otherTest, strings.Join(other, ", "))
	}
	if h.gotest.Short {
		fmt.Fprintln(h.stdout, "mcpeval: notice: -short: the reference run, which sends no model request.")
	}
	if h.settings.Reference {
		// How to evaluate a model instead is said once, in the closing lines.
		fmt.Fprintln(h.stdout, "mcpeval: notice: REFERENCE RUN, not a model evaluation: each case's reference tool calls run on the real server, the case's checks must accept its expected answer, and the results must hold that answer's facts.")
	}
	starting, stopStarting := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	run, err := suite.New(starting, h.settings, h.cases, h.config.Bundled, h.stderr)
	if err != nil && starting.Err() == nil {
		// The terminal's Ctrl-C reaches the servers too: a server that
		// died of it may be seen before the signal is.
		select {
		case <-starting.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	interrupted := starting.Err() != nil
	stopStarting()
	if interrupted {
		if err == nil {
			run.Discard()
		}
		return h.fail(nil, "mcpeval: INTERRUPTED (Ctrl-C) while the servers started: no case ran, so no run was kept (latest is unchanged)")
	}
	if err != nil {
		return h.fail(nil, "mcpeval: error: %v", err)
	}
	h.run = run
	// From here to the closing lines, interrupts stop the run gracefully.
	h.casesCtx, h.stopInterrupts = run.WatchInterrupts(h.say)
	if err := run.Select(h.selected); err != nil {
		return h.fail(run, "mcpeval: error: %v\nmcpeval: no case was run", err)
	}
	h.planShard()
	run.Plan(h.myRuns(), h.gotest.Count)
	chosen := h.shardCases(h.selectedCases())
	if err := h.checkBudget(chosen); err != nil {
		return h.fail(run, "mcpeval: error: budget: %v", err)
	}
	// A key, model or host the provider refuses ends the run here, before
	// go test runs (and passes) anything.
	if err := run.CheckProvider(h.casesCtx, chosen, h.gotest.Count); err != nil {
		reason := run.Aborted()
		if reason == "" {
			reason = err.Error()
		}
		return h.fail(run, "mcpeval: error: run stopped: %s\nmcpeval: no case ran, so no run was kept (latest is unchanged)", reason)
	}
	if ch := run.ToolChanges(); ch != nil {
		fmt.Fprintln(h.stdout, suite.FormatToolChanges(ch, h.settings.Reference))
	}
	run.FailFast = h.gotest.FailFast
	h.slots = make(chan struct{}, h.CaseSlots())
	h.progress = progress.Start(progress.Options{
		Total: h.plannedCount(), Off: h.settings.Progress == settings.ProgressOff, Every: h.settings.ProgressEvery,
		JSON: h.gotest.JSON, Verbose: h.gotest.Verbose, Live: h.settings.Progress == settings.ProgressLive,
	})
	h.shown.Store(h.progress)
	return nil
}

// Slot waits until fewer cases run than the run's concurrency allows and
// returns the function that ends the case's turn: call it as the case's
// subtest returns. Every case of the process, of any category, runs in a
// slot.
func (h *Harness) Slot() (release func()) {
	h.slots <- struct{}{}
	return func() { <-h.slots }
}

// CaseSlots is how many cases run at once: EVAL_CONCURRENCY, or go test's
// -parallel when it is given and lower.
func (h *Harness) CaseSlots() int {
	if p := h.gotest.Parallel; p > 0 && p < h.settings.Concurrency {
		return p
	}
	return max(h.settings.Concurrency, 1)
}

// say shows a line the user must see while the run goes: through the
// progress once it shows, else on stderr.
func (h *Harness) say(line string) {
	if p := h.shown.Load(); p != nil {
		p.Notice(line)
		return
	}
	fmt.Fprintln(h.stderr, line)
}

// errStart is the error of a Start that said why on stderr.
var errStart = fmt.Errorf("the run did not start")

// fail discards the run, when one was started, says why on stderr and
// returns errStart.
func (h *Harness) fail(run *suite.Run, format string, args ...any) error {
	if run != nil {
		run.Discard()
	}
	if h.stopInterrupts != nil {
		h.stopInterrupts()
	}
	fmt.Fprintf(h.stderr, format+"\n", args...)
	return errStart
}

// checkBudget refuses a run estimated above its budget (-budget-usd),
// before any request, and says the estimate otherwise.
func (h *Harness) checkBudget(chosen []eval.Case) error {
	if h.settings.BudgetUSD <= 0 {
		return nil
	}
	usd, err := h.run.Estimate(chosen, h.gotest.Count)
	if err != nil {
		return err
	}
	if usd > h.settings.BudgetUSD {
		return fmt.Errorf("the run is estimated at $%.4f (%s, %s, %s each; cached passes cost nothing), above the budget of $%.4f: no request was sent",
			usd, prose.Plural(len(chosen), "cases"), prose.Plural(len(h.arms()), "arms"), prose.Plural(h.gotest.Count, "runs"), h.settings.BudgetUSD)
	}
	fmt.Fprintf(h.stdout, "mcpeval: estimated cost $%.4f of the budget $%.4f\n", usd, h.settings.BudgetUSD)
	return nil
}

// Finish ends a started run once go test has run its tests (code is what
// m.Run returned): it writes the summary and metrics, prints the closing
// lines, and returns the exit status, which fails for a failed case, a
// gate not passed or a run that stopped.
func (h *Harness) Finish(code int) int {
	h.progress.Stop()
	defer h.stopInterrupts()
	defer h.progress.Close()
	saved, unsaved := h.run.Recorded()
	if reason := h.run.Aborted(); reason != "" && saved+unsaved == 0 {
		// Refused before any case (a rejected key, a misspelt model): no
		// run to keep, and latest still names the last one that ran.
		if err := h.run.Discard(); err != nil {
			fmt.Fprintln(h.stderr, "mcpeval: error:", err)
		}
		h.progress.Closing("mcpeval: error: run stopped: "+reason+"\nmcpeval: no case ran, so no run was kept (latest is unchanged)", true)
		return 1
	}
	sum := h.run.Summary()
	h.describeShard(&sum)
	var problems []string
	if unsaved > 0 {
		problems = append(problems, fmt.Sprintf("mcpeval: error: %d of the %d results could not be written to %s; the counts above include them",
			unsaved, saved+unsaved, filepath.Join(h.run.RunDir, eval.RecordsFile)))
	}
	for _, err := range h.run.Finish(sum) {
		problems = append(problems, "mcpeval: error: "+err.Error())
	}
	for _, line := range suite.Gates(sum, h.settings) {
		problems = append(problems, "mcpeval: FAIL: "+line)
	}
	problems = append(problems, h.belowGate(sum)...)
	var notices []string
	if after := h.run.FailedFast(); after != "" {
		notices = append(notices, fmt.Sprintf("mcpeval: notice: -failfast: no case started after %q failed (%s not run)", after, suite.PluralRuns(sum, sum.NotRun)))
	} else if reason := sum.Stopped; reason == suite.Interrupted {
		problems = append(problems, fmt.Sprintf("mcpeval: INTERRUPTED (Ctrl-C): %s finished, kept in %s; %d not run",
			prose.Plural(sum.Total, "case runs"), h.run.RunDir, sum.NotRun))
	} else if reason != "" {
		problems = append(problems, "mcpeval: error: run stopped: "+reason)
	}
	if len(problems) > 0 {
		code = 1
	}
	// A failed package's output is shown by go test anyway, but not after
	// the Ctrl-C that reached go test too.
	closing := append([]string{suite.FormatSummary(sum, h.run.RunDir)}, notices...)
	if sum.Stopped == suite.Interrupted {
		// The terminal's Ctrl-C reached go test too, which may show none
		// of the output: the closing lines go to the terminal, with why.
		h.progress.Closing(strings.Join(append(closing, problems...), "\n"), false)
		return code
	}
	h.progress.Closing(strings.Join(closing, "\n"), code != 0)
	for _, p := range problems {
		fmt.Fprintln(h.stderr, p)
	}
	return code
}

// remember keeps a failure paragraph of a gated run (see failures).
func (h *Harness) remember(rec eval.Record, paragraph string) {
	h.failureMu.Lock()
	defer h.failureMu.Unlock()
	if h.failures == nil {
		h.failures = map[[2]string]string{}
	}
	h.failures[[2]string{rec.Name, rec.ArmName()}] = paragraph
}

// belowGate gives, for each case below the minimum pass rate, its last
// failure paragraph.
func (h *Harness) belowGate(sum eval.Summary) []string {
	if h.settings.MinPassRate <= 0 {
		return nil
	}
	h.failureMu.Lock()
	defer h.failureMu.Unlock()
	var out []string
	for _, c := range sum.Cases {
		if c.PassRate >= h.settings.MinPassRate {
			continue
		}
		if p, ok := h.failures[[2]string{c.Name, c.Model}]; ok {
			out = append(out, fmt.Sprintf("mcpeval: %q, its last failure:\n    %s", c.Name, p))
		}
	}
	return out
}
