package keptlinks

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// module writes a tiny main module and returns its directory.
func module(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/kept\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { println(\"kept\") }\n"), 0o644))
	return dir
}

// build runs go build -o out in dir with env added to the environment.
func build(t *testing.T, dir, out string, env []string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"GOWORK=off", "GOTOOLCHAIN=local"}, env...)...)
	output, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", output)
}

// entries are the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}

// envValue is the value of name in env.
func envValue(env []string, name string) string {
	value := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			value = v
		}
	}
	return value
}

// keeperEnv is Env(goflags) with KEPT_LINKS set to inherited in the
// environment; it skips the test where the keeper cannot run.
func keeperEnv(t *testing.T, inherited, goflags string) (env []string, remove func()) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the keeper is a POSIX shell script")
	}
	t.Setenv("KEPT_LINKS", inherited)
	env, remove, err := Env(goflags)
	require.NoError(t, err)
	t.Cleanup(remove)
	return env, remove
}

func TestSecondLinkIsHandedTheKeptBinary(t *testing.T) {
	env, _ := keeperEnv(t, "", "-buildvcs=false -toolexec=/nonexistent/tool")
	goflags := envValue(env, "GOFLAGS")
	assert.Contains(t, goflags, "-buildvcs=false", "the given flags are kept")
	assert.NotContains(t, goflags, "/nonexistent/tool", "the keeper's -toolexec replaces the given one")

	dir := module(t)
	first := filepath.Join(t.TempDir(), "prog")
	build(t, dir, first, env)
	links := envValue(env, "KEPT_LINKS")
	kept := entries(t, links)
	var binaries []string
	for _, name := range kept {
		if info, err := os.Stat(filepath.Join(links, name)); err == nil && info.Mode().IsRegular() && name != "link-keeper" {
			binaries = append(binaries, name)
		}
	}
	require.Len(t, binaries, 1, "the one link is kept: %v", kept)

	// Mark the kept binary: a second build into another directory that
	// links again would not carry the mark.
	mark := []byte("\x00kept-binary-mark\x00")
	f, err := os.OpenFile(filepath.Join(links, binaries[0]), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(mark)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	second := filepath.Join(t.TempDir(), "prog")
	build(t, dir, second, env)
	data, err := os.ReadFile(second)
	require.NoError(t, err)
	assert.True(t, bytes.Contains(data, mark), "the second build was handed the kept binary")
	out, err := exec.Command(second).CombinedOutput()
	require.NoError(t, err)
	assert.Equal(t, "kept\n", string(out))
}

func TestInheritedDirectoryIsShared(t *testing.T) {
	shared := t.TempDir()
	env, remove := keeperEnv(t, shared, "")
	assert.Equal(t, shared, envValue(env, "KEPT_LINKS"))
	build(t, module(t), filepath.Join(t.TempDir(), "prog"), env)
	assert.Len(t, entries(t, shared), 1, "the link is kept in the shared directory")

	remove()
	assert.Len(t, entries(t, shared), 1, "removing one user's directory leaves the shared one")
}

func TestUnusableDirectoryOnlyKeepsNothing(t *testing.T) {
	env, _ := keeperEnv(t, "", "")
	for i, kv := range env {
		if envValue([]string{kv}, "KEPT_LINKS") != "" {
			env[i] = "KEPT_LINKS=" + filepath.Join(t.TempDir(), "missing")
		}
	}
	out := filepath.Join(t.TempDir(), "prog")
	build(t, module(t), out, env)
	got, err := exec.Command(out).CombinedOutput()
	require.NoError(t, err)
	assert.Equal(t, "kept\n", string(got))
}
