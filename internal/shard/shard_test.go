package shard

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    Spec
		wantErr string
	}{
		{"1/3", Spec{1, 3}, ""},
		{" 3/3 ", Spec{3, 3}, ""},
		{"1/1", Spec{1, 1}, ""},
		{"0/3", Spec{}, "from 1 to 3, not 0"},
		{"4/3", Spec{}, "from 1 to 3, not 4"},
		{"1/0", Spec{}, "at least 1"},
		{"2", Spec{}, "form k/n"},
		{"a/3", Spec{}, "whole numbers"},
		{"", Spec{}, "form k/n"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want.Count > 1, got.Split())
		})
	}
}

func TestParseBalance(t *testing.T) {
	for in, want := range map[string]string{"": Hash, "hash": Hash, "HISTORY": History} {
		got, err := ParseBalance(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := ParseBalance("cost")
	assert.ErrorContains(t, err, `"hash"`)
}

// identities returns n cases in a file, with the given models and repeats.
func identities(n int, models []string, repeats int) []Identity {
	var ids []Identity
	for i := range n {
		for _, m := range models {
			for r := range repeats {
				ids = append(ids, Identity{File: "genes.yaml", CaseRun: eval.CaseRun{Name: fmt.Sprintf("case %d", i), Model: m, Repeat: r}})
			}
		}
	}
	return ids
}

func TestHashPlanIsDisjointCoversAndIsEven(t *testing.T) {
	for _, count := range []int{1, 2, 3, 7} {
		t.Run(fmt.Sprint(count), func(t *testing.T) {
			ids := identities(300, []string{"a", "b"}, 2)
			p := NewPlan(ids, count, Hash, nil)
			per := make([]int, count+1)
			for _, id := range ids {
				j, ok := p.Shard(id)
				require.True(t, ok, "every case run has a shard")
				require.GreaterOrEqual(t, j, 1)
				require.LessOrEqual(t, j, count)
				per[j]++ // each case run counted once: one shard each
			}
			mean := float64(len(ids)) / float64(count)
			for j := 1; j <= count; j++ {
				assert.InDelta(t, mean, per[j], 4*math.Sqrt(mean)+1, "shard %d of %d holds about its share", j, count)
			}
		})
	}
}

func TestRepeatsAndModelsOfACaseAreSpread(t *testing.T) {
	ids := identities(1, []string{"a", "b", "c", "d"}, 5)
	p := NewPlan(ids, 3, Hash, nil)
	used := map[int]bool{}
	for _, id := range ids {
		j, _ := p.Shard(id)
		used[j] = true
	}
	assert.Len(t, used, 3, "20 runs of one case use every shard")
}

func TestAddingOrRenamingACaseMovesOnlyThatCase(t *testing.T) {
	ids := identities(200, []string{"m"}, 1)
	before := NewPlan(ids, 3, Hash, nil)

	added := append(slices.Clone(ids), Identity{File: "genes.yaml", CaseRun: eval.CaseRun{Name: "a new case", Model: "m"}})
	afterAdd := NewPlan(added, 3, Hash, nil)
	renamed := slices.Clone(ids)
	renamed[17].Name = "case 17, renamed"
	afterRename := NewPlan(renamed, 3, Hash, nil)
	removed := slices.Delete(slices.Clone(ids), 40, 41)
	afterRemove := NewPlan(removed, 3, Hash, nil)

	for i, id := range ids {
		j, _ := before.Shard(id)
		k, ok := afterAdd.Shard(id)
		require.True(t, ok)
		assert.Equal(t, j, k, "adding a case moved %s", id)
		if i != 17 {
			k, _ = afterRename.Shard(id)
			assert.Equal(t, j, k, "renaming case 17 moved %s", id)
		}
		if i != 40 {
			k, _ = afterRemove.Shard(id)
			assert.Equal(t, j, k, "removing case 40 moved %s", id)
		}
	}
	assert.NotEqual(t, before.Fingerprint, afterAdd.Fingerprint)
}

func TestFingerprintIsTheSameForTheSameAssignment(t *testing.T) {
	ids := identities(50, []string{"m"}, 1)
	reversed := slices.Clone(ids)
	slices.Reverse(reversed)
	assert.Equal(t, NewPlan(ids, 3, Hash, nil).Fingerprint, NewPlan(reversed, 3, Hash, nil).Fingerprint, "the order the cases are listed in does not matter")
	assert.NotEqual(t, NewPlan(ids, 3, Hash, nil).Fingerprint, NewPlan(ids, 4, Hash, nil).Fingerprint)
}

// loads returns the seconds of work per shard.
func loads(p Plan, ids []Identity, seconds map[Identity]float64) []float64 {
	out := make([]float64, p.Count)
	for _, id := range ids {
		j, _ := p.Shard(id)
		out[j-1] += seconds[id]
	}
	return out
}

func TestHistoryBalancesKnownDurations(t *testing.T) {
	// A few long cases among many short ones: the hash alone piles up
	// long ones by chance; the history spreads them.
	ids := identities(60, []string{"m"}, 1)
	seconds := map[Identity]float64{}
	for i, id := range ids {
		seconds[id] = 1
		if i%10 == 0 {
			seconds[id] = 30
		}
	}
	weight := func(id Identity) (float64, bool) { s, ok := seconds[id]; return s, ok }
	balanced := NewPlan(ids, 3, History, weight)
	l := loads(balanced, ids, seconds)
	total := l[0] + l[1] + l[2]
	assert.LessOrEqual(t, slices.Max(l)-slices.Min(l), 30.0, "no shard has more than one long case more than another: %v", l)
	assert.LessOrEqual(t, slices.Max(l), total/3+30, "%v", l)

	again := NewPlan(ids, 3, History, weight)
	assert.Equal(t, balanced.Fingerprint, again.Fingerprint, "the same history gives the same plan in every shard")
	assert.NotEqual(t, balanced.Fingerprint, NewPlan(ids, 3, Hash, nil).Fingerprint)
}

func TestHistoryPlacesUnknownAndFreeCaseRunsByHash(t *testing.T) {
	ids := identities(40, []string{"m"}, 1)
	weight := func(id Identity) (float64, bool) {
		switch id.Name {
		case "case 1", "case 2", "case 3":
			return 10, true
		case "case 4":
			return 0, true // cached: costs nothing
		}
		return 0, false
	}
	balanced := NewPlan(ids, 3, History, weight)
	hashed := NewPlan(ids, 3, Hash, nil)
	seen := map[int]bool{}
	for _, id := range ids {
		j, _ := balanced.Shard(id)
		switch id.Name {
		case "case 1", "case 2", "case 3":
			seen[j] = true
		default:
			h, _ := hashed.Shard(id)
			assert.Equal(t, h, j, "%s has no history and goes by the hash", id)
		}
	}
	assert.Len(t, seen, 3, "the three known 10 s runs go to three shards")

	// A new case without history moves no balanced one.
	added := append(slices.Clone(ids), Identity{File: "genes.yaml", CaseRun: eval.CaseRun{Name: "new", Model: "m"}})
	after := NewPlan(added, 3, History, weight)
	for _, id := range ids {
		j, _ := balanced.Shard(id)
		k, _ := after.Shard(id)
		assert.Equal(t, j, k, "%s", id)
	}
}
