package runs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

func TestNewIDSortsByTimeAndDiffers(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 8, 46, 1, 0, time.FixedZone("CET", 3600))
	a, b := NewID(t0), NewID(t0)
	assert.Regexp(t, `^20261124T074601\.000Z-[0-9a-f]{6}$`, a, "UTC time")
	assert.NotEqual(t, a, b, "two runs at the same moment")
	assert.Less(t, a[:20], NewID(t0.Add(time.Millisecond))[:20])
	assert.True(t, ValidID(a))
	assert.True(t, ValidID("20261124T074601Z-abcdef"), "to the second, as make gives")
	for _, bad := range []string{"", "latest", "../x", "20261124T074601Z", "20261124T074601Z-ABCDEF"} {
		assert.False(t, ValidID(bad), bad)
	}
}

// writeRun makes a finished run: its records and summary.
func writeRun(t *testing.T, parent, id string, model string) string {
	t.Helper()
	dir, err := Create(parent, id)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.RecordsFile), []byte("{}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), []byte(`{"model":"`+model+`"}`), 0o644))
	return dir
}

func TestCreateRefusesAnotherRunsDirectory(t *testing.T) {
	parent := t.TempDir()
	dir := writeRun(t, parent, "20260101T000000Z-aaaaaa", "m")
	_, err := Create(parent, "20260101T000000Z-aaaaaa")
	require.ErrorContains(t, err, "already holds a run's records")
	_, err = Create(parent, "../../etc")
	require.ErrorContains(t, err, "not of the form")
	assert.DirExists(t, dir)

	// A directory made beforehand for the test stream is fine.
	pre := filepath.Join(parent, Dir, "20260101T000001Z-bbbbbb")
	require.NoError(t, os.MkdirAll(pre, 0o755))
	got, err := Create(parent, "20260101T000001Z-bbbbbb")
	require.NoError(t, err)
	assert.Equal(t, pre, got)
}

func TestLatestListAndResolve(t *testing.T) {
	parent := t.TempDir()
	_, err := Resolve(parent, Latest)
	require.ErrorContains(t, err, "no run has finished there yet")

	old := writeRun(t, parent, "20260101T000000Z-aaaaaa", "old")
	newer := writeRun(t, parent, "20260102T000000Z-bbbbbb", "new")
	require.NoError(t, MarkLatest(parent, old))
	got, err := Resolve(parent, Latest)
	require.NoError(t, err)
	assert.True(t, sameDir(old, got))
	require.NoError(t, MarkLatest(parent, newer), "latest moves on")
	got, err = Resolve(parent, Latest)
	require.NoError(t, err)
	assert.True(t, sameDir(newer, got))

	got, err = Resolve(parent, "20260101T000000Z-aaaaaa")
	require.NoError(t, err)
	assert.Equal(t, old, got, "a run by its id")
	got, err = Resolve(parent, old)
	require.NoError(t, err)
	assert.Equal(t, old, got, "a run by its path")
	_, err = Resolve(parent, t.TempDir())
	require.ErrorContains(t, err, "is not a run directory")

	// A run still going (no summary) is listed without one.
	_, err = Create(parent, "20260103T000000Z-cccccc")
	require.NoError(t, err)
	list, err := List(parent)
	require.NoError(t, err)
	require.Len(t, list, 3)
	assert.Equal(t, []string{"20260103T000000Z-cccccc", "20260102T000000Z-bbbbbb", "20260101T000000Z-aaaaaa"},
		[]string{list[0].ID, list[1].ID, list[2].ID}, "newest first")
	assert.Nil(t, list[0].Summary)
	assert.Equal(t, "new", list[1].Summary.Model)
}

// Runs are listed by when they started, the last first: a run whose id
// was given (EVAL_RUN_ID) sorts by its summary's start, whatever time its
// id holds; a run without a summary by when its directory was first held,
// else by its id's time.
func TestListSortsByStartTime(t *testing.T) {
	parent := t.TempDir()
	write := func(id, started string) {
		dir, err := Create(parent, id)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), []byte(`{"run_id":"`+id+`","started":"`+started+`"}`), 0o644))
	}
	write("20261101T000000Z-aaaaaa", "2026-11-01T00:00:00Z")
	write("20200101T000000Z-c1c1c1", "2026-11-03T00:00:00Z") // an id given by hand, run last but one
	write("20261102T000000.250Z-bbbbbb", "2026-11-02T00:00:00.25Z")
	_, err := Create(parent, "20261101T120000Z-dddddd") // killed: no summary, never held
	require.NoError(t, err)
	going, err := Create(parent, "20190101T000000Z-eeeeee") // still going, its id given by hand
	require.NoError(t, err)
	release, err := Hold(going)
	require.NoError(t, err)
	defer release()
	held := time.Date(2026, 11, 4, 0, 0, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(filepath.Join(going, holdFile), held, held))

	list, err := List(parent)
	require.NoError(t, err)
	var ids []string
	for _, r := range list {
		ids = append(ids, r.ID)
	}
	assert.Equal(t, []string{"20190101T000000Z-eeeeee", "20200101T000000Z-c1c1c1", "20261102T000000.250Z-bbbbbb",
		"20261101T120000Z-dddddd", "20261101T000000Z-aaaaaa"}, ids, "the last to start first")

	pruned, err := Prune(parent, 2)
	require.NoError(t, err)
	assert.Len(t, pruned.Removed, 3, "all but the two that started last")
	assert.NoDirExists(t, filepath.Join(parent, Dir, "20261102T000000.250Z-bbbbbb"))
	assert.DirExists(t, filepath.Join(parent, Dir, "20200101T000000Z-c1c1c1"), "its id is old, its run is not")
	assert.DirExists(t, filepath.Join(parent, Dir, "20190101T000000Z-eeeeee"))

	for id, want := range map[string]string{
		"20261102T000000.250Z-bbbbbb": "2026-11-02T00:00:00.25Z",
		"20261101T120000Z-dddddd":     "2026-11-01T12:00:00Z",
	} {
		got, ok := IDTime(id)
		require.True(t, ok, id)
		assert.Equal(t, want, got.Format(time.RFC3339Nano), id)
	}
	_, ok := IDTime("latest")
	assert.False(t, ok)
}

func TestNewestReadsNoFurtherThanTheRunItReturns(t *testing.T) {
	parent := t.TempDir()
	_, ok := Newest(parent, func(*eval.Summary) bool { return true })
	assert.False(t, ok, "no run yet")

	finished := func(id, model, at string) string {
		dir := writeRun(t, parent, id, model)
		require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile),
			[]byte(`{"model":"`+model+`","finished":"`+at+`"}`), 0o644))
		return dir
	}
	// The run that started last (by ID) counts, not the one that finished
	// last.
	finished("20260101T000000Z-aaaaaa", "a", "2026-01-09T00:00:00Z")
	finished("20260102T000000Z-bbbbbb", "b", "2026-01-02T00:00:00Z")
	started := finished("20260103T000000Z-cccccc", "a", "2026-01-03T00:00:00Z")
	writeRun(t, parent, "20260104T000000Z-dddddd", "a") // a summary without an end: not finished
	_, err := Create(parent, "20260105T000000Z-eeeeee") // still going: no summary
	require.NoError(t, err)
	broken := finished("20260106T000000Z-ffffff", "a", "2026-01-06T00:00:00Z")
	require.NoError(t, os.WriteFile(filepath.Join(broken, eval.SummaryFile), []byte("{not json"), 0o644))
	finished("20260107T000000Z-abcdef", "b", "2026-01-07T00:00:00Z")

	var matched []string
	r, ok := Newest(parent, func(s *eval.Summary) bool {
		matched = append(matched, s.Model)
		return s.Model == "a"
	})
	require.True(t, ok)
	assert.Equal(t, "20260103T000000Z-cccccc", r.ID)
	assert.Equal(t, started, r.Dir)
	assert.Equal(t, "a", r.Summary.Model)
	assert.Equal(t, []string{"b", "a"}, matched, "newest first, the unfinished and unreadable skipped")
	_, ok = Newest(parent, func(s *eval.Summary) bool { return s.Model == "c" })
	assert.False(t, ok)

	// Many older runs cost nothing: their summaries are not read. Each
	// summary read costs allocations of its own, so reading them shows.
	big := `{"model":"old","finished":"2025-01-01T00:00:00Z","cases":[` + strings.Repeat(`{"name":"x","runs":1},`, 200) + `{"name":"y"}]}`
	for i := range 300 {
		dir, err := Create(parent, fmt.Sprintf("2025%04dT000000Z-aaaaaa", 1001+i))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), []byte(big), 0o644))
	}
	match := func(s *eval.Summary) bool { return s.Model == "a" }
	newest := testing.AllocsPerRun(3, func() { Newest(parent, match) })
	all := testing.AllocsPerRun(3, func() { List(parent) })
	assert.Less(t, newest, all/4, "Newest allocates %.0f times, List (every summary) %.0f", newest, all)
}

func TestPruneKeepsTheNewestAndLatest(t *testing.T) {
	parent := t.TempDir()
	var dirs []string
	for _, id := range []string{"20260101T000000Z-aaaaaa", "20260102T000000Z-bbbbbb", "20260103T000000Z-cccccc", "20260104T000000Z-dddddd"} {
		dirs = append(dirs, writeRun(t, parent, id, "m"))
	}
	require.NoError(t, MarkLatest(parent, dirs[0]))
	pruned, err := Prune(parent, 2)
	require.NoError(t, err)
	assert.Equal(t, []string{dirs[1]}, pruned.Removed, "the two newest and the latest stay")
	for _, d := range []string{dirs[0], dirs[2], dirs[3]} {
		assert.DirExists(t, d)
	}
	_, err = Prune(parent, -1)
	require.Error(t, err)
}

func TestLatestFinished(t *testing.T) {
	parent := t.TempDir()
	_, ok := LatestFinished(parent)
	assert.False(t, ok, "no run yet")

	dir := writeRun(t, parent, "20260101T000000Z-aaaaaa", "m1")
	require.NoError(t, MarkLatest(parent, dir))
	r, ok := LatestFinished(parent)
	require.True(t, ok)
	assert.Equal(t, "20260101T000000Z-aaaaaa", r.ID)
	assert.Equal(t, "m1", r.Summary.Model)

	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), []byte("{not json"), 0o644))
	_, ok = LatestFinished(parent)
	assert.False(t, ok, "a summary that cannot be read")
}

func TestParent(t *testing.T) {
	for _, tt := range []struct{ dir, want string }{
		{"/out/runs/20261124T084601Z-a1b2c3", "/out"},
		{"/out/runs/20261124T084601.250Z-a1b2c3/", "/out"},
		{"out/runs/20261124T084601Z-a1b2c3", "out"},
		{"/out/other/20261124T084601Z-a1b2c3", ""},
		{"/out/runs/not-a-run", ""},
		{"/out", ""},
	} {
		assert.Equal(t, tt.want, Parent(tt.dir), tt.dir)
	}
}

// A run still going is kept by Prune whatever its age; one whose process
// ended (finished or killed) is not.
func TestPruneKeepsRunsStillGoing(t *testing.T) {
	parent := t.TempDir()
	going := writeRun(t, parent, "20260101T000000Z-aaaaaa", "m")
	require.NoError(t, os.Remove(filepath.Join(going, eval.SummaryFile)), "no summary yet")
	release, err := Hold(going)
	require.NoError(t, err)
	killed := writeRun(t, parent, "20260102T000000Z-bbbbbb", "m")
	require.NoError(t, os.Remove(filepath.Join(killed, eval.SummaryFile)))
	releaseKilled, err := Hold(killed)
	require.NoError(t, err)
	releaseKilled() // as a killed process's hold ends
	newest := writeRun(t, parent, "20260103T000000Z-cccccc", "m")
	require.NoError(t, MarkLatest(parent, newest))
	for _, dir := range []string{going, killed} { // held when their ids say they started
		at, _ := IDTime(filepath.Base(dir))
		require.NoError(t, os.Chtimes(filepath.Join(dir, holdFile), at, at))
	}

	assert.True(t, InUse(going))
	assert.False(t, InUse(killed))
	pruned, err := Prune(parent, 1)
	require.NoError(t, err)
	assert.Equal(t, []string{killed}, pruned.Removed)
	assert.Equal(t, []string{going}, pruned.Running)
	assert.DirExists(t, going)

	release()
	pruned, err = Prune(parent, 1)
	require.NoError(t, err)
	assert.Equal(t, []string{going}, pruned.Removed, "once it ended")
}

// Reserve refuses an id whose directory holds an earlier run, touching
// nothing of it; a fresh id is made and held.
func TestReserveRefusesAnEarlierRun(t *testing.T) {
	parent := t.TempDir()
	earlier := writeRun(t, parent, "20260101T000000Z-aaaaaa", "m")
	stream := filepath.Join(earlier, "test.json")
	require.NoError(t, os.WriteFile(stream, []byte("24,220 bytes of stream"), 0o644))
	_, _, err := Reserve(parent, "20260101T000000Z-aaaaaa")
	require.ErrorContains(t, err, "already holds a run (EVAL_RUN_ID 20260101T000000Z-aaaaaa was used before): give each run its own id")
	data, err := os.ReadFile(stream)
	require.NoError(t, err)
	assert.Equal(t, "24,220 bytes of stream", string(data))
	assert.FileExists(t, filepath.Join(earlier, eval.SummaryFile))

	dir, release, err := Reserve(parent, "20260102T000000Z-bbbbbb")
	require.NoError(t, err)
	assert.True(t, InUse(dir))
	got, err := Create(parent, "20260102T000000Z-bbbbbb")
	require.NoError(t, err, "the suite's run takes the reserved directory")
	assert.Equal(t, dir, got)
	release()
	assert.False(t, InUse(dir))
	_, _, err = Reserve(parent, "latest")
	require.ErrorContains(t, err, "not of the form")
}

// A latest that is a directory of its own (an artifact's copy of a run) is
// used as the latest run, and moved aside, not deleted, when a run ends.
func TestLatestThatIsADirectory(t *testing.T) {
	parent := t.TempDir()
	copied := filepath.Join(parent, Latest)
	require.NoError(t, os.MkdirAll(copied, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(copied, eval.SummaryFile), []byte(`{"model":"copied"}`), 0o644))
	r, ok := LatestFinished(parent)
	require.True(t, ok)
	assert.Equal(t, "copied", r.Summary.Model)

	dir := writeRun(t, parent, "20260101T000000Z-aaaaaa", "new")
	require.NoError(t, MarkLatest(parent, dir))
	got, err := Resolve(parent, Latest)
	require.NoError(t, err)
	assert.True(t, sameDir(dir, got))
	aside, err := filepath.Glob(filepath.Join(parent, Latest+".replaced-*"))
	require.NoError(t, err)
	require.Len(t, aside, 1)
	assert.FileExists(t, filepath.Join(aside[0], eval.SummaryFile), "the copy is kept")
	require.NoError(t, MarkLatest(parent, dir), "and again")
}

// A staged run is invisible until committed; a writer killed before its
// commit leaves nothing that lists as a run, and its directory is removed
// by the next stage or prune.
func TestStagedRun(t *testing.T) {
	parent := t.TempDir()
	killed, err := Stage(parent, "20260101T000000Z-aaaaaa")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(killed.Dir, eval.SummaryFile), []byte(`{"model":"m"}`), 0o644))
	list, err := List(parent)
	require.NoError(t, err)
	assert.Empty(t, list, "a staged run is not listed")
	killed.release() // as a killed writer's hold ends

	staged, err := Stage(parent, "20260102T000000Z-bbbbbb")
	require.NoError(t, err)
	assert.NoDirExists(t, killed.Dir, "the killed writer's directory is removed")
	require.NoError(t, os.WriteFile(filepath.Join(staged.Dir, eval.SummaryFile), []byte(`{"model":"m"}`), 0o644))
	dir, err := staged.Commit()
	require.NoError(t, err)
	staged.Abort() // does nothing after Commit
	list, err = List(parent)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, dir, list[0].Dir)
	assert.NotNil(t, list[0].Summary)
	_, err = Stage(parent, "20260102T000000Z-bbbbbb")
	require.ErrorContains(t, err, "exists already")
}

func TestReadRecords(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, eval.RecordsFile)
	require.NoError(t, os.WriteFile(path, []byte(`{"name":"a","status":"pass"}`+"\n\n"+`{"name":"b","status":"fail"}`), 0o644))
	recs, err := ReadRecords(path)
	require.NoError(t, err)
	require.Len(t, recs, 2, "an empty line is skipped, a last line without a newline is read")
	assert.Equal(t, "a", recs[0].Name)
	assert.Equal(t, eval.Fail, recs[1].Status)

	require.NoError(t, os.WriteFile(path, []byte(`{"name":"a"}`+"\n"+`{"name":`+"\n"), 0o644))
	_, err = ReadRecords(path)
	require.ErrorContains(t, err, path+":2: not a record")

	_, err = ReadRecords(filepath.Join(dir, "missing.jsonl"))
	require.ErrorContains(t, err, "read records")
}
