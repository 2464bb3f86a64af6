// Package runscmd is mcpeval runs: the kept runs of the output directory,
// newest first, and their pruning.
package runscmd

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/internal/runs"
)

// Cmd is mcpeval runs: mcpeval runs history (the default) and mcpeval
// runs prune.
var Cmd = &base.Command{
	Name:     "runs",
	Summary:  "list the kept runs (history, the default) or delete all but the newest (prune)",
	Commands: []*base.Command{history, prune},
	Default:  history,
}

var history = &base.Command{
	Name:    "runs history",
	Summary: "list the kept runs, newest first: time, model, cases, pass rate, tokens, cost",
	Usage:   "[-out DIR]",
	Run:     runHistory,
}

var prune = &base.Command{
	Name:    "runs prune",
	Summary: "delete all but the newest runs (and the one latest names); a run still going is kept",
	Usage:   "[-out DIR] [-keep N]",
	Run:     runPrune,
}

func runHistory(c *base.Command, args []string, p base.Process) error {
	fs := c.FlagSet()
	out := fs.String("out", "", outUsage)
	if err := c.ParseFlags(fs, args, p); err != nil {
		return err
	}
	parent, err := base.OutDir(*out, p.Getenv)
	if err != nil {
		return err
	}
	return printHistory(parent, p.Stdout)
}

func runPrune(c *base.Command, args []string, p base.Process) error {
	fs := c.FlagSet()
	out := fs.String("out", "", outUsage)
	keep := fs.Int("keep", 10, "the `number` of newest runs to keep")
	if err := c.ParseFlags(fs, args, p); err != nil {
		return err
	}
	if *keep < 0 {
		return base.Usagef("-keep %d: the number of runs to keep must not be negative", *keep)
	}
	parent, err := base.OutDir(*out, p.Getenv)
	if err != nil {
		return err
	}
	pruned, err := runs.Prune(parent, *keep)
	for _, dir := range pruned.Removed {
		fmt.Fprintln(p.Stdout, "removed", dir)
	}
	for _, dir := range pruned.Running {
		fmt.Fprintln(p.Stdout, "kept", dir+": the run is still going")
	}
	return err
}

const outUsage = "output `dir` holding runs/ and latest (default $EVAL_OUT, else evaltest/out in the module)"

// printHistory prints the kept runs under parent, newest first.
func printHistory(parent string, w io.Writer) error {
	list, err := runs.List(parent)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintf(w, "no runs in %s\n", filepath.Join(parent, runs.Dir))
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tstarted\tmodel\tcases\tpass rate\ttokens\tcost")
	for _, r := range list {
		s := r.Summary
		if s == nil {
			fmt.Fprintf(tw, "%s\t(did not finish)\t\t\t\t\t\n", r.ID)
			continue
		}
		model := s.Model
		if s.Reference {
			model = "reference run"
		}
		if len(s.Models) > 1 {
			names := make([]string, len(s.Models))
			for i, m := range s.Models {
				names[i] = m.Model
			}
			model = strings.Join(names, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.1f%%\t%d\t$%.4f\n", r.ID, s.Started.UTC().Format("2006-01-02 15:04"), model,
			s.Overall.Cases, 100*s.Overall.PassRate, s.Usage.TotalTokens, s.CostUSD)
	}
	return tw.Flush()
}
