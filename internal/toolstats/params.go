package toolstats

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

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
// object's keys, in their order, but those whose value is null); none
// when they are not an object. Of a name given twice the last value
// counts, as encoding/json decodes it. One pass over the arguments: a
// cached re-run counts every call of every case again.
func argNames(args string) []string {
	dec := jsontext.NewDecoder(strings.NewReader(args), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	var names []string
	var null []bool
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		name := tok.String() // before the next read, which reuses the token
		value, err := dec.ReadValue()
		if err != nil {
			return nil
		}
		isNull := value.Kind() == 'n'
		if i := slices.Index(names, name); i >= 0 {
			null[i] = isNull
			continue
		}
		names, null = append(names, name), append(null, isNull)
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil // more than one value
	}
	out := names[:0]
	for i, n := range names {
		if !null[i] {
			out = append(out, n)
		}
	}
	return out
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
