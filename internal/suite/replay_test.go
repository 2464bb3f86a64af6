package suite

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpeval/mcpeval/internal/eval"
)

// The closing line of a replay says how many recorded calls could not
// answer any: their results were cut and are not in the store.
func TestReplayLineNamesTheLostCalls(t *testing.T) {
	info := &eval.ReplayInfo{Source: "r1", Unmatched: "error", Recorded: 7, UnmatchedCalls: 1}
	assert.NotContains(t, replayLine(info), "could not answer")
	info.Lost = 2
	assert.Contains(t, replayLine(info), "; 2 of its recorded calls could not answer any")
}
