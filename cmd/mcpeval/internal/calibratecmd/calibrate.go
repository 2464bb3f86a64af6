// Package calibratecmd is mcpeval calibrate: how far the run's verdicts
// can be trusted, measured on labelled answers.
package calibratecmd

import (
	"context"
	"fmt"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/internal/calibrate"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// Cmd is mcpeval calibrate.
var Cmd = &base.Command{
	Name:    "calibrate",
	Summary: "measure the deterministic checks and the judge on labelled answers (calibration.json)",
	Usage:   "[SUITE_FLAGS]",
	Doc: `It reads the labelled answers (EVAL_LABELS, default testdata/calibration, and
any *.labels.yaml next to the cases), runs the deterministic checks of their
cases on them and, when a provider is configured, asks the judge models, and
writes calibration.json to the output directory. For each side and each label
set, named with its provenance (blind, or beside the checks), it reports the
share decided, the precision of passes and of failures, the wrong answers
passed and the right ones failed, Cohen's kappa on what was decided and the
confusion matrix; only unspent blind sets measure trust. The report shows
them. It takes the suite's settings, as flags or from the environment and
.env:

  mcpeval calibrate                          # offline: the checks only
  OPENROUTER_API_KEY=... mcpeval calibrate   # and the judge
  EVAL_JUDGE_MODEL=a,b,c mcpeval calibrate   # three judges, majority`,
	Run: run,
}

func run(c *base.Command, args []string, p base.Process) error {
	fs := c.FlagSet()
	settings.RegisterFlags(fs) // and its Usage: the settings with their types and variables
	if err := c.ParseFlags(fs, args, p); err != nil {
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
	cal, runErr := calibrate.Run(context.Background(), st, in, p.Stderr)
	path, err := calibrate.Write(st.Out, cal)
	if err != nil {
		return err
	}
	noJudge := "EVAL_JUDGE_MODEL=none turns the judge off."
	if st.Reference {
		noJudge = "no provider is configured (or EVAL_REFERENCE is set). " + settings.MissingKeyHelp
	}
	fmt.Fprint(p.Stdout, calibrate.Format(cal, noJudge))
	fmt.Fprintln(p.Stdout, "calibrate: wrote", path)
	return runErr
}
