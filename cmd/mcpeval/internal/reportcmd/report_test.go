package reportcmd

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

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/rundata/rundatatest"
	"github.com/mcpeval/mcpeval/internal/runs"
)

// fixtureRunID names the fixture's run directory.
const fixtureRunID = "20261124T000000Z-f17ae0"

var (
	fixtureOnce   sync.Once
	fixtureOut    string
	fixtureStream string
	fixtureErr    error
)

// runFixture runs the miniature suite of the report's tests once with
// `go test -json`, giving its output directory (holding the run's
// directory, runs/<fixtureRunID>) and event stream file.
func runFixture(t *testing.T) (outDir, stream string) {
	t.Helper()
	fixtureOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpeval-report-fixture-")
		if err != nil {
			fixtureErr = err
			return
		}
		fixtureOut = filepath.Join(dir, "out")
		fixtureStream = filepath.Join(dir, "run.json")
		runDir := filepath.Join(fixtureOut, runs.Dir, fixtureRunID)
		fixtureErr = rundatatest.GoTestJSON(runDir, fixtureStream, "")
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
			require.NoError(t, runReport(args, strings.NewReader(tt.stdin), &stdout, &stderr, tt.env))
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
	run1 := filepath.Join(dir, runs.Dir, fixtureRunID)
	require.NoError(t, os.MkdirAll(run1, 0o755))
	for _, name := range []string{eval.RecordsFile, eval.SummaryFile} {
		b, err := os.ReadFile(filepath.Join(outDir, runs.Dir, fixtureRunID, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(run1, name), b, 0o644))
	}
	var stdout bytes.Buffer
	require.NoError(t, runReport(nil, nil, &stdout, nil, map[string]string{"EVAL_OUT": dir}),
		"the newest run under $EVAL_OUT")
	assert.Equal(t, filepath.Join(run1, eval.ReportFile)+"\n", stdout.String())
	page, err := os.ReadFile(filepath.Join(run1, eval.ReportFile))
	require.NoError(t, err)
	assert.Contains(t, string(page), `"name":"PubMed search"`)
	assert.NotContains(t, string(page), `"name":"harness_crash"`)
}

func TestRunErrors(t *testing.T) {
	outDir, _ := runFixture(t)
	empty := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(empty, runs.Dir, "20261124T000000Z-000000"), 0o755))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing stream file", []string{"-out", outDir, "-o", filepath.Join(t.TempDir(), "r.html"), "-json", "/nonexistent/run.json"}, "open test output"},
		{"no run yet", []string{"-out", t.TempDir()}, "no run in"},
		{"a run that wrote nothing", []string{"-out", empty}, "nothing to report"},
		{"a run that does not exist", []string{"-out", outDir, "-run", "/nonexistent/run"}, "is not a run directory"},
		{"unknown flag", []string{"-bogus"}, "flag provided but not defined"},
		{"significance level out of range", []string{"-out", outDir, "-baseline", "latest", "-alpha", "1.5"}, "between 0 and 1"},
		{"baseline that is not a run", []string{"-out", outDir, "-o", filepath.Join(t.TempDir(), "r.html"), "-baseline", t.TempDir()}, "is not a run directory"},
		{"baseline that is the run itself", []string{"-out", outDir, "-o", filepath.Join(t.TempDir(), "r.html"), "-baseline", fixtureRunID}, "is the run itself"},
		{"no earlier run", []string{"-out", outDir, "-o", filepath.Join(t.TempDir(), "r.html"), "-baseline", "latest"}, "no finished run before"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := runReport(tt.args, strings.NewReader(""), nil, nil, nil)
			require.ErrorContains(t, err, tt.want)
			assert.Equal(t, 2, base.ExitStatus(err), "a usage or setup error")
		})
	}
}

// -junit writes the run as JUnit XML: one testcase per case, with each
// failed case's verdict and reason as its failure message.
func TestRunWritesJUnit(t *testing.T) {
	outDir, stream := runFixture(t)
	dir := t.TempDir()
	junit := filepath.Join(dir, "ci", "junit.xml")
	require.NoError(t, runReport([]string{"-out", outDir, "-o", filepath.Join(dir, "r.html"), "-json", stream, "-junit", junit}, nil, nil, nil, nil))
	b, err := os.ReadFile(junit)
	require.NoError(t, err)
	assert.Contains(t, string(b), `message="fail (judge: no): Contradicts the expected answer`)
	assert.Contains(t, string(b), `type="fail"`)
	assert.Contains(t, string(b), `<testcase name="harness_crash"`, "a case known only from its test events")
	assert.NotContains(t, string(b), `name="TestEval_Gene_and_Variant_Utilities"`, "no parent tests")
	left, err := filepath.Glob(filepath.Join(dir, "ci", ".junit.xml.tmp-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "temporary files left behind")
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
		require.NoError(t, runReport([]string{"-open", "-out", outDir, "-o", report, stream}, nil, nil, &stderr, map[string]string{"CI": "true"}))
		assert.Contains(t, stderr.String(), "not opening a browser")
		assert.NoFileExists(t, opened)
	})
	t.Run("opens the report", func(t *testing.T) {
		report := filepath.Join(t.TempDir(), "r.html")
		require.NoError(t, runReport([]string{"-open", "-out", outDir, "-o", report, stream}, nil, nil, nil, nil))
		require.Eventually(t, func() bool {
			b, err := os.ReadFile(opened)
			return err == nil && strings.TrimSpace(string(b)) == report
		}, 10*time.Second, 20*time.Millisecond)
	})
}

// TestGotestsumPostRunCommand runs the fixture under gotestsum with
// mcpeval report as its post-run command, as the suite's users do.
func TestGotestsumPostRunCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpeval and runs gotestsum")
	}
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcpeval")
	build := exec.Command("go", "build", "-o", bin, "./cmd/mcpeval")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	outDir := filepath.Join(dir, "out")
	runDir := filepath.Join(outDir, runs.Dir, fixtureRunID)
	require.NoError(t, os.MkdirAll(runDir, 0o755))
	cmd := exec.Command("go", "tool", "gotestsum", "--format", "testname",
		"--jsonfile", filepath.Join(dir, "run.json"),
		"--post-run-command", bin+" report -out "+outDir,
		"--", "-count=1", rundatatest.FixturePackage)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "FIXTURE_OUT="+runDir)
	out, _ = cmd.CombinedOutput() // the fixture has failing tests
	report := filepath.Join(runDir, eval.ReportFile)
	assert.Contains(t, string(out), report, "the post-run command prints the report's path")
	page, err := os.ReadFile(report)
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(page), `"name":"harness_crash"`)
}
