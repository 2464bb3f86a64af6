package scoring

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLexPython(t *testing.T) {
	src := lexPython("# mean of 'x'\nresult = df[\"a b\"].mean()  # comment\ns = '''multi\nline''' + r'\\d' + f\"{x}\"\nif a >= 2 and b != 'c#d': pass\n")
	require.Equal(t, 2, src.comments)
	var strs, ops []string
	for _, tok := range src.tokens {
		switch tok.kind {
		case pyString:
			strs = append(strs, tok.text)
		case pyOp:
			ops = append(ops, tok.text)
		}
	}
	assert.Equal(t, []string{"a b", "multi\nline", `\d`, "{x}", "c#d"}, strs)
	assert.Contains(t, ops, ">=")
	assert.Contains(t, ops, "!=")
	assert.NotContains(t, src.names(), "x", "names inside comments or strings are not code")
	assert.Equal(t, 4, src.codeLines())
	assert.Equal(t, 4, src.tokens[len(src.tokens)-1].line, "lines count through a multi-line string")
}
