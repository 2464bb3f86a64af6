package arms

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	arms, err := Parse("arms.yaml", []byte(`
arms:
  - name: no-server
    servers: []
  - name: server
  - name: tuned
    model: gpt-4.1-mini
    system_prompt: Answer briefly.
    allow: {marrvel: ["get_gene_*"]}
    hide: [run_pandas]
    override:
      get_gene_by_symbol: {description: "Finds a gene."}
      marrvel/search: {input_schema: {type: object, properties: {q: {type: string}}}}
baseline: server
`))
	require.NoError(t, err)
	require.Len(t, arms, 3)
	assert.Equal(t, []bool{false, true, false}, []bool{arms[0].Baseline, arms[1].Baseline, arms[2].Baseline}, "the baseline arm")
	assert.True(t, arms[0].NoServer())
	assert.Nil(t, arms[1].Surface.Servers, "no servers: key: every server")
	assert.False(t, arms[1].NoServer())
	tuned := arms[2]
	assert.Equal(t, "gpt-4.1-mini", tuned.Model)
	assert.Equal(t, "Answer briefly.", tuned.SystemPrompt)
	assert.Equal(t, []string{"get_gene_*"}, tuned.Surface.Allow["marrvel"])
	assert.Equal(t, []string{"run_pandas"}, tuned.Surface.Hide)
	assert.Equal(t, "Finds a gene.", *tuned.Surface.Override["get_gene_by_symbol"].Description)
	assert.JSONEq(t, `{"type":"object","properties":{"q":{"type":"string"}}}`, string(tuned.Surface.Override["marrvel/search"].InputSchema))
	assert.Equal(t, 6, tuned.Line, "the line of the arm's item")
}

func TestParseErrorsSayWhere(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"unknown field", "arms:\n  - name: a\n    modle: x\n", "line 3: field modle not found"},
		{"no name", "arms:\n  - model: x\n", "arms.yaml:2: arm \"\": a name"},
		{"bad name", "arms:\n  - name: a/b\n", "arms.yaml:2: arm \"a/b\": a name"},
		{"twice", "arms:\n  - name: a\n  - name: a\n", "arms.yaml:3: arm \"a\" is declared already, at line 2"},
		{"no arms", "arms: []\n", "no arms"},
		{"loo", "arms:\n  - name: a\n    leave_one_out: everything\n", `leave_one_out is "everything"`},
		{"groups without groups", "arms:\n  - name: a\n    leave_one_out: groups\n", "needs groups"},
		{"schema not an object", "arms:\n  - name: a\n    override:\n      t: {input_schema: [1]}\n", "arms.yaml:4: override t: input_schema must be a JSON Schema object"},
		{"empty override", "arms:\n  - name: a\n    override:\n      t: {}\n", "override t replaces nothing"},
		{"not yaml", "arms: [\n", "arms.yaml"},
		{"baseline of no arm", "arms:\n  - name: a\n  - name: b\nbaseline: c\n", `arms.yaml:4: baseline "c" names no arm of the file: give one of a, b`},
		{"baseline not a name", "arms:\n  - name: a\nbaseline: [a]\n", "arms.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("arms.yaml", []byte(tt.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// leave_one_out makes one arm per tool (or group) of its surface, after
// the arm it comes from, each hiding that tool.
func TestExpand(t *testing.T) {
	arms, err := Parse("arms.yaml", []byte(`
arms:
  - name: base
    hide: [secret]
    leave_one_out: tools
  - name: grouped
    leave_one_out: groups
    groups: {gene: ["get_gene_*"], clinvar: ["get_clinvar_*", "clinvar_counts"]}
  - name: plain
`))
	require.NoError(t, err)
	tools := func(a Arm) ([]string, error) {
		if a.Name == "base" {
			return []string{"s/get_gene", "s/odd.name"}, nil
		}
		return nil, fmt.Errorf("not asked for %s", a.Name)
	}
	all, err := Expand(arms, tools)
	require.NoError(t, err)
	var names []string
	for _, a := range all {
		names = append(names, a.Name)
	}
	assert.Equal(t, []string{"base", "base-without-get_gene", "base-without-odd.name", "grouped", "grouped-without-clinvar", "grouped-without-gene", "plain"}, names)
	assert.Equal(t, []string{"secret", "s/get_gene"}, all[1].Surface.Hide, "the base's own hiding stays")
	assert.Equal(t, "base", all[1].Base)
	assert.Equal(t, "get_gene", all[1].Hidden)
	assert.Empty(t, all[1].LeaveOneOut)
	assert.Equal(t, []string{"get_clinvar_*", "clinvar_counts"}, all[4].Surface.Hide)
	assert.Equal(t, "clinvar", all[4].Hidden)
	assert.Empty(t, arms[0].Surface.Hide[1:], "the declared arm is not changed")

	_, err = Expand([]Arm{{Name: "x", LeaveOneOut: "tools", File: "f", Line: 3}}, func(Arm) ([]string, error) { return nil, fmt.Errorf("no server is named %q", "y") })
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "f:3: arm \"x\""), err.Error())
}

// Aliases do not get around the arms file's bound: one anchored prompt of
// 100 KB named by fifty arms expands past 4 MiB, and is refused.
func TestArmsFileAliasesBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("base: &prompt " + strings.Repeat("x", 100<<10) + "\narms:\n")
	for i := range 50 {
		fmt.Fprintf(&b, "  - {name: a%d, system_prompt: *prompt}\n", i)
	}
	_, err := Parse("arms.yaml", []byte(b.String()))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "arms file arms.yaml: line ")
	assert.Contains(t, err.Error(), "its aliases (*name) expand it to more than 4194304 bytes")
}
