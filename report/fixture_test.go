package report

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The script-injection payloads of testdata/fixture: each would set
// window.__xss or the page title if it ever ran.
var payloads = []string{
	`<script>window.__xss=1;document.title='pwned'</script>`,
	`</script><script>window.__xss=2</script>`,
	`"><img src=x onerror="window.__xss=3">`,
	`<a href="javascript:window.__xss=4">click me</a>`,
	`<svg onload="window.__xss=5"></svg><!--`,
}

// fixtureRun is one real `go test -json` run of testdata/fixture: its
// output directory and the path of its event stream.
type fixtureRun struct {
	outDir string
	stream string
}

var (
	fixtureOnce sync.Once
	fixture     fixtureRun
	fixtureErr  error
	fixtureBase string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureBase != "" {
		os.RemoveAll(fixtureBase)
	}
	os.Exit(code)
}

// runFixture runs the fixture suite once per test binary: `go test -json`
// in a subprocess, as a user would.
func runFixture(t *testing.T) fixtureRun {
	t.Helper()
	fixtureOnce.Do(func() {
		fixtureBase, fixtureErr = os.MkdirTemp("", "report-fixture-")
		if fixtureErr != nil {
			return
		}
		fixture = fixtureRun{outDir: filepath.Join(fixtureBase, "out"), stream: filepath.Join(fixtureBase, "run.json")}
		fixtureErr = goTestJSON(fixture.outDir, fixture.stream, "")
	})
	require.NoError(t, fixtureErr)
	return fixture
}

// goTestJSON runs the fixture with an optional -run pattern, appending its
// records to outDir and writing its event stream to streamPath; extra
// holds more go test flags.
func goTestJSON(outDir, streamPath, run string, extra ...string) error {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	args := []string{"test", "-json", "-count=1", "./testdata/fixture"}
	if run != "" {
		args = append(args, "-run", run)
	}
	args = append(args, extra...)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "FIXTURE_OUT="+outDir)
	b, err := cmd.Output()
	// The fixture has failing tests: a non-zero exit is expected, as long as
	// the output is test events.
	if err != nil && !strings.Contains(string(b), `"Action":"fail"`) {
		return fmt.Errorf("go test the fixture: %w\n%s", err, b)
	}
	return os.WriteFile(streamPath, b, 0o644)
}

// loadFiles is Load over stream files.
func loadFiles(t *testing.T, outDir string, paths ...string) *Data {
	t.Helper()
	var streams []Stream
	for _, p := range paths {
		f, err := os.Open(p)
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		streams = append(streams, Stream{Name: p, R: f})
	}
	d, err := Load(outDir, streams)
	require.NoError(t, err)
	return d
}
