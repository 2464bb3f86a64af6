package evalcase

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Replies by field answer every request for their field; the others
// answer the other requests in order; a request past the script is not
// answered (the suite declines it, as unscripted).
func TestReplies(t *testing.T) {
	reply := Replies([]eval.ElicitReply{
		{Content: map[string]any{"name": "Ada"}},
		{Field: "interpretation", Content: map[string]any{"interpretation": "historical"}},
		{Action: eval.ElicitDecline},
	})
	type answer struct {
		action  string
		content map[string]any
		ok      bool
	}
	ask := func(fields ...string) answer {
		a, c, ok := reply("?", fields)
		return answer{a, c, ok}
	}
	assert.Equal(t, answer{eval.ElicitAccept, map[string]any{"name": "Ada"}, true}, ask("name", "email"), "the first in order, accepted for its content")
	assert.Equal(t, answer{eval.ElicitAccept, map[string]any{"interpretation": "historical"}, true}, ask("interpretation"), "by field")
	assert.Equal(t, answer{eval.ElicitDecline, nil, true}, ask("name"), "the next in order")
	assert.Equal(t, answer{eval.ElicitAccept, map[string]any{"interpretation": "historical"}, true}, ask("interpretation"), "a reply by field answers again")
	assert.Equal(t, answer{}, ask("name"), "the script is spent")
	assert.Nil(t, Replies(nil), "no script, no replier")
}

func TestLoadElicitation(t *testing.T) {
	cases, err := Parse("c.yaml", []byte(caseYAML("a",
		"elicitation:",
		"  - content: {name: Ada, check: true}",
		"  - {field: interpretation, action: accept, content: {interpretation: historical}}",
		"  - action: cancel",
		"tools:",
		"  elicited: [{tool: trigger-elicitation-request, action: accept}]",
		"  must_read: [\"demo://resource/dynamic/text/*\"]",
	)))
	require.NoError(t, err)
	assert.Equal(t, []eval.ElicitReply{
		{Content: map[string]any{"name": "Ada", "check": true}},
		{Field: "interpretation", Action: eval.ElicitAccept, Content: map[string]any{"interpretation": "historical"}},
		{Action: eval.ElicitCancel},
	}, cases[0].Elicitation)
	assert.Equal(t, []eval.Elicited{{Tool: "trigger-elicitation-request", Action: eval.ElicitAccept}}, cases[0].Tools.Elicited)
	assert.Equal(t, []string{"demo://resource/dynamic/text/*"}, cases[0].Tools.MustRead)
}
