// Package prose shapes text for people to read: a count with its noun, a
// text cut short, white space folded to one line.
package prose

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Plural is n with the noun, singular for one: "1 case", "3 cases",
// "1 case run", "1 regression", "1 cached pass".
func Plural(n int, noun string) string {
	if n == 1 {
		noun = strings.Replace(noun, "cases", "case", 1)
		if strings.HasSuffix(noun, "sses") {
			noun = strings.TrimSuffix(noun, "es")
		} else {
			noun = strings.TrimSuffix(noun, "s")
		}
	}
	return fmt.Sprintf("%d %s", n, noun)
}

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
