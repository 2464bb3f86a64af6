// Package runscmd is mcpeval runs: the kept runs of the output directory,
// newest first, and their pruning.
package runscmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/mcpeval/mcpeval/cache"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/recordings"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/tooldiff"
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
	Summary: "delete all but the newest runs (and the one latest names), and the recorded tool results only they named; a run still going is kept",
	Usage:   "[-out DIR] [-keep N] [-cache FILE]",
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
	cacheFile := fs.String("cache", "", "the result `cache` beside which the recorded tool results are kept (default: the suite's, $EVAL_CACHE)")
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
	if err != nil || len(pruned.Removed) == 0 {
		return err
	}
	cachePath := *cacheFile
	if cachePath == "" {
		st, err := settings.ResolveArgs(nil)
		if err != nil {
			fmt.Fprintln(p.Stderr, "mcpeval runs prune: the recorded tool results are kept: configuration:", err)
			return nil
		}
		cachePath = st.Cache
	}
	line, err := pruneRecordings(cachePath)
	if line != "" {
		fmt.Fprintln(p.Stdout, line)
	}
	return err
}

// pruneRecordings drops from the recordings beside the cache the results
// that no kept run of any output directory writing to them, and no cached
// result, names. While a run is going (it may have recorded results its
// records do not name yet) it keeps them all. It says what it did.
func pruneRecordings(cachePath string) (string, error) {
	dir := recordings.DirBeside(cachePath)
	if _, err := os.Stat(dir); err != nil {
		return "", nil // no recordings
	}
	store, err := recordings.Open(dir)
	if err != nil {
		return "", err
	}
	defer store.Close()
	outs, err := store.Outputs()
	if err != nil {
		return "", err
	}
	paths := cache.Files(cachePath)
	for _, out := range outs {
		list, err := runs.Dirs(out)
		if err != nil {
			return "", err
		}
		for _, r := range list {
			if runs.InUse(r.Dir) {
				return "recordings kept whole: run " + r.ID + " is still going", nil
			}
			nested, _ := filepath.Glob(filepath.Join(r.Dir, "*", runs.Dir, "*", eval.RecordsFile)) // the runs of -attribute
			paths = append(append(paths, filepath.Join(r.Dir, eval.RecordsFile)), nested...)
		}
	}
	refs := map[string]bool{}
	if err := recordings.Referenced(refs, paths...); err != nil {
		return "", err
	}
	pr, err := store.Prune(refs)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("recordings: %s kept, %d removed (%d → %d bytes)", prose.Plural(pr.Kept, "results"), pr.Removed, pr.BytesBefore, pr.BytesAfter), nil
}

const outUsage = "output `dir` holding runs/ and latest (default $EVAL_OUT, else evaltest/out in the module)"

// derivedFrom says what a run was made from when it did not ask the
// servers and the model afresh: a replay of another run's tool results,
// or a re-judged run's answers; "" for a run of its own.
func derivedFrom(s eval.Summary) string {
	switch {
	case s.Replay != nil:
		return "replay of " + s.Replay.Source
	case s.Rejudged != nil:
		return "re-judged from " + s.Rejudged.Source
	}
	return ""
}

// maxModelsNamed bounds the models or arms a run's row names.
const maxModelsNamed = 3

// modelColumn is what a run's row says it evaluated: its model, "reference
// run", or its models or arms, the first few of many and how many:
// "a,b,c,… (39 arms)".
func modelColumn(s eval.Summary) string {
	if s.Reference {
		return "reference run"
	}
	if len(s.Models) < 2 {
		return s.Model
	}
	names := make([]string, len(s.Models))
	for i, m := range s.Models {
		names[i] = m.Model
	}
	if len(names) <= maxModelsNamed {
		return strings.Join(names, ",")
	}
	word := "models"
	if len(s.Arms) > 0 || s.Models[0].Arm != nil {
		word = "arms"
	}
	return fmt.Sprintf("%s,… (%d %s)", strings.Join(names[:maxModelsNamed], ","), len(names), word)
}

// printHistory prints the kept runs under parent, newest (the last to
// start) first.
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
	fmt.Fprintln(tw, "run\tstarted\tmodel\tcases\tpass rate\ttokens\tcost\tof")
	for _, r := range list {
		s := r.Summary
		if s == nil {
			fmt.Fprintf(tw, "%s\t(did not finish)\t\t\t\t\t\t\n", r.ID)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.1f%%\t%d\t$%.4f\t%s\n", r.ID, s.Started.UTC().Format("2006-01-02 15:04"), tooldiff.Printable(modelColumn(*s)),
			s.Overall.Cases, 100*s.Overall.PassRate, s.Usage.TotalTokens, s.CostUSD, tooldiff.Printable(derivedFrom(*s)))
	}
	return tw.Flush()
}
