// Package mergecmd is mcpeval merge: the shards of a split run (-shard
// k/n) joined into one run with its report and JUnit file, and the
// shards' result caches joined into one.
package mergecmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpeval/mcpeval/cache"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/reportcmd"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/shard"
)

// Cmd is mcpeval merge: mcpeval merge runs and mcpeval merge caches.
var Cmd = &base.Command{
	Name:     "merge",
	Summary:  "join the shards of a split run into one run (runs), their result caches into one (caches)",
	Commands: []*base.Command{mergeRuns, mergeCaches},
}

var mergeRuns = &base.Command{
	Name:    "merge runs",
	Summary: "join the shards' run directories into one new run, with its report and junit.xml",
	Usage:   "[-out DIR] [-junit FILE] [-baseline RUN [-alpha P]] SHARD_RUN_DIR...",
	Doc: `It checks that the directories are shards of one run, says which shards it saw,
writes the new run under -out (default as the suite's output directory) with
its report and junit.xml, and exits 1 when a case run is missing (recorded as
not run) or, with -baseline, on a significant regression. Flags may follow the
directories.`,
	Run: runRuns,
}

var mergeCaches = &base.Command{
	Name:    "merge caches",
	Summary: "join result caches into one: for each case run the latest outcome wins",
	Usage:   "-o OUT CACHE...",
	Doc: `It combines the caches (each a cache file with its journal, e.g. the caches the
shards of a split run carried and added to) into OUT by the rule one cache
follows within a run: for each case run the latest outcome wins, so a pass
stored by one shard is kept and a fail in one shard removes the older pass
another shard carried. OUT may be one of the inputs. Caches of another format
version are refused, naming each file's version.`,
	Run: runCaches,
}

func runRuns(c *base.Command, args []string, p base.Process) error {
	fs := c.FlagSet()
	var o reportcmd.Options
	fs.StringVar(&o.Out, "out", "", "output `dir` the merged run goes under (default $EVAL_OUT, else evaltest/out in the module)")
	fs.StringVar(&o.JUnit, "junit", "", "write the merged run's JUnit XML to `file` (default junit.xml in its directory)")
	fs.StringVar(&o.Baseline, "baseline", "", "compare the merged run with this earlier `run` (directory, id, or latest) and exit 1 on a significant regression")
	fs.Float64Var(&o.Alpha, "alpha", 0.05, "the regression gate's false-alarm `rate`: how often it fails on two runs of an unchanged model, at most")
	dirs, err := c.Parse(fs, args, p)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return base.Usagef("name the shards' run directories, e.g. mcpeval merge runs shards/*/runs/*")
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return base.Usagef("-alpha %v: the significance level must be between 0 and 1", o.Alpha)
	}
	if o.Out, err = base.OutDir(o.Out, p.Getenv); err != nil {
		return err
	}
	res, err := shard.Merge(dirs, o.Out)
	if err != nil {
		return err
	}
	fmt.Fprintln(p.Stdout, res.Describe())
	o.Run = res.Dir
	if o.JUnit == "" {
		o.JUnit = filepath.Join(res.Dir, "junit.xml")
	}
	o.Problems = problems(res)
	reportErr := reportcmd.Write(o, p)
	if res.Incomplete() {
		return errors.Join(reportErr, base.Failed(fmt.Errorf("the merged run is incomplete: no shard given ran %s (recorded as not run)",
			prose.Plural(len(res.Summary.Merged.Missing), "case runs"))))
	}
	return reportErr
}

// problems are the lines the report of a merged run shows above its
// cases: shards not given and case runs not run.
func problems(r *shard.MergeResult) []string {
	m := r.Summary.Merged
	var out []string
	if len(m.Shards) < m.Count || len(m.Missing) > 0 {
		seen := make([]string, len(m.Shards))
		for i, s := range m.Shards {
			seen[i] = fmt.Sprintf("%d/%d", s.Index, m.Count)
		}
		out = append(out, fmt.Sprintf("Incomplete merge: shards %s of %d were merged; no shard given ran %s, listed as not run.",
			strings.Join(seen, ", "), m.Count, prose.Plural(len(m.Missing), "case runs")))
	}
	return append(out, r.Notes...)
}

func runCaches(c *base.Command, args []string, p base.Process) error {
	fs := c.FlagSet()
	out := fs.String("o", "", "the merged cache `file` to write (may be one of the inputs)")
	inputs, err := c.Parse(fs, args, p)
	if err != nil {
		return err
	}
	if *out == "" || len(inputs) == 0 {
		return base.Usagef("name the caches to merge and the merged cache's file (-o)")
	}
	res, err := cache.Merge(*out, inputs)
	if err != nil {
		return err
	}
	for _, in := range res.Inputs {
		fmt.Fprintf(p.Stdout, "read %s: %d stored results, %d removals\n", in.Path, in.Entries, in.Removed)
		for _, w := range in.Warnings {
			fmt.Fprintln(p.Stderr, "mcpeval merge caches: warning:", w)
		}
	}
	fmt.Fprintf(p.Stdout, "wrote %s: %d stored results, %d removals (%d case runs on which the inputs differed: the latest outcome kept)\n",
		*out, res.Entries, res.Removed, res.Conflicts)
	return nil
}
