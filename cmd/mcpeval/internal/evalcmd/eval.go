// Package evalcmd is mcpeval eval and mcpeval ci: the suite under
// gotestsum, then the run's report, written in process.
package evalcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/term"
	gotestsum "gotest.tools/gotestsum/cmd"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/reportcmd"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/suite"
)

const doc = `It runs go test PKG -count=1 -timeout 0 GO_TEST_ARGS under gotestsum, which
writes go test's JSON stream into the run's directory, then writes the run's
report there. The run's directory is where the suite writes: the settings are
resolved as the suite resolves them (flags among GO_TEST_ARGS, environment,
.env, defaults), and the run's id goes to the suite as its -run-id flag.
A run that failed cases exits 1; a suite that stopped before its first case
(a setup error, said in its output) leaves no run and exits 2.`

// Eval is mcpeval eval.
var Eval = &base.Command{
	Name:    "eval",
	Summary: "run the suite under gotestsum and write the run's HTML report",
	Usage:   "[-open] [-baseline RUN] [-pkg ./evaltest] [-format NAME] [-- GO_TEST_ARGS]",
	Doc:     doc,
	Run:     run,
}

// CI is mcpeval ci.
var CI = &base.Command{
	Name:    "ci",
	Summary: "the same for CI: the JUnit file (junit.xml) beside the report",
	Usage:   "[-baseline RUN] [-pkg ./evaltest] [-format NAME] [-- GO_TEST_ARGS]",
	Doc:     doc,
	Run:     run,
}

func run(c *base.Command, args []string, p base.Process) error {
	ci := c.Name == "ci"
	fs := c.FlagSet()
	open := false
	if !ci {
		fs.BoolVar(&open, "open", false, "open the report in the browser (never when CI is set)")
	}
	baseline := fs.String("baseline", "", "compare the run with this earlier `run` (latest: the one before) and fail on a significant regression")
	pkg := fs.String("pkg", "./evaltest", "the suite's `package`")
	format := fs.String("format", "", "gotestsum's output `format` (default: standard-quiet on a terminal, where the live progress line shows the cases, else testname)")
	testArgs, err := c.Parse(fs, args, p)
	if err != nil {
		return err
	}
	st, err := settings.ResolveArgs(testArgs)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	id := st.RunID
	if id == "" {
		id = runs.NewID(time.Now())
	}
	// An earlier run of the same id is refused before anything of it is
	// touched: its stream, records and report stay as they are.
	dir, release, err := runs.Reserve(st.Out, id)
	if err != nil {
		return err
	}
	defer release()
	// The suite's run takes this id, so the stream, the records and the
	// report share a directory. The flags come before the user's, which
	// win; as -name=value, go test passes them on to the suite.
	suiteArgs := []string{"-run-id=" + id}
	if *format == "" {
		*format = "testname"
		if isTerminal(p.Stdout) {
			// gotestsum prints only failures and the closing lines; the
			// suite's live line shows the cases as they finish.
			*format = "standard-quiet"
			if st.Progress == settings.ProgressAuto {
				suiteArgs = append(suiteArgs, "-progress="+settings.ProgressLive)
			}
		}
	}
	stream := filepath.Join(dir, "test.json")
	gtArgs := append([]string{"--format", *format, "--jsonfile", stream, "--", *pkg, "-count=1", "-timeout", "0"}, suiteArgs...)
	testErr := gotestsum.Run("gotestsum", append(gtArgs, testArgs...))
	if testErr != nil && !gotestsum.IsExitCoder(testErr) {
		return testErr
	}
	if _, err := os.Stat(filepath.Join(dir, eval.RecordsFile)); err != nil {
		// The suite stopped before its first case (its output says why):
		// there is nothing to report, and no run to keep.
		os.RemoveAll(dir)
		if testErr != nil {
			return base.Exit(2)
		}
		return nil
	}
	explainCounts(p.Stdout, stream, filepath.Join(dir, eval.SummaryFile))
	// Every result is on disk now: an interrupt while the report is
	// written loses nothing.
	reportWritten := reportInterrupts(p.Stderr, dir)
	defer reportWritten()
	fmt.Fprintf(p.Stdout, "mcpeval: writing the report of run %s\n", filepath.Base(dir))
	o := reportcmd.Options{Out: st.Out, Run: dir, Streams: []string{stream}, Open: open, Baseline: *baseline,
		GateCauses: st.GateCauses, Attribute: st.Attribute, AttributeRuns: st.AttributeRuns, Pkg: *pkg}
	if ci {
		o.JUnit = filepath.Join(dir, "junit.xml")
	}
	if err := reportcmd.Write(o, p); err != nil {
		return err // its status is 1 or 2, as the failed cases' would be
	}
	if testErr != nil {
		return base.Exit(1) // go test's output says what failed
	}
	return nil
}

// reportInterrupts handles Ctrl-C while a finished run's report is
// written: the first says the report is finished all the same, the
// second exits at once (status 130) and says how to write the report
// later. A report cut short leaves no file behind but its temporary one,
// which the next report removes. Once done is called, the report is
// written and an interrupt until the command exits changes nothing: it is
// taken and ignored, never left to kill the process.
func reportInterrupts(stderr io.Writer, dir string) (done func()) {
	c := make(chan os.Signal, 4)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	var written atomic.Bool
	go func() {
		n := 0
		for range c {
			if written.Load() {
				continue
			}
			if n++; n == 1 {
				fmt.Fprintln(stderr, "mcpeval: interrupted: every result is kept; the report is being written and takes a moment (Ctrl-C again stops at once)")
				continue
			}
			fmt.Fprintf(stderr, "mcpeval: INTERRUPTED while the report was written: the run's results are kept in %s; go tool mcpeval report -run %s writes its report\n", dir, dir)
			os.Exit(130)
		}
	}()
	return func() { written.Store(true) }
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// explainCounts follows gotestsum's closing line ("DONE 14 tests, 4
// failures"), which counts go test's tests, with what they are: the case
// runs the suite counted and the category tests that hold them, which
// fail when one of their cases fails.
func explainCounts(w io.Writer, stream, summaryFile string) {
	tests, failed := goTestCounts(stream)
	data, err := os.ReadFile(summaryFile)
	var sum eval.Summary
	if err != nil || json.Unmarshal(data, &sum) != nil || tests <= sum.Total {
		return
	}
	caseFailed := sum.Failed + sum.Errors + sum.TokenLimit + sum.Cut + sum.Undecided
	fmt.Fprintf(w, "mcpeval: gotestsum's DONE line counts go test's tests: the %s above (%d not passed) and %d category tests that hold them (%d failed with a case)\n",
		suite.CountRuns(sum), caseFailed, tests-sum.Total, max(failed-caseFailed, 0))
}

// goTestCounts counts the tests of a go test -json stream that ended, as
// gotestsum does, and those that failed.
func goTestCounts(stream string) (tests, failed int) {
	f, err := os.Open(stream)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	for {
		var e struct{ Action, Test string }
		if dec.Decode(&e) != nil {
			return tests, failed
		}
		if e.Test == "" {
			continue
		}
		switch e.Action {
		case "pass", "skip":
			tests++
		case "fail":
			tests++
			failed++
		}
	}
}
