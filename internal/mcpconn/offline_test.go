package mcpconn

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// A surface read back from a summary, whose schemas are stored indented,
// is offered as the live server offered it: compact, byte for byte, with
// the same hash.
func TestOfflineOffersTheSchemasCompact(t *testing.T) {
	live := eval.Tool{Name: "lookup", Description: "Looks up an item > 0.",
		Parameters: json.RawMessage(`{"properties":{"id":{"description":"an id, e.g. \"a\u003eb\"","type":"string"}},"required":["id"],"type":"object"}`),
		Output:     json.RawMessage(`{"type":"object"}`)}
	stored, err := json.MarshalIndent(live, "", "  ")
	require.NoError(t, err)
	var recorded eval.Tool
	require.NoError(t, json.Unmarshal(stored, &recorded))
	require.NotEqual(t, string(live.Parameters), string(recorded.Parameters), "the summary's copy is indented")

	offline, err := Offline([]Recorded{{Name: "srv", InfoName: "srv", InfoVersion: "1", Tools: []eval.Tool{recorded}}}, nil)
	require.NoError(t, err)
	entries := offline.Entries()
	require.Len(t, entries, 1)
	assert.Equal(t, string(live.Parameters), string(entries[0].Listed.Parameters))
	assert.Equal(t, string(live.Output), string(entries[0].Listed.Output))

	same, err := Offline([]Recorded{{Name: "srv", InfoName: "srv", InfoVersion: "1", Tools: []eval.Tool{live}}}, nil)
	require.NoError(t, err)
	assert.Equal(t, same.Hash(), offline.Hash())
}
