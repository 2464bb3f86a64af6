package evaltest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/suite"
)

// Config configures a Suite.
type Config struct {
	// Generated lists the categories that have a test function of their
	// own (the file evalgen writes declares it); the others run under
	// RunOther.
	Generated []string
	// Server, when set, is the MCP server to evaluate when none is
	// configured (EVAL_SERVER): the test binary serves it itself, started
	// again as a stdio subprocess, as a real server would be.
	Server func() *server.MCPServer
	// CodeCheck, when set with Server, tells whether that server can run
	// code cases on this machine; an error skips them with its message. It
	// runs once, for the first code case the cache does not hold.
	CodeCheck func() error
}

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
	run    *suite.Suite
	cases  []eval.Case
}

// New returns a Suite with the given configuration.
func New(c Config) *Suite { return &Suite{config: c} }

// serveEnv makes the test binary serve Config.Server over stdio instead of
// running tests.
const serveEnv = "EVAL_SERVE_SAMPLE"

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
	if os.Getenv(serveEnv) == "1" && s.config.Server != nil {
		if err := server.ServeStdio(s.config.Server(), server.WithWorkerPoolSize(64)); err != nil {
			fmt.Fprintln(os.Stderr, "MCP server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	settings.RegisterFlags(flag.CommandLine)
	flag.Parse()
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	os.Exit(s.main(m))
}

func (s *Suite) main(m *testing.M) int {
	st, err := settings.Resolve(flag.CommandLine)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpeval: error: configuration: %v\n", err)
		return 1
	}
	s.cases, err = evalcase.LoadPath(st.Cases)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpeval: error: %v\n", err)
		return 1
	}
	if f := flag.Lookup("test.list"); f != nil && f.Value.String() != "" {
		return m.Run()
	}
	if f := flag.Lookup("test.count"); f != nil && f.Value.String() == "0" {
		fmt.Fprintln(os.Stderr, "mcpeval: error: -count=0 runs no case: give -count=N with N of 1 or more (the runs of each case)")
		return 1
	}
	widenParallel(st.Concurrency, len(s.cases))
	if other := s.otherCategories(); len(other) > 0 {
		fmt.Printf("mcpeval: categories without a test function of their own run as TestOtherCategories/<category> (make generate gives them one): %s\n", strings.Join(other, ", "))
	}
	if st.Reference {
		fmt.Println("mcpeval: REFERENCE RUN, not a model evaluation: each case's reference tool calls run on the real server and the deterministic checks judge the answer.")
		fmt.Println("mcpeval:", settings.MissingKeyHelp)
	}
	var bundled suite.Server
	if s.config.Server != nil {
		bundled = suite.Server{Spec: strconv.Quote(os.Args[0]), Env: []string{serveEnv + "=1"}, Display: "bundled sample server (sampleserver)",
			CodeCheck: s.config.CodeCheck}
	}
	s.run, err = suite.New(context.Background(), st, s.cases, bundled, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpeval: error: %v\n", err)
		return 1
	}
	if st.BudgetUSD > 0 {
		selected := s.selected()
		usd, err := s.run.Estimate(selected, testCount())
		if err == nil && usd > st.BudgetUSD {
			err = fmt.Errorf("the run is estimated at $%.4f (%d cases, %d models, %d runs each; cached passes cost nothing), above the budget of $%.4f: no request was sent",
				usd, len(selected), len(s.models()), testCount(), st.BudgetUSD)
		}
		if err != nil {
			s.run.Close()
			fmt.Fprintf(os.Stderr, "mcpeval: error: budget: %v\n", err)
			return 1
		}
		fmt.Printf("mcpeval: estimated cost $%.4f of the budget $%.4f\n", usd, st.BudgetUSD)
	}
	if ch := s.run.ToolChanges(); ch != nil {
		fmt.Println(suite.FormatToolChanges(ch, st.Reference))
	}
	code := m.Run()
	touchRunMarker()

	sum := s.run.Summary()
	if err := s.run.WriteMetrics(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpeval: error:", err)
		code = 1
	}
	if err := s.run.WriteSummary(sum); err != nil {
		fmt.Fprintln(os.Stderr, "mcpeval: error:", err)
		code = 1
	}
	if err := s.run.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpeval: error:", err)
		code = 1
	}
	fmt.Println(suite.FormatSummary(sum, s.run.RunDir))
	for _, line := range suite.Gates(sum, st) {
		fmt.Fprintln(os.Stderr, "mcpeval: FAIL:", line)
		code = 1
	}
	if reason := s.run.Aborted(); reason != "" {
		fmt.Fprintln(os.Stderr, "mcpeval: error: run stopped:", reason)
		code = 1
	}
	return code
}

// testCount is go test's -count: how many times every case runs.
func testCount() int {
	if f := flag.Lookup("test.count"); f != nil {
		if n, err := strconv.Atoi(f.Value.String()); err == nil && n > 0 {
			return n
		}
	}
	return 1
}

// selected returns the loaded cases that go test's -run pattern selects.
func (s *Suite) selected() []eval.Case {
	pattern := ""
	if f := flag.Lookup("test.run"); f != nil {
		pattern = f.Value.String()
	}
	var out []eval.Case
	other := s.otherCategories()
	otherNames := map[string]string{}
	for i, name := range evalcase.SubtestNames(categoriesAsCases(other)) {
		otherNames[other[i]] = name
	}
	for _, c := range s.cases {
		levels := []string{evalcase.FuncName(c.Category), s.run.Names[c.Name]}
		if sub, ok := otherNames[c.Category]; ok {
			levels = []string{"TestOtherCategories", sub, s.run.Names[c.Name]}
		}
		if runSelects(pattern, levels) {
			out = append(out, c)
		}
	}
	return out
}

// runSelects reports whether go test's -run pattern selects a test whose
// name has the given levels: each '/'-separated element of the pattern is
// an unanchored regular expression for the level at its place; levels
// beyond the pattern's match anything.
func runSelects(pattern string, levels []string) bool {
	if pattern == "" {
		return true
	}
	for i, elem := range splitPattern(pattern) {
		if i >= len(levels) {
			return true
		}
		re, err := regexp.Compile(elem)
		if err != nil || !re.MatchString(levels[i]) {
			return false
		}
	}
	return true
}

// splitPattern splits a -run pattern at the slashes outside brackets and
// parentheses, as go test does.
func splitPattern(pattern string) []string {
	var elems []string
	depth, start := 0, 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '[', '(':
			depth++
		case ']', ')':
			if depth > 0 {
				depth--
			}
		case '\\':
			i++
		case '/':
			if depth == 0 {
				elems = append(elems, pattern[start:i])
				start = i + 1
			}
		}
	}
	return append(elems, pattern[start:])
}

// categoriesAsCases turns category names into cases, for their subtest names.
func categoriesAsCases(names []string) []eval.Case {
	out := make([]eval.Case, len(names))
	for i, name := range names {
		out[i].Name = name
	}
	return out
}

// widenParallel lets the suite's own limit (EVAL_CONCURRENCY) decide how
// many cases run at once: go test's -parallel (default GOMAXPROCS) would
// otherwise cap it silently. An explicit -parallel is kept, with a notice
// when it is the tighter bound.
func widenParallel(concurrency, cases int) {
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if explicit {
		if p, _ := strconv.Atoi(flag.Lookup("test.parallel").Value.String()); p < concurrency {
			fmt.Fprintf(os.Stderr, "mcpeval: -parallel %d caps EVAL_CONCURRENCY %d: at most %d cases run at once\n", p, concurrency, p)
		}
		return
	}
	flag.Set("test.parallel", strconv.Itoa(max(concurrency, cases+1)))
}

// Run runs the cases of one category as parallel subtests: call it from
// the category's test function.
func (s *Suite) Run(t *testing.T, category string) {
	t.Parallel()
	markUncacheable()
	cases := s.casesOf(category)
	if len(cases) == 0 {
		t.Skipf("no loaded case has category %q", category)
	}
	for _, c := range cases {
		s.runModels(t, c)
	}
}

// runModels runs a case as a subtest: with one model, the case's own; with
// several (-models), one subtest per model below it.
func (s *Suite) runModels(t *testing.T, c eval.Case) {
	models := s.models()
	if len(models) == 1 {
		t.Run(s.run.Names[c.Name], func(t *testing.T) { s.runCase(t, c, models[0].model) })
		return
	}
	t.Run(s.run.Names[c.Name], func(t *testing.T) {
		t.Parallel()
		for _, m := range models {
			t.Run(m.subtest, func(t *testing.T) { s.runCase(t, c, m.model) })
		}
	})
}

// model is an evaluated model and the name of its subtests.
type model struct{ model, subtest string }

// models returns the run's models with their subtest names: unique,
// without '/' and free of regexp metacharacters, so -run can select one
// ("google/gemini-2.5-flash" is "google_gemini-2_5-flash").
func (s *Suite) models() []model {
	st := s.run.Settings
	if st.Reference || len(st.Models) < 2 {
		return []model{{model: st.Model}}
	}
	out := make([]model, len(st.Models))
	for i, name := range evalcase.SubtestNames(categoriesAsCases(st.Models)) {
		out[i] = model{st.Models[i], name}
	}
	return out
}

// RunOther runs every loaded category that has no test function of its
// own, one subtest each, so that no case is ever left out: call it from
// TestOtherCategories.
func (s *Suite) RunOther(t *testing.T) {
	t.Parallel()
	markUncacheable()
	other := s.otherCategories()
	if len(other) == 0 {
		t.Skip("every loaded category has a test function of its own")
	}
	subtests := evalcase.SubtestNames(categoriesAsCases(other))
	for i, name := range other {
		t.Logf("category %q has no test function of its own; it runs here (run `make generate` to give it one)", name)
		t.Run(subtests[i], func(t *testing.T) {
			for _, c := range s.casesOf(name) {
				s.runModels(t, c)
			}
		})
	}
}

// errTestTimeout is the cause given to cases still running when go test's
// -timeout is about to expire.
var errTestTimeout = errors.New("go test -timeout is about to expire: finished cases are saved; raise it (e.g. -timeout 2h) to finish the run")

// notRun is the skip message of the cases a stopped run did not run; the
// run prints why it stopped once, at its end.
const notRun = "not run: the run stopped (why is the last line of the run's output)"

func (s *Suite) runCase(t *testing.T, c eval.Case, model string) {
	t.Parallel()
	ev := s.run
	if ev.Aborted() != "" {
		t.Skip(notRun)
	}
	ctx := context.Background()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, deadline.Add(-5*time.Second), errTestTimeout)
		defer cancel()
	}
	rec, err := ev.Run(ctx, c, model, t.Name())
	var skip *suite.SkipError
	switch {
	case errors.As(err, &skip):
		t.Skip(skip.Reason)
	case err != nil:
		t.Skip(notRun)
	}
	if rec.Status == eval.NotRun {
		t.Skip(rec.Reason)
	}
	t.Attr("eval.status", string(rec.Status))
	if rec.Cached {
		t.Attr("eval.cached", "true")
	}
	switch {
	case rec.Status == eval.Pass:
		t.Log(suite.FormatLine(rec))
	case ev.Settings.Gated():
		// With a pass-rate gate, the case's rate over its repeats decides
		// (in Main), not each repeat.
		t.Log(suite.FormatFailure(rec))
	default:
		t.Error(suite.FormatFailure(rec))
	}
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

// otherCategories lists the loaded categories without a test function of
// their own, in the order of the case files.
func (s *Suite) otherCategories() []string {
	var other []string
	for _, c := range s.cases {
		if !slices.Contains(s.config.Generated, c.Category) && !slices.Contains(other, c.Category) {
			other = append(other, c.Category)
		}
	}
	return other
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
