package prose

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPlural(t *testing.T) {
	for _, tt := range []struct {
		n          int
		noun, want string
	}{
		{0, "cases", "0 cases"},
		{1, "cases", "1 case"},
		{1, "case runs", "1 case run"},
		{1, "cached passes", "1 cached pass"},
		{1, "requests", "1 request"},
		{2, "requests", "2 requests"},
	} {
		assert.Equal(t, tt.want, Plural(tt.n, tt.noun))
	}
}

// Shorten cuts at a character boundary, never inside a UTF-8 sequence.
func TestShorten(t *testing.T) {
	assert.Equal(t, "short", Shorten("short", 5))
	assert.Equal(t, "abc…", Shorten("abcdef", 3))
	assert.Equal(t, "a…", Shorten("aé", 2), "é takes two bytes: the cut falls before it")
}

func TestOneLine(t *testing.T) {
	assert.Equal(t, "a b c", OneLine("  a\n\tb   c\r\n"))
}
