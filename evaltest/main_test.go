package evaltest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/sampleserver"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/suite"
)

// serveSampleEnv makes the test binary serve the bundled sample server over
// stdio instead of running tests: the default MCP server of a run is this
// binary, started as a real subprocess.
const serveSampleEnv = "EVAL_SERVE_SAMPLE"

// The run's state, set up by TestMain before the tests run.
var (
	ev       *suite.Suite
	allCases []eval.Case
)

func TestMain(m *testing.M) {
	if os.Getenv(serveSampleEnv) == "1" {
		if err := server.ServeStdio(sampleserver.New(), server.WithWorkerPoolSize(64)); err != nil {
			fmt.Fprintln(os.Stderr, "sample server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	settings.RegisterFlags(flag.CommandLine)
	flag.Parse()
	if os.Getenv("GOMEMLIMIT") == "" {
		// A run is I/O-bound: trading some GC work for a small footprint
		// keeps 10,000-case runs near 250 MB. GOMEMLIMIT overrides it.
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	os.Exit(run(m))
}

// defaultMemoryLimit is the Go runtime's soft memory limit for a run.
const defaultMemoryLimit = 224 << 20

func run(m *testing.M) int {
	st, err := settings.Resolve(flag.CommandLine)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpeval: error: configuration: %v\n", err)
		return 1
	}
	allCases, err = evalcase.LoadPath(st.Cases)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpeval: error: %v\n", err)
		return 1
	}
	if f := flag.Lookup("test.list"); f != nil && f.Value.String() != "" {
		return m.Run()
	}
	widenParallel(st.Concurrency, len(allCases))
	if other := otherCategories(); len(other) > 0 {
		fmt.Printf("mcpeval: categories without a test function of their own run as TestOtherCategories/<category> (make generate gives them one): %s\n", strings.Join(other, ", "))
	}
	if st.Reference {
		fmt.Println("mcpeval: REFERENCE RUN, not a model evaluation: each case's reference tool calls run on the real server and the deterministic checks judge the answer.")
		fmt.Println("mcpeval:", settings.MissingKeyHelp)
	}
	bundled := suite.Server{
		Spec:      strconv.Quote(os.Args[0]),
		Env:       []string{serveSampleEnv + "=1"},
		Display:   "bundled sample server (sampleserver)",
		CodeCheck: sampleserver.CheckPandas,
	}
	ev, err = suite.New(context.Background(), st, allCases, bundled, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpeval: error: %v\n", err)
		return 1
	}
	code := m.Run()
	touchRunMarker()

	sum := ev.Summary()
	if err := ev.WriteMetrics(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpeval: error:", err)
		code = 1
	}
	if err := ev.WriteSummary(sum); err != nil {
		fmt.Fprintln(os.Stderr, "mcpeval: error:", err)
		code = 1
	}
	if err := ev.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpeval: error:", err)
		code = 1
	}
	fmt.Println(suite.FormatSummary(sum, st))
	if reason := ev.Aborted(); reason != "" {
		fmt.Fprintln(os.Stderr, "mcpeval: error: run stopped:", reason)
		code = 1
	}
	return code
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

// casesOf returns the loaded cases of a category.
func casesOf(category string) []eval.Case {
	var out []eval.Case
	for _, c := range allCases {
		if c.Category == category {
			out = append(out, c)
		}
	}
	return out
}

func categoryNames() []string {
	var names []string
	seen := map[string]bool{}
	for _, c := range allCases {
		if !seen[c.Category] {
			seen[c.Category] = true
			names = append(names, c.Category)
		}
	}
	return names
}

// touchRunMarker rewrites runMarker (see markUncacheable).
func touchRunMarker() {
	if err := os.MkdirAll(filepath.Dir(runMarker), 0o755); err == nil {
		os.WriteFile(runMarker, []byte(time.Now().UTC().Format(time.RFC3339Nano)+"\n"), 0o644)
	}
}
