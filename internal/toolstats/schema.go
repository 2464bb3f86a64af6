package toolstats

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpeval/mcpeval/internal/schemacheck"
)

// argsSchema checks a tool's arguments against its input schema. A
// schema that does not compile checks only that the arguments are a JSON
// object, and says why in its problem.
type argsSchema struct{ *schemacheck.Schema }

func newArgsSchema(raw []byte) argsSchema { return argsSchema{schemacheck.New(raw, "input schema")} }

// check returns why the arguments (raw JSON, as the model sent them) are
// not valid: not a JSON object, or not matching the schema. An empty text
// is the empty object, as the agent sends it.
func (s argsSchema) check(args string) error {
	v, err := decodeArgs(args)
	if err != nil {
		return err
	}
	return s.Validate(v)
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
	v, err := schemacheck.Decode(strings.NewReader(args))
	if err != nil {
		return nil, fmt.Errorf("the arguments are not JSON: %w", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errNotObject
	}
	return v, nil
}
