// Command evalreport writes the HTML report and the JUnit file of an
// evaluation run, compares a run with a baseline, and lists and prunes the
// kept runs.
//
// Each run of the suite writes into a directory of its own,
// <out>/runs/<id> (see -out), and <out>/latest names the newest finished
// one. evalreport reads a run's records and summary from its directory and
// its `go test -json` stream, and writes one self-contained HTML file:
//
//	evalreport                                  # the newest run, report.html in its directory
//	evalreport -run latest -json run.json       # with the go test stream
//	go test ./evaltest -json | evalreport -json -
//	gotestsum --jsonfile run.json --post-run-command evalreport -- ./evaltest
//	evalreport -junit junit.xml                 # the run as JUnit XML
//	evalreport -baseline latest                 # compare with the run before; exit 1 on a significant regression
//	evalreport -history                         # the kept runs, newest first
//	evalreport -clean-runs 10                   # delete all but the 10 newest runs
//	evalreport -merge shard1/runs/ID shard2/runs/ID ...   # merge a split run's shards into one new run
//
// -merge joins the run directories of the shards of a split run (-shard
// k/n) into a new run under -out, with its report and junit.xml, says
// which shards it saw, refuses directories that are not shards of one run,
// and exits 1 when a case run is missing (recorded as not run) or, with
// -baseline, on a significant regression.
//
// The output directory is -out, else EVAL_OUT (from the environment or the
// .env file, as the suite reads it), else evaltest/out under the module
// root (the nearest directory above with a go.mod); a relative EVAL_OUT is
// taken from the module root too. The run is -run (a run
// directory, a run id or "latest"), else $EVAL_RUN_ID, else the newest run.
// Without -json the stream is $GOTESTSUM_JSONFILE (set by gotestsum for a
// post-run command), else test.json in the run directory when there is
// one; with none the report shows the records alone.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/mcpeval/mcpeval/internal/cli"
	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/shard"
	"github.com/mcpeval/mcpeval/report"
)

func main() {
	err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	var regression *regressionError
	var incomplete *incompleteError
	switch {
	case errors.As(err, &regression), errors.As(err, &incomplete):
		fmt.Fprintln(os.Stderr, "evalreport:", err)
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, "evalreport:", err)
		os.Exit(2)
	}
}

// regressionError is a comparison that found a significant regression.
type regressionError struct{ msg string }

func (e *regressionError) Error() string { return e.msg }

// incompleteError is a merge of shards that lacks case runs.
type incompleteError struct{ missing int }

func (e *incompleteError) Error() string {
	return fmt.Sprintf("the merged run is incomplete: %d case runs were run by no shard given (recorded as not run)", e.missing)
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// options are evalreport's flags.
type options struct {
	json                    listFlag
	out, run, report, junit string
	baseline                string
	alpha                   float64
	history, open, merge    bool
	cleanRuns               int
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("evalreport", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.Var(&o.json, "json", "go test -json output `file` (repeatable; - for standard input; default $GOTESTSUM_JSONFILE, else test.json in the run)")
	fs.StringVar(&o.out, "out", "", "output `dir` holding runs/ and latest (default $EVAL_OUT, else evaltest/out in the module)")
	fs.StringVar(&o.run, "run", "", "the `run`: its directory, its id or latest (default $EVAL_RUN_ID, else the newest run)")
	fs.StringVar(&o.report, "o", "", "report `file` to write (default report.html in the run directory)")
	fs.StringVar(&o.junit, "junit", "", "also write the run as JUnit XML to `file`")
	fs.StringVar(&o.baseline, "baseline", "", "compare the run with this earlier `run` (directory, id, or latest: the newest run before it); write compare.html and exit 1 on a significant regression")
	fs.Float64Var(&o.alpha, "alpha", 0.05, "the regression gate's false-alarm `rate`: how often it fails on two runs of an unchanged model, at most")
	fs.BoolVar(&o.history, "history", false, "list the kept runs, newest first, and exit")
	fs.IntVar(&o.cleanRuns, "clean-runs", -1, "delete all but the `N` newest runs (and the latest) and exit")
	fs.BoolVar(&o.open, "open", false, "open the report in the browser (never when CI is set)")
	fs.BoolVar(&o.merge, "merge", false, "merge the shards' run `directories` given as arguments into one new run under -out, with its report and junit.xml")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: evalreport [-out DIR] [-run RUN] [-json FILE]... [-o FILE] [-junit FILE] [-baseline RUN [-alpha P]] [-open]\n       evalreport -merge [-out DIR] [-junit FILE] [-baseline RUN] SHARD_RUN_DIR...\n       evalreport -history | -clean-runs N")
		fs.PrintDefaults()
	}
	positional, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if !o.merge {
		o.json = append(o.json, positional...)
	}
	parent, err := resolveOutDir(o.out, getenv)
	if err != nil {
		return err
	}
	switch {
	case o.history:
		return history(parent, stdout)
	case o.cleanRuns >= 0:
		pruned, err := runs.Prune(parent, o.cleanRuns)
		for _, dir := range pruned.Removed {
			fmt.Fprintln(stdout, "removed", dir)
		}
		for _, dir := range pruned.Running {
			fmt.Fprintln(stdout, "kept", dir+": the run is still going")
		}
		return err
	case o.cleanRuns != -1:
		return fmt.Errorf("-clean-runs %d: the number of runs to keep must not be negative", o.cleanRuns)
	}
	if o.baseline != "" && !(o.alpha > 0 && o.alpha < 1) {
		return fmt.Errorf("-alpha %v: the significance level must be between 0 and 1", o.alpha)
	}

	var merged *shard.MergeResult
	var dir string
	if o.merge {
		if merged, err = mergeShards(&o, positional, parent, stdout); err != nil {
			return err
		}
		dir = merged.Dir
	} else if dir, err = resolveRun(parent, o.run, getenv("EVAL_RUN_ID")); err != nil {
		return err
	}
	if len(o.json) == 0 {
		if f := getenv("GOTESTSUM_JSONFILE"); f != "" {
			o.json = append(o.json, f)
		} else if f := filepath.Join(dir, "test.json"); fileExists(f) {
			o.json = append(o.json, f)
		}
	}
	streams, closeAll, err := openStreams(o.json, stdin)
	if err != nil {
		return err
	}
	defer closeAll()

	data, err := report.Load(dir, streams)
	if err != nil {
		return err
	}
	for _, p := range data.Problems {
		first, _, _ := strings.Cut(p, "\n")
		fmt.Fprintln(stderr, "evalreport: problem:", first)
	}
	data.History = historyOf(parent, data.Run)
	if merged != nil {
		data.Problems = append(mergeProblems(merged), data.Problems...)
	}

	path := o.report
	if path == "" {
		path = filepath.Join(dir, eval.ReportFile)
	}
	if err := writeFile(path, func(w io.Writer) error { return report.Write(w, data) }); err != nil {
		return err
	}
	fmt.Fprintln(stdout, absPath(path)) // a terminal can open an absolute path with a click
	if o.junit != "" {
		if err := writeFile(o.junit, func(w io.Writer) error { return report.WriteJUnit(w, data, moduleRoot()) }); err != nil {
			return err
		}
	}
	if o.open {
		if getenv("CI") != "" {
			fmt.Fprintln(stderr, "evalreport: CI is set: not opening a browser")
		} else if err := openBrowser(path); err != nil {
			fmt.Fprintln(stderr, "evalreport: open browser:", err)
		}
	}
	var errs []error
	if o.baseline != "" {
		errs = append(errs, compare(parent, dir, o.baseline, o.alpha, data, stdout))
	}
	if merged != nil && merged.Incomplete() {
		errs = append(errs, &incompleteError{len(merged.Summary.Merged.Missing)})
	}
	return errors.Join(errs...)
}

// mergeShards merges the shards' run directories into a new run under
// parent and prints what it did. The merged run's JUnit file goes into
// its directory too.
func mergeShards(o *options, dirs []string, parent string, stdout io.Writer) (*shard.MergeResult, error) {
	switch {
	case len(dirs) == 0:
		return nil, errors.New("-merge: name the shards' run directories, e.g. evalreport -merge shards/*/runs/*")
	case o.run != "":
		return nil, errors.New("-merge makes a new run: -run cannot name one")
	case len(o.json) > 0:
		return nil, errors.New("-merge takes the go test streams from the shards' run directories (test.json): -json cannot add one")
	}
	res, err := shard.Merge(dirs, parent)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(stdout, res.Describe())
	if o.junit == "" {
		o.junit = filepath.Join(res.Dir, "junit.xml")
	}
	return res, nil
}

// mergeProblems are the lines the report of a merged run shows above its
// cases: shards not given and case runs not run.
func mergeProblems(r *shard.MergeResult) []string {
	m := r.Summary.Merged
	var out []string
	if len(m.Shards) < m.Count || len(m.Missing) > 0 {
		seen := make([]string, len(m.Shards))
		for i, s := range m.Shards {
			seen[i] = fmt.Sprintf("%d/%d", s.Index, m.Count)
		}
		out = append(out, fmt.Sprintf("Incomplete merge: shards %s of %d were merged; %d case runs were run by no shard given and are listed as not run.",
			strings.Join(seen, ", "), m.Count, len(m.Missing)))
	}
	return append(out, r.Notes...)
}

// compare compares the run in dir (whose data is cur) with the baseline,
// prints the table, writes compare.html beside the report and returns a
// regressionError for a significant regression.
func compare(parent, dir, baseline string, alpha float64, cur *report.Data, stdout io.Writer) error {
	baseDir, err := resolveBaseline(parent, dir, baseline)
	if err != nil {
		return err
	}
	base, err := report.Load(baseDir, nil)
	if err != nil {
		return fmt.Errorf("baseline %s: %w", baseDir, err)
	}
	c, err := report.Compare(base, cur, alpha)
	if err != nil {
		return err
	}
	report.WriteComparisonText(stdout, c, baseDir)
	path := filepath.Join(dir, "compare.html")
	if err := writeFile(path, func(w io.Writer) error { return report.WriteComparison(w, c) }); err != nil {
		return err
	}
	fmt.Fprintln(stdout, absPath(path))
	if c.Significant {
		return &regressionError{c.Verdict(baseDir)}
	}
	return nil
}

// history prints the kept runs, newest first.
func history(parent string, w io.Writer) error {
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

// historyOf returns the pass rates of the kept runs of the same case set as
// run, oldest first, at most 50.
func historyOf(parent string, run eval.Summary) []report.HistoryPoint {
	if run.CaseSet == "" {
		return nil
	}
	list, err := runs.List(parent)
	if err != nil {
		return nil
	}
	var points []report.HistoryPoint
	for _, r := range list {
		if s := r.Summary; s != nil && s.CaseSet == run.CaseSet {
			points = append(points, report.HistoryPoint{RunID: r.ID, Started: s.Started, PassRate: s.Overall.PassRate, Cases: s.Overall.Cases})
		}
	}
	if len(points) > 50 {
		points = points[:50]
	}
	for i, j := 0, len(points)-1; i < j; i, j = i+1, j-1 {
		points[i], points[j] = points[j], points[i]
	}
	return points
}

// resolveOutDir picks the output directory: the flag's, else the suite's
// (EVAL_OUT from the environment or the .env file, else evaltest/out).
func resolveOutDir(flagValue string, getenv func(string) string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	out, err := settings.OutDir(getenv)
	if err != nil {
		return "", fmt.Errorf("no -out given: %w", err)
	}
	return out, nil
}

// resolveRun picks the run to report: the flag's, the environment's, or the
// newest under parent.
func resolveRun(parent, flagValue, envID string) (string, error) {
	switch {
	case flagValue != "":
		return runs.Resolve(parent, flagValue)
	case envID != "":
		return runs.Resolve(parent, envID)
	}
	list, err := runs.List(parent)
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", fmt.Errorf("no run in %s: run the suite first (go test ./evaltest), or name one with -run", filepath.Join(parent, runs.Dir))
	}
	return list[0].Dir, nil
}

// resolveBaseline resolves the baseline of the run in dir: "latest" is the
// newest finished run before it.
func resolveBaseline(parent, dir, name string) (string, error) {
	if name == runs.Latest {
		list, err := runs.List(parent)
		if err != nil {
			return "", err
		}
		for _, r := range list {
			if r.Summary != nil && r.Summary.Shard == nil && !samePath(r.Dir, dir) && r.ID < filepath.Base(dir) {
				return r.Dir, nil
			}
		}
		return "", fmt.Errorf("no finished run before %s in %s to compare with", filepath.Base(dir), parent)
	}
	base, err := runs.Resolve(parent, name)
	if err != nil {
		return "", fmt.Errorf("baseline: %w", err)
	}
	if samePath(base, dir) {
		return "", fmt.Errorf("baseline %s is the run itself: name an earlier run", name)
	}
	return base, nil
}

func samePath(a, b string) bool {
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

func openStreams(paths []string, stdin io.Reader) ([]report.Stream, func(), error) {
	var streams []report.Stream
	var opened []*os.File
	closeAll := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	for _, p := range paths {
		if p == "-" {
			streams = append(streams, report.Stream{Name: "standard input", R: stdin})
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("open test output: %w", err)
		}
		opened = append(opened, f)
		streams = append(streams, report.Stream{Name: p, R: f})
	}
	return streams, closeAll, nil
}

// writeFile writes a file atomically, so a reader never sees half of it.
func writeFile(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create directory of %s: %w", path, err)
	}
	return files.WriteAtomic(path, 0o644, write)
}

func openBrowser(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	cmd := exec.Command(name, abs)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// moduleRoot is the module root the case files of a JUnit file are named
// from, or "" outside a module.
func moduleRoot() string {
	root, err := files.ModuleRoot()
	if err != nil {
		return ""
	}
	return root
}
