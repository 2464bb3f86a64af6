package suite

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/replay"
)

// The closing line of a replay says how many recorded calls could not
// answer any: their results were cut and are not in the store.
func TestReplayLineNamesTheLostCalls(t *testing.T) {
	info := &eval.ReplayInfo{Source: "r1", Unmatched: "error", Recorded: 7, UnmatchedCalls: 1}
	assert.NotContains(t, replayLine(info), "could not answer")
	info.Lost = 2
	assert.Contains(t, replayLine(info), "; 2 of its recorded calls could not answer any")
}

// A replay counts only the calls of the cases that ran now: a case served
// from the cache made none.
func TestReplayCountsOnlyCallsMadeNow(t *testing.T) {
	s := &Run{replay: &replay.Source{ID: "r1"}}
	recorded := []eval.ToolCall{{Name: "a", Replay: eval.ReplayRecorded}, {Name: "b", Replay: eval.ReplayRecorded}}
	info := s.replayInfo([]eval.Record{
		{Name: "ran", ToolCalls: recorded},
		{Name: "cached", Cached: true, ToolCalls: recorded},
	})
	assert.Equal(t, 2, info.Recorded)
	info = s.replayInfo([]eval.Record{{Name: "cached", Cached: true, ToolCalls: recorded}})
	assert.Zero(t, info.Recorded, "a fully cached replay answered no call")
}
