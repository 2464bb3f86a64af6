package eval

import (
	"strings"
	"unicode/utf8"
)

// Shorten cuts s to at most n bytes at a character boundary, marking the
// cut with "…".
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// OneLine folds the white space of s, line breaks included, to single
// spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
