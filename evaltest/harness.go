package evaltest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpeval/mcpeval/internal/harness"
	"github.com/mcpeval/mcpeval/internal/sampleserver"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/suite"
	"github.com/mcpeval/mcpeval/internal/testname"
	"github.com/mcpeval/mcpeval/internal/tracing"
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
	config  Config
	harness *harness.Harness
}

// New returns a Suite with the given configuration.
func New(c Config) *Suite { return &Suite{config: c} }

// The Go runtime's memory settings for a run, unless GOMEMLIMIT sets a
// limit. What a run holds grows with the cases running at once
// (EVAL_CONCURRENCY), not with the number of cases: some 20 MB of loaded
// cases and tokenizer tables, a little more per case running, more while
// the closing summary of 10,000 cases is made. It holds little but
// allocates steadily, so the collector runs when the heap has grown by
// gcPercent of what it holds (unless GOGC sets it; the runtime's default
// is 100%), and a soft limit of baseMemoryLimit and slotMemoryLimit for
// each case running at once (112 MiB for 16) bounds the whole: a quarter
// of the collections, for a heap the limit keeps the same size.
// baseMemoryLimit+slotMemoryLimit holds until the settings are read.
const (
	baseMemoryLimit = 80 << 20
	slotMemoryLimit = 2 << 20
	gcPercent       = 400
)

// Main runs the evaluation and exits: call it from TestMain. It reads the
// settings (flags after the package, environment, .env), loads the cases,
// connects the MCP servers and the model, runs the tests, writes the run's
// summary and metrics and prints its closing lines. The exit status fails
// for a failed case, a gate not passed or a run that stopped.
func (s *Suite) Main(m *testing.M) {
	if os.Getenv(settings.ServeVar) == "1" && s.config.Server != nil {
		stopTraces := tracing.Serve(context.Background(), "mcp-server", os.Stderr)
		err := server.ServeStdio(s.config.Server(), server.WithWorkerPoolSize(64))
		stopTraces()
		if err != nil {
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
		debug.SetMemoryLimit(baseMemoryLimit + slotMemoryLimit)
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(gcPercent)
		}
	}
	os.Exit(s.main(m))
}

func (s *Suite) main(m *testing.M) int {
	if testing.Short() {
		// -short is go test's "quick and free": the reference run, which
		// sends no model request.
		flag.Set("reference", "true")
	}
	config := harness.Config{Generated: s.config.Generated, ServersFile: s.config.ServersFile}
	if s.config.Server != nil {
		config.Bundled = suite.Server{Spec: strconv.Quote(os.Args[0]), Env: []string{settings.ServeVar + "=1", sampleserver.DatasetsEnv},
			Display: "bundled sample server (sampleserver)", CodeCheck: s.config.CodeCheck}
	}
	h, err := harness.Load(flag.CommandLine, config, goTestFlags(), os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpeval: error: %v\n", err)
		return 1
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(baseMemoryLimit + int64(h.CaseSlots())*slotMemoryLimit)
	}
	if flagValue("test.list") != "" {
		return m.Run()
	}
	sel, err := h.Select()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpeval: error: %v\n", err)
		return 1
	}
	if sel.Cases == 0 {
		return m.Run() // the pattern selects other tests of the package, or none on purpose
	}
	for name, value := range map[string]string{"test.run": sel.Run, "test.skip": sel.Skip} {
		if value != "" {
			flag.Set(name, value)
		}
	}
	if sel.Parallel > 0 {
		flag.Set("test.parallel", strconv.Itoa(sel.Parallel))
	}
	if err := h.Start(); err != nil {
		return 1 // Start said why
	}
	s.harness = h
	code := m.Run()
	touchRunMarker()
	return h.Finish(code)
}

// goTestFlags reads go test's own flags.
func goTestFlags() harness.GoTest {
	count, err := strconv.Atoi(flagValue("test.count"))
	if err != nil {
		count = 1
	}
	gt := harness.GoTest{
		Run: flagValue("test.run"), Skip: flagValue("test.skip"), Count: count,
		Short: testing.Short(), FailFast: flagValue("test.failfast") == "true",
		Verbose: flagValue("test.v") == "true", JSON: flagValue("test.v") == "test2json",
		Other: flagValue("test.bench") != "" || flagValue("test.fuzz") != "",
		List:  listTests,
	}
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "test.parallel" {
			gt.Parallel, _ = strconv.Atoi(f.Value.String())
		}
	})
	return gt
}

// listTests asks the test binary which of the package's tests, examples
// and benchmarks a pattern selects (-test.list).
func listTests(pattern string) []string {
	args := append([]string{"-test.list", pattern}, settings.SettingsArgs(os.Args[1:])...)
	out, err := exec.Command(os.Args[0], args...).Output()
	if err != nil {
		return nil
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "ok ") {
			names = append(names, line)
		}
	}
	return names
}

// flagValue is the value of a flag of the test binary ("" if undefined).
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// Run runs the selected cases of one category as subtests, side by side
// (see runCases): call it from the category's test function.
func (s *Suite) Run(t *testing.T, category string) {
	t.Parallel()
	markUncacheable()
	repeat := s.harness.Repeat(t.Name())
	tests, loaded := s.harness.Category(category, repeat)
	if !loaded {
		t.Skipf("no loaded case has category %q", category)
	}
	s.runCases(t, tests, repeat)
}

// runCases runs cases as subtests of t, each in a goroutine of its own
// started once one of the run's case slots is free (harness.Harness.Slot):
// as many cases run at once as the run's concurrency allows, across all
// categories, and no more are started. A case waiting for its turn is not
// a subtest yet: memory grows with the concurrency, not with the number of
// cases (a paused parallel subtest would hold its goroutine and go test's
// state for it until its turn).
func (s *Suite) runCases(t *testing.T, tests []harness.CaseTest, repeat int) {
	var wg sync.WaitGroup
	for _, ct := range tests {
		release := s.harness.Slot()
		wg.Go(func() {
			defer release()
			s.runCase(t, ct, repeat)
		})
	}
	wg.Wait()
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
	repeat := s.harness.Repeat(t.Name())
	names, subtests := s.harness.OtherCategories()
	if len(names) == 0 {
		t.Skip("every loaded category has a test function of its own")
	}
	for i, name := range names {
		tests, _ := s.harness.Category(name, repeat)
		if len(tests) == 0 {
			continue
		}
		t.Run(subtests[i], func(t *testing.T) { s.runCases(t, tests, repeat) })
	}
}

// runCase runs a case as a subtest: with the run's one arm, the case's
// own; with several, one subtest per arm below it. The arms of a case run
// side by side (see harness.Harness.Run).
func (s *Suite) runCase(t *testing.T, ct harness.CaseTest, repeat int) {
	t.Run(ct.Name, func(t *testing.T) {
		deadline, ok := t.Deadline()
		outcomes := s.harness.Run(ct, repeat, t.Name(), deadline, ok)
		if ct.Arms[0].Subtest == "" {
			s.report(t, outcomes[0])
			return
		}
		for i, arm := range ct.Arms {
			t.Run(arm.Subtest, func(t *testing.T) { s.report(t, outcomes[i]) })
		}
	})
}

// report reports a case run's outcome on its subtest.
func (s *Suite) report(t *testing.T, o harness.Outcome) {
	text, fail := s.harness.Done(o)
	fmt.Fprintln(t.Output(), text)
	if o.Skip != "" {
		t.SkipNow()
	}
	if n, _ := strconv.Atoi(flagValue("test.count")); n > 1 {
		// The report tells the repeats of a case apart by this attribute
		// (shards may run different repeats of one case). A run without
		// repeats needs none: go test -v prints each attribute as a line,
		// and gotestsum's JUnit file gives it as properties that JUnit
		// schemas refuse.
		t.Attr("eval.repeat", strconv.Itoa(o.Record.Repeat))
	}
	if fail {
		t.Fail()
	}
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
