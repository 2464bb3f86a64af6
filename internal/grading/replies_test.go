package grading

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Every crafted judge reply (testdata/judge_replies.yaml) is read as a
// careful person would: a verdict only when every signal in the reply
// agrees, and "unclear" for any conflict, in any language, and for
// anything unreadable.
func TestParseVerdict(t *testing.T) {
	replies := loadReplies(t)
	require.GreaterOrEqual(t, len(replies), 90)
	adversarial := 0
	for _, r := range replies {
		if r.Set == "adversarial" {
			adversarial++
		}
		t.Run(r.Name, func(t *testing.T) {
			require.Contains(t, []string{"yes", "no", "unclear"}, r.Want)
			msg := r.message()
			v := parseVerdict(msg, graded{})
			got := v.Verdict
			if got == "" {
				got = "unclear"
			}
			assert.Equal(t, r.Want, got, v.Reason)
			assert.Equal(t, r.Want == "yes", v.Pass)
			if r.Want != "unclear" {
				if r.Reason != "" {
					assert.Equal(t, r.Reason, v.Reason)
				}
				assert.Empty(t, v.Raw)
				return
			}
			assert.True(t, strings.HasPrefix(v.Reason, unclearPrefix), "an unclear reply says why: %s", v.Reason)
			for _, tc := range msg.ToolCalls {
				assert.Contains(t, v.Raw, tc.Function.Arguments, "the whole reply is kept")
			}
			assert.Contains(t, v.Raw, strings.TrimSpace(msg.Content))
		})
	}
	assert.GreaterOrEqual(t, adversarial, 40, "replies written to break the reader")
}

// craftedReply is one judge reply of testdata/judge_replies.yaml.
type craftedReply struct {
	Name       string                             `yaml:"name"`
	Set        string                             `yaml:"set"`
	Content    string                             `yaml:"content"`
	Calls      []string                           `yaml:"calls"`
	OtherCalls []struct{ Name, Arguments string } `yaml:"other_calls"`
	Extra      map[string]string                  `yaml:"extra"`
	Want       string                             `yaml:"want"`
	Reason     string                             `yaml:"reason"`
}

// message builds the reply as the provider client hands it over.
func (c craftedReply) message() eval.Message {
	m := eval.Message{Role: "assistant", Content: c.Content}
	for i, args := range c.Calls {
		m.ToolCalls = append(m.ToolCalls, eval.MessageToolCall{ID: string(rune('a' + i)), Type: "function",
			Function: eval.FunctionCall{Name: verdictTool, Arguments: args}})
	}
	for _, o := range c.OtherCalls {
		m.ToolCalls = append(m.ToolCalls, eval.MessageToolCall{ID: "o", Type: "function", Function: eval.FunctionCall{Name: o.Name, Arguments: o.Arguments}})
	}
	for k, v := range c.Extra {
		raw, _ := json.Marshal(v)
		if m.Extra == nil {
			m.Extra = map[string]json.RawMessage{}
		}
		m.Extra[k] = raw
	}
	return m
}

func loadReplies(t *testing.T) []craftedReply {
	t.Helper()
	data, err := os.ReadFile("testdata/judge_replies.yaml")
	require.NoError(t, err)
	var replies []craftedReply
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&replies))
	return replies
}
