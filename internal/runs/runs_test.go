package runs

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
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

func TestPruneKeepsTheNewestAndLatest(t *testing.T) {
	parent := t.TempDir()
	var dirs []string
	for _, id := range []string{"20260101T000000Z-aaaaaa", "20260102T000000Z-bbbbbb", "20260103T000000Z-cccccc", "20260104T000000Z-dddddd"} {
		dirs = append(dirs, writeRun(t, parent, id, "m"))
	}
	require.NoError(t, MarkLatest(parent, dirs[0]))
	removed, err := Prune(parent, 2)
	require.NoError(t, err)
	assert.Equal(t, []string{dirs[1]}, removed, "the two newest and the latest stay")
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
