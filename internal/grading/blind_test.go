package grading

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/internal/eval"
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
// reads it: the reply must fit the answer it grades.
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
				assert.Equal(t, r.Want, got, "%s (%s): %s", r.Kind, r.Why, v.Reason)
			})
		}
	}
}
