package progress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLine(t *testing.T) {
	tests := []struct {
		c       Counts
		elapsed time.Duration
		want    string
	}{
		{Counts{Total: 100}, time.Second, "[0/100] 0 pass, 0 fail, 0 errors"},
		{Counts{Total: 100, Done: 37, Pass: 34, Fail: 3}, 41 * time.Second, "[37/100] 34 pass, 3 fail, 0 errors, ETA 1m10s"},
		{Counts{Total: 10, Done: 5, Pass: 2, Errors: 1, Fail: 1, Skipped: 1}, 2 * time.Second, "[5/10] 2 pass, 1 fail, 1 errors, 1 skipped, ETA 2s"},
		{Counts{Total: 10, Done: 10, Pass: 2, NotRun: 7, Skipped: 1}, 2 * time.Second, "[10/10] 2 pass, 0 fail, 0 errors, 7 not run, 1 skipped, 2s"},
		{Counts{Total: 4, Done: 4, Pass: 4}, 83 * time.Second, "[4/4] 4 pass, 0 fail, 0 errors, 1m23s"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Line(tt.c, tt.elapsed))
	}
}

// syncBuffer is a terminal a test can read while the reporter writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The live line is redrawn in place on the terminal and cleared at the
// end; standard output (a pipe here, as under go test) gets nothing.
func TestLiveLineOnTheTerminal(t *testing.T) {
	out := captureStdout(t)
	var tty syncBuffer
	r := Start(Options{Total: 3, Terminal: &tty})
	r.Done(Pass)
	r.Done(Fail)
	r.Done(Error)
	r.Stop()
	assert.Equal(t, Counts{Total: 3, Done: 3, Pass: 1, Fail: 1, Errors: 1}, r.Counts())
	text := tty.String()
	assert.Contains(t, text, "\r\x1b[K[1/3] 1 pass, 0 fail, 0 errors, ETA")
	assert.Contains(t, text, "\r\x1b[K[2/3] 1 pass, 1 fail, 0 errors, ETA")
	assert.Contains(t, text, "\r\x1b[K[3/3] 1 pass, 1 fail, 1 errors, ")
	assert.True(t, strings.HasSuffix(text, "\r\x1b[K"), "the line is cleared at the end: %q", text)
	assert.NotContains(t, text, "\n", "a live line, not lines")
	assert.Empty(t, out(), "nothing on standard output")
}

// A notice goes to the terminal above the live line, which is drawn again
// below it, and to standard error for the test output; standard output
// (go test's, shown only at the end) gets nothing.
func TestNoticeAboveTheLiveLine(t *testing.T) {
	out := captureStdout(t)
	stderr := captureStderr(t)
	var tty syncBuffer
	r := Start(Options{Total: 2, Terminal: &tty})
	r.Done(Pass)
	r.Notice("mcpeval: interrupted: no case starts any more")
	r.Stop()
	text := tty.String()
	i := strings.Index(text, "mcpeval: interrupted: no case starts any more\n")
	require.GreaterOrEqual(t, i, 0, "the notice is on the terminal: %q", text)
	assert.Contains(t, text[i:], "\r\x1b[K[1/2] 1 pass, 0 fail, 0 errors", "the live line is drawn again below it")
	assert.Equal(t, "mcpeval: interrupted: no case starts any more\n", stderr())
	assert.Empty(t, out())
}

// Without a terminal the notice is a line of the output, between go
// test's lines, as the periodic lines are.
func TestNoticeAmongTheLines(t *testing.T) {
	out := captureStdout(t)
	r := Start(Options{Total: 2, Every: time.Hour})
	fmt.Println("=== RUN   TestGenes/a")
	waitFor(t, "go test's line", func() bool { return out() != "" })
	r.Notice("mcpeval: interrupted: no case starts any more")
	r.Stop()
	assert.Equal(t, "=== RUN   TestGenes/a\nmcpeval: interrupted: no case starts any more\n", out())
}

// captureStderr points os.Stderr at a file for the test, as captureStdout
// does os.Stdout.
func captureStderr(t *testing.T) func() string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	require.NoError(t, err)
	old := os.Stderr
	os.Stderr = f
	t.Cleanup(func() { os.Stderr = old; f.Close() })
	return func() string {
		b, err := os.ReadFile(f.Name())
		require.NoError(t, err)
		return string(b)
	}
}

// captureStdout points os.Stdout at a file for the test; the function it
// returns gives what was written.
func captureStdout(t *testing.T) func() string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stdout")
	require.NoError(t, err)
	old := os.Stdout
	os.Stdout = f
	t.Cleanup(func() { os.Stdout = old; f.Close() })
	return func() string {
		b, err := os.ReadFile(f.Name())
		require.NoError(t, err)
		return string(b)
	}
}

// waitFor polls until cond holds, at most 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Without a terminal, a line at the interval; in JSON mode it is framed so
// that go test's converter gives it to the package, and the output of the
// running test after it still goes to that test.
func TestPeriodicLinesAreThePackagesOutput(t *testing.T) {
	out := captureStdout(t)
	r := Start(Options{Total: 2, Every: 10 * time.Millisecond, JSON: true})
	os.Stdout.WriteString("\x16=== RUN   TestA\n")
	os.Stdout.WriteString("half of a line of TestA")
	time.Sleep(50 * time.Millisecond) // ticks while the line is open: nothing is put inside it
	os.Stdout.WriteString(", and its end\n")
	waitFor(t, "a progress line", func() bool { return strings.Contains(out(), "mcpeval: [0/2]") })
	r.Done(Pass)
	os.Stdout.WriteString("    a_test.go:1: more output of TestA\n")
	os.Stdout.WriteString("\x16--- PASS: TestA (0.00s)\n")
	waitFor(t, "a line after the test", func() bool { return strings.Contains(out(), "mcpeval: [1/2]") })
	r.Stop()
	os.Stdout.WriteString("\x16PASS\n")

	stream := out()
	assert.Contains(t, stream, "half of a line of TestA, and its end\n", "no line is cut")
	events := test2json(t, stream)
	var progress, testA []string
	for _, e := range events {
		switch {
		case e.Action == "output" && strings.HasPrefix(e.Output, "mcpeval: ["):
			assert.Empty(t, e.Test, "a progress line is the package's output")
			progress = append(progress, e.Output)
		case e.Action == "output" && e.Test == "TestA":
			testA = append(testA, e.Output)
		}
	}
	assert.NotEmpty(t, progress)
	assert.Contains(t, testA, "half of a line of TestA, and its end\n")
	assert.Contains(t, testA, "    a_test.go:1: more output of TestA\n", "TestA's output after a progress line is still TestA's")
}

type event struct{ Action, Test, Output string }

// test2json converts test output as go test -json does.
func test2json(t *testing.T, output string) []event {
	t.Helper()
	cmd := exec.Command("go", "tool", "test2json")
	cmd.Stdin = strings.NewReader(output)
	b, err := cmd.Output()
	require.NoError(t, err)
	var events []event
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e event
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		events = append(events, e)
	}
	return events
}

// Off shows nothing and leaves os.Stdout alone.
func TestOff(t *testing.T) {
	before := os.Stdout
	r := Start(Options{Total: 1, Off: true})
	assert.Same(t, before, os.Stdout)
	r.Done(Pass)
	r.Stop()
	assert.Equal(t, 1, r.Counts().Pass)
}

// Under go test -v, or -json, another process copies the binary's output
// to the terminal: no live line there, lines in the output.
func TestVerboseGivesLines(t *testing.T) {
	for _, o := range []Options{{Verbose: true}, {JSON: true}} {
		out := captureStdout(t)
		var tty syncBuffer
		o.Total, o.Terminal = 2, &tty
		r := Start(o)
		r.Done(Pass)
		r.Stop()
		assert.Empty(t, tty.String(), "nothing on the terminal: %+v", o)
		assert.Empty(t, out(), "a line comes every 30 s")
	}
	// Live (make eval, whose gotestsum leaves the terminal to the suite):
	// the live line, JSON or not.
	var tty syncBuffer
	r := Start(Options{Total: 1, Terminal: &tty, JSON: true, Live: true})
	r.Done(Pass)
	r.Stop()
	assert.Contains(t, tty.String(), "[1/1] 1 pass")
}

// go test -json's testing package points os.Stderr at os.Stdout, which is
// then the tap's pipe: Stop gives both back, so that what the run writes
// to standard error at its end (why it stopped) is not lost.
func TestStopGivesStandardErrorBack(t *testing.T) {
	out := captureStdout(t)
	real, oldErr := os.Stdout, os.Stderr
	t.Cleanup(func() { os.Stderr = oldErr })
	r := Start(Options{Total: 1, Every: time.Hour, JSON: true})
	require.NotSame(t, real, os.Stdout, "the tap holds standard output")
	os.Stderr = os.Stdout // as package testing does under -test.v=test2json
	r.Stop()
	assert.Same(t, real, os.Stderr)
	_, err := fmt.Fprintln(os.Stderr, "mcpeval: error: run stopped: why")
	require.NoError(t, err)
	assert.Contains(t, out(), "mcpeval: error: run stopped: why\n")
}
