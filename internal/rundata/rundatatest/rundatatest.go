// Package rundatatest holds what the tests of a run's data and of what is
// made from it (the HTML pages, the JUnit file, the public report) share:
// a real `go test -json` run of a miniature suite, testdata/fixture, and
// the writing of records and event streams into a run's directory.
//
// A test binary that runs the fixture removes its output in TestMain:
//
//	func TestMain(m *testing.M) {
//		m.Run()
//		rundatatest.RemoveFixture()
//	}
package rundatatest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/rundata"
)

// Payloads are the script-injection payloads of testdata/fixture: each
// would set window.__xss or the page title if it ever ran.
var Payloads = []string{
	`<script>window.__xss=1;document.title='pwned'</script>`,
	`</script><script>window.__xss=2</script>`,
	`"><img src=x onerror="window.__xss=3">`,
	`<a href="javascript:window.__xss=4">click me</a>`,
	`<svg onload="window.__xss=5"></svg><!--`,
}

// Run is one real `go test -json` run of testdata/fixture: its output
// directory and the path of its event stream.
type Run struct {
	OutDir string
	Stream string
}

var (
	fixtureOnce sync.Once
	fixture     Run
	fixtureErr  error
	fixtureBase string
)

// RemoveFixture removes the run Fixture made, if it made one; a test
// binary's TestMain calls it once its tests are done.
func RemoveFixture() {
	if fixtureBase != "" {
		os.RemoveAll(fixtureBase)
	}
}

// Fixture runs the fixture suite once per test binary: `go test -json`
// in a subprocess, as a user would.
func Fixture(t *testing.T) Run {
	t.Helper()
	fixtureOnce.Do(func() {
		fixtureBase, fixtureErr = os.MkdirTemp("", "report-fixture-")
		if fixtureErr != nil {
			return
		}
		fixture = Run{OutDir: filepath.Join(fixtureBase, "out"), Stream: filepath.Join(fixtureBase, "run.json")}
		fixtureErr = GoTestJSON(fixture.OutDir, fixture.Stream, "")
	})
	require.NoError(t, fixtureErr)
	return fixture
}

// FixturePackage is the fixture suite, a package to go test from the
// module root; it writes its records into $FIXTURE_OUT.
const FixturePackage = "./internal/rundata/rundatatest/testdata/fixture"

// GoTestJSON runs the fixture with an optional -run pattern, appending its
// records to outDir and writing its event stream to streamPath; extra
// holds more go test flags.
func GoTestJSON(outDir, streamPath, run string, extra ...string) error {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	root, err := files.ModuleRoot()
	if err != nil {
		return err
	}
	args := []string{"test", "-json", "-count=1", FixturePackage}
	if run != "" {
		args = append(args, "-run", run)
	}
	args = append(args, extra...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "FIXTURE_OUT="+outDir)
	b, err := cmd.Output()
	// The fixture has failing tests: a non-zero exit is expected, as long as
	// the output is test events.
	if err != nil && !strings.Contains(string(b), `"Action":"fail"`) {
		return fmt.Errorf("go test the fixture: %w\n%s", err, b)
	}
	return os.WriteFile(streamPath, b, 0o644)
}

// Repeated runs the fixture's Literature cases with go test -count=2 and
// loads the result.
func Repeated(t *testing.T) *rundata.Data {
	t.Helper()
	base := t.TempDir()
	out, stream := filepath.Join(base, "out"), filepath.Join(base, "run.json")
	require.NoError(t, GoTestJSON(out, stream, "^TestEval_Literature$", "-count=2"))
	return Load(t, out, stream)
}

// Load is rundata.Load over stream files.
func Load(t *testing.T, outDir string, paths ...string) *rundata.Data {
	t.Helper()
	var streams []rundata.Stream
	for _, p := range paths {
		f, err := os.Open(p)
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		streams = append(streams, rundata.Stream{Name: p, R: f})
	}
	d, err := rundata.Load(outDir, streams)
	require.NoError(t, err)
	return d
}

// WriteStream writes go test -json events as a stream file.
func WriteStream(t *testing.T, path string, events ...string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(events, "\n")+"\n"), 0o644))
}

// WriteRecords writes the records as the run's results.jsonl in dir.
func WriteRecords(t *testing.T, dir string, recs ...eval.Record) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, eval.RecordsFile))
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	for _, r := range recs {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		w.Write(append(b, '\n'))
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
}
