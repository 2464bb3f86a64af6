package evalcase

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/testname"
)

// upstreamCase is MARRVEL-MCP's own shape of a case, decoded independently
// of the loader to compare against.
type upstreamCase struct {
	Case struct {
		Name     string `yaml:"name"`
		Category string `yaml:"category"`
		Input    string `yaml:"input"`
		Expected string `yaml:"expected"`
	} `yaml:"case"`
}

func decodeUpstream(t *testing.T, path string) []upstreamCase {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var items []upstreamCase
	require.NoError(t, yaml.Unmarshal(data, &items))
	return items
}

// lineAt returns line n (1-based) of a file.
func lineAt(t *testing.T, path string, n int) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			return sc.Text()
		}
	}
	require.NoError(t, sc.Err())
	t.Fatalf("%s has no line %d", path, n)
	return ""
}

func TestLoadUpstreamFormatUnchanged(t *testing.T) {
	path := filepath.Join("testdata", "upstream", "gene_variant.yaml")
	cases, err := LoadPath(path)
	require.NoError(t, err)
	want := decodeUpstream(t, path)
	require.Len(t, cases, len(want))

	for i, c := range cases {
		w := want[i].Case
		assert.Equal(t, w.Name, c.Name)
		assert.Equal(t, w.Input, c.Input)
		assert.Equal(t, w.Expected, c.Expected)
		if w.Category == "" {
			assert.Equal(t, "gene_variant", c.Category, "default category is the file's base name")
		} else {
			assert.Equal(t, w.Category, c.Category)
		}
		assert.Equal(t, eval.KindTool, c.Kind, "default kind")
		assert.Zero(t, c.Checks)
		assert.Zero(t, c.Tools)
		assert.Empty(t, c.Reference)
		assert.Zero(t, c.Budget)
		assert.Equal(t, path, c.File)
		assert.True(t, strings.HasPrefix(strings.TrimSpace(lineAt(t, path, c.Line)), "- case:"),
			"Line %d points at the case's `- case:` line", c.Line)
	}
	// Folded and literal block scalars keep YAML's meaning.
	assert.Equal(t, "According to PolyPhen-2, how is NM_001045477.4:c.187C>T predicted?\n", cases[2].Input)
	assert.Equal(t, "PolyPhen-2 HumDiv and HumVar both classify it as 'Benign'.\n", cases[2].Expected)
	assert.Equal(t, path+":3", cases[0].Where())
}

func TestLoadExtensions(t *testing.T) {
	path := filepath.Join("testdata", "extensions.yaml")
	cases, err := LoadFile(path)
	require.NoError(t, err)
	require.Len(t, cases, 2)

	want := eval.Case{
		Name:     "Gene for NM_001045477.4:c.187C>T",
		Category: "Gene and Variant Utilities",
		Input:    "What gene is associated with the variant NM_001045477.4:c.187C>T?",
		Expected: "The gene associated is NUTM2G.",
		Kind:     eval.KindTool,
		Checks: eval.Checks{
			Contains:    eval.Terms{{Any: []string{"NUTM2G"}}},
			NotContains: eval.Terms{{Any: []string{"BRCA1"}}},
			Regexp:      []string{`p\.(P63S|Pro63Ser)`},
			Numbers:     []eval.NumberCheck{{Value: 8.103, Tolerance: 0.001}},
		},
		Tools: eval.ToolExpect{
			MustCall:    []string{"convert_hgvs_to_genomic"},
			MustNotCall: []string{"search_pubmed"},
			Args: []eval.ArgMatch{
				{Tool: "get_variant_dbnsfp", Args: map[string]any{"chr": "9", "pos": "99694174"}},
				{Tool: "convert_hgvs_to_genomic", Args: map[string]any{"hgvs_variant": "NM_001045477.4:c.187C>T"}, Exact: true},
			},
			MaxCalls: 6,
		},
		Reference: []eval.RefCall{
			{Tool: "convert_hgvs_to_genomic", Args: map[string]any{"hgvs_variant": "NM_001045477.4:c.187C>T"}},
			{Tool: "get_variant_dbnsfp", Args: map[string]any{"chr": "9", "pos": 99694174, "ref": "C", "alt": "T", "build": "hg19"}},
			{Tool: "get_gene_by_symbol", Args: map[string]any{"gene_symbol": "NUTM2"}, ExpectError: true},
		},
		Budget: eval.Budget{Seconds: 30.5, Tokens: 20000, ToolCalls: 4},
		File:   path,
		Line:   1,
		// The lines of the fields checked against the servers after loading.
		Lines: map[string]int{"tools.must_call[0]": 13, "reference[0]": 23, "reference[1]": 25, "reference[2]": 27},
	}
	assert.Equal(t, want, cases[0])

	assert.Equal(t, eval.KindCode, cases[1].Kind)
	assert.Equal(t, "extensions", cases[1].Category)
	assert.Equal(t, 35, cases[1].Line)
	assert.Zero(t, cases[1].Checks)
}

func TestLoadDirectoryRecursiveLexical(t *testing.T) {
	cases, err := LoadPath(filepath.Join("testdata", "tree"))
	require.NoError(t, err)

	var got [][3]string // name, category, file relative to the tree
	for _, c := range cases {
		rel, err := filepath.Rel(filepath.Join("testdata", "tree"), c.File)
		require.NoError(t, err)
		got = append(got, [3]string{c.Name, c.Category, filepath.ToSlash(rel)})
	}
	// "a.yaml" sorts before "a/…" ('.' < '/'); .yml counts; a directory
	// named d.yaml is walked, not read; README.md and notes.txt are ignored.
	assert.Equal(t, [][3]string{
		{"from a", "a", "a.yaml"},
		{"from a/y", "y", "a/y.yaml"},
		{"from a/z", "z", "a/z.yml"},
		{"from b", "b", "b.yaml"},
		{"from d.yaml/e", "e", "d.yaml/e.yaml"},
	}, got)
}

func TestLoadSharedMarrvelCases(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "marrvel", "test_cases.yaml")
	if _, err := os.Stat(path); os.IsNotExist(err) {
		t.Skipf("the shared folder is absent: %s does not exist", path)
	}
	cases, err := LoadPath(path)
	require.NoError(t, err)
	require.Len(t, cases, 22)

	want := decodeUpstream(t, path)
	require.Len(t, want, 22)
	for i, c := range cases {
		assert.NotEmpty(t, c.Name)
		assert.NotEmpty(t, c.Input)
		assert.NotEmpty(t, c.Expected)
		assert.Equal(t, want[i].Case.Name, c.Name)
		assert.Equal(t, want[i].Case.Input, c.Input)
		assert.Equal(t, want[i].Case.Expected, c.Expected)
		assert.Equal(t, "test_cases", c.Category, c.Name)
		assert.Equal(t, eval.KindTool, c.Kind)
		assert.True(t, strings.HasPrefix(lineAt(t, path, c.Line), "- case:"), "%s: line %d", c.Name, c.Line)
	}
}

func TestLoadPathErrors(t *testing.T) {
	_, err := LoadPath(filepath.Join("testdata", "no-such-dir"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "load cases:")
	assert.Contains(t, err.Error(), "no-such-dir")

	empty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("not cases"), 0o644))
	_, err = LoadPath(empty)
	require.EqualError(t, err, "load cases: no *.yaml files under "+empty)
}

func TestDuplicateNameAcrossFiles(t *testing.T) {
	dir := filepath.Join("testdata", "dupdir")
	_, err := LoadPath(dir)
	one, two := filepath.Join(dir, "one.yaml"), filepath.Join(dir, "two.yaml")
	require.EqualError(t, err, two+`:2: duplicate case name "Same name" (first defined at `+one+`:5)`)
}

// caseYAML is a valid case whose extra lines (indented by four spaces)
// follow the required fields on line 5.
func caseYAML(name string, extra ...string) string {
	s := "- case:\n    name: " + name + "\n    input: \"Q?\"\n    expected: \"A.\"\n"
	for _, e := range extra {
		s += "    " + e + "\n"
	}
	return s
}

// claimsYAML is a case named a graded by claims, without an expected
// answer, with extra lines.
func claimsYAML(extra ...string) string {
	s := "- case:\n    name: a\n    input: \"Q?\"\n"
	for _, e := range extra {
		s += "    " + e + "\n"
	}
	return s
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string // the message after "file:"
	}{
		{
			name:    "unknown field in a case",
			content: caseYAML("a", "nmae: x"),
			want:    `5: unknown field "nmae" in case: did you mean name? (known fields: name, category, input, expected, kind, checks, tools, reference, budget, elicitation, claims, pass_coverage, turns, first_reply, user)`,
		},
		{
			name:    "unknown field in checks",
			content: caseYAML("a", "checks:", "  contain: [x]"),
			want:    `6: unknown field "contain" in checks: did you mean contains? (known fields: contains, not_contains, substring, regexp, not_regexp, numbers)`,
		},
		{
			name:    "unknown field in a claim's checks",
			content: claimsYAML("claims:", "  - claim: It is 8.103.", "    checks: {number: [{value: 8.103}]}"),
			want:    `6: unknown field "number" in claims item checks: did you mean numbers? (known fields: contains, not_contains, substring, regexp, not_regexp, numbers)`,
		},
		{
			name:    "unknown field in a claim's number check",
			content: claimsYAML("claims:", "  - claim: It is 8.103.", "    checks:", "      numbers: [{valeu: 8.103}]"),
			want:    `7: unknown field "valeu" in claims item checks.numbers item: did you mean value? (known fields: value, tolerance, unit, percent, of, not_of)`,
		},
		{
			name:    "a misspelt field of a claim",
			content: claimsYAML("claims:", "  - cliam: It is 8.103."),
			want:    `5: unknown field "cliam" in a claim: did you mean claim? (known fields: claim, checks)`,
		},
		{
			name:    "expected beside claims",
			content: caseYAML("a", "claims: [It is 8.103.]"),
			want:    `5: case "a": give either expected or claims: the claims are the expected answer of a case graded by claims`,
		},
		{
			name:    "pass_coverage above 1, on its line",
			content: claimsYAML("claims: [It is 8.103.]", "pass_coverage: 2"),
			want:    `5: case "a": pass_coverage 2: expected the share of the claims a pass needs, above 0 and at most 1 (MCP-Atlas uses 0.75)`,
		},
		{
			name:    "pass_coverage 0",
			content: claimsYAML("claims: [It is 8.103.]", "pass_coverage: 0"),
			want:    `5: case "a": pass_coverage 0 passes any answer: give the share of the claims a pass needs, above 0 and at most 1 (MCP-Atlas uses 0.75)`,
		},
		{
			name:    "unknown field in a reference call",
			content: caseYAML("a", "reference:", "  - tool: t", "    arguments: {}"),
			want:    `7: unknown field "arguments" in reference item (known fields: tool, args, expect_error)`,
		},
		{
			name:    "an elicitation reply without action or content",
			content: caseYAML("a", "budget: {seconds: 5}", "elicitation:", "  - field: name"),
			want:    `6: case "a": elicitation[0]: give an action (accept, decline, cancel) or the content to accept`,
		},
		{
			name:    "an elicitation reply with an unknown action",
			content: caseYAML("a", "elicitation:", "  - action: agree"),
			want:    `5: case "a": elicitation[0]: action must be accept, decline, cancel, not "agree"`,
		},
		{
			name:    "content with a decline",
			content: caseYAML("a", "elicitation:", "  - {action: decline, content: {name: x}}"),
			want:    `5: case "a": elicitation[0]: content goes with action accept, not decline`,
		},
		{
			name:    "an unknown field in an elicitation reply",
			content: caseYAML("a", "elicitation:", "  - {action: accept, answer: {name: x}}"),
			want:    `6: unknown field "answer" in elicitation item (known fields: field, action, content)`,
		},
		{
			name:    "an elicitation expectation without a tool",
			content: caseYAML("a", "tools:", "  must_call: [x]", "  elicited:", "    - action: accept"),
			want:    `7: case "a": tools.elicited[0] has no tool`,
		},
		{
			name:    "an elicitation expectation with an unknown action",
			content: caseYAML("a", "tools:", "  elicited: [{tool: t, action: answered}]"),
			want:    `6: case "a": tools.elicited[0]: action must be accept, decline, cancel, not "answered"`,
		},
		{
			name:    "an empty must_read",
			content: caseYAML("a", "tools:", "  must_read: [\"\"]"),
			want:    `1: case "a": tools.must_read: an item is empty`,
		},
		{
			name:    "unknown key beside case",
			content: caseYAML("a") + "  name: b\n",
			want:    "5: unknown key \"name\" beside `case:`; a list item holds only `case:` (indent the field below it?)",
		},
		{
			name:    "fields without case wrapper",
			content: "- name: a\n  input: b\n  expected: c\n",
			want:    "1: list item has no `case:` key; write `- case:` and indent the case's fields below it",
		},
		{
			name:    "list item is a scalar",
			content: caseYAML("a") + "- just text\n",
			want:    "5: list item is a single value, expected a `case:` map",
		},
		{
			name:    "missing name",
			content: "# leading comment\n- case:\n    input: q\n    expected: a\n",
			want:    "2: unnamed case: missing required field(s): name",
		},
		{
			name:    "missing input",
			content: caseYAML("a") + "- case:\n    name: b\n    expected: a\n",
			want:    `5: case "b": missing required field(s): input`,
		},
		{
			name:    "missing expected",
			content: "- case:\n    name: a\n    input: q\n",
			want:    `1: case "a": missing required field(s): expected (or claims)`,
		},
		{
			name:    "blank required fields",
			content: "- case:\n    name: \"  \"\n    input: \"\"\n    expected: \"\\t\"\n",
			want:    "1: unnamed case: missing required field(s): name, input, expected (or claims)",
		},
		{
			name:    "case with no fields",
			content: "- case:\n",
			want:    "1: unnamed case: missing required field(s): name, input, expected (or claims)",
		},
		{
			name:    "duplicate name in one file",
			content: caseYAML("same") + caseYAML("other") + caseYAML("same"),
			want:    `9: duplicate case name "same" (first defined at line 1)`,
		},
		{
			name:    "duplicate key in a case",
			content: caseYAML("a", "name: b"),
			want:    `5: mapping key "name" already defined at line 2`,
		},
		{
			name:    "empty file",
			content: "",
			want:    "1: empty case file: expected a list of `- case:` items",
		},
		{
			name:    "only comments",
			content: "# TODO: write cases\n\n# later\n",
			want:    "1: empty case file: expected a list of `- case:` items",
		},
		{
			name:    "empty list",
			content: "# none yet\n[]\n",
			want:    "2: empty case list",
		},
		{
			name:    "top-level map",
			content: "case:\n  name: a\n  input: q\n  expected: a\n",
			want:    "1: expected a list of `- case:` items, found a map",
		},
		{
			name:    "two documents",
			content: caseYAML("a") + "---\n" + caseYAML("b"),
			want:    "5: a second YAML document begins here; put all cases in one list",
		},
		{
			name:    "contains is a number",
			content: caseYAML("a", "checks:", "  contains: 5"),
			want:    "6: wrong type: found integer 5 where a list of texts is expected",
		},
		{
			name:    "max_calls is text",
			content: caseYAML("a", "tools:", "  max_calls: abc"),
			want:    `6: wrong type: found text "abc" where a whole number is expected`,
		},
		{
			name:    "input is a list",
			content: "- case:\n    name: a\n    input: [q]\n    expected: a\n",
			want:    "3: wrong type: found a list where a text is expected",
		},
		{
			name:    "tolerance is text",
			content: caseYAML("a", "checks:", "  numbers: [{value: 1, tolerance: small}]"),
			want:    `6: wrong type: found text "small" where a number is expected`,
		},
		{
			name:    "invalid regexp",
			content: caseYAML("a", "checks:", "  regexp: ['p\\.(P63S']"),
			want:    "1: case \"a\": checks.regexp: error parsing regexp: missing closing ): `p\\.(P63S`",
		},
		{
			name:    "bad kind",
			content: caseYAML("a", "kind: sql"),
			want:    `1: case "a": kind must be "tool" or "code", not "sql"`,
		},
		{
			name:    "negative tolerance",
			content: caseYAML("a", "checks:", "  numbers: [{value: 8.1, tolerance: -0.5}]"),
			want:    `1: case "a": checks.numbers: negative tolerance -0.5 for value 8.1`,
		},
		{
			name:    "NaN value",
			content: caseYAML("a", "checks:", "  numbers: [{value: .nan}]"),
			want:    `1: case "a": checks.numbers: value NaN with tolerance 0 is not a usable number`,
		},
		{
			name:    "empty contains item",
			content: caseYAML("a", "checks:", "  contains: [x, \"\"]"),
			want:    `1: case "a": checks.contains: an item is empty`,
		},
		{
			name:    "negative max_calls",
			content: caseYAML("a", "tools: {max_calls: -1}"),
			want:    `1: case "a": tools.max_calls must not be negative`,
		},
		{
			name:    "args item without tool",
			content: caseYAML("a", "tools:", "  args: [{args: {x: 1}}]"),
			want:    `1: case "a": tools.args: an item has no tool`,
		},
		{
			name:    "reference call without tool",
			content: caseYAML("a", "reference:", "  - tool: t", "  - args: {x: 1}"),
			want:    `1: case "a": reference[1] has no tool`,
		},
		{
			name:    "negative budget",
			content: caseYAML("a", "budget: {seconds: -3}"),
			want:    `5: case "a": budget.seconds must be a finite number of seconds, 0 or more, not -3`,
		},
		{
			name:    "infinite budget",
			content: caseYAML("a", "budget:", "  tokens: 100", "  seconds: .inf"),
			want:    `7: case "a": budget.seconds must be a finite number of seconds, 0 or more, not +Inf`,
		},
		{
			name:    "NaN budget",
			content: caseYAML("a", "budget: {seconds: .NaN}"),
			want:    `5: case "a": budget.seconds must be a finite number of seconds, 0 or more, not NaN`,
		},
		{
			name:    "negative infinite budget",
			content: caseYAML("a", "budget: {seconds: -.inf}"),
			want:    `5: case "a": budget.seconds must be a finite number of seconds, 0 or more, not -Inf`,
		},
		{
			name:    "negative token budget",
			content: caseYAML("a", "budget:", "  tokens: -1"),
			want:    `6: case "a": budget.tokens must not be negative, not -1`,
		},
		{
			name:    "raw control character",
			content: "- case:\n    name: a\n    input: \"q\x07\"\n    expected: a\n",
			want:    "3: control characters are not allowed",
		},
		{
			name:    "invalid UTF-8",
			content: "- case:\n    name: a\n    input: q\n    expected: \xff\xfe\n",
			want:    "4: invalid leading UTF-8 octet",
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

// YAML syntax errors come from the parser; the loader adds the file and
// keeps the parser's line, except for a tab in the indentation and an
// unclosed quote, which it finds and explains itself.
func TestParseSyntaxErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		line    string
		problem string
	}{
		{"mapping value in a plain scalar", caseYAML("a") + "- case:\n    name: b: c\n", "6", "mapping values are not allowed"},
		{"unclosed quote", "- case:\n    name: \"a\n    input: q\n", "2", `the quote (") that starts this value is not closed on its line`},
		{"unclosed quote before another case", caseYAML("a") + "- case:\n    name: b\n    input: q\n    expected: \"x\n" + caseYAML("c"),
			"8", `the quote (") that starts this value is not closed on its line: close it, or escape a " inside it (\")`},
		{"unclosed single quote", "- case:\n    name: 'abc\n    input: q\n", "2", "escape a ' inside it ('')"},
		{"tab indentation", "- case:\n\tname: a\n", "2", "a tab indents this line: YAML indents with spaces only"},
		{"unclosed flow list", caseYAML("a", "checks: {contains: [x}"), "5", "did not find expected ',' or ']'"},
		{"list item under a map key", "- case:\n    name: a\n  - case:\n", "3", "did not find expected key"},
		{"undefined alias", caseYAML("a", "kind: *nothing"), "5", "unknown anchor 'nothing' referenced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("cases/bad.yaml", []byte(tt.content))
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "cases/bad.yaml:"+tt.line+": "), err.Error())
			assert.Contains(t, err.Error(), tt.problem)
			assertReadable(t, err.Error())
		})
	}
}

// Several type errors in one file are all reported, each on its own line.
func TestParseReportsEveryTypeError(t *testing.T) {
	content := caseYAML("a", "tools: {max_calls: many}") + caseYAML("b", "checks: {contains: 5}")
	_, err := Parse("f.yaml", []byte(content))
	require.EqualError(t, err, "f.yaml:5: wrong type: found text \"many\" where a whole number is expected\n"+
		"f.yaml:10: wrong type: found integer 5 where a list of texts is expected")
}

// assertReadable checks a message speaks the case file's language, not the
// decoder's.
func assertReadable(t *testing.T, msg string) {
	t.Helper()
	for _, jargon := range []string{"evalcase.", "struct {", "!!", "unmarshal", "yaml: line", "[]string", "float64"} {
		assert.NotContains(t, msg, jargon)
	}
	assert.True(t, utf8.ValidString(msg), "message is valid UTF-8")
}

// billionLaughs returns nine map entries, each a list of nine aliases of
// the one before, indented by indent: about 387 million strings expanded.
func billionLaughs(indent string) string {
	var b strings.Builder
	b.WriteString(indent + `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		items := strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ",")
		b.WriteString(indent + name + ": &" + name + " [" + items + "]\n")
		prev = name
	}
	return b.String()
}

func TestHostileAliasBomb(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"in reference args", caseYAML("bomb", "reference:", "  - tool: x", "    args:") + billionLaughs("          "),
			"bomb.yaml:14: the file's aliases (*name) expand it to more than the limit of 16 MiB for a case file; write the text out where it is needed, or split the file"},
		{"in tools.args", caseYAML("bomb", "tools:", "  args:", "    - tool: x", "      args:") + billionLaughs("            "),
			"bomb.yaml:15: the file's aliases (*name) expand it to more than the limit of 16 MiB for a case file; write the text out where it is needed, or split the file"},
		{"as list items", "- &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n" +
			"- &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n- &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n- &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n" +
			"- &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n- &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n- &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n",
			"bomb.yaml:1: list item is a list, expected a `case:` map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The bomb is well-formed YAML: only its expansion is hostile.
			var node yaml.Node
			require.NoError(t, yaml.Unmarshal([]byte(tt.content), &node))

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Parse("bomb.yaml", []byte(tt.content))
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)

			require.EqualError(t, err, tt.want)
			assert.Less(t, elapsed, 30*time.Second, "the expansion is refused, not carried out")
			allocated := after.TotalAlloc - before.TotalAlloc
			assert.Less(t, allocated, uint64(64<<20), "allocated %d bytes", allocated)
		})
	}
}

// Aliases of one long text cannot take a small file past the limit of a
// case file: the expanded size is bounded, not only the file's.
func TestHostileAliasesOfALongText(t *testing.T) {
	question := strings.Repeat("q", 1<<20)
	file := func(cases int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "- case:\n    name: c0\n    input: &q %s\n    expected: a\n", question)
		for i := 1; i < cases; i++ {
			fmt.Fprintf(&b, "- case:\n    name: c%d\n    input: *q\n    expected: a\n", i)
		}
		return b.String()
	}
	content := file(1000)
	require.Less(t, len(content), 2<<20, "the file itself is small")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Parse("aliases.yaml", []byte(content))
	runtime.ReadMemStats(&after)
	require.Error(t, err)
	assert.Regexp(t, `^aliases\.yaml:\d+: the file's aliases \(\*name\) expand it to more than the limit of 16 MiB for a case file`, err.Error())
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<20), "refused before expanding")

	cases, err := Parse("aliases.yaml", []byte(file(10)))
	require.NoError(t, err, "aliases within the limit load")
	require.Len(t, cases, 10)
	assert.Equal(t, question, cases[9].Input)
}

func TestHostileDeepNesting(t *testing.T) {
	depth := 200_000
	content := caseYAML("deep", "reference:", "  - tool: x", "    args: {x: "+strings.Repeat("[", depth)+strings.Repeat("]", depth)+"}")
	start := time.Now()
	_, err := Parse("deep.yaml", []byte(content))
	require.Error(t, err)
	assert.Equal(t, "deep.yaml:7: exceeded max depth of 10000", err.Error())
	assert.Less(t, time.Since(start), 30*time.Second)
}

func TestHostileLargeString(t *testing.T) {
	big := strings.Repeat("NUTM2G variant ", (1<<20)/15+1)
	for _, style := range []struct{ name, input string }{
		{"plain", "input: " + big},
		{"double-quoted", `input: "` + big + `"`},
		{"literal block", "input: |\n      " + big},
	} {
		t.Run(style.name, func(t *testing.T) {
			content := "- case:\n    name: big\n    " + style.input + "\n    expected: a\n"
			start := time.Now()
			cases, err := Parse("big.yaml", []byte(content))
			require.NoError(t, err)
			require.Len(t, cases, 1)
			assert.GreaterOrEqual(t, len(cases[0].Input), 1<<20)
			assert.Equal(t, strings.TrimSpace(big), strings.TrimSpace(cases[0].Input))
			assert.Less(t, time.Since(start), 60*time.Second, "no quadratic work on long scalars")
		})
	}
}

func TestHostileControlCharactersInNames(t *testing.T) {
	// Escaped in double quotes, control characters are valid YAML.
	names := []string{
		"tab\there", "bell\x07", "nul\x00byte", "ansi \x1b[31mred\x1b[0m", "line\nbreak",
		"cr\rreturn", "bidi \u202egnp.exe", "zero\u200bwidth", "del\x7f", "\x01",
	}
	var content strings.Builder
	for _, n := range names {
		content.WriteString("- case:\n    name: " + yamlQuote(n) + "\n    input: q\n    expected: a\n")
	}
	cases, err := Parse("ctrl.yaml", []byte(content.String()))
	require.NoError(t, err)
	require.Len(t, cases, len(names))
	for i, c := range cases {
		assert.Equal(t, names[i], c.Name, "names load unchanged")
	}

	loaded := make([]string, len(cases))
	for i, c := range cases {
		loaded[i] = c.Name
	}
	subtests := testname.Subtests(loaded)
	for _, s := range subtests {
		assert.True(t, utf8.ValidString(s), "%q is valid UTF-8", s)
		assert.Equal(t, regexp.QuoteMeta(s), s, "%q has no regexp metacharacter", s)
		assert.False(t, strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !strconv.IsPrint(r) }), "%q has no space and nothing unprintable", s)
	}
	// go test keeps each name as given: nothing to rewrite, nothing to number.
	for _, s := range subtests {
		t.Run(s, func(t *testing.T) {
			assert.Equal(t, "TestHostileControlCharactersInNames/"+s, t.Name())
		})
	}
}

// yamlQuote writes s as a YAML double-quoted scalar, escaping control and
// invisible characters.
func yamlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x202e || r == 0x200b:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestArgumentsMustBeJSON(t *testing.T) {
	for name, args := range map[string]string{
		"number keys": "{x: {1: 2}}",
		"NaN":         "{y: .nan}",
	} {
		t.Run(name, func(t *testing.T) {
			src := "- case:\n    name: c\n    input: q\n    expected: e\n    reference:\n      - {tool: t, args: " + args + "}\n"
			_, err := Parse("f.yaml", []byte(src))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "f.yaml:1:")
			assert.Contains(t, err.Error(), "reference[0] (t): arguments cannot be sent as JSON")
		})
	}
}
