package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Tool metrics as MarshalJSON writes them, compact or indented, take the
// one-pass decoding; metrics of a code case, without their kind first, or
// with the "tool_details" of earlier versions do not.
func TestToolMetricsJSON(t *testing.T) {
	for in, want := range map[string]bool{
		`{"kind":"tool","correctness":{}}`:                       true,
		"{\n  \"kind\": \"tool\",\n  \"correctness\": {}}":       true,
		`{"kind":"code","correctness":{}}`:                       false,
		`{"correctness":{},"kind":"tool"}`:                       false,
		`{"kind":"tool"}`:                                        false,
		`{"kind":"tool","correctness":{"tool_details":{}}}`:      false,
		`{"kind":"tools","correctness":{}}`:                      false,
		`{"case":"c","kind":"tool","correctness":{"details":1}}`: false,
	} {
		assert.Equal(t, want, toolMetricsJSON([]byte(in)), in)
	}
}
