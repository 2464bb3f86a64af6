package evalcase

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// userYAML is a case named a whose user a model plays, with extra lines
// (indented as the user's fields).
func userYAML(extra ...string) string {
	lines := []string{"user:"}
	for _, e := range extra {
		lines = append(lines, "  "+e)
	}
	return caseYAML("a", lines...)
}

func TestLoadUser(t *testing.T) {
	path := filepath.Join(t.TempDir(), "user.yaml")
	require.NoError(t, os.WriteFile(path, []byte(userYAML(
		"instructions: A clinical geneticist who wants the gene at a position of their VCF.",
		"knows:",
		"  - fact: The VCF is on GRCh38 (hg38).",
		"    any: [GRCh38, hg38]",
		"    when: [build, assembly, GRCh*, hg19, hg38]",
		"  - fact: The patient is female.",
		"    when: sex",
		"stop: answer",
		"max_turns: 4",
	)), 0o644))
	cases, err := LoadFile(path)
	require.NoError(t, err)
	require.Len(t, cases, 1)
	assert.Equal(t, &eval.User{
		Instructions: "A clinical geneticist who wants the gene at a position of their VCF.",
		Knows: []eval.UserFact{
			{Fact: "The VCF is on GRCh38 (hg38).", Any: eval.Spellings{"GRCh38", "hg38"}, When: eval.Spellings{"build", "assembly", "GRCh*", "hg19", "hg38"}},
			{Fact: "The patient is female.", When: eval.Spellings{"sex"}},
		},
		Stop: eval.StopAnswer, MaxTurns: 4,
	}, cases[0].User)
	assert.Equal(t, 4, cases[0].User.Turns())
	assert.Equal(t, eval.StopAnswer, cases[0].User.StopRule())

	plain := eval.User{Instructions: "x"}
	assert.Equal(t, eval.DefaultMaxTurns, plain.Turns(), "a user without max_turns has the default")
	assert.Equal(t, eval.StopUser, plain.StopRule(), "the user says when they are done, by default")
}

func TestUserErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string // the message after "file:"
	}{
		{
			name:    "an unknown field of the user",
			content: userYAML("instructions: x", "know: []"),
			want:    `7: unknown field "know" in user: did you mean knows? (known fields: instructions, knows, stop, max_turns)`,
		},
		{
			name:    "an unknown field of a fact",
			content: userYAML("instructions: x", "knows:", "  - fact: GRCh38", "    whem: build"),
			want:    `9: unknown field "whem" in user.knows item: did you mean when? (known fields: fact, any, when)`,
		},
		{
			name:    "a misspelt field of the case",
			content: caseYAML("a", "usr: {instructions: x}"),
			want:    `5: unknown field "usr" in case: did you mean user?` + ` (known fields: name, category, input, expected, kind, checks, tools, reference, budget, elicitation, claims, pass_coverage, turns, first_reply, user)`,
		},
		{
			name:    "user and turns together",
			content: caseYAML("a", "user: {instructions: x}", "turns:", "  - user: And now?"),
			want:    `6: case "a": user and turns: the user's later messages come either from turns (written out) or from user (a model plays the user), not both: keep one`,
		},
		{
			name:    "a user of a code case",
			content: caseYAML("a", "kind: code", "user: {instructions: x}"),
			want:    `6: case "a": user: a code case is one question answered with code; it has no simulated user`,
		},
		{
			name:    "a user that is a text",
			content: caseYAML("a", "user: a geneticist"),
			want:    `5: wrong type: found text "a genet..." where a map of fields is expected`,
		},
		{
			name:    "no instructions",
			content: userYAML("knows: [{fact: GRCh38, when: build}]"),
			want:    `5: case "a": user: instructions are empty: say who the user is and what they want, for the model that plays them`,
		},
		{
			name:    "blank instructions, at their line",
			content: userYAML(`instructions: "  "`),
			want:    `6: case "a": user: instructions are empty: say who the user is and what they want, for the model that plays them`,
		},
		{
			name:    "an unknown stop rule",
			content: userYAML("instructions: x", "stop: answers"),
			want:    `7: case "a": user: stop must be "user" (the user says when they are done) or "answer" (the first reply that asks nothing ends it), not "answers" (did you mean answer?)`,
		},
		{
			name:    "max_turns 1",
			content: userYAML("instructions: x", "max_turns: 1"),
			want:    `7: case "a": user: max_turns 1 leaves no turn for the user to answer the agent: give 2 or more (the input is the first; default 6)`,
		},
		{
			name:    "max_turns 0",
			content: userYAML("instructions: x", "max_turns: 0"),
			want:    `7: case "a": user: max_turns 0 leaves no turn for the user to answer the agent: give 2 or more (the input is the first; default 6)`,
		},
		{
			name:    "too many turns",
			content: userYAML("instructions: x", "max_turns: 50"),
			want:    `7: case "a": user: max_turns 50 is more than 20 turns`,
		},
		{
			name:    "an empty fact",
			content: userYAML("instructions: x", "knows:", "  - fact: GRCh38", "    when: build", "  - when: sex"),
			want:    `10: case "a": user: knows[1]: the fact is empty: give what the user knows, in their words`,
		},
		{
			name:    "a fact without its words",
			content: userYAML("instructions: x", "knows:", "  - fact: GRCh38"),
			want:    `8: case "a": user: knows[0]: when: name the words of the agent's message that ask for this fact (a word, or a list of them): a reply that gives it to a message naming none of them is a leak`,
		},
		{
			name:    "an empty word asking for a fact",
			content: userYAML("instructions: x", "knows:", "  - fact: GRCh38", `    when: [build, ""]`),
			want:    `9: case "a": user: knows[0]: when: name the words of the agent's message that ask for this fact (a word, or a list of them): a reply that gives it to a message naming none of them is a leak`,
		},
		{
			name:    "an empty spelling of a fact",
			content: userYAML("instructions: x", "knows:", "  - fact: GRCh38", "    any: []", "    when: build"),
			want:    `9: case "a": user: knows[0]: any: a spelling is empty`,
		},
		{
			name: "a fact the input gives",
			content: "- case:\n    name: a\n    input: \"Which gene is at chr17:7675088 on hg38?\"\n    expected: \"TP53.\"\n" +
				"    user:\n      instructions: x\n      knows:\n        - fact: The VCF is on GRCh38.\n          any: [GRCh38, hg38]\n          when: build\n",
			want: `8: case "a": user: knows[0]: the case's input already gives "hg38": a fact the user gives only when asked must not be in their first message`,
		},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "case"+strconv.Itoa(i)+".yaml")
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o644))
			_, err := LoadPath(path)
			require.Error(t, err)
			assert.Equal(t, path+":"+tt.want, err.Error())
			assertReadable(t, err.Error())
		})
	}
}
