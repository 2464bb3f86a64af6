// Package runs keeps every run apart: each run writes into a directory of
// its own, <parent>/runs/<UTC time>-<short id>, and <parent>/latest names
// the newest run that finished. Old runs stay until pruned.
package runs

import (
	"cmp"
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

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/mcpeval/mcpeval/evaltest/eval"
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
	// holdFile, inside a run directory, is held by the processes writing
	// the run (see Hold).
	holdFile = ".running"
	// stagePrefix starts the names of run directories being written
	// before they are put in place (see Stage); List never shows them.
	stagePrefix = ".partial-"
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
	for _, name := range []string{eval.RecordsFile, eval.SummaryFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return "", fmt.Errorf("run directory %s already holds a run's records: give each run its own id", dir)
		}
	}
	return dir, nil
}

// Reserve makes the directory of run id under parent for a run about to
// start, and holds it (see Hold) until release is called. A directory
// that exists already and holds anything is an earlier run's, and an
// error: nothing of it is touched.
func Reserve(parent, id string) (dir string, release func(), err error) {
	if !ValidID(id) {
		return "", nil, fmt.Errorf("run id %q is not of the form 20060102T150405Z-a1b2c3 (UTC time, optionally with milliseconds, and six hex digits)", id)
	}
	dir = filepath.Join(parent, Dir, id)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", nil, fmt.Errorf("create run directory: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", nil, fmt.Errorf("create run directory: %w", err)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
		return "", nil, fmt.Errorf("run directory %s already holds a run (EVAL_RUN_ID %s was used before): give each run its own id", dir, id)
	}
	if release, err = Hold(dir); err != nil {
		return "", nil, err
	}
	return dir, release, nil
}

// Hold marks the run directory dir as in use by this process until release
// is called or the process ends, however it ends: Prune leaves it alone.
// Several processes may hold one run (the suite, and the command that
// streams its output into the directory).
func Hold(dir string) (release func(), err error) {
	release, err = files.Hold(filepath.Join(dir, holdFile))
	if err != nil {
		return nil, fmt.Errorf("mark run %s as running: %w", filepath.Base(dir), err)
	}
	return release, nil
}

// InUse reports whether a process holds the run directory dir (see Hold):
// a run still going, as opposed to one that finished or was killed.
func InUse(dir string) bool { return files.Held(filepath.Join(dir, holdFile)) }

// Staged is a run directory written under a name that no listing shows,
// and put in place whole by Commit: a writer killed before then leaves no
// run that looks finished.
type Staged struct {
	// Dir is where the run is written until Commit.
	Dir     string
	final   string
	release func()
}

// Stage starts the run directory of id under parent (see Staged). Staged
// directories that writers killed before they were done left behind are
// removed.
func Stage(parent, id string) (*Staged, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("run id %q is not of the form 20060102T150405Z-a1b2c3", id)
	}
	removeStaleStages(parent)
	final := filepath.Join(parent, Dir, id)
	if _, err := os.Lstat(final); err == nil {
		return nil, fmt.Errorf("run directory %s exists already: give each run its own id", final)
	}
	dir := filepath.Join(parent, Dir, stagePrefix+id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	release, err := Hold(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Staged{Dir: dir, final: final, release: release}, nil
}

// Commit puts the staged run in place and returns its directory.
func (s *Staged) Commit() (string, error) {
	defer s.release()
	if err := os.Rename(s.Dir, s.final); err != nil {
		return "", fmt.Errorf("put run %s in place: %w", filepath.Base(s.final), err)
	}
	return s.final, nil
}

// Abort removes a staged run that was not committed; after Commit it does
// nothing. It is meant for a defer.
func (s *Staged) Abort() {
	if _, err := os.Stat(s.Dir); err == nil {
		s.release()
		os.RemoveAll(s.Dir)
	}
}

// removeStaleStages removes the staged directories under parent that no
// process holds any more.
func removeStaleStages(parent string) {
	stages, _ := filepath.Glob(filepath.Join(parent, Dir, stagePrefix+"*"))
	for _, dir := range stages {
		if !InUse(dir) {
			os.RemoveAll(dir)
		}
	}
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
// what it named before in one step. A latest that is a directory of its
// own (a copy of a run, as an artifact download leaves it) is moved aside
// to latest.replaced-<UTC time>, not deleted.
func MarkLatest(parent, dir string) error {
	rel, err := filepath.Rel(parent, dir)
	if err != nil {
		return fmt.Errorf("mark latest run: %w", err)
	}
	link := filepath.Join(parent, Latest)
	if info, err := os.Lstat(link); err == nil && info.IsDir() {
		aside := link + ".replaced-" + time.Now().UTC().Format("20060102T150405.000Z")
		if err := os.Rename(link, aside); err != nil {
			return fmt.Errorf("mark latest run: %s is a directory and cannot be moved aside: %w", link, err)
		}
	}
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
		switch {
		case info.IsDir(): // a copy of a run, put there by hand
			dir = link
		case info.Mode()&fs.ModeSymlink == 0:
			data, err := files.ReadRegular(link, 4<<10) // a run's id
			if err != nil {
				return "", fmt.Errorf("read %s: %w", link, err)
			}
			dir = filepath.Join(parent, filepath.FromSlash(strings.TrimSpace(string(data))))
		default:
			if dir, err = filepath.EvalSymlinks(link); err != nil {
				return "", fmt.Errorf("latest run in %s: %w", parent, err)
			}
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

// ReadSummary reads the summary of the run in dir. A run without one (it
// did not finish) is an error that wraps fs.ErrNotExist.
func ReadSummary(dir string) (eval.Summary, error) {
	var sum eval.Summary
	path := filepath.Join(dir, eval.SummaryFile)
	data, err := files.ReadRegular(path, files.MaxRunFile)
	if errors.Is(err, fs.ErrNotExist) {
		return sum, fmt.Errorf("%s has no summary (the run did not finish): %w", dir, err)
	}
	if err != nil {
		return sum, fmt.Errorf("read summary: %w", err)
	}
	// encoding/json's semantics in half its time: a run starts by reading
	// the summary of the one before, which lists every case.
	if err := jsonv1.Unmarshal(data, &sum); err != nil {
		return sum, fmt.Errorf("read %s: %w", path, err)
	}
	return sum, nil
}

// readSummary reads the summary of the run in dir; nil when it has none
// or it cannot be read.
func readSummary(dir string) *eval.Summary {
	sum, err := ReadSummary(dir)
	if err != nil {
		return nil
	}
	return &sum
}

// readBriefSummary is readSummary without the summary's cases, which are
// skipped, not decoded.
func readBriefSummary(dir string) *eval.Summary {
	data, err := files.ReadRegular(filepath.Join(dir, eval.SummaryFile), files.MaxRunFile)
	if err != nil {
		return nil
	}
	var sum eval.Summary
	brief := struct {
		*eval.Summary
		Cases skipped `json:"cases"`
	}{Summary: &sum}
	if json.Unmarshal(data, &brief) != nil {
		return nil
	}
	return &sum
}

// skipped is a JSON value read and left out.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// List returns the runs under parent, the one that started last first
// (see Run.Started): a run whose id was given (EVAL_RUN_ID) is in its
// place by when it ran, whatever its id says. A run without a readable
// summary (one still going, or killed) has none.
func List(parent string) ([]Run, error) { return list(parent, readSummary) }

// ListBrief is List with each summary read without its cases (Cases is
// nil): a summary's other fields say what a run was and how it went, for
// a fraction of the work of a large run's whole summary.
func ListBrief(parent string) ([]Run, error) { return list(parent, readBriefSummary) }

// list is List, each summary read by read.
func list(parent string, read func(dir string) *eval.Summary) ([]Run, error) {
	out, err := Dirs(parent)
	started := make(map[string]time.Time, len(out))
	for i := range out {
		out[i].Summary = read(out[i].Dir)
		started[out[i].ID] = out[i].Started()
	}
	slices.SortStableFunc(out, func(a, b Run) int {
		return cmp.Or(started[b.ID].Compare(started[a.ID]), strings.Compare(b.ID, a.ID))
	})
	return out, err
}

// Started is when the run started: its summary's start; without one (a
// run still going, or killed), when its directory was first held (see
// Hold), else the time its id begins with.
func (r Run) Started() time.Time {
	if r.Summary != nil && !r.Summary.Started.IsZero() {
		return r.Summary.Started
	}
	if info, err := os.Stat(filepath.Join(r.Dir, holdFile)); err == nil {
		return info.ModTime()
	}
	t, _ := IDTime(r.ID)
	return t
}

// IDTime is the UTC time a run id begins with; ok is false for a string
// that is no run id.
func IDTime(id string) (t time.Time, ok bool) {
	if !ValidID(id) {
		return time.Time{}, false
	}
	stamp, _, _ := strings.Cut(id, "-")
	layout := "20060102T150405Z"
	if strings.Contains(stamp, ".") {
		layout = "20060102T150405.000Z"
	}
	t, err := time.Parse(layout, stamp)
	return t.UTC(), err == nil
}

// Newest returns the run under parent whose id is the newest (an id
// begins with the run's start time, unless it was given: EVAL_RUN_ID) among those that finished and whose summary match
// accepts. It reads the summaries newest first and none older than the one
// it returns.
func Newest(parent string, match func(*eval.Summary) bool) (Run, bool) {
	list, _ := Dirs(parent)
	for _, r := range list {
		r.Summary = readSummary(r.Dir)
		if r.Summary != nil && !r.Summary.Finished.IsZero() && match(r.Summary) {
			return r, true
		}
	}
	return Run{}, false
}

// Dirs returns the runs under parent, newest id first, without reading
// their summaries (Summary is nil).
func Dirs(parent string) ([]Run, error) {
	entries, err := os.ReadDir(filepath.Join(parent, Dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var out []Run
	for _, e := range entries {
		if e.IsDir() && ValidID(e.Name()) {
			out = append(out, Run{ID: e.Name(), Dir: filepath.Join(parent, Dir, e.Name())})
		}
	}
	slices.SortFunc(out, func(a, b Run) int { return strings.Compare(b.ID, a.ID) })
	return out, nil
}

// Pruned says what Prune did.
type Pruned struct {
	// Removed are the run directories removed.
	Removed []string
	// Running are the directories of runs still going, which are kept
	// whatever their age (see Hold).
	Running []string
}

// Prune deletes all but the newest keep runs under parent (the last to
// start; see List). The run latest
// names and runs still going are kept whatever their age; the staged
// directories of killed writers (see Stage) are removed.
func Prune(parent string, keep int) (Pruned, error) {
	var p Pruned
	if keep < 0 {
		return p, fmt.Errorf("keep %d runs: the number must not be negative", keep)
	}
	list, err := List(parent)
	if err != nil {
		return p, err
	}
	removeStaleStages(parent)
	latest, _ := Resolve(parent, Latest)
	for i, r := range list {
		switch {
		case i < keep || sameDir(r.Dir, latest):
			continue
		case InUse(r.Dir):
			p.Running = append(p.Running, r.Dir)
			continue
		}
		if err := os.RemoveAll(r.Dir); err != nil {
			return p, fmt.Errorf("remove run %s: %w", r.ID, err)
		}
		p.Removed = append(p.Removed, r.Dir)
	}
	return p, nil
}

func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

// ReadRecords reads the records of a results.jsonl at path, in order; a
// line that is not a record, or a second record of one case run (case,
// arm, repeat), is an error that names the file and the line. The file
// must be a regular one of at most files.MaxRunFile bytes: a run directory
// is untrusted input.
func ReadRecords(path string) ([]eval.Record, error) {
	f, err := files.OpenRegular(path, files.MaxRunFile)
	if err != nil {
		return nil, fmt.Errorf("read records: %w", err)
	}
	defer f.Close()
	var out []eval.Record
	first := map[eval.CaseRun]int{}
	err = eval.ReadLines(f, func(n int, line []byte) error {
		var rec eval.Record
		if err := json.Unmarshal(line, &rec); err != nil {
			return fmt.Errorf("%s:%d: not a record: %v", path, n, err)
		}
		if at, ok := first[rec.CaseRun()]; ok {
			return fmt.Errorf("%s:%d: a second record of case %q (model %q, arm %q, repeat %d), the first on line %d: a run holds one record of each case run",
				path, n, rec.Name, rec.Model, rec.Arm, rec.Repeat, at)
		}
		first[rec.CaseRun()] = n
		out = append(out, rec)
		return nil
	})
	if err != nil {
		return nil, err // the file's errors name it
	}
	return out, nil
}
