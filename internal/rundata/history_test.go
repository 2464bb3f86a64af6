package rundata_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/runs"
)

// A run's history charts the kept runs of the same case set evaluated
// with the same models or arms: never another model's runs, a run of
// several models with a run of one of them, nor a reference run in a
// model's history (or a model's in a reference run's).
func TestHistoryKeepsRunsOfTheSameModels(t *testing.T) {
	models := func(names ...string) []eval.ModelResult {
		var out []eval.ModelResult
		for _, n := range names {
			out = append(out, eval.ModelResult{Model: n})
		}
		return out
	}
	arm := func(name, model string) eval.ModelResult {
		return eval.ModelResult{Model: name, Arm: &eval.ArmInfo{Model: model}}
	}
	kept := []struct {
		id  string
		sum eval.Summary
	}{
		{"20261101T000000Z-aaaaa1", eval.Summary{Model: "good", Models: models("good")}},
		{"20261102T000000Z-aaaaa2", eval.Summary{Model: "bad", Models: models("bad")}},
		{"20261103T000000Z-aaaaa3", eval.Summary{Model: "good", Reference: true, Models: models("good")}},
		{"20261104T000000Z-aaaaa4", eval.Summary{Model: "good", Models: models("good", "bad")}},
		{"20261105T000000Z-aaaaa5", eval.Summary{Model: "good", Models: models("bad", "good")}},
		{"20261106T000000Z-aaaaa6", eval.Summary{Model: "good", Models: models("good")}},
		{"20261107T000000Z-aaaaa7", eval.Summary{Model: "good", Models: []eval.ModelResult{arm("server", "good"), arm("none", "good")}}},
		{"20261108T000000Z-aaaaa8", eval.Summary{Model: "good", Models: []eval.ModelResult{arm("server", "bad"), arm("none", "bad")}}},
		{"20261109T000000Z-aaaaa9", eval.Summary{Model: "good", Models: models("good"), CaseSet: "other"}},
		{"20261110T000000Z-aaaab0", eval.Summary{Model: "good", Reference: true}},
	}
	parent := t.TempDir()
	for i, k := range kept {
		dir := filepath.Join(parent, runs.Dir, k.id)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		s := k.sum
		s.RunID, s.Started = k.id, time.Date(2026, 11, 1+i, 0, 0, 0, 0, time.UTC)
		if s.CaseSet == "" {
			s.CaseSet = "set"
		}
		s.Overall = eval.GroupResult{Cases: 2, PassRate: float64(i) / 10}
		b, err := json.Marshal(s)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), b, 0o644))
	}
	tests := []struct {
		name string
		run  int // the kept run whose history it is
		want []string
	}{
		{"a model's runs alone", 5, []string{"20261101T000000Z-aaaaa1", "20261106T000000Z-aaaaa6"}},
		{"another model's", 1, []string{"20261102T000000Z-aaaaa2"}},
		{"the same models in any order", 3, []string{"20261104T000000Z-aaaaa4", "20261105T000000Z-aaaaa5"}},
		{"arms by name and model", 6, []string{"20261107T000000Z-aaaaa7"}},
		{"reference runs with reference runs", 9, []string{"20261103T000000Z-aaaaa3", "20261110T000000Z-aaaab0"}},
		{"another case set", 8, []string{"20261109T000000Z-aaaaa9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum, err := runs.ReadSummary(filepath.Join(parent, runs.Dir, kept[tt.run].id))
			require.NoError(t, err)
			var got []string
			for _, p := range rundata.History(parent, sum) {
				got = append(got, p.RunID)
			}
			assert.Equal(t, tt.want, got, "oldest first")
		})
	}
}
