package evalcase

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// turnsYAML is a case named a whose input begins a conversation, with
// extra lines (indented as the case's fields).
func turnsYAML(extra ...string) string {
	return caseYAML("a", append([]string{"turns:"}, extra...)...)
}

func TestLoadTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "turns.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join([]string{
		"- case:",
		"    name: corrected",
		"    input: What is the CADD phred score of NM_000546.6:c.181T>G?",
		"    expected: It is classified Pathogenic.",
		"    checks: {contains: [pathogenic]}",
		"    tools: {max_calls: 9}",
		"    reference:",
		"      - {tool: convert_hgvs_to_genomic, args: {hgvs_variant: NM_000546.6:c.181T>G}, expect_error: true}",
		"    turns:",
		"      - user: Sorry, the transcript is NM_007294.4.",
		"        expected: Its CADD phred score is 31.835. Which build do you use?",
		"        checks:",
		"          numbers: [{value: 31.835, tolerance: 0.0005}]",
		"        asks: [build, assembly]",
		"        tools:",
		"          must_call: [get_variant_dbnsfp]",
		"        reference:",
		"          - {tool: convert_hgvs_to_genomic, args: {hgvs_variant: NM_007294.4:c.181T>G}}",
		"      - user: hg19. How does ClinVar classify it?",
		"        tools: {must_call: [get_variant_clinvar]}",
		"",
	}, "\n")), 0o644))
	cases, err := LoadFile(path)
	require.NoError(t, err)
	require.Len(t, cases, 1)
	c := cases[0]
	assert.Equal(t, []eval.Turn{
		{
			User: "Sorry, the transcript is NM_007294.4.", ReplyExpect: eval.ReplyExpect{Expected: "Its CADD phred score is 31.835. Which build do you use?",
				Checks: eval.Checks{Numbers: []eval.NumberCheck{{Value: 31.835, Tolerance: 0.0005}}},
				Asks:   eval.Spellings{"build", "assembly"},
				Tools:  eval.ToolExpect{MustCall: []string{"get_variant_dbnsfp"}}},
			Reference: []eval.RefCall{{Tool: "convert_hgvs_to_genomic", Args: map[string]any{"hgvs_variant": "NM_007294.4:c.181T>G"}}},
		},
		{User: "hg19. How does ClinVar classify it?", ReplyExpect: eval.ReplyExpect{Tools: eval.ToolExpect{MustCall: []string{"get_variant_clinvar"}}}},
	}, c.Turns)
	assert.Equal(t, map[string]int{"reference[0]": 8, "turns[0].tools.must_call[0]": 16, "turns[0].reference[0]": 18, "turns[1].tools.must_call[0]": 20}, c.Lines,
		"the lines of the tools a turn names, for the check against the servers")
	assert.Equal(t, 3, len(c.UserMessages()))
}

func TestTurnErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string // the message after "file:"
	}{
		{
			name:    "an unknown field of a turn",
			content: turnsYAML("  - user: Sorry, I meant c.188C>A.", "    expect: It is 8.1."),
			want:    `7: unknown field "expect" in turns item: did you mean expected? (known fields: user, expected, checks, asks, tools, reference)`,
		},
		{
			name:    "an unknown field of a turn's checks",
			content: turnsYAML("  - user: Next?", "    expected: x", "    checks: {contain: [x]}", "  - user: Last?"),
			want:    `8: unknown field "contain" in checks: did you mean contains? (known fields: contains, not_contains, substring, regexp, not_regexp, numbers)`,
		},
		{
			name:    "a turn without a message",
			content: turnsYAML("  - user: Next?", "  - tools: {max_calls: 2}"),
			want:    `7: case "a": turns[1] (turn 3 of 3): the user's message (user:) is empty`,
		},
		{
			name:    "a blank message, at its line",
			content: turnsYAML("  - user: Next?", "  - tools: {max_calls: 2}", `    user: "  "`),
			want:    `8: case "a": turns[1] (turn 3 of 3): the user's message (user:) is empty`,
		},
		{
			name:    "asks without a subject",
			content: turnsYAML("  - user: Next?", "    expected: Which one?", "    asks:", "  - user: Last?"),
			want:    `8: case "a": turns[0] (turn 2 of 3): asks: name what the agent's clarifying question must be about: a word or phrase its question names, or a list of them`,
		},
		{
			name:    "asks with an empty spelling",
			content: turnsYAML("  - user: Next?", "    expected: Which one?", `    asks: [build, ""]`, "  - user: Last?"),
			want:    `8: case "a": turns[0] (turn 2 of 3): asks: name what the agent's clarifying question must be about: a word or phrase its question names, or a list of them`,
		},
		{
			name:    "checks without the turn's expected reply",
			content: turnsYAML("  - user: Next?", "    checks: {contains: [x]}", "  - user: Last?"),
			want:    `6: case "a": turns[0] (turn 2 of 3): checks and asks need the turn's expected reply (expected:), the reply a correct agent gives: the reference run proves the checks accept it, and a judge grades against it`,
		},
		{
			name:    "asks without the turn's expected reply",
			content: turnsYAML("  - user: Next?", "    asks: build", "  - user: Last?"),
			want:    `6: case "a": turns[0] (turn 2 of 3): checks and asks need the turn's expected reply (expected:), the reply a correct agent gives: the reference run proves the checks accept it, and a judge grades against it`,
		},
		{
			name:    "an expected reply at the last turn",
			content: turnsYAML("  - user: Last?", "    expected: x"),
			want:    `7: case "a": turns[0] (turn 2 of 2): the reply to the last turn is the final answer: give its expected answer as the case's expected, not the turn's`,
		},
		{
			name:    "checks at the last turn",
			content: turnsYAML("  - user: Last?", "    checks: {contains: [x]}"),
			want:    `7: case "a": turns[0] (turn 2 of 2): the reply to the last turn is the final answer: check it with the case's own checks, not the turn's`,
		},
		{
			name:    "a question asked at the last turn",
			content: turnsYAML("  - user: Last?", "    asks: build"),
			want:    `7: case "a": turns[0] (turn 2 of 2): the reply to the last turn is the final answer, not a question: ask for a clarifying question at an earlier turn`,
		},
		{
			name:    "a bad pattern in a turn's checks",
			content: turnsYAML("  - user: Next?", "    expected: x", "    checks: {regexp: ['(']}", "  - user: Last?"),
			want:    `8: case "a": turns[0] (turn 2 of 3): checks.regexp: error parsing regexp: missing closing ): ` + "`(`",
		},
		{
			name:    "a reference call without a tool",
			content: turnsYAML("  - user: Last?", "    reference: [{args: {x: 1}}]"),
			want:    `7: case "a": turns[0] (turn 2 of 2): reference[0] has no tool`,
		},
		{
			name:    "an empty must_call",
			content: turnsYAML("  - user: Last?", `    tools: {must_call: [""]}`),
			want:    `7: case "a": turns[0] (turn 2 of 2): tools.must_call: an item is empty`,
		},
		{
			name:    "turns of a code case",
			content: caseYAML("a", "kind: code", "turns:", "  - user: And now?"),
			want:    `6: case "a": turns: a code case is one question answered with code; it has no turns`,
		},
		{
			name:    "a turn that is a text, not a map",
			content: turnsYAML("  - Sorry, I meant c.188C>A."),
			want:    `6: wrong type: found text "Sorry, ..." where a map of fields is expected`,
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

// The reply to the input of a conversation can carry expectations of its
// own (first_reply), as a turn's reply can: with scripted turns and with
// a simulated user alike.
func TestLoadFirstReply(t *testing.T) {
	path := filepath.Join(t.TempDir(), "first.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join([]string{
		"- case:",
		"    name: scripted",
		"    input: Which gene is at chr17:7675088?",
		"    expected: TP53.",
		"    first_reply:",
		"      expected: Which genome build are the coordinates on?",
		"      asks: [build, assembly]",
		"      checks: {not_contains: [TP53]}",
		"      tools: {must_not_call: [get_gene_by_position]}",
		"    turns:",
		"      - user: GRCh38.",
		"- case:",
		"    name: simulated",
		"    input: Which gene is at chr17:7675088?",
		"    expected: TP53.",
		`    first_reply: {expected: "Which build?", asks: build}`,
		"    user:",
		"      instructions: A geneticist.",
		"      knows: [{fact: GRCh38., when: [build]}]",
		"",
	}, "\n")), 0o644))
	cases, err := LoadFile(path)
	require.NoError(t, err)
	require.Len(t, cases, 2)
	assert.Equal(t, &eval.ReplyExpect{
		Expected: "Which genome build are the coordinates on?", Asks: eval.Spellings{"build", "assembly"},
		Checks: eval.Checks{NotContains: eval.Terms{{Any: []string{"TP53"}}}},
		Tools:  eval.ToolExpect{MustNotCall: []string{"get_gene_by_position"}},
	}, cases[0].FirstReply)
	assert.Equal(t, "Which genome build are the coordinates on?", cases[0].TurnExpected(0))
	assert.Equal(t, "TP53.", cases[0].TurnExpected(1))
	assert.Equal(t, &eval.ReplyExpect{Expected: "Which build?", Asks: eval.Spellings{"build"}}, cases[1].FirstReply)
}

func TestFirstReplyErrorsNameFileAndLine(t *testing.T) {
	turns := func(extra ...string) string {
		return caseYAML("a", append(extra, "turns:", "  - user: GRCh38.")...)
	}
	tests := []struct {
		name    string
		content string
		want    string // the message after "file:"
	}{
		{
			name:    "a case without turns or user",
			content: caseYAML("a", `first_reply: {expected: "Which build?", asks: [build]}`),
			want:    `5: case "a": first_reply: the reply to the input of a case without turns: or user: is its final answer: check it with the case's own expected, checks and tools, or add the user's later messages (turns:) or a simulated user (user:)`,
		},
		{
			name:    "a code case",
			content: caseYAML("a", "kind: code", "first_reply: {expected: x}"),
			want:    `6: case "a": first_reply: a code case is one question answered with code; it has no first reply before its answer`,
		},
		{
			name:    "asks without the expected reply",
			content: turns("first_reply:", "  asks: [build]"),
			want:    `5: case "a": first_reply: checks and asks need the first reply's expected reply (expected:), the reply a correct agent gives: the reference run proves the checks accept it, and a judge grades against it`,
		},
		{
			name:    "asks without a subject",
			content: turns("first_reply:", "  expected: Which build?", "  asks: []"),
			want:    `7: case "a": first_reply: asks: name what the agent's clarifying question must be about: a word or phrase its question names, or a list of them`,
		},
		{
			name:    "nothing expected",
			content: turns("first_reply: {}"),
			want:    `5: case "a": first_reply: it expects nothing of the reply: give expected with asks (a clarifying question the agent must put), checks, or tools (expectations on its calls at this turn)`,
		},
		{
			name:    "a text, not a map",
			content: turns("first_reply: Which build?"),
			want:    `5: wrong type: found text "Which b..." where a map of fields is expected`,
		},
		{
			name:    "an unknown field",
			content: turns("first_reply:", "  expected: Which build?", "  ask: [build]"),
			want:    `7: unknown field "ask" in first_reply: did you mean asks? (known fields: expected, checks, asks, tools)`,
		},
		{
			name:    "a bad pattern, at its line",
			content: turns("first_reply:", "  expected: Which build?", "  checks: {regexp: ['(']}"),
			want:    `7: case "a": first_reply: checks.regexp: error parsing regexp: missing closing ): ` + "`(`",
		},
		{
			name:    "an empty must_call",
			content: turns("first_reply:", `  tools: {must_call: [""]}`),
			want:    `6: case "a": first_reply: tools.must_call: an item is empty`,
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
