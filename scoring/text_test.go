package scoring

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Average Salary, by dept?", []string{"average", "salary", ",", "by", "dept", "?"}},
		{"score 0.35 and total_sales", []string{"score", "0.35", "and", "total_sales"}},
		{"end. Next", []string{"end", ".", "next"}},
		{"df['age'] > 30", []string{"df", "age", "30"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, words(tt.in), tt.in)
	}
}

// Keywords match whole words and phrases, never substrings (upstream's flaw).
func TestKeywordsMatchWholeWords(t *testing.T) {
	tests := []struct {
		text    string
		keyword string
		want    bool
	}{
		{"for each band", "or", false},
		{"for each band", "and", false},
		{"the minimum", "in", false},
		{"salary or bonus", "or", true},
		{"nearby shops", "by", false},
		{"grouped by city", "by", true},
		{"the address", "add", false},
		{"a summary", "sum", false},
		{"the sum of sales", "sum", true},
		{"greater than 5", "greater than", true},
		{"greater 5 than", "greater than", false},
		{"it is greater. Than that", "greater than", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, hasPhrase(words(tt.text), phrases(tt.keyword)), "%q in %q", tt.keyword, tt.text)
	}
}

func TestCountPhrasesPrefersLongest(t *testing.T) {
	list := phrases("greater than", "equal to", "greater than or equal to")
	assert.Equal(t, 1, countPhrases(words("age greater than or equal to 30"), list))
	assert.Equal(t, 2, countPhrases(words("greater than 3 and equal to 4"), list))
}

func TestUnit(t *testing.T) {
	assert.Equal(t, 0.3, unit(0.1+0.2))
	assert.Equal(t, 1.0, unit(1.7))
	assert.Equal(t, 0.0, unit(-0.2))
	assert.Equal(t, 1.0, share(0, 0), "nothing wanted is fully covered")
	assert.Equal(t, 0.5, share(1, 2))
	assert.Equal(t, 1.0, share(3, 2), "a share never exceeds 1")
}

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
