// Package rejudgecmd is mcpeval rejudge: a finished run's answers graded
// again with the current checks and judges, written as a new run, the
// evaluated model asked nothing.
package rejudgecmd

import (
	"context"
	"fmt"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/reportcmd"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/suite"
)

// Cmd is mcpeval rejudge.
var Cmd = &base.Command{
	Name:    "rejudge",
	Summary: "grade a finished run's answers again with the current checks and judges, as a new run; the model is asked nothing",
	Usage:   "[SUITE_FLAGS] RUN",
	Doc: `RUN is a run directory, a run id or latest. Each answer of the run is graded
again as the case files now say (expected answer, checks, expected tools),
by the judges the settings now name (EVAL_JUDGE_MODEL, EVAL_JUDGE_MODE; none
with EVAL_JUDGE_MODEL=none) and measured against the labels (EVAL_LABELS).
Only the judges' requests are made and counted. A record without an answer
(an error, a limit, a cut reply) is taken over as it was, and so is that of
a case no longer in the case files, which the command names. The new run
gets its own directory, records, summary (rejudged: its source) and report,
and becomes the latest; compare it with its source:

  mcpeval rejudge latest
  mcpeval report -baseline 20261124T084601.250Z-a1b2c3`,
	Run: run,
}

func run(c *base.Command, args []string, p base.Process) error {
	fs := c.FlagSet()
	settings.RegisterFlags(fs)
	positional, err := c.Parse(fs, args, p)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return base.Usagef("name the run to grade again: its directory, its id or latest")
	}
	st, err := settings.Resolve(fs)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	source, err := runs.Resolve(st.Out, positional[0])
	if err != nil {
		return err
	}
	cases, err := evalcase.LoadPath(st.Cases)
	if err != nil {
		return err
	}
	res, err := suite.Rejudge(context.Background(), st, cases, source, p.Stderr)
	if res.Dir != "" {
		fmt.Fprintln(p.Stdout, suite.FormatSummary(res.Summary, res.Dir))
	}
	if err != nil {
		return err
	}
	if err := reportcmd.Write(reportcmd.Options{Out: st.Out, Run: res.Dir}, p); err != nil {
		return err
	}
	if sum := res.Summary; sum.Passed < sum.Total {
		return base.Failed(fmt.Errorf("%d of %d case runs did not pass", sum.Total-sum.Passed, sum.Total))
	}
	return nil
}
