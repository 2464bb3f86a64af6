package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
)

const moduleDir = "../.."

var (
	fixtureOnce   sync.Once
	fixtureOut    string
	fixtureStream string
	fixtureErr    error
)

// runFixture runs the report package's miniature suite once with
// `go test -json`, giving its output directory and event stream file.
func runFixture(t *testing.T) (outDir, stream string) {
	t.Helper()
	fixtureOnce.Do(func() {
		dir, err := os.MkdirTemp("", "evalreport-fixture-")
		if err != nil {
			fixtureErr = err
			return
		}
		fixtureOut = filepath.Join(dir, "out")
		fixtureStream = filepath.Join(dir, "run.json")
		if fixtureErr = os.Mkdir(fixtureOut, 0o755); fixtureErr != nil {
			return
		}
		cmd := exec.Command("go", "test", "-json", "-count=1", "./report/testdata/fixture")
		cmd.Dir = moduleDir
		cmd.Env = append(os.Environ(), "FIXTURE_OUT="+fixtureOut)
		out, _ := cmd.Output() // the fixture has failing tests
		fixtureErr = os.WriteFile(fixtureStream, out, 0o644)
	})
	require.NoError(t, fixtureErr)
	return fixtureOut, fixtureStream
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureOut != "" {
		os.RemoveAll(filepath.Dir(fixtureOut))
	}
	os.Exit(code)
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestRunReadsTheStreamFromEverySource(t *testing.T) {
	outDir, stream := runFixture(t)
	streamBytes, err := os.ReadFile(stream)
	require.NoError(t, err)

	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		stdin string
	}{
		{name: "flag", args: []string{"-json", stream}},
		{name: "argument", args: []string{stream}},
		{name: "standard input", args: []string{"-json", "-"}, stdin: string(streamBytes)},
		{name: "gotestsum post-run variable", env: map[string]string{"GOTESTSUM_JSONFILE": stream}},
		{name: "shards", args: []string{"-json", stream, "-json", stream}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "r.html")
			var stdout, stderr bytes.Buffer
			args := append([]string{"-out", outDir, "-o", report}, tt.args...)
			require.NoError(t, run(args, strings.NewReader(tt.stdin), &stdout, &stderr, env(tt.env)))
			assert.Equal(t, report+"\n", stdout.String())
			page, err := os.ReadFile(report)
			require.NoError(t, err)
			// harness_crash has no record: it is in the report only through
			// the test events.
			assert.Contains(t, string(page), `"name":"harness_crash"`)
			assert.Contains(t, string(page), `"name":"PubMed search"`)
			assert.Contains(t, stderr.String(), "problem: TestServerStarts failed")
		})
	}
}

func TestRunWithoutStreamReportsRecords(t *testing.T) {
	outDir, _ := runFixture(t)
	dir := t.TempDir()
	for _, name := range []string{eval.RecordsFile, eval.SummaryFile} {
		b, err := os.ReadFile(filepath.Join(outDir, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	var stdout bytes.Buffer
	require.NoError(t, run(nil, nil, &stdout, &bytes.Buffer{}, env(map[string]string{"EVAL_OUT": dir})))
	assert.Equal(t, filepath.Join(dir, eval.ReportFile)+"\n", stdout.String())
	page, err := os.ReadFile(filepath.Join(dir, eval.ReportFile))
	require.NoError(t, err)
	assert.Contains(t, string(page), `"name":"PubMed search"`)
	assert.NotContains(t, string(page), `"name":"harness_crash"`)
}

func TestRunErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing stream file", []string{"-out", t.TempDir(), "-json", "/nonexistent/run.json"}, "open test output"},
		{"nothing to report", []string{"-out", t.TempDir()}, "nothing to report"},
		{"unknown flag", []string{"-bogus"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(tt.args, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, env(nil))
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// junitFile is a JUnit file as gotestsum writes it for the fixture, cut
// down to one failed case.
const junitFile = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" failures="1" errors="0" time="0.050000">
	<testsuite tests="1" failures="1" time="0.050000" name="github.com/mcpeval/mcpeval/report/testdata/fixture" timestamp="2026-11-22T00:40:00Z">
		<testcase classname="github.com/mcpeval/mcpeval/report/testdata/fixture" name="TestEval_Gene_and_Variant_Utilities/BRCA1_injection" time="0.010000">
			<failure message="Failed" type="">=== RUN   TestEval_Gene_and_Variant_Utilities/BRCA1_injection&#xA;</failure>
		</testcase>
	</testsuite>
</testsuites>
`

func TestRunAnnotatesJUnitKeepingItsMode(t *testing.T) {
	outDir, stream := runFixture(t)
	tests := []struct {
		name string
		mode os.FileMode
		// fromEnv names the file through GOTESTSUM_JUNITFILE, not -junit.
		fromEnv bool
	}{
		{"world-readable", 0o644, false},
		{"group-readable", 0o640, false},
		{"owner only", 0o600, false},
		{"named by gotestsum", 0o644, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			junit := filepath.Join(dir, "junit.xml")
			require.NoError(t, os.WriteFile(junit, []byte(junitFile), 0o600))
			require.NoError(t, os.Chmod(junit, tt.mode))
			args := []string{"-out", outDir, "-o", filepath.Join(dir, "r.html"), "-json", stream}
			vars := map[string]string{}
			if tt.fromEnv {
				vars["GOTESTSUM_JUNITFILE"] = junit
			} else {
				args = append(args, "-junit", junit)
			}

			require.NoError(t, run(args, nil, &bytes.Buffer{}, &bytes.Buffer{}, env(vars)))
			info, err := os.Stat(junit)
			require.NoError(t, err)
			assert.Equal(t, tt.mode, info.Mode().Perm())
			b, err := os.ReadFile(junit)
			require.NoError(t, err)
			assert.Contains(t, string(b), `message="fail (judge: no): Contradicts the expected answer`)
			assert.Contains(t, string(b), `type="fail"`)
			left, err := filepath.Glob(filepath.Join(dir, "junit.xml.*"))
			require.NoError(t, err)
			assert.Empty(t, left, "temporary files left behind")
		})
	}
}

func TestResolveOutDir(t *testing.T) {
	root, err := filepath.Abs(moduleDir)
	require.NoError(t, err)
	tests := []struct {
		name, flag, env, want string
	}{
		{"flag wins", "some/dir", "/abs/env", "some/dir"},
		{"absolute EVAL_OUT", "", "/abs/env", "/abs/env"},
		{"relative EVAL_OUT is under the module root", "", "runs/today", filepath.Join(root, "runs/today")},
		{"default", "", "", filepath.Join(root, "evaltest", "out")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolveOutDir(tt.flag, tt.env)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestOpen(t *testing.T) {
	outDir, stream := runFixture(t)
	// A stand-in for xdg-open (and open on macOS) that records its argument.
	bin := t.TempDir()
	opened := filepath.Join(bin, "opened")
	fake := "#!/bin/sh\necho \"$1\" > " + opened + "\n"
	for _, name := range []string{"xdg-open", "open"} {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(fake), 0o755))
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	t.Run("never under CI", func(t *testing.T) {
		var stderr bytes.Buffer
		report := filepath.Join(t.TempDir(), "r.html")
		require.NoError(t, run([]string{"-open", "-out", outDir, "-o", report, stream}, nil, &bytes.Buffer{}, &stderr,
			env(map[string]string{"CI": "true"})))
		assert.Contains(t, stderr.String(), "not opening a browser")
		assert.NoFileExists(t, opened)
	})
	t.Run("opens the report", func(t *testing.T) {
		report := filepath.Join(t.TempDir(), "r.html")
		require.NoError(t, run([]string{"-open", "-out", outDir, "-o", report, stream}, nil, &bytes.Buffer{}, &bytes.Buffer{}, env(nil)))
		require.Eventually(t, func() bool {
			b, err := os.ReadFile(opened)
			return err == nil && strings.TrimSpace(string(b)) == report
		}, 10*time.Second, 20*time.Millisecond)
	})
}

// TestGotestsumPostRunCommand runs the fixture under gotestsum with
// evalreport as its post-run command, as the suite's users do.
func TestGotestsumPostRunCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds evalreport and runs gotestsum")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "evalreport")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	outDir := filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(outDir, 0o755))
	cmd := exec.Command("go", "tool", "gotestsum", "--format", "testname",
		"--jsonfile", filepath.Join(dir, "run.json"),
		"--post-run-command", bin+" -out "+outDir,
		"--", "-count=1", "./report/testdata/fixture")
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "FIXTURE_OUT="+outDir)
	out, _ = cmd.CombinedOutput() // the fixture has failing tests
	report := filepath.Join(outDir, eval.ReportFile)
	assert.Contains(t, string(out), report, "the post-run command prints the report's path")
	page, err := os.ReadFile(report)
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(page), `"name":"harness_crash"`)
}
