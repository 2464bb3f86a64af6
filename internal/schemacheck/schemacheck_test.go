package schemacheck

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const weather = `{"type":"object","properties":{"temperature":{"type":"number"},"tags":{"type":"array","items":{"type":"string"}}},"required":["temperature"]}`

// A violation says where, as a JSON pointer, and what is wrong there; at
// most three are listed.
func TestDescribe(t *testing.T) {
	s := New([]byte(weather), "output schema")
	for _, tc := range []struct{ name, value, want string }{
		{"valid", `{"temperature": 21.5, "tags": ["sunny"]}`, ""},
		{"a wrong type", `{"temperature": "warm"}`, "at /temperature: got string, want number"},
		{"a nested item", `{"temperature": 1, "tags": ["a", 2]}`, "at /tags/1: got number, want string"},
		{"a missing property", `{"tags": []}`, "at /: missing property 'temperature'"},
		{"not an object", `[1]`, "at /: got array, want object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Decode(strings.NewReader(tc.value))
			require.NoError(t, err)
			err = s.Validate(v)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.want, Describe(err))
		})
	}
	many := New([]byte(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"},"c":{"type":"number"},"d":{"type":"number"}}}`), "output schema")
	v, err := Decode(strings.NewReader(`{"a":"x","b":"x","c":"x","d":"x"}`))
	require.NoError(t, err)
	assert.Regexp(t, `^at /\w: got string, want number; at /\w: .*; at /\w: .*; and 1 more$`, Describe(many.Validate(v)))
}

// A schema that is not JSON, or refers to anything outside itself, checks
// nothing and says why; no schema at all is no problem.
func TestProblems(t *testing.T) {
	assert.Contains(t, New([]byte(`{"type":`), "output schema").Problem(), "the output schema is not JSON")
	assert.Contains(t, New([]byte(`{"$ref":"https://example.invalid/s.json"}`), "input schema").Problem(), "the input schema does not compile")
	for _, raw := range []string{"", "null", "{}"} {
		s := New([]byte(raw), "output schema")
		assert.Empty(t, s.Problem())
		assert.NoError(t, s.Validate(map[string]any{"x": 1}))
	}
}

// A schema too large, or whose references double at every level (a few
// KB that make checking exponential), is not checked, and says why; a
// recursive schema is checked.
func TestCostlySchemasAreNotChecked(t *testing.T) {
	defs := []string{}
	for i := range 24 {
		defs = append(defs, fmt.Sprintf(`"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"d24":{"type":"string"}`)
	doubling := `{"$ref":"#/$defs/d0","$defs":{` + strings.Join(defs, ",") + `}}`
	require.Less(t, len(doubling), 4<<10)
	s := New([]byte(doubling), "output schema")
	assert.Contains(t, s.Problem(), "the output schema is too costly to check")
	assert.NoError(t, s.Validate("anything"), "a schema not checked accepts")

	big := New([]byte(`{"description":"`+strings.Repeat("x", MaxSchema)+`"}`), "input schema")
	assert.Contains(t, big.Problem(), "the input schema is too large to check")

	tree := New([]byte(`{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`), "input schema")
	assert.Empty(t, tree.Problem())
	v, err := Decode(strings.NewReader(`{"children":[{"children":[{"children":"no"}]}]}`))
	require.NoError(t, err)
	assert.Error(t, tree.Validate(v), "a recursive schema checks")
}

// doubling is a schema of a few hundred bytes whose references each name
// the next level twice, by anchor (which no count of the schema's own
// references follows): checking any value applies its last level 2^levels
// times.
func doubling(levels int) string {
	defs := []string{fmt.Sprintf(`"d%d":{"$anchor":"d%d","type":"object"}`, levels, levels)}
	for i := range levels {
		defs = append(defs, fmt.Sprintf(`"d%d":{"$anchor":"d%d","allOf":[{"$ref":"#d%d"},{"$ref":"#d%d"}]}`, i, i, i+1, i+1))
	}
	return `{"$ref":"#d0","$defs":{` + strings.Join(defs, ",") + `}}`
}

// nesting is a recursive schema that applies itself twice at every level
// of an array: checking an array nested depth deep costs 2^depth.
const nesting = `{"$ref":"#/$defs/n","$defs":{"n":{"type":"array","items":{"allOf":[{"$ref":"#/$defs/n"},{"$ref":"#/$defs/n"}]}}}}`

func nested(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }

// A value whose check would be exponential is not checked, at once, and
// the schema says how many values it could not check; the same schemas
// check values within the bound, and an ordinary recursive schema checks
// a large value.
func TestCostlyValuesAreNotChecked(t *testing.T) {
	tree := `{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z]+$"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`
	wide := `{"children":[` + strings.TrimSuffix(strings.Repeat(`{"name":"leaf","children":[{"name":"x"}]},`, 20000), ",") + `]}`
	for _, tc := range []struct {
		name, schema, value string
		costly              bool
	}{
		{"references doubling 40 times", doubling(40), `{}`, true},
		{"references doubling 16 times", doubling(16), `{}`, false},
		{"a recursive schema doubling on a value 40 deep", nesting, nested(40), true},
		{"a recursive schema doubling on a value 12 deep", nesting, nested(12), false},
		{"a number a billion digits long", `{"minimum":0}`, `1e1000000000`, true},
		{"an ordinary recursive schema on 80,000 nodes", tree, wide, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New([]byte(tc.schema), "output schema")
			require.Empty(t, s.Problem(), "the schema itself is cheap")
			v, err := Decode(strings.NewReader(tc.value))
			require.NoError(t, err)
			start := time.Now()
			err = s.Validate(v)
			assert.Less(t, time.Since(start), 3*time.Second)
			if !tc.costly {
				assert.NoError(t, err)
				assert.Empty(t, s.Problem())
				return
			}
			assert.ErrorIs(t, err, ErrTooCostly)
			assert.Equal(t, "the output schema is too costly to check against 1 values (more than 500000 steps each, as a hostile schema makes it): they were not checked", s.Problem())
		})
	}
}

// A schema of more nodes than compile quickly is not compiled, and says
// why; one of MaxNodes compiles within seconds.
func TestLargeSchemasAreNotCompiled(t *testing.T) {
	props := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"type":"object","properties":{`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"p%d":{"type":"string"}`, i)
		}
		return b.String() + `}}`
	}
	s := New([]byte(props(MaxNodes/2)), "output schema")
	require.Less(t, len(props(MaxNodes/2)), MaxSchema)
	assert.Equal(t, "the output schema is too costly to compile (more than 10000 nodes): not checked", s.Problem())
	start := time.Now()
	s = New([]byte(props(MaxNodes/2-10)), "output schema")
	assert.Empty(t, s.Problem())
	assert.Less(t, time.Since(start), 10*time.Second)
	t.Logf("%d nodes compiled in %v", MaxNodes, time.Since(start))
}
