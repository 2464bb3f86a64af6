package grading

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Words splits text into lower-cased words (runs of letters, digits and
// underscores; a '.' between two digits stays inside the word, so "0.35" is
// one word) and clause marks (, . ; : ? !), which are kept as their own tokens
// so that phrases never match across them. Everything else separates words.
func Words(s string) []string { return splitWords(strings.ToLower(s), ",.;:?!") }

// splitWords splits s into words, as written, and the single-character
// marks listed in marks; everything else separates words.
func splitWords(s, marks string) []string {
	rs := []rune(s)
	var out []string
	for i := 0; i < len(rs); {
		switch r := rs[i]; {
		case IsWordRune(r):
			j := i + 1
			for j < len(rs) && (IsWordRune(rs[j]) || isDecimalPoint(rs, j)) {
				j++
			}
			out = append(out, string(rs[i:j]))
			i = j
		case strings.ContainsRune(marks, r):
			out = append(out, string(r))
			i++
		default:
			i++
		}
	}
	return out
}

func isDecimalPoint(rs []rune, i int) bool {
	return rs[i] == '.' && i > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1])
}

// Phrases turns keyword phrases ("greater than", "sum") into word lists,
// longest first, so that matching prefers "greater than or equal to" over
// "greater than".
func Phrases(list ...string) [][]string {
	out := make([][]string, 0, len(list))
	for _, p := range list {
		out = append(out, Words(p))
	}
	slices.SortStableFunc(out, func(a, b []string) int { return len(b) - len(a) })
	return out
}

// phraseAtWords returns the length of the first phrase that matches toks at
// i, or 0.
func phraseAtWords(toks []string, i int, list [][]string) int {
	for _, p := range list {
		if len(p) > 0 && i+len(p) <= len(toks) && slices.Equal(toks[i:i+len(p)], p) {
			return len(p)
		}
	}
	return 0
}

// CountPhrases counts non-overlapping occurrences of the phrases in toks,
// scanning left to right and taking the longest phrase at each position.
func CountPhrases(toks []string, list [][]string) int {
	n := 0
	for i := 0; i < len(toks); {
		if l := phraseAtWords(toks, i, list); l > 0 {
			n++
			i += l
			continue
		}
		i++
	}
	return n
}

// HasPhrase reports whether any of the phrases occurs in toks.
func HasPhrase(toks []string, list [][]string) bool { return CountPhrases(toks, list) > 0 }

// HasWord reports whether toks contains any of the words.
func HasWord(toks []string, list ...string) bool {
	for _, t := range toks {
		if slices.Contains(list, t) {
			return true
		}
	}
	return false
}

// CanonicalNumber rewrites a decimal number in its shortest form ("0.160" ->
// "0.16", "7157.0" -> "7157") and reports whether s was a number.
func CanonicalNumber(s string) (string, bool) {
	s = strings.ReplaceAll(s, ",", "")
	if s == "" || !(unicode.IsDigit(rune(s[0])) || s[0] == '-' || s[0] == '.') {
		return "", false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false
	}
	return strconv.FormatFloat(f, 'f', -1, 64), true
}
