package toolstats

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// argsSchema checks a tool's arguments against its input schema, compiled
// on first use. A schema that does not compile checks only that the
// arguments are a JSON object, and says why in problem.
type argsSchema struct {
	raw     []byte
	once    sync.Once
	schema  *jsonschema.Schema
	problem string
}

func newArgsSchema(raw []byte) *argsSchema { return &argsSchema{raw: raw} }

// check returns why the arguments (raw JSON, as the model sent them) are
// not valid: not a JSON object, or not matching the schema. An empty text
// is the empty object, as the agent sends it.
func (s *argsSchema) check(args string) error {
	v, err := decodeArgs(args)
	if err != nil {
		return err
	}
	s.once.Do(s.compile)
	if s.schema == nil {
		return nil
	}
	return s.schema.Validate(v)
}

// compile compiles the schema with nothing to load: a reference to
// anything outside the schema (a file, a URL) makes it a problem, never a
// read. Schemas without $schema are read as draft 2020-12, as MCP says.
func (s *argsSchema) compile() {
	text := bytes.TrimSpace(s.raw)
	if len(text) == 0 || string(text) == "null" || string(text) == "{}" {
		return
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		s.problem = fmt.Sprintf("the input schema is not JSON: %v", err)
		return
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	const url = "https://mcpeval.invalid/input-schema.json" // never loaded: it is added here
	if err = c.AddResource(url, doc); err == nil {
		s.schema, err = c.Compile(url)
	}
	if err != nil {
		s.problem = "the input schema does not compile: " + oneLine(err.Error())
	}
}

// noLoader refuses to load any schema a tool's schema refers to.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is outside the tool's schema and is not loaded", url)
}

// errNotObject is the argument error of arguments that are JSON but not an
// object.
var errNotObject = errors.New("the arguments are not a JSON object")

// decodeArgs decodes arguments as the schema validator reads them
// (numbers kept exact); they must be one JSON object.
func decodeArgs(args string) (any, error) {
	args = strings.TrimSpace(args)
	if args == "" {
		return map[string]any{}, nil
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		return nil, fmt.Errorf("the arguments are not JSON: %w", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errNotObject
	}
	return v, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
