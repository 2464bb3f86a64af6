//go:build unix

package evalcase

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadWithin runs LoadPath and fails the test instead of hanging when it
// does not return: a loader that blocks on a FIFO or reads /dev/zero never
// would.
func loadWithin(t *testing.T, path string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := LoadPath(path)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("LoadPath(%s) did not return within a minute", path)
		return nil
	}
}

func TestOnlyRegularCaseFilesOfBoundedSizeAreRead(t *testing.T) {
	valid := caseYAML("a")
	tests := []struct {
		name string
		// make creates the file to load in dir, beside a valid case file.
		make func(t *testing.T, dir string) string
		want string
	}{
		{
			name: "FIFO",
			make: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "pipe.yaml")
				require.NoError(t, syscall.Mkfifo(path, 0o644))
				return path
			},
			want: "not a regular file (a named pipe)",
		},
		{
			name: "link to the zero device",
			make: func(t *testing.T, dir string) string {
				if _, err := os.Stat("/dev/zero"); err != nil {
					t.Skip("no /dev/zero on this system")
				}
				path := filepath.Join(dir, "zero.yaml")
				require.NoError(t, os.Symlink("/dev/zero", path))
				return path
			},
			want: "not a regular file (a character device)",
		},
		{
			name: "file over the size limit",
			make: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "huge.yaml")
				require.NoError(t, os.WriteFile(path, []byte(caseYAML("huge")), 0o644))
				require.NoError(t, os.Truncate(path, MaxFileSize+1)) // sparse: costs no disk
				return path
			},
			want: "16777217 bytes is more than the limit of 16 MiB",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(valid), 0o644))
			path := tt.make(t, dir)
			for _, target := range []string{dir, path} {
				err := loadWithin(t, target)
				require.Error(t, err, target)
				assert.Contains(t, err.Error(), path+": "+tt.want)
				assert.Contains(t, err.Error(), "load cases:")
			}
		})
	}
}

func TestCaseFileAtTheSizeLimitLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "padded.yaml")
	content := caseYAML("padded") + "#" // a comment filling the file up to the limit
	content += strings.Repeat("x", MaxFileSize-len(content)-1) + "\n"
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.EqualValues(t, MaxFileSize, info.Size())
	cases, err := LoadFile(path)
	require.NoError(t, err)
	require.Len(t, cases, 1)
	assert.Equal(t, "padded", cases[0].Name)
}
