package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestArgumentsJSON(t *testing.T) {
	assert.Equal(t, `{"variant":"NM_001045477.4:c.187C>T & more <b>"}`, ArgumentsJSON(map[string]string{"variant": "NM_001045477.4:c.187C>T & more <b>"}))
	assert.Equal(t, `{"a":1,"b":[true,null]}`, ArgumentsJSON(map[string]any{"b": []any{true, nil}, "a": 1}))
	assert.Equal(t, "null", ArgumentsJSON(func() {}), "a value JSON cannot encode")
}
