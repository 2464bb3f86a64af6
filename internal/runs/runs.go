// Package runs keeps every run apart: each run writes into a directory of
// its own, <parent>/runs/<UTC time>-<short id>, and <parent>/latest names
// the newest run that finished. Old runs stay until pruned.
package runs

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/files"
)

// Names inside the parent directory.
const (
	// Dir holds the run directories.
	Dir = "runs"
	// Latest names the newest finished run: a symbolic link to its
	// directory where the system has them, else a file holding its path
	// relative to the parent.
	Latest = "latest"
)

// idPattern matches run ids: a UTC time (to the second or the millisecond)
// and a short random suffix, so that ids sort by time and two runs started
// at the same moment differ.
var idPattern = regexp.MustCompile(`^\d{8}T\d{6}(\.\d{3})?Z-[0-9a-f]{6}$`)

// NewID returns a run id for a run starting at t:
// "20261124T084601.250Z-a1b2c3".
func NewID(t time.Time) string {
	b := make([]byte, 3)
	rand.Read(b)
	return t.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b)
}

// ValidID reports whether id has the form NewID gives.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// Create makes the directory of run id under parent and returns its path.
// A directory that exists already is used if it holds no records yet (a
// caller may create it to put the test stream there); one with records is
// another run's, and an error.
func Create(parent, id string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("run id %q is not of the form 20060102T150405Z-a1b2c3 (UTC time, optionally with milliseconds, and six hex digits)", id)
	}
	dir := filepath.Join(parent, Dir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create run directory: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, eval.RecordsFile)); err == nil {
		return "", fmt.Errorf("run directory %s already holds a run's records: give each run its own id", dir)
	}
	return dir, nil
}

// Parent returns the output directory that holds the run directory dir
// (<parent>/runs/<id>), or "" when dir is not inside one.
func Parent(dir string) string {
	runsDir := filepath.Dir(filepath.Clean(dir))
	if filepath.Base(runsDir) != Dir || !ValidID(filepath.Base(dir)) {
		return ""
	}
	return filepath.Dir(runsDir)
}

// MarkLatest makes <parent>/latest name the run directory dir, replacing
// what it named before in one step.
func MarkLatest(parent, dir string) error {
	rel, err := filepath.Rel(parent, dir)
	if err != nil {
		return fmt.Errorf("mark latest run: %w", err)
	}
	link := filepath.Join(parent, Latest)
	tmp := link + ".tmp-" + filepath.Base(dir)
	os.Remove(tmp)
	if err := os.Symlink(rel, tmp); err == nil {
		if err := os.Rename(tmp, link); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("mark latest run: %w", err)
		}
		return nil
	}
	// No symbolic links here: a file holding the path.
	return files.WriteAtomic(link, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, filepath.ToSlash(rel)+"\n")
		return err
	})
}

// Resolve returns the run directory that name designates: "latest" (under
// parent), the id of a run under parent, or the path of a run directory.
// The directory must hold a run: its records or its summary.
func Resolve(parent, name string) (string, error) {
	dir := name
	switch {
	case name == Latest:
		link := filepath.Join(parent, Latest)
		info, err := os.Lstat(link)
		if err != nil {
			return "", fmt.Errorf("no latest run in %s: no run has finished there yet", parent)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			data, err := os.ReadFile(link)
			if err != nil {
				return "", fmt.Errorf("read %s: %w", link, err)
			}
			dir = filepath.Join(parent, filepath.FromSlash(strings.TrimSpace(string(data))))
		} else if dir, err = filepath.EvalSymlinks(link); err != nil {
			return "", fmt.Errorf("latest run in %s: %w", parent, err)
		}
	case ValidID(name):
		if _, err := os.Stat(filepath.Join(parent, Dir, name)); err == nil {
			dir = filepath.Join(parent, Dir, name)
		}
	}
	if !IsRun(dir) {
		return "", fmt.Errorf("%s is not a run directory: it has no %s or %s", name, eval.RecordsFile, eval.SummaryFile)
	}
	return dir, nil
}

// IsRun reports whether dir holds a run: its records or its summary.
func IsRun(dir string) bool {
	for _, name := range []string{eval.RecordsFile, eval.SummaryFile} {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && info.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// Run is a kept run: its directory and, when it finished, its summary.
type Run struct {
	ID      string
	Dir     string
	Summary *eval.Summary
}

// LatestFinished returns the run <parent>/latest names, with its summary;
// ok is false when no run finished there or its summary cannot be read.
func LatestFinished(parent string) (r Run, ok bool) {
	dir, err := Resolve(parent, Latest)
	if err != nil {
		return Run{}, false
	}
	r = Run{ID: filepath.Base(dir), Dir: dir, Summary: readSummary(dir)}
	return r, r.Summary != nil
}

// readSummary reads the summary of the run in dir; nil when it has none
// or it cannot be read.
func readSummary(dir string) *eval.Summary {
	data, err := os.ReadFile(filepath.Join(dir, eval.SummaryFile))
	if err != nil {
		return nil
	}
	var s eval.Summary
	if json.Unmarshal(data, &s) != nil {
		return nil
	}
	return &s
}

// List returns the runs under parent, newest first. A run without a
// readable summary (one still going, or killed) has none.
func List(parent string) ([]Run, error) {
	entries, err := os.ReadDir(filepath.Join(parent, Dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var out []Run
	for _, e := range entries {
		if !e.IsDir() || !ValidID(e.Name()) {
			continue
		}
		r := Run{ID: e.Name(), Dir: filepath.Join(parent, Dir, e.Name())}
		r.Summary = readSummary(r.Dir)
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Run) int { return strings.Compare(b.ID, a.ID) })
	return out, nil
}

// Prune deletes all but the newest keep runs under parent and returns the
// directories it removed. The run latest names is kept whatever its age.
func Prune(parent string, keep int) ([]string, error) {
	if keep < 0 {
		return nil, fmt.Errorf("keep %d runs: the number must not be negative", keep)
	}
	list, err := List(parent)
	if err != nil {
		return nil, err
	}
	latest, _ := Resolve(parent, Latest)
	var removed []string
	for i, r := range list {
		if i < keep || sameDir(r.Dir, latest) {
			continue
		}
		if err := os.RemoveAll(r.Dir); err != nil {
			return removed, fmt.Errorf("remove run %s: %w", r.ID, err)
		}
		removed = append(removed, r.Dir)
	}
	return removed, nil
}

func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}
