package toolstats

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// maxProblems bounds the distinct output problems kept per tool.
const maxProblems = 3

// parameters returns a tool's parameters: the top-level properties of its
// input schema, in the schema's order, with those it requires marked.
func parameters(schema json.RawMessage) []eval.ParameterUse {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var out []eval.ParameterUse
	for _, name := range objectKeys(s.Properties) {
		out = append(out, eval.ParameterUse{Name: name, Required: slices.Contains(s.Required, name)})
	}
	return out
}

// argNames returns the names of the arguments a call passed (its JSON
// object's keys); none when they are not an object.
func argNames(args string) []string {
	var values map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &values) != nil {
		return nil
	}
	return slices.DeleteFunc(objectKeys(json.RawMessage(args)), func(k string) bool {
		return bytes.Equal(bytes.TrimSpace(values[k]), []byte("null"))
	})
}

// objectKeys returns the keys of a JSON object in their order, each once;
// nil for anything else.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		if key, ok := tok.(string); ok && !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

// parameterUse is each parameter of the tool with the calls that passed
// it.
func (t *tool) parameterUse() []eval.ParameterUse {
	out := slices.Clone(t.params)
	for i := range out {
		out[i].Calls = t.passed[out[i].Name]
	}
	return out
}

// suiteRead reports whether a call is one of the suite's own
// eval.ReadResourceTool, not of a server tool of that name.
func (c *Collector) suiteRead(tc eval.ToolCall) bool {
	return tc.Name == eval.ReadResourceTool && c.lookup(tc) == nil
}
