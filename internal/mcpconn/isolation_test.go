package mcpconn

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stateSpec is the test server over stdio as a servers file would give
// it, keeping its notes in stateFile.
func stateSpec(t *testing.T, stateFile string) (Spec, Options) {
	t.Helper()
	line, opts := stdioSpec(t, modeTools, Options{})
	spec, err := ParseSpec(line)
	require.NoError(t, err)
	spec.FromFile, spec.Env = true, []string{"STATE_FILE=" + stateFile}
	return spec, opts
}

func connectSpec(t *testing.T, spec Spec, opts Options) *Set {
	t.Helper()
	set, err := ConnectSpecs(context.Background(), []Spec{spec}, opts)
	require.NoError(t, err)
	t.Cleanup(set.Close)
	return set
}

// Roots are offered, and the capability declared, only to a server that
// has roots configured: its own, the run's, or the directory a servers
// file starts it in. A server started with its own directories keeps them.
func TestRootsOnlyWhenConfigured(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name      string
		roots     []string // Spec.Roots
		runRoots  []string // Options.Roots
		cwd       string
		declared  bool
		whereisit string
	}{
		{name: "none configured", declared: false},
		{name: "the server's own", roots: []string{dir}, declared: true, whereisit: "file://" + filepath.ToSlash(dir)},
		{name: "the run's", runRoots: []string{dir}, declared: true, whereisit: "file://" + filepath.ToSlash(dir)},
		{name: "the servers file's cwd", cwd: dir, declared: true, whereisit: "file://" + filepath.ToSlash(dir)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, opts := stateSpec(t, filepath.Join(dir, "state.txt"))
			spec.Roots, spec.Dir, opts.Roots = tt.roots, tt.cwd, tt.runRoots
			set := connectSpec(t, spec, opts)
			want := "roots declared: false"
			if tt.declared {
				want = "roots declared: true"
			}
			assert.Equal(t, want, call(t, set, "client_roots", nil).Text)
			if tt.declared {
				assert.Equal(t, tt.whereisit, call(t, set, "whereami", nil).Text)
				assert.Equal(t, []string{tt.whereisit}, set.Servers[0].Roots())
			} else {
				assert.Empty(t, set.Servers[0].Roots())
			}
		})
	}
}

// A server isolated per case is a fresh process for each case, started at
// the case's first call with a fresh copy of its state: what one case
// writes the next does not see, cases run at once, and the state the
// servers file names is left as it was.
func TestServerIsolatedPerCase(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.txt")
	require.NoError(t, os.WriteFile(state, []byte("seed\n"), 0o600))
	spec, opts := stateSpec(t, state)
	spec.Isolation = Isolation{PerCase: true, State: []string{state}, Paths: []string{state}}
	set := connectSpec(t, spec, opts)
	assert.Equal(t, "a fresh process per case, with a fresh copy of "+state, set.Servers[0].Isolation())

	var wg sync.WaitGroup
	for _, text := range []string{"a", "b", "c"} {
		wg.Go(func() {
			box, end := set.ForCase()
			defer end()
			res, err := box.Call(context.Background(), "note", map[string]any{"text": text})
			if assert.NoError(t, err) {
				assert.Equal(t, "noted", res.Text)
			}
			res, err = box.Call(context.Background(), "notes", nil)
			if assert.NoError(t, err) {
				assert.Equal(t, "notes: seed,"+text, res.Text, "each case sees its own writes alone")
			}
		})
	}
	wg.Wait()
	data, err := os.ReadFile(state)
	require.NoError(t, err)
	assert.Equal(t, "seed\n", string(data), "the state named is left as it was")

	box, end := set.ForCase()
	assert.Equal(t, "notes: seed", call(t, box, "notes", nil).Text)
	copied := box.Servers[0].stateDir
	require.FileExists(t, filepath.Join(copied, "0-state.txt"))
	end()
	assert.NoDirExists(t, copied, "the case's copy is removed with it")
}

// A server to reset is reset before each case's first call to it, and the
// cases that call it run one at a time.
func TestServerResetBeforeEachCase(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the reset command is a POSIX shell's")
	}
	dir := t.TempDir()
	state := filepath.Join(dir, "state.txt")
	spec, opts := stateSpec(t, state)
	spec.Dir = dir
	spec.Isolation = Isolation{Reset: `printf 'seed\n' > state.txt`}
	set := connectSpec(t, spec, opts)

	first, endFirst := set.ForCase()
	call(t, first, "note", map[string]any{"text": "a"})
	assert.Equal(t, "notes: seed,a", call(t, first, "notes", nil).Text)

	// A second case waits until the first ends, then starts reset.
	started := make(chan time.Time, 1)
	done := make(chan string, 1)
	go func() {
		second, endSecond := set.ForCase()
		defer endSecond()
		started <- time.Now()
		res, err := second.Call(context.Background(), "notes", nil)
		if assert.NoError(t, err) {
			done <- res.Text
		}
	}()
	<-started
	select {
	case got := <-done:
		t.Fatalf("the second case called the server while the first held it: %s", got)
	case <-time.After(300 * time.Millisecond):
	}
	endFirst()
	select {
	case got := <-done:
		assert.Equal(t, "notes: seed", got, "reset before the second case")
	case <-time.After(10 * time.Second):
		t.Fatal("the second case never got the server")
	}

	// A reset that fails fails the case's calls, saying so.
	spec.Isolation = Isolation{Reset: "echo no database >&2; exit 3"}
	failing := connectSpec(t, spec, opts)
	box, end := failing.ForCase()
	defer end()
	_, err := box.Call(context.Background(), "notes", nil)
	require.Error(t, err)
	var se *ServerError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, err.Error(), `reset "echo no database >&2; exit 3"`)
	assert.Contains(t, se.Stderr, "no database")
}

// freshState replaces the state's paths, as written or absolute, wherever
// the server's spec names them.
func TestFreshState(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	require.NoError(t, os.MkdirAll(filepath.Join(data, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(data, "sub", "x.csv"), []byte("a,b\n"), 0o644))
	spec := Spec{Command: "srv", Args: []string{data, "--db=" + data + "/app.db", "data"}, Env: []string{"DATA=data", "OTHER=data2"},
		Dir: dir, Roots: []string{data}, Isolation: Isolation{PerCase: true, State: []string{"data"}, Paths: []string{data}}}
	copyDir := t.TempDir()
	got, err := freshState(spec, copyDir)
	require.NoError(t, err)
	fresh := filepath.Join(copyDir, "0-data")
	assert.Equal(t, []string{fresh, "--db=" + fresh + "/app.db", fresh}, got.Args)
	assert.Equal(t, []string{"DATA=" + fresh, "OTHER=data2"}, got.Env, "a value is replaced whole, or by the absolute path inside it")
	assert.Equal(t, []string{fresh}, got.Roots)
	assert.Equal(t, dir, got.Dir)
	copied, err := os.ReadFile(filepath.Join(fresh, "sub", "x.csv"))
	require.NoError(t, err)
	assert.Equal(t, "a,b\n", string(copied))
	assert.Equal(t, []string{data, "--db=" + data + "/app.db", "data"}, spec.Args, "the run's spec is unchanged")
}
