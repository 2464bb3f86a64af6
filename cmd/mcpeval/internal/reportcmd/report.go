// Package reportcmd is mcpeval report: a run's self-contained HTML
// report, its JUnit file and its comparison with a baseline.
//
// Each run of the suite writes into a directory of its own,
// <out>/runs/<id>, and <out>/latest names the newest finished one. The
// report reads a run's records and summary from its directory and its
// go test -json stream, and writes one HTML file:
//
//	mcpeval report                                  # the newest run, report.html in its directory
//	mcpeval report -run latest -json run.json       # with the go test stream
//	go test ./evaltest -json | mcpeval report -json -
//	gotestsum --jsonfile run.json --post-run-command "mcpeval report" -- ./evaltest
//	mcpeval report -junit junit.xml                 # the run as JUnit XML
//	mcpeval report -baseline latest                 # compare with the run before; exit 1 on a significant regression
package reportcmd

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/baseline"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/htmlreport"
	"github.com/mcpeval/mcpeval/internal/junit"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// Cmd is mcpeval report.
var Cmd = &base.Command{
	Name:    "report",
	Summary: "write a run's HTML report, its JUnit file, its comparison with a baseline",
	Usage:   "[-out DIR] [-run RUN] [-json FILE]... [-o FILE] [-junit FILE] [-baseline RUN [-alpha P] [-gate-causes LIST] [-attribute]] [-open] [FILE...]",
	Doc: `The output directory is -out, else EVAL_OUT (from the environment or the .env
file, as the suite reads it), else evaltest/out under the module root. The run
is -run (a run directory, a run id or latest), else $EVAL_RUN_ID, else the
newest run. The go test -json streams are -json and the arguments; without
them $GOTESTSUM_JSONFILE (set by gotestsum for a post-run command), else
test.json in the run's directory; with none the report shows the records
alone. -baseline exits 1 on a significant regression, and gives each flipped
case a cause (model, surface, case, grading, data, judge, infrastructure) in the terminal,
compare.html, compare.json and the JUnit file; -gate-causes limits the gate
to some causes, -attribute re-runs the flips on the baseline's recorded tool
results.`,
	Run: run,
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// defaultAlpha is the significance level of a comparison's tests.
const defaultAlpha = 0.05

func run(c *base.Command, args []string, p base.Process) error {
	fs := c.FlagSet()
	var o Options
	var streams listFlag
	fs.Var(&streams, "json", "go test -json output `file` (repeatable; - for standard input; default $GOTESTSUM_JSONFILE, else test.json in the run)")
	fs.StringVar(&o.Out, "out", "", "output `dir` holding runs/ and latest (default $EVAL_OUT, else evaltest/out in the module)")
	fs.StringVar(&o.Run, "run", "", "the `run`: its directory, its id or latest (default $EVAL_RUN_ID, else the newest run)")
	fs.StringVar(&o.Report, "o", "", "report `file` to write (default report.html in the run directory)")
	fs.StringVar(&o.JUnit, "junit", "", "also write the run as JUnit XML to `file`")
	fs.StringVar(&o.Baseline, "baseline", "", "compare the run with this earlier `run` (directory, id, or latest: the newest run before it); write compare.html and exit 1 on a significant regression")
	fs.Float64Var(&o.Alpha, "alpha", defaultAlpha, "the regression gate's false-alarm `rate`: how often it fails on two runs of an unchanged model, at most")
	fs.BoolVar(&o.Open, "open", false, "open the report in the browser (never when CI is set)")
	gateCauses := fs.String("gate-causes", p.Getenv("EVAL_GATE_CAUSES"), "weigh in the regression gate only the cases that flipped for these `causes` (model, surface, case, grading, data, judge, infrastructure; default $EVAL_GATE_CAUSES, else all)")
	fs.BoolVar(&o.Attribute, "attribute", p.Getenv("EVAL_ATTRIBUTE") == "true" || p.Getenv("EVAL_ATTRIBUTE") == "1", "re-run each flipped case on the baseline's recorded tool results (go test -pkg, -attribute-runs times) to tell the model changing from the data moving it")
	fs.IntVar(&o.AttributeRuns, "attribute-runs", 3, "how many times -attribute re-runs each flipped case")
	fs.StringVar(&o.Pkg, "pkg", "./evaltest", "the suite's `package`, which -attribute runs")
	positional, err := c.Parse(fs, args, p)
	if err != nil {
		return err
	}
	if o.GateCauses, err = settings.ParseCauses(*gateCauses); err != nil {
		return base.Usagef("-gate-causes: %v", err)
	}
	if o.AttributeRuns < 1 {
		return base.Usagef("-attribute-runs %d: re-run each flipped case at least once", o.AttributeRuns)
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return base.Usagef("-alpha %v: the significance level must be between 0 and 1", o.Alpha)
	}
	o.Streams = append(streams, positional...)
	return Write(o, p)
}

// Options say which run to report and what to write.
type Options struct {
	// Out is the output directory that holds runs/ (default: as the suite
	// resolves it).
	Out string
	// Run is the run: its directory, its id or latest (default:
	// $EVAL_RUN_ID, else the newest run).
	Run string
	// Streams are go test -json files, "-" for standard input (default:
	// $GOTESTSUM_JSONFILE, else test.json in the run's directory).
	Streams []string
	// Report is the HTML file (default: report.html in the run's directory).
	Report string
	// JUnit, when set, is the JUnit file to write too.
	JUnit string
	// Baseline, when set, is the run to compare with (a directory, an id,
	// or latest: the newest finished run before); Alpha is the comparison's
	// significance level (0: 0.05).
	Baseline string
	Alpha    float64
	// GateCauses limits the gate to the flips of these causes (see
	// eval.Causes()); Attribute re-runs each flipped case AttributeRuns
	// times on the baseline's recorded tool results, running the suite's
	// package Pkg (default ./evaltest).
	GateCauses    []string
	Attribute     bool
	AttributeRuns int
	Pkg           string
	// Open opens the report in the browser (never when CI is set).
	Open bool
	// Problems are lines the report shows above its cases.
	Problems []string
}

// Write writes the report of a run as o says, and prints its path. A
// significant regression against the baseline is a failure (exit 1).
func Write(o Options, p base.Process) error {
	parent, err := base.OutDir(o.Out, p.Getenv)
	if err != nil {
		return err
	}
	if o.Alpha == 0 {
		o.Alpha = defaultAlpha
	}
	dir, err := resolveRun(parent, o.Run, p.Getenv("EVAL_RUN_ID"))
	if err != nil {
		return err
	}
	if len(o.Streams) == 0 {
		if f := p.Getenv("GOTESTSUM_JSONFILE"); f != "" {
			o.Streams = append(o.Streams, f)
		} else if f := filepath.Join(dir, "test.json"); fileExists(f) {
			o.Streams = append(o.Streams, f)
		}
	}
	streams, closeAll, err := openStreams(o.Streams, p.Stdin)
	if err != nil {
		return err
	}
	defer closeAll()

	// The page and the JUnit file need less of each record than the
	// comparison with a baseline, which reads them whole.
	load := rundata.LoadLean
	if o.Baseline != "" {
		load = rundata.Load
	}
	data, err := load(dir, streams)
	if err != nil {
		return err
	}
	for _, problem := range data.Problems {
		first, _, _ := strings.Cut(problem, "\n")
		fmt.Fprintln(p.Stderr, "mcpeval report: problem:", first)
	}
	data.History = rundata.History(parent, data.Run)
	data.Problems = append(o.Problems, data.Problems...)
	var cmp *comparison
	if o.Baseline != "" {
		if cmp, err = compare(parent, dir, o, data, p); err != nil {
			return err
		}
		data.Flips = cmp.FlipMessages()
	}

	path := o.Report
	if path == "" {
		path = filepath.Join(dir, eval.ReportFile)
	}
	if cmp != nil {
		data.Comparison = &rundata.ComparisonLink{Href: linkFrom(path, filepath.Join(dir, compareFile)), Baseline: cmp.Base.RunID, Causes: cmp.CauseLine()}
	}
	if err := writeFile(path, func(w io.Writer) error { return htmlreport.Write(w, data) }); err != nil {
		return err
	}
	fmt.Fprintln(p.Stdout, absPath(path)) // a terminal can open an absolute path with a click
	if o.JUnit != "" {
		if err := writeFile(o.JUnit, func(w io.Writer) error { return junit.Write(w, data, moduleRoot()) }); err != nil {
			return err
		}
		fmt.Fprintln(p.Stdout, absPath(o.JUnit))
	}
	if o.Open {
		if p.Getenv("CI") != "" {
			fmt.Fprintln(p.Stderr, "mcpeval report: CI is set: not opening a browser")
		} else if err := openBrowser(path); err != nil {
			fmt.Fprintln(p.Stderr, "mcpeval report: open browser:", err)
		}
	}
	if cmp != nil {
		return cmp.write(dir, p.Stdout)
	}
	return nil
}

// comparison is the run compared with its baseline, in baseDir.
type comparison struct {
	*baseline.Comparison
	baseDir string
}

// compare compares the run in dir (whose data is cur) with the baseline o
// names, attributes each flipped case to its cause and, as o asks,
// confirms the judge's flips and re-runs the flips on the baseline's
// recorded tool results.
func compare(parent, dir string, o Options, cur *rundata.Data, p base.Process) (*comparison, error) {
	baseDir, err := resolveBaseline(parent, dir, o.Baseline)
	if err != nil {
		return nil, err
	}
	before, err := rundata.Load(baseDir, nil)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", baseDir, err)
	}
	c, err := baseline.Compare(before, cur, o.Alpha, o.GateCauses...)
	if err != nil {
		return nil, err
	}
	if err := confirm(c, baseDir, dir, o, p); err != nil {
		return nil, err
	}
	return &comparison{c, baseDir}, nil
}

// write prints the comparison, writes compare.html and compare.json
// beside the report and returns a failure for a significant regression.
func (c *comparison) write(dir string, stdout io.Writer) error {
	baseline.WriteText(stdout, c.Comparison, c.baseDir)
	path := filepath.Join(dir, compareFile)
	if err := writeFile(path, func(w io.Writer) error { return htmlreport.WriteComparison(w, c.Comparison) }); err != nil {
		return err
	}
	if err := files.WriteJSON(filepath.Join(dir, "compare.json"), c.JSON()); err != nil {
		return err
	}
	fmt.Fprintln(stdout, absPath(path))
	if c.Significant {
		return base.Failed(errors.New(c.Verdict(c.baseDir)))
	}
	return nil
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
	list, err := runs.ListBrief(parent)
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", fmt.Errorf("no run in %s: run the suite first (go test ./evaltest), or name one with -run", filepath.Join(parent, runs.Dir))
	}
	return list[0].Dir, nil
}

// resolveBaseline resolves the baseline of the run in dir: "latest" is the
// newest finished run that started before it (see runs.List).
func resolveBaseline(parent, dir, name string) (string, error) {
	if name == runs.Latest {
		list, err := runs.ListBrief(parent)
		if err != nil {
			return "", err
		}
		// The runs after dir in the list started before it; a dir not
		// listed (outside parent) is placed by its id.
		at := slices.IndexFunc(list, func(r runs.Run) bool { return samePath(r.Dir, dir) })
		for i, r := range list {
			before := i > at
			if at < 0 {
				before = r.ID < filepath.Base(dir)
			}
			if r.Summary != nil && r.Summary.Shard == nil && before {
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

// linkFrom is a link from the page at from to the file at to: relative
// ("./compare.html", "../runs/x/compare.html"), else a file URL.
func linkFrom(from, to string) string {
	rel, err := filepath.Rel(filepath.Dir(absPath(from)), absPath(to))
	if err != nil {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(absPath(to))}).String()
	}
	rel = filepath.ToSlash(rel)
	if !strings.HasPrefix(rel, "../") {
		rel = "./" + rel
	}
	return (&url.URL{Path: rel}).String()
}

// compareFile is the comparison's page, in the run's directory.
const compareFile = "compare.html"

func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

func openStreams(paths []string, stdin io.Reader) ([]rundata.Stream, func(), error) {
	var streams []rundata.Stream
	var opened []*os.File
	closeAll := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	for _, p := range paths {
		if p == "-" {
			streams = append(streams, rundata.Stream{Name: "standard input", R: stdin})
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("open test output: %w", err)
		}
		opened = append(opened, f)
		streams = append(streams, rundata.Stream{Name: p, R: f})
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
