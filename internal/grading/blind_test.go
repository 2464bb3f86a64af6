package grading

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
)

// blindReplies is a file of judge replies written by someone who had not
// read the reply reader (testdata/calibration/blind/judge-replies-*.yaml),
// each graded against an answer to a bundled case.
type blindReplies struct {
	Provenance string `yaml:"provenance"`
	Author     string `yaml:"author"`
	Commit     string `yaml:"commit"`
	Spent      string `yaml:"spent"`
	Replies    []struct {
		Name    string   `yaml:"name"`
		Case    string   `yaml:"case"`
		Answer  string   `yaml:"answer"`
		Calls   []string `yaml:"calls"`
		Content string   `yaml:"content"`
		Extra   string   `yaml:"extra"`
		Want    string   `yaml:"want"`
		Kind    string   `yaml:"kind"`
		Why     string   `yaml:"why"`
	} `yaml:"replies"`
}

// Every blind judge reply is read as its writer says a careful reader
// reads it: the reply must fit the answer it grades. A set whose defects
// were fixed (spent) must be read right throughout; on a set nobody has
// tuned on, no reply to reject may be read as a verdict, no verdict may be
// read as the other one, and at most a tenth of the sound replies may be
// read as unclear (asked again, then undecided).
func TestBlindJudgeReplies(t *testing.T) {
	files, err := filepath.Glob("../../testdata/calibration/blind/judge-replies-*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	cases, err := evalcase.LoadPath("../../cases")
	require.NoError(t, err)
	byName := map[string]eval.Case{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var set blindReplies
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		require.NoError(t, dec.Decode(&set), f)
		require.Equal(t, eval.Blind, set.Provenance, f)
		require.GreaterOrEqual(t, len(set.Replies), 30, f)
		sound, soundUnclear, accepted, flipped := 0, 0, 0, 0
		for _, r := range set.Replies {
			t.Run(filepath.Base(f)+"/"+r.Name, func(t *testing.T) {
				c, ok := byName[r.Case]
				require.True(t, ok, "case %q", r.Case)
				reply := craftedReply{Calls: r.Calls, Content: r.Content}
				if r.Extra != "" {
					reply.Extra = map[string]string{"reasoning_content": r.Extra}
				}
				v := parseVerdict(reply.message(), graded{question: c.Input, expected: c.Expected, answer: r.Answer, checked: checkedValues(c)})
				got := v.Verdict
				if got == "" {
					got = "unclear"
				}
				switch {
				case r.Want != "unclear":
					sound++
					if got == "unclear" {
						soundUnclear++
					} else if got != r.Want {
						flipped++
					}
				case got != "unclear":
					accepted++
				}
				if set.Spent != "" {
					assert.Equal(t, r.Want, got, "%s (%s): %s", r.Kind, r.Why, v.Reason)
				} else if r.Want == "unclear" || got != "unclear" {
					assert.Equal(t, r.Want, got, "%s (%s): %s", r.Kind, r.Why, v.Reason)
				} else {
					t.Logf("a sound reply read as unclear (%s): %s", r.Kind, v.Reason)
				}
			})
		}
		t.Logf("%s: %d replies; %d to reject read as a verdict, %d verdicts read as the other, %d of %d sound ones read as unclear",
			filepath.Base(f), len(set.Replies), accepted, flipped, soundUnclear, sound)
		if set.Spent == "" {
			assert.LessOrEqual(t, 10*soundUnclear, sound, "%s: at most a tenth of the sound replies read as unclear", f)
		}
	}
}
