// Command evalcalibrate measures how far the run's verdicts can be trusted
// (make calibrate). It reads the labelled answers (EVAL_LABELS, default
// testdata/calibration, and any *.labels.yaml next to the cases), runs the
// deterministic checks of their cases on them and, when a provider is
// configured, asks the judge models, and writes calibration.json to the
// output directory: agreement, true-positive and true-negative rates,
// Cohen's kappa and the confusion matrix of each side against the labels.
// It takes the suite's settings (flags and environment):
//
//	go run ./cmd/evalcalibrate                          # offline: the checks only
//	OPENROUTER_API_KEY=... go run ./cmd/evalcalibrate   # and the judge
//	EVAL_JUDGE_MODEL=a,b,c go run ./cmd/evalcalibrate   # three judges, majority
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcpeval/mcpeval/internal/calibrate"
	"github.com/mcpeval/mcpeval/internal/settings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "evalcalibrate:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("evalcalibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	settings.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	st, err := settings.Resolve(fs)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	in, err := calibrate.Load(st)
	if err != nil {
		return err
	}
	cal, runErr := calibrate.Run(context.Background(), st, in, stderr)
	path, err := calibrate.Write(st.Out, cal)
	if err != nil {
		return err
	}
	noJudge := "EVAL_JUDGE_MODEL=none turns the judge off."
	if st.Reference {
		noJudge = "no provider is configured (or EVAL_REFERENCE is set). " + settings.MissingKeyHelp
	}
	fmt.Fprint(stdout, calibrate.Format(cal, noJudge))
	fmt.Fprintln(stdout, "calibrate: wrote", path)
	return runErr
}
