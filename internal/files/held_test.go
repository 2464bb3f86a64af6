package files

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The writer subprocess: the test binary run with writerEnv set writes the
// file it names with WriteAtomic, and blocks in the middle of writing until
// the file named by releaseEnv exists.
const (
	writerEnv  = "FILES_TEST_WRITE"
	releaseEnv = "FILES_TEST_RELEASE"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(writerEnv); path != "" {
		err := WriteAtomic(path, 0o644, func(w io.Writer) error {
			if _, err := io.WriteString(w, "partial report"); err != nil {
				return err
			}
			for {
				if _, err := os.Stat(os.Getenv(releaseEnv)); err == nil {
					return nil
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func startWriter(t *testing.T, path, release string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), writerEnv+"="+path, releaseEnv+"="+release)
	require.NoError(t, cmd.Start())
	return cmd
}

func temps(t *testing.T, path string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*"))
	require.NoError(t, err)
	return names
}

// A writer killed in the middle leaves its temporary file; the next write
// of the same file removes it, but not the one of a writer still at work.
func TestKilledWritersLeaveNoTemporaryFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the temporary files of killed writers are told apart by file locks, which this build does not take")
	}
	dir := t.TempDir()
	path, release := filepath.Join(dir, "report.html"), filepath.Join(dir, "release")
	// waitWriting waits until the one temporary file is a writer's at work.
	waitWriting := func() {
		require.Eventually(t, func() bool {
			names := temps(t, path)
			return len(names) == 1 && Held(names[0])
		}, 10*time.Second, 10*time.Millisecond)
	}
	write := func() {
		require.NoError(t, WriteAtomic(path, 0o644, func(w io.Writer) error {
			_, err := io.WriteString(w, "report")
			return err
		}))
	}
	for range 3 {
		killed := startWriter(t, path, release)
		waitWriting() // its own: the one killed before is gone
		require.NoError(t, killed.Process.Kill())
		killed.Wait()
	}
	require.Len(t, temps(t, path), 1, "the last killed writer's file")
	write()
	assert.Empty(t, temps(t, path), "the killed writer's file is removed")

	working := startWriter(t, path, release)
	waitWriting()
	write()
	assert.Len(t, temps(t, path), 1, "the working writer's file stays")

	require.NoError(t, os.WriteFile(release, nil, 0o644))
	require.NoError(t, working.Wait(), "the working writer finishes")
	assert.Empty(t, temps(t, path))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "partial report", string(data))
}
