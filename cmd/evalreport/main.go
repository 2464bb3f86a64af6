// Command evalreport writes the HTML report of an evaluation run.
//
// It reads the run's `go test -json` output and the records the suite wrote
// to its output directory, and writes one self-contained HTML file:
//
//	go test ./evaltest -json | tee run.json
//	evalreport -json run.json
//	evalreport -json shard1.json -json shard2.json   # sharded runs, merged
//	go test ./evaltest -json | evalreport -json -      # from standard input
//	gotestsum --jsonfile run.json --post-run-command evalreport -- ./evaltest
//
// Without -json it reads the file named by GOTESTSUM_JSONFILE (set by
// gotestsum for a post-run command); with neither it reports the records
// alone. The output directory is -out, else $EVAL_OUT, else evaltest/out
// under the module root (the nearest directory above with a go.mod); a
// relative EVAL_OUT is taken from the module root too. The report goes to
// -o, else report.html in the output directory; its path is printed.
// -open opens it in the browser unless CI is set.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/report"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "evalreport:", err)
		os.Exit(1)
	}
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("evalreport", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var jsonFiles listFlag
	fs.Var(&jsonFiles, "json", "go test -json output `file` (repeatable; - for standard input; default $GOTESTSUM_JSONFILE)")
	outDir := fs.String("out", "", "run output `dir` with "+eval.RecordsFile+" (default $EVAL_OUT, else evaltest/out in the module)")
	outFile := fs.String("o", "", "report `file` to write (default DIR/"+eval.ReportFile+")")
	open := fs.Bool("open", false, "open the report in the browser (never when CI is set)")
	junit := fs.String("junit", "", "JUnit XML `file` whose failure messages get each case's verdict and reason (default $GOTESTSUM_JUNITFILE)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: evalreport [-json FILE]... [-out DIR] [-o FILE] [-junit FILE] [-open] [FILE...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	jsonFiles = append(jsonFiles, fs.Args()...)
	if len(jsonFiles) == 0 {
		if f := getenv("GOTESTSUM_JSONFILE"); f != "" {
			jsonFiles = append(jsonFiles, f)
		}
	}

	dir, err := resolveOutDir(*outDir, getenv("EVAL_OUT"))
	if err != nil {
		return err
	}
	streams, closeAll, err := openStreams(jsonFiles, stdin)
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

	path := *outFile
	if path == "" {
		path = filepath.Join(dir, eval.ReportFile)
	}
	if err := writeReport(path, data); err != nil {
		return err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs // a terminal can open an absolute path with a click
	}
	fmt.Fprintln(stdout, path)

	if *junit == "" {
		*junit = getenv("GOTESTSUM_JUNITFILE")
	}
	if *junit != "" {
		if err := annotateJUnit(*junit, data); err != nil {
			return err
		}
	}

	if *open {
		if getenv("CI") != "" {
			fmt.Fprintln(stderr, "evalreport: CI is set: not opening a browser")
		} else if err := openBrowser(path); err != nil {
			fmt.Fprintln(stderr, "evalreport: open browser:", err)
		}
	}
	return nil
}

// resolveOutDir picks the run's output directory.
func resolveOutDir(flagValue, env string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if env != "" && filepath.IsAbs(env) {
		return env, nil
	}
	root, err := files.ModuleRoot()
	if err != nil {
		return "", fmt.Errorf("no -out given: %w", err)
	}
	if env == "" {
		env = settings.DefaultOut
	}
	return filepath.Join(root, env), nil
}

func openStreams(paths []string, stdin io.Reader) ([]report.Stream, func(), error) {
	var streams []report.Stream
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
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
		files = append(files, f)
		streams = append(streams, report.Stream{Name: p, R: f})
	}
	return streams, closeAll, nil
}

// writeReport writes the report atomically, so a reader never sees half
// a report.
func writeReport(path string, data *report.Data) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create report directory: %w", err)
	}
	return files.WriteAtomic(path, 0o644, func(w io.Writer) error { return report.Write(w, data) })
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

// annotateJUnit rewrites the JUnit file in place (atomically) with each
// failed case's verdict and reason as its failure message. The file keeps
// its permissions.
func annotateJUnit(path string, data *report.Data) error {
	in, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("annotate JUnit: %w", err)
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return fmt.Errorf("annotate JUnit: %w", err)
	}
	return files.WriteAtomic(path, info.Mode().Perm(), func(w io.Writer) error {
		return report.AnnotateJUnit(in, w, data)
	})
}
