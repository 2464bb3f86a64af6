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

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is one tool schema, compiled on first use. The zero schema (no
// text, null or {}) accepts every value.
type Schema struct {
	raw     []byte
	what    string
	once    sync.Once
	schema  *jsonschema.Schema
	problem string
}

// New returns the schema raw; what names it in problems ("input schema").
func New(raw []byte, what string) *Schema { return &Schema{raw: raw, what: what} }

// Problem says why the schema cannot check values (it is not JSON, or does
// not compile); "" when it can, or has not been used yet.
func (s *Schema) Problem() string {
	s.once.Do(s.compile)
	return s.problem
}

// Validate checks a decoded value (see Decode) against the schema. A
// schema that cannot check values accepts every value.
func (s *Schema) Validate(v any) error {
	s.once.Do(s.compile)
	if s.schema == nil {
		return nil
	}
	return s.schema.Validate(v)
}

func (s *Schema) compile() {
	text := bytes.TrimSpace(s.raw)
	if len(text) == 0 || string(text) == "null" || string(text) == "{}" {
		return
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		s.problem = fmt.Sprintf("the %s is not JSON: %v", s.what, err)
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
	}
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
