package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"golang.org/x/term"
	gotestsum "gotest.tools/gotestsum/cmd"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// runEval runs the suite under gotestsum, which writes go test's JSON
// stream into the run's directory, then evalreport, which writes the HTML
// report (and for CI the JUnit file) there. The run's directory is where
// the suite writes: its settings are resolved as the suite resolves them
// (flags among the go test arguments, environment, .env, defaults), so
// every setting means the same here as for go test.
func runEval(args []string, ci bool) error {
	name := "mcpeval eval"
	if ci {
		name = "mcpeval ci"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	open := fs.Bool("open", false, "open the report in the browser (never when CI is set)")
	baseline := fs.String("baseline", "", "compare the run with this earlier `run` (latest: the one before) and fail on a significant regression")
	pkg := fs.String("pkg", "./evaltest", "the suite's `package`")
	format := fs.String("format", "", "gotestsum's output `format` (default: standard-quiet on a terminal, where the live progress line shows the cases, else testname)")
	fs.Usage = func() { fmt.Fprint(fs.Output(), usage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return err
	}
	testArgs := fs.Args()
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
	// report share a directory.
	if err := os.Setenv("EVAL_RUN_ID", id); err != nil {
		return err
	}
	if *format == "" {
		*format = "testname"
		if term.IsTerminal(int(os.Stdout.Fd())) {
			// gotestsum prints only failures and the closing lines; the
			// suite's live line shows the cases as they finish.
			*format = "standard-quiet"
			if st.Progress == settings.ProgressAuto {
				os.Setenv("EVAL_PROGRESS", settings.ProgressLive)
			}
		}
	}
	stream := filepath.Join(dir, "test.json")
	gtArgs := append([]string{"--format", *format, "--jsonfile", stream, "--", *pkg, "-count=1", "-timeout", "0"}, testArgs...)
	testErr := gotestsum.Run("gotestsum", gtArgs)
	if testErr != nil && !gotestsum.IsExitCoder(testErr) {
		return testErr
	}

	if _, err := os.Stat(filepath.Join(dir, eval.RecordsFile)); err != nil {
		// The suite stopped before its first case (its output says why):
		// there is nothing to report, and no run to keep.
		os.RemoveAll(dir)
		return exitCode(gotestsum.ExitCodeWithDefault(testErr))
	}
	report := []string{"run", mcpevalModule + "/cmd/evalreport", "-out", st.Out, "-run", dir, "-json", stream}
	if ci {
		report = append(report, "-junit", filepath.Join(dir, "junit.xml"))
	}
	if *open {
		report = append(report, "-open")
	}
	if *baseline != "" {
		report = append(report, "-baseline", *baseline)
	}
	cmd := exec.Command("go", report...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	reportErr := cmd.Run()
	var exit *exec.ExitError
	switch {
	case testErr != nil:
		return exitCode(gotestsum.ExitCodeWithDefault(testErr))
	case errors.As(reportErr, &exit):
		return exitCode(exit.ExitCode())
	}
	return reportErr
}
