package yamlbound

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	long := strings.Repeat("x", 1000)
	many := "prompt: &p " + long + "\narms:\n"
	for i := range 200 {
		many += fmt.Sprintf("  - {name: a%d, prompt: *p}\n", i)
	}
	// Aliases of aliases: each level doubles what it names.
	laughs := "a: &a [" + strings.Repeat("x,", 10) + "x]\n"
	prev := "a"
	for i := range 30 {
		name := fmt.Sprintf("l%d", i)
		laughs += fmt.Sprintf("%s: &%s [*%s, *%s]\n", name, name, prev, prev)
		prev = name
	}
	tests := []struct {
		name, yaml string
		max        int64
		err        string
	}{
		{name: "plain", yaml: "name: a\nprompt: " + long + "\n", max: 4096},
		{name: "a few aliases", yaml: "p: &p short\nq: *p\nr: *p\n", max: 4096},
		{name: "one anchor, many aliases", yaml: many, max: 100_000, err: "its aliases (*name) expand it to more than 100000 bytes, though it holds"},
		{name: "aliases of aliases", yaml: laughs, max: 1 << 20, err: "its aliases (*name) expand it"},
		{name: "several documents", yaml: "a: " + long + "\n---\nb: " + long + "\n", max: 1500, err: "more than 1500 bytes"},
		{name: "not YAML: left to the decoder", yaml: "a: [", max: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.yaml), tt.max)
			if tt.err == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}
