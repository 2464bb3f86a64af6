// Package schemacheck checks JSON values against the JSON Schemas MCP
// tools declare (input schemas for arguments, output schemas for
// structuredContent). A schema is compiled on first use with nothing to
// load: a reference to a file or a URL makes it a problem, never a read.
// Schemas without $schema are read as draft 2020-12, as MCP says.
package schemacheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is one tool schema, compiled on first use. The zero schema (no
// text, null or {}) accepts every value.
type Schema struct {
	raw     []byte
	what    string
	once    sync.Once
	schema  *jsonschema.Schema
	graph   *graph
	problem string
	// unchecked counts the values too costly to check (ErrTooCostly).
	unchecked atomic.Int64
}

// ErrTooCostly is the error of a value that checking against the schema
// would cost more than MaxSteps: it is not checked.
var ErrTooCostly = fmt.Errorf("not checked: checking the value against the schema would take more than %d steps (as a hostile schema makes it)", MaxSteps)

// New returns the schema raw; what names it in problems ("input schema").
func New(raw []byte, what string) *Schema { return &Schema{raw: raw, what: what} }

// Problem says why the schema cannot check values (it is not JSON, does
// not compile, or is too costly to check), or how many values it was too
// costly to check against; "" when none.
func (s *Schema) Problem() string {
	s.once.Do(s.compile)
	if n := s.unchecked.Load(); n > 0 && s.problem == "" {
		return fmt.Sprintf("the %s is too costly to check against %d values (more than %d steps each, as a hostile schema makes it): they were not checked", s.what, n, MaxSteps)
	}
	return s.problem
}

// Compile compiles the schema, if it was not yet, at a cost bounded by
// its size (MaxSchema, MaxExpanded): done when the tool is listed, it
// keeps compiling off the path of its calls.
func (s *Schema) Compile() { s.once.Do(s.compile) }

// Validate checks a decoded value (see Decode) against the schema. A
// schema that cannot check values accepts every value. A value whose
// check would cost more than MaxSteps is not checked: ErrTooCostly, and
// counted in Problem. Measuring the cost is itself bounded by MaxSteps.
func (s *Schema) Validate(v any) error {
	s.once.Do(s.compile)
	if s.schema == nil {
		return nil
	}
	if s.graph.measure(v) > MaxSteps {
		s.unchecked.Add(1)
		return ErrTooCostly
	}
	return s.schema.Validate(v)
}

func (s *Schema) compile() {
	text := bytes.TrimSpace(s.raw)
	if len(text) == 0 || string(text) == "null" || string(text) == "{}" {
		return
	}
	if len(text) > MaxSchema {
		s.problem = fmt.Sprintf("the %s is too large to check (%d bytes, more than %d): not checked", s.what, len(text), MaxSchema)
		return
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		s.problem = fmt.Sprintf("the %s is not JSON: %v", s.what, err)
		return
	}
	if n := nodes(doc, MaxNodes); n > MaxNodes {
		s.problem = fmt.Sprintf("the %s is too costly to compile (more than %d nodes): not checked", s.what, MaxNodes)
		return
	}
	if n := expanded(doc, doc, map[string]int{}, 0); n > MaxExpanded {
		s.problem = fmt.Sprintf("the %s is too costly to check (its references ($ref) expand it to more than %d subschemas, as a hostile schema does to make checking take forever): not checked", s.what, MaxExpanded)
		return
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	const url = "https://mcpeval.invalid/schema.json" // never loaded: it is added here
	if err = c.AddResource(url, doc); err == nil {
		s.schema, err = c.Compile(url)
	}
	if err != nil {
		s.problem = fmt.Sprintf("the %s does not compile: %s", s.what, oneLine(err.Error()))
		return
	}
	s.graph = newGraph(s.schema)
}

// A schema is checked only when it is at most MaxSchema bytes of at most
// MaxNodes nodes (objects, arrays and values: compiling costs about a
// tenth of a millisecond each, so a second or two at most), and expands,
// its local references ($ref) followed, to at most MaxExpanded schema
// nodes: a small schema whose references name references twice over is
// exponential to check. (What checking one value costs is bounded apart,
// see MaxSteps.)
const (
	MaxSchema   = 1 << 20
	MaxNodes    = 10_000
	MaxExpanded = 100_000
)

// nodes counts the nodes of a decoded schema, up to more than limit.
func nodes(v any, limit int) int {
	n := 1
	switch x := v.(type) {
	case map[string]any:
		for _, child := range x {
			if n += nodes(child, limit-n); n > limit {
				return n
			}
		}
	case []any:
		for _, child := range x {
			if n += nodes(child, limit-n); n > limit {
				return n
			}
		}
	}
	return n
}

// expanded counts the nodes (objects, arrays and values) of v, a local
// reference counting as what it names, up to more than MaxExpanded; refs
// memoizes each reference's count. A reference met again while it is
// being counted (a recursive schema, whose checking the value's depth
// bounds) counts one.
func expanded(root, v any, refs map[string]int, depth int) int {
	if depth > 200 {
		return MaxExpanded + 1
	}
	n := 1
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
			count, seen := refs[ref]
			switch {
			case seen && count < 0: // recursion
				count = 1
			case !seen:
				refs[ref] = -1
				count = 1
				if target, ok := Resolve(root, ref); ok {
					count = expanded(root, target, refs, depth+1)
				}
				refs[ref] = count
			}
			n += count
		}
		for k, child := range x {
			if k == "$defs" || k == "definitions" {
				continue // counted where referred to
			}
			if n += expanded(root, child, refs, depth+1); n > MaxExpanded {
				return n
			}
		}
	case []any:
		for _, child := range x {
			if n += expanded(root, child, refs, depth+1); n > MaxExpanded {
				return n
			}
		}
	}
	return n
}

// Resolve finds what a local reference (#/$defs/Name, a JSON pointer)
// names in root, a decoded schema.
func Resolve(root any, ref string) (any, bool) {
	node := root
	for _, part := range strings.Split(strings.TrimPrefix(strings.TrimPrefix(ref, "#"), "/"), "/") {
		if part == "" {
			continue
		}
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		switch x := node.(type) {
		case map[string]any:
			var ok bool
			if node, ok = x[part]; !ok {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return node, true
}

// noLoader refuses to load any schema a tool's schema refers to.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is outside the tool's schema and is not loaded", url)
}

// Decode decodes JSON text as the validator reads it (numbers kept
// exact). It must be one JSON value.
func Decode(r io.Reader) (any, error) { return jsonschema.UnmarshalJSON(r) }

// Describe says where and how a value breaks its schema: the JSON pointer
// of each failing value (the root is "/") with what is wrong there, the
// first three of them. Other errors are described by their text.
func Describe(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return oneLine(err.Error())
	}
	var parts []string
	var leaves func(u jsonschema.OutputUnit)
	leaves = func(u jsonschema.OutputUnit) {
		if len(u.Errors) == 0 && u.Error != nil {
			at := u.InstanceLocation
			if at == "" {
				at = "/"
			}
			parts = append(parts, "at "+at+": "+oneLine(u.Error.String()))
		}
		for _, e := range u.Errors {
			leaves(e)
		}
	}
	leaves(*ve.BasicOutput())
	switch {
	case len(parts) == 0:
		return oneLine(err.Error())
	case len(parts) > 3:
		return strings.Join(parts[:3], "; ") + fmt.Sprintf("; and %d more", len(parts)-3)
	}
	return strings.Join(parts, "; ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
