package evaltest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/progress"
	"github.com/mcpeval/mcpeval/internal/sampleserver"
	"github.com/mcpeval/mcpeval/internal/selection"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/shard"
	"github.com/mcpeval/mcpeval/internal/suite"
	"github.com/mcpeval/mcpeval/internal/testname"
)

// Config configures a Suite.
type Config struct {
	// Generated lists the categories that have a test function of their
	// own (the file mcpeval generate writes declares it); the others run under
	// RunOther.
	Generated []string
	// ServersFile, when set, is a client configuration file (.mcp.json:
	// the mcpServers object) whose servers are evaluated when none is
	// configured (EVAL_SERVER, EVAL_SERVERS_FILE). A relative path is
	// taken from the module root.
	ServersFile string
	// Server, when set, is the MCP server to evaluate when none is
	// configured: the test binary serves it itself, started again as a
	// stdio subprocess, as a real server would be.
	Server func() *server.MCPServer
	// CodeCheck, when set with Server, tells whether that server can run
	// code cases on this machine; an error skips them with its message. It
	// runs once, for the first code case the cache does not hold.
	CodeCheck func() error
}

// OtherCategoriesTest is the name of the test function that calls RunOther.
const OtherCategoriesTest = testname.Other

// A Suite wires an evaluation to go test: Main runs from TestMain, Run
// from each category's test function and RunOther from the function that
// serves every other category. Declare one in the test package:
//
//	var evaluation = evaltest.New(evaltest.Config{Generated: generatedCategories})
//
//	func TestMain(m *testing.M)          { evaluation.Main(m) }
//	func TestOtherCategories(t *testing.T) { evaluation.RunOther(t) }
//	func TestGeneMagic(t *testing.T)       { evaluation.Run(t, "Gene Magic") }
type Suite struct {
	config Config
	run    *suite.Run
	cases  []eval.Case
	// names are the cases' subtest names and selected the cases that -run
	// and -skip select, by case name.
	names    map[string]string
	selected map[string]bool
	// runPattern and skipPattern are -run and -skip as given; categories
	// describes each category as they see it, by name: they select the
	// models of a case too.
	runPattern, skipPattern *selection.Pattern
	categoryOf              map[string]selection.Category
	progress                *progress.Reporter
	// cases is the context every case runs under: a second interrupt
	// cancels it (see suite.Run.WatchInterrupts).
	casesCtx context.Context
	shard    *shard.Split // nil unless the run is split (-shard k/n)
	// repeats counts the calls of each category's test function: the
	// n-th call (from 0) of go test -count=N is every case's repeat n.
	repeatMu sync.Mutex
	repeats  map[string]int
}

// New returns a Suite with the given configuration.
func New(c Config) *Suite { return &Suite{config: c} }

// defaultMemoryLimit is the Go runtime's soft memory limit for a run: a run
// is I/O-bound, and trading some GC work for a small footprint keeps
// 10,000-case runs near 250 MB. GOMEMLIMIT overrides it.
const defaultMemoryLimit = 224 << 20

// Main runs the evaluation and exits: call it from TestMain. It reads the
// settings (flags after the package, environment, .env), loads the cases,
// connects the MCP servers and the model, runs the tests, writes the run's
// summary and metrics and prints its closing lines. The exit status fails
// for a failed case, a gate not passed or a run that stopped.
func (s *Suite) Main(m *testing.M) {
	if os.Getenv(settings.ServeVar) == "1" && s.config.Server != nil {
		if err := server.ServeStdio(s.config.Server(), server.WithWorkerPoolSize(64)); err != nil {
			fmt.Fprintln(os.Stderr, "MCP server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	settings.RegisterFlags(flag.CommandLine)
	if err := settings.CheckFlags(flag.CommandLine, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mcpeval: error:", err)
		os.Exit(2)
	}
	flag.Parse()
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	os.Exit(s.main(m))
}

func (s *Suite) main(m *testing.M) int {
	if testing.Short() {
		// -short is go test's "quick and free": the reference run, which
		// sends no model request.
		flag.Set("reference", "true")
	}
	st, err := settings.Resolve(flag.CommandLine)
	if err == nil {
		err = st.UseServersFile(s.config.ServersFile)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpeval: error: configuration: %v\n", err)
		return 1
	}
	s.cases, err = evalcase.LoadPath(st.Cases)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpeval: error: %v\n", err)
		return 1
	}
	if flagValue("test.list") != "" {
		return m.Run()
	}
	if flagValue("test.count") == "0" {
		fmt.Fprintln(os.Stderr, "mcpeval: error: -count=0 runs no case: give -count=N with N of 1 or more (the runs of each case)")
		return 1
	}
	run, selected, err := s.selectCases()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpeval: error: %v\n", err)
		return 1
	}
	if selected == 0 {
		if why := s.noCaseSelected(run); why != "" {
			fmt.Fprintln(os.Stderr, "mcpeval: error:", why)
			return 1
		}
		return m.Run() // the pattern selects other tests of the package, or none on purpose
	}
	setParallel(st.Concurrency)
	if other := s.otherCategories(); len(other) > 0 {
		fmt.Printf("mcpeval: notice: categories without a test function of their own run as %s/<category> (make generate gives them one): %s\n", OtherCategoriesTest, strings.Join(other, ", "))
	}
	if testing.Short() {
		fmt.Println("mcpeval: notice: -short: the reference run, which sends no model request.")
	}
	if st.Reference {
		// How to evaluate a model instead is said once, in the closing lines.
		fmt.Println("mcpeval: notice: REFERENCE RUN, not a model evaluation: each case's reference tool calls run on the real server, the case's checks must accept its expected answer, and the results must hold that answer's facts.")
	}
	var bundled suite.Server
	if s.config.Server != nil {
		bundled = suite.Server{Spec: strconv.Quote(os.Args[0]), Env: []string{settings.ServeVar + "=1", sampleserver.DatasetsEnv}, Display: "bundled sample server (sampleserver)",
			CodeCheck: s.config.CodeCheck}
	}
	// An interrupt while the servers start stops the start: no run is kept.
	starting, stopStarting := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	s.run, err = suite.New(starting, st, s.cases, bundled, os.Stderr)
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
			s.run.Discard()
		}
		fmt.Fprintln(os.Stderr, "mcpeval: INTERRUPTED (Ctrl-C) while the servers started: no case ran, so no run was kept (latest is unchanged)")
		return 1
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpeval: error: %v\n", err)
		return 1
	}
	// From here to the closing lines, interrupts stop the run gracefully.
	var stopInterrupts func()
	s.casesCtx, stopInterrupts = s.run.WatchInterrupts()
	defer stopInterrupts()
	if err := s.run.Select(s.selected); err != nil {
		s.run.Discard()
		fmt.Fprintf(os.Stderr, "mcpeval: error: %v\nmcpeval: no case was run\n", err)
		return 1
	}
	s.planShard()
	var chosen []eval.Case
	for _, c := range s.cases {
		if s.selected[c.Name] {
			chosen = append(chosen, c)
		}
	}
	chosen = s.shardCases(chosen)
	if st.BudgetUSD > 0 {
		usd, err := s.run.Estimate(chosen, testCount())
		if err == nil && usd > st.BudgetUSD {
			variants := eval.Plural(len(s.models()), "models")
			if st.Arms != "" {
				variants = eval.Plural(len(s.models()), "arms")
			}
			err = fmt.Errorf("the run is estimated at $%.4f (%s, %s, %s each; cached passes cost nothing), above the budget of $%.4f: no request was sent",
				usd, eval.Plural(len(chosen), "cases"), variants, eval.Plural(testCount(), "runs"), st.BudgetUSD)
		}
		if err != nil {
			s.run.Discard()
			fmt.Fprintf(os.Stderr, "mcpeval: error: budget: %v\n", err)
			return 1
		}
		fmt.Printf("mcpeval: estimated cost $%.4f of the budget $%.4f\n", usd, st.BudgetUSD)
	}
	// A key, model or host the provider refuses ends the run here, before
	// go test runs (and passes) anything.
	if err := s.run.CheckProvider(s.casesCtx, chosen, testCount()); err != nil {
		s.run.Discard()
		reason := s.run.Aborted()
		if reason == "" {
			reason = err.Error()
		}
		fmt.Fprintf(os.Stderr, "mcpeval: error: run stopped: %s\nmcpeval: no case ran, so no run was kept (latest is unchanged)\n", reason)
		return 1
	}
	if ch := s.run.ToolChanges(); ch != nil {
		fmt.Println(suite.FormatToolChanges(ch, st.Reference))
	}
	s.run.FailFast = flagValue("test.failfast") == "true"
	s.progress = progress.Start(progress.Options{
		Total: s.plannedCount(), Off: st.Progress == settings.ProgressOff, Every: st.ProgressEvery,
		JSON: flagValue("test.v") == "test2json", Verbose: flagValue("test.v") == "true", Live: st.Progress == settings.ProgressLive,
	})
	code := m.Run()
	s.progress.Stop()
	defer s.progress.Close()
	touchRunMarker()

	saved, unsaved := s.run.Recorded()
	if reason := s.run.Aborted(); reason != "" && saved+unsaved == 0 {
		// Refused before any case (a rejected key, a misspelt model): no
		// run to keep, and latest still names the last one that ran.
		if err := s.run.Discard(); err != nil {
			fmt.Fprintln(os.Stderr, "mcpeval: error:", err)
		}
		s.progress.Closing("mcpeval: error: run stopped: "+reason+"\nmcpeval: no case ran, so no run was kept (latest is unchanged)", true)
		return 1
	}
	sum := s.run.Summary()
	s.describeShard(&sum)
	var problems []string
	if unsaved > 0 {
		problems = append(problems, fmt.Sprintf("mcpeval: error: %d of the %d results could not be written to %s; the counts above include them",
			unsaved, saved+unsaved, filepath.Join(s.run.RunDir, eval.RecordsFile)))
	}
	for _, err := range s.run.Finish(sum) {
		problems = append(problems, "mcpeval: error: "+err.Error())
	}
	for _, line := range suite.Gates(sum, st) {
		problems = append(problems, "mcpeval: FAIL: "+line)
	}
	notices := []string{}
	if after := s.run.FailedFast(); after != "" {
		notices = append(notices, fmt.Sprintf("mcpeval: notice: -failfast: no case started after %q failed (%s)", after, eval.Plural(sum.NotRun, "cases")+" not run"))
	} else if reason := sum.Stopped; reason == suite.Interrupted {
		problems = append(problems, fmt.Sprintf("mcpeval: INTERRUPTED (Ctrl-C): %s finished, kept in %s; %d not run",
			eval.Plural(sum.Total, "case runs"), s.run.RunDir, sum.NotRun))
	} else if reason != "" {
		problems = append(problems, "mcpeval: error: run stopped: "+reason)
	}
	if len(problems) > 0 {
		code = 1
	}
	// A failed package's output is shown by go test anyway.
	s.progress.Closing(strings.Join(append([]string{suite.FormatSummary(sum, s.run.RunDir)}, notices...), "\n"), code != 0)
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	return code
}

// testCount is go test's -count: how many times every case runs.
func testCount() int {
	if n, err := strconv.Atoi(flagValue("test.count")); err == nil && n > 0 {
		return n
	}
	return 1
}

// flagValue is the value of a flag of the test binary ("" if undefined).
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// categories describes the loaded categories as go test sees them, in the
// order of the case files, with their cases.
func (s *Suite) categories() ([]selection.Category, [][]eval.Case) {
	names := testname.Subtests(caseNames(s.cases))
	s.names = map[string]string{}
	for i, c := range s.cases {
		s.names[c.Name] = names[i]
	}
	var cats []selection.Category
	var cases [][]eval.Case
	index := map[string]int{}
	for _, c := range s.cases {
		i, ok := index[c.Category]
		if !ok {
			i = len(cats)
			index[c.Category] = i
			cats = append(cats, selection.Category{Name: c.Category, Func: testname.Func(c.Category)})
			cases = append(cases, nil)
		}
		cats[i].Cases = append(cats[i].Cases, s.names[c.Name])
		cases[i] = append(cases[i], c)
	}
	other := s.otherCategoryNames()
	for i := range cats {
		if j := slices.Index(other, cats[i].Name); j >= 0 {
			cats[i].Func, cats[i].Sub = OtherCategoriesTest, testname.Subtests(other)[j]
		}
	}
	return cats, cases
}

// selectCases applies -run and -skip to the cases, by test names and by
// category names (see package selection), and rewrites -run so that go
// test runs the test functions of the selected cases whole: Run and
// RunOther start only the selected cases. The pattern's other tests stay
// selected as they were.
func (s *Suite) selectCases() (*selection.Pattern, int, error) {
	run, err := selection.Parse("-run", flagValue("test.run"))
	if err != nil {
		return nil, 0, err
	}
	skip, err := selection.Parse("-skip", flagValue("test.skip"))
	if err != nil {
		return nil, 0, err
	}
	cats, cases := s.categories()
	s.runPattern, s.skipPattern = run, skip
	s.categoryOf = map[string]selection.Category{}
	for _, c := range cats {
		s.categoryOf[c.Name] = c
	}
	s.selected = map[string]bool{}
	var funcs []string
	for i, chosen := range selection.Select(run, skip, cats) {
		for j, ok := range chosen {
			if ok {
				s.selected[cases[i][j].Name] = true
				if f := regexp.QuoteMeta(cats[i].Func); !slices.Contains(funcs, f) {
					funcs = append(funcs, f)
				}
			}
		}
	}
	if run != nil && len(funcs) > 0 {
		flag.Set("test.run", run.Text+"|^(?:"+strings.Join(funcs, "|")+")$")
	}
	// The category functions with nothing to run are left out, not
	// reported as skipped.
	var idle []string
	for _, f := range append(slices.Clone(s.config.Generated), "") {
		name := OtherCategoriesTest
		if f != "" {
			name = testname.Func(f)
		}
		if q := regexp.QuoteMeta(name); !slices.Contains(funcs, q) && !slices.Contains(idle, q) {
			idle = append(idle, q)
		}
	}
	if len(idle) > 0 && len(funcs) > 0 {
		pattern := "^(?:" + strings.Join(idle, "|") + ")$"
		if skip != nil {
			pattern = skip.Text + "|" + pattern
		}
		flag.Set("test.skip", pattern)
	}
	return run, len(s.selected), nil
}

// noCaseSelected explains a -run that selects no case, or gives "" when
// that is on purpose: benchmarks or fuzzing alone (-run '^$'), or other
// tests of the package that the pattern selects.
func (s *Suite) noCaseSelected(run *selection.Pattern) string {
	if run == nil || run.Text == "^$" || flagValue("test.bench") != "" || flagValue("test.fuzz") != "" || s.selectsOtherTests(run) {
		return ""
	}
	cats, cases := s.categories()
	var b strings.Builder
	fmt.Fprintf(&b, "-run %q", run.Text)
	if skip := flagValue("test.skip"); skip != "" {
		fmt.Fprintf(&b, " with -skip %q", skip)
	}
	b.WriteString(" selects no case. The categories, by name and test function (-run takes either, and a case after a /):")
	for i, c := range cats {
		test := c.Func
		if c.Sub != "" {
			test += "/" + c.Sub
		}
		fmt.Fprintf(&b, "\n  %-40s %s (%s)", c.Name, test, eval.Plural(len(cases[i]), "cases"))
	}
	return b.String()
}

// selectsOtherTests reports whether the pattern selects a test, example or
// benchmark of the package that is not a category's, asking the test
// binary for its list (-test.list).
func (s *Suite) selectsOtherTests(run *selection.Pattern) bool {
	args := append([]string{"-test.list", run.TopLevel()}, settings.SettingsArgs(os.Args[1:])...)
	out, err := exec.Command(os.Args[0], args...).Output()
	if err != nil {
		return false
	}
	ours := []string{OtherCategoriesTest}
	for _, c := range s.config.Generated {
		ours = append(ours, testname.Func(c))
	}
	for _, name := range strings.Fields(string(out)) {
		if !slices.Contains(ours, name) && !strings.HasPrefix(name, "ok ") {
			return true
		}
	}
	return false
}

// setParallel lets the suite's own limit (EVAL_CONCURRENCY) decide how
// many cases run at once: go test's -parallel (default GOMAXPROCS) would
// otherwise cap it silently. The cases waiting for their turn stay parked
// in go test, small, rather than started and queued in the suite (a
// 10,000-case run: 240 MB and 28 s instead of 320 MB and 70 s). An
// explicit -parallel is kept, with a notice when it is the tighter bound.
func setParallel(concurrency int) {
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if explicit {
		if p, _ := strconv.Atoi(flag.Lookup("test.parallel").Value.String()); p < concurrency {
			fmt.Fprintf(os.Stderr, "mcpeval: notice: -parallel %d caps EVAL_CONCURRENCY %d: at most %d cases run at once\n", p, concurrency, p)
		}
		return
	}
	flag.Set("test.parallel", strconv.Itoa(concurrency))
}

// Run runs the selected cases of one category as parallel subtests: call
// it from the category's test function.
func (s *Suite) Run(t *testing.T, category string) {
	t.Parallel()
	markUncacheable()
	repeat := s.nextRepeat(t)
	cases := s.casesOf(category)
	if len(cases) == 0 {
		t.Skipf("no loaded case has category %q", category)
	}
	for _, c := range cases {
		if s.selected[c.Name] {
			s.runModels(t, c, repeat)
		}
	}
}

// nextRepeat returns how many times t's test function ran before in this
// process: go test -count=N runs every test function N times, one after
// the other, and the n-th time (from 0) runs every case's repeat n, an
// independent run with its own cache entry.
func (s *Suite) nextRepeat(t *testing.T) int {
	s.repeatMu.Lock()
	defer s.repeatMu.Unlock()
	if s.repeats == nil {
		s.repeats = map[string]int{}
	}
	n := s.repeats[t.Name()]
	s.repeats[t.Name()] = n + 1
	return n
}

// runModels runs a case as a subtest: with one model, the case's own; with
// several (-models), one subtest per model below it. The models of a case
// run side by side (suite.RunModels): started together, they meet the
// provider at the same time, and a budget admits or refuses them together.
func (s *Suite) runModels(t *testing.T, c eval.Case, repeat int) {
	models := s.models()
	all := len(models)
	if models = s.shardModels(c, models, repeat); len(models) == 0 {
		return // of a split run, another shard's
	}
	if all == 1 {
		t.Run(s.names[c.Name], func(t *testing.T) {
			t.Parallel()
			s.report(t, s.runCase(t, c, repeat, models[0].model))
		})
		return
	}
	t.Run(s.names[c.Name], func(t *testing.T) {
		t.Parallel()
		// -run and -skip may name the model's subtest; go test runs the
		// selected category's function whole (see selectCases).
		var chosen []model
		var names, tests []string
		for _, m := range models {
			if s.categoryOf[c.Category].Selects(s.runPattern, s.skipPattern, s.names[c.Name], m.subtest) {
				chosen = append(chosen, m)
				names, tests = append(names, m.model), append(tests, s.testName(c, m).String())
			}
		}
		outcomes := make([]caseOutcome, len(chosen))
		ctx, cancel := s.caseContext(t)
		recs, errs := s.run.Case(ctx, c, repeat, names, tests)
		cancel()
		for i := range chosen {
			outcomes[i] = outcomeOf(recs[i], errs[i])
		}
		for i, m := range chosen {
			t.Run(m.subtest, func(t *testing.T) { s.report(t, outcomes[i]) })
		}
	})
}

// model is what a case runs with, one of the run's variants (an arm, or a
// model: see suite.Run.Variants), and the name of its subtests.
type model struct{ model, subtest string }

// models returns the run's variants with their subtest names: unique,
// without '/' and free of regexp metacharacters, so -run can select one
// ("google/gemini-2.5-flash" is "google_gemini-2_5-flash").
func (s *Suite) models() []model {
	variants := s.run.Variants()
	if len(variants) < 2 {
		return []model{{model: variants[0]}}
	}
	out := make([]model, len(variants))
	for i, name := range testname.Subtests(variants) {
		out[i] = model{variants[i], name}
	}
	return out
}

// RunOther runs the selected cases of every loaded category that has no
// test function of its own, one subtest per category, so that no case is
// ever left out: call it from TestOtherCategories.
func (s *Suite) RunOther(t *testing.T) {
	if t.Name() != OtherCategoriesTest {
		t.Fatalf("call RunOther from func %s(t *testing.T), not from %s: -run finds the categories it runs by that name", OtherCategoriesTest, t.Name())
	}
	t.Parallel()
	markUncacheable()
	repeat := s.nextRepeat(t)
	other := s.otherCategoryNames()
	if len(other) == 0 {
		t.Skip("every loaded category has a test function of its own")
	}
	for i, name := range testname.Subtests(other) {
		var cases []eval.Case
		for _, c := range s.casesOf(other[i]) {
			if s.selected[c.Name] {
				cases = append(cases, c)
			}
		}
		if len(cases) == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			for _, c := range cases {
				s.runModels(t, c, repeat)
			}
		})
	}
}

// caseNames are the names of the cases, in order.
func caseNames(cases []eval.Case) []string {
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.Name
	}
	return names
}

// errTestTimeout is the cause given to cases still running when go test's
// -timeout is about to expire.
var errTestTimeout = errors.New("go test -timeout is about to expire: finished cases are saved; raise it (e.g. -timeout 2h) to finish the run")

// notRun is the skip message of the cases a stopped run did not run; the
// run prints why it stopped once, at its end.
const notRun = "not run: the run stopped (why is the last line of the run's output)"

// caseOutcome is what running a case with a model gave: its record, or
// why it was skipped.
type caseOutcome struct {
	rec  eval.Record
	skip string
}

// runCase runs a case with one model in its subtest t.
func (s *Suite) runCase(t *testing.T, c eval.Case, repeat int, model string) caseOutcome {
	ctx, cancel := s.caseContext(t)
	defer cancel()
	recs, errs := s.run.Case(ctx, c, repeat, []string{model}, []string{t.Name()})
	return outcomeOf(recs[0], errs[0])
}

// caseContext is the context of a case's runs: it ends shortly before go
// test's -timeout would, so that the cases running end as errors that say
// to raise it, or when a second interrupt cancels the cases.
func (s *Suite) caseContext(t *testing.T) (context.Context, context.CancelFunc) {
	if deadline, ok := t.Deadline(); ok {
		return context.WithDeadlineCause(s.casesCtx, deadline.Add(-5*time.Second), errTestTimeout)
	}
	return context.WithCancel(s.casesCtx)
}

// outcomeOf reads what suite.Run returned: a record, or why the case was
// skipped.
func outcomeOf(rec eval.Record, err error) caseOutcome {
	var skip *suite.SkipError
	switch {
	case errors.As(err, &skip):
		return caseOutcome{skip: skip.Reason}
	case err != nil:
		return caseOutcome{skip: notRun}
	case rec.Status == eval.NotRun:
		return caseOutcome{skip: rec.Reason}
	}
	return caseOutcome{rec: rec}
}

// report reports a case's outcome on its subtest and to the progress.
func (s *Suite) report(t *testing.T, o caseOutcome) {
	if o.skip != "" {
		s.progress.Done(progress.Skipped)
		fmt.Fprintln(t.Output(), o.skip)
		t.SkipNow()
	}
	rec := o.rec
	if testCount() > 1 {
		// The report tells the repeats of a case apart by this attribute
		// (shards may run different repeats of one case). A run without
		// repeats needs none: go test -v prints each attribute as a line,
		// and gotestsum's JUnit file gives it as properties that JUnit
		// schemas refuse.
		t.Attr("eval.repeat", strconv.Itoa(rec.Repeat))
	}
	s.progress.Done(outcome(rec.Status))
	// The case's paragraph goes out without go test's "harness.go:NNN:"
	// prefix: the place that matters is the case's file and line, which it
	// names. With a pass-rate gate, the case's rate over its repeats
	// decides (in Main), not each repeat.
	if rec.Status == eval.Pass {
		fmt.Fprintln(t.Output(), suite.FormatLine(rec))
		return
	}
	fmt.Fprintln(t.Output(), strings.ReplaceAll(suite.FormatFailure(rec), "\n", "\n    "))
	if !s.run.Settings.Gated() {
		t.Fail()
	}
}

// outcome is how the progress counts a status.
func outcome(st eval.Status) progress.Outcome {
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

// casesOf returns the loaded cases of a category.
func (s *Suite) casesOf(category string) []eval.Case {
	var out []eval.Case
	for _, c := range s.cases {
		if c.Category == category {
			out = append(out, c)
		}
	}
	return out
}

// otherCategoryNames lists the loaded categories without a test function
// of their own, in the order of the case files.
func (s *Suite) otherCategoryNames() []string {
	var other []string
	for _, c := range s.cases {
		if !slices.Contains(s.config.Generated, c.Category) && !slices.Contains(other, c.Category) {
			other = append(other, c.Category)
		}
	}
	return other
}

// otherCategories lists the other categories (see otherCategoryNames)
// that have selected cases.
func (s *Suite) otherCategories() []string {
	var out []string
	for _, name := range s.otherCategoryNames() {
		if slices.ContainsFunc(s.casesOf(name), func(c eval.Case) bool { return s.selected[c.Name] }) {
			out = append(out, name)
		}
	}
	return out
}

// runMarker is a file in the test package's directory that Main rewrites
// at the end of every run.
const runMarker = ".cache/last-run"

// markUncacheable keeps go test from replaying an evaluation from its own
// test cache (the model, the server or the result cache may have changed
// without go test knowing): it opens runMarker, and go test caches no result
// that read a file of the module modified in the last two seconds.
func markUncacheable() {
	if f, err := os.Open(runMarker); err == nil {
		f.Close()
	}
}

// touchRunMarker rewrites runMarker (see markUncacheable).
func touchRunMarker() {
	if err := os.MkdirAll(filepath.Dir(runMarker), 0o755); err == nil {
		os.WriteFile(runMarker, []byte(time.Now().UTC().Format(time.RFC3339Nano)+"\n"), 0o644)
	}
}
