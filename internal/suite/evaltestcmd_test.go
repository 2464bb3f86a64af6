package suite_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The scripts' evaltest command (evaltest [flags]) does what go test
// ./evaltest [flags] does in the checkout under test, in package list mode:
// it runs the suite's test binary, built once for all of the package's
// tests (evaltestBinary), in the evaltest directory with go test's flags
// translated (testFlags), and prints what go test prints: on a pass, only
// the "ok" line (all output with -v); on a failure, all output and the
// "FAIL" lines; with -json, test2json's events with go test's own summary
// line. It spares each run the go command's check that nothing needs
// building and its link (half a CPU second a run, a hundred runs); the
// scripts about the go command itself (frontdoor, gocache, newcomer,
// progress, makeci) run go test.

// Where the scripts' evaltest command finds the binaries (set by
// TestScripts).
const (
	evaltestBinaryEnv = "MCPEVAL_SCRIPT_EVALTEST"
	test2jsonEnv      = "MCPEVAL_SCRIPT_TEST2JSON"
)

// evaltestCommand is the evaltest command's main; it returns the exit code.
func evaltestCommand() int {
	bin, test2json, root := os.Getenv(evaltestBinaryEnv), os.Getenv(test2jsonEnv), os.Getenv("ROOT")
	if bin == "" || test2json == "" || root == "" {
		fmt.Fprintf(os.Stderr, "evaltest: %s, %s and ROOT must be set\n", evaltestBinaryEnv, test2jsonEnv)
		return 2
	}
	// showPass: go test shows a passing run's output with -v, -list or
	// a -h among the binary's own flags.
	jsonOut, verbose, showPass := false, false, false
	var rest, verbatim []string
	for i, a := range os.Args[1:] {
		if a == "-args" || a == "--args" {
			verbatim = os.Args[i+2:] // the binary's own, as they are
			for _, v := range verbatim {
				showPass = showPass || v == "-h" || v == "-help" || v == "--help"
			}
			break
		}
		switch {
		case a == "-json" || a == "--json":
			jsonOut = true
		case a == "-v" || a == "--v" || a == "-v=true":
			verbose, showPass = true, true
		default:
			showPass = showPass || strings.HasPrefix(strings.TrimLeft(a, "-"), "list")
			rest = append(rest, a)
		}
	}
	flags := append([]string{"-test.paniconexit0", "-test.timeout=10m0s"}, testFlags(rest)...)
	if verbose && !jsonOut {
		flags = append(flags, "-test.v=true")
	}
	flags = append(flags, verbatim...)
	var cmd *exec.Cmd
	if jsonOut {
		cmd = exec.Command(test2json, append([]string{"-p", evaltestPackage, "-t", bin, "-test.v=test2json"}, flags...)...)
	} else {
		cmd = exec.Command(bin, flags...)
	}
	cmd.Dir = filepath.Join(root, "evaltest")
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, &out, &out
	start := time.Now()
	err := cmd.Run()
	elapsed := fmt.Sprintf("%.3fs", time.Since(start).Seconds())
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		fmt.Fprintf(os.Stderr, "evaltest: %v\n", err)
		return 2
	}
	summary := "ok  \t" + evaltestPackage + "\t" + elapsed
	if err != nil {
		summary = "FAIL\t" + evaltestPackage + "\t" + elapsed
	} else if bytes.Contains(out.Bytes(), []byte("testing: warning: no tests to run")) {
		summary += " [no tests to run]"
	}
	if jsonOut {
		os.Stdout.Write(withSummaryEvent(out.Bytes(), summary))
	} else {
		if err != nil || showPass {
			os.Stdout.Write(out.Bytes())
			if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
				fmt.Println()
			}
		}
		fmt.Println(summary)
		if err != nil {
			fmt.Println("FAIL")
		}
	}
	if err != nil {
		return 1
	}
	return 0
}

// withSummaryEvent returns test2json's events with go test's summary line
// as an output event before the package's closing pass or fail event, as
// go test -json writes it.
func withSummaryEvent(events []byte, summary string) []byte {
	lines := bytes.SplitAfter(bytes.TrimRight(events, "\n"), []byte("\n"))
	last := lines[len(lines)-1]
	var ev struct{ Action, Package, Test string }
	if json.Unmarshal(last, &ev) != nil || ev.Test != "" || (ev.Action != "pass" && ev.Action != "fail") {
		return events
	}
	line, _ := json.Marshal(struct {
		Time    time.Time
		Action  string
		Package string
		Output  string
	}{time.Now(), "output", evaltestPackage, summary + "\n"})
	var b bytes.Buffer
	for _, l := range lines[:len(lines)-1] {
		b.Write(l)
	}
	b.Write(line)
	b.WriteByte('\n')
	b.Write(bytes.TrimRight(last, "\n"))
	b.WriteByte('\n')
	return b.Bytes()
}

// scriptBinaryEnv returns the variables that tell the scripts where the
// binaries built once for the package are, building them first if need
// be: those of the evaltest command, and the test servers the scripts copy
// (TOOLSERVER, HOSTILESERVER, FAULTSERVER).
func scriptBinaryEnv() ([]string, error) {
	bins, err := evaltestBinary()
	if err != nil {
		return nil, err
	}
	env := []string{evaltestBinaryEnv + "=" + bins.evaltest, test2jsonEnv + "=" + bins.test2json, "FAULTSERVER=" + faultServerPath}
	for _, name := range []string{"toolserver", "hostileserver"} {
		bin, err := testServer(name)
		if err != nil {
			return nil, err
		}
		env = append(env, strings.ToUpper(name)+"="+bin)
	}
	return env, nil
}
