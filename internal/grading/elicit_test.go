package grading

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

func TestCheckToolsElicitationsAndReads(t *testing.T) {
	calls := []eval.ToolCall{
		{Name: "ask", Elicitations: []eval.Elicitation{{Action: eval.ElicitDecline}}},
		{Name: "confirm", Elicitations: []eval.Elicitation{{Action: eval.ElicitAccept, Scripted: true}}},
		{Name: eval.ReadResourceTool, Resource: "demo://resource/dynamic/text/2"},
		{Name: eval.ReadResourceTool, Resource: "demo://resource/dynamic/blob/1", IsError: true},
	}
	c := eval.Case{Tools: eval.ToolExpect{
		Elicited: []eval.Elicited{{Tool: "ask", Action: eval.ElicitAccept}, {Tool: "ask"}, {Tool: "confirm", Action: eval.ElicitAccept}, {Tool: "echo"}},
		MustRead: []string{"demo://resource/dynamic/text/*", "demo://resource/dynamic/blob/1", "demo://resource/dynamic/text/2"},
	}}
	got := CheckTools(c, calls)
	require.Len(t, got, 7)
	assert.Equal(t, []eval.CheckResult{
		{Check: "elicited ask accept", Detail: "the elicitations got decline"},
		{Check: "elicited ask", Passed: true},
		{Check: "elicited confirm accept", Passed: true},
		{Check: "elicited echo", Detail: "no elicitation"},
		{Check: "must_read demo://resource/dynamic/text/*", Passed: true},
		{Check: "must_read demo://resource/dynamic/blob/1", Detail: "never read"},
		{Check: "must_read demo://resource/dynamic/text/2", Passed: true},
	}, got)
}

// A case's script and expectations load from YAML.
