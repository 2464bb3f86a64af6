package scoring

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// words splits text into lower-cased words (runs of letters, digits and
// underscores; a '.' between two digits stays inside the word, so "0.35" is
// one word) and clause marks (, . ; : ? !), which are kept as their own tokens
// so that phrases never match across them. Everything else separates words.
func words(s string) []string { return splitWords(strings.ToLower(s), ",.;:?!") }

// splitWords splits s into words, as written, and the single-character
// marks listed in marks; everything else separates words.
func splitWords(s, marks string) []string {
	rs := []rune(s)
	var out []string
	for i := 0; i < len(rs); {
		switch r := rs[i]; {
		case isWordRune(r):
			j := i + 1
			for j < len(rs) && (isWordRune(rs[j]) || isDecimalPoint(rs, j)) {
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

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func isDecimalPoint(rs []rune, i int) bool {
	return rs[i] == '.' && i > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1])
}

// phrases turns keyword phrases ("greater than", "sum") into word lists,
// longest first, so that matching prefers "greater than or equal to" over
// "greater than".
func phrases(list ...string) [][]string {
	out := make([][]string, 0, len(list))
	for _, p := range list {
		out = append(out, words(p))
	}
	slices.SortStableFunc(out, func(a, b []string) int { return len(b) - len(a) })
	return out
}

// phraseAt returns the length of the first phrase that matches toks at i, or 0.
func phraseAt(toks []string, i int, list [][]string) int {
	for _, p := range list {
		if len(p) > 0 && i+len(p) <= len(toks) && slices.Equal(toks[i:i+len(p)], p) {
			return len(p)
		}
	}
	return 0
}

// countPhrases counts non-overlapping occurrences of the phrases in toks,
// scanning left to right and taking the longest phrase at each position.
func countPhrases(toks []string, list [][]string) int {
	n := 0
	for i := 0; i < len(toks); {
		if l := phraseAt(toks, i, list); l > 0 {
			n++
			i += l
			continue
		}
		i++
	}
	return n
}

// hasPhrase reports whether any of the phrases occurs in toks.
func hasPhrase(toks []string, list [][]string) bool { return countPhrases(toks, list) > 0 }

// hasWord reports whether toks contains any of the words.
func hasWord(toks []string, list ...string) bool {
	for _, t := range toks {
		if slices.Contains(list, t) {
			return true
		}
	}
	return false
}

// unit clamps a score into [0, 1] and rounds it to four decimals, so JSON
// output reads 0.3 rather than 0.30000000000000004.
func unit(x float64) float64 {
	if math.IsNaN(x) || x < 0 {
		return 0
	}
	if x > 1 {
		return 1
	}
	return math.Round(x*1e4) / 1e4
}

// share is found/wanted, and 1 when nothing was wanted.
func share(found, wanted int) float64 {
	if wanted <= 0 {
		return 1
	}
	return unit(float64(found) / float64(wanted))
}

// canonicalNumber rewrites a decimal number in its shortest form ("0.160" ->
// "0.16", "7157.0" -> "7157") and reports whether s was a number.
func canonicalNumber(s string) (string, bool) {
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

// pyKind is the kind of a Python token.
type pyKind int

const (
	pyName pyKind = iota
	pyString
	pyNumber
	pyOp
)

// pyToken is one token of Python source; for strings text is the content
// without quotes or prefix.
type pyToken struct {
	kind pyKind
	text string
	line int // 0-based line of the token's start
}

// pySource is Python code split into tokens, with what the metrics need
// about its lines and comments.
type pySource struct {
	tokens   []pyToken
	comments int
	lines    []string // the code's lines, as written
}

// lexPython splits Python source into names, strings, numbers and operators.
// It is a tokenizer, not a parser: it knows quotes, prefixes, triple quotes,
// escapes and comments, which is all the metrics need to tell code from text.
func lexPython(code string) pySource {
	src := pySource{lines: strings.Split(code, "\n")}
	rs := []rune(code)
	line := 0
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case r == '\n':
			line++
			i++
		case unicode.IsSpace(r) || r == '\\':
			i++
		case r == '#':
			src.comments++
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
		case r == '\'' || r == '"':
			text, next, newlines := readPyString(rs, i)
			src.tokens = append(src.tokens, pyToken{pyString, text, line})
			line += newlines
			i = next
		case r == '_' || unicode.IsLetter(r):
			j := i + 1
			for j < len(rs) && isWordRune(rs[j]) {
				j++
			}
			name := string(rs[i:j])
			if j < len(rs) && (rs[j] == '\'' || rs[j] == '"') && isStringPrefix(name) {
				text, next, newlines := readPyString(rs, j)
				src.tokens = append(src.tokens, pyToken{pyString, text, line})
				line += newlines
				i = next
				continue
			}
			src.tokens = append(src.tokens, pyToken{pyName, name, line})
			i = j
		case unicode.IsDigit(r):
			j := i + 1
			for j < len(rs) && (isWordRune(rs[j]) || rs[j] == '.') {
				j++
			}
			src.tokens = append(src.tokens, pyToken{pyNumber, string(rs[i:j]), line})
			i = j
		default:
			op := string(r)
			if i+1 < len(rs) && isTwoCharOp(string(rs[i:i+2])) {
				op = string(rs[i : i+2])
			}
			src.tokens = append(src.tokens, pyToken{pyOp, op, line})
			i += len([]rune(op))
		}
	}
	return src
}

func isStringPrefix(name string) bool {
	switch strings.ToLower(name) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf":
		return true
	}
	return false
}

func isTwoCharOp(op string) bool {
	switch op {
	case "==", "!=", ">=", "<=", "->", ">>", "<<", "**", "//", ":=", "+=", "-=", "*=", "/=":
		return true
	}
	return false
}

// readPyString reads the string literal whose opening quote is at rs[i]. It
// returns the content, the index after the closing quote and how many
// newlines the literal spans. An unterminated literal runs to the end.
func readPyString(rs []rune, i int) (text string, next, newlines int) {
	quote := rs[i]
	delim := 1
	if i+2 < len(rs) && rs[i+1] == quote && rs[i+2] == quote {
		delim = 3
	}
	start := i + delim
	for j := start; j < len(rs); j++ {
		switch {
		case rs[j] == '\\':
			j++
		case rs[j] == '\n':
			newlines++
		case rs[j] == quote && (delim == 1 || j+2 < len(rs) && rs[j+1] == quote && rs[j+2] == quote):
			return string(rs[start:j]), j + delim, newlines
		}
	}
	return string(rs[start:]), len(rs), newlines
}

// names returns the code's identifiers (outside strings and comments).
func (s pySource) names() []string {
	var out []string
	for _, t := range s.tokens {
		if t.kind == pyName {
			out = append(out, t.text)
		}
	}
	return out
}

// words returns the lower-cased words of the code's names and string
// contents; comments are left out.
func (s pySource) words() []string {
	var out []string
	for _, t := range s.tokens {
		if t.kind == pyName || t.kind == pyString {
			out = append(out, words(t.text)...)
		}
	}
	return out
}

// codeLines counts the lines that hold code (not blank, not only a comment).
func (s pySource) codeLines() int {
	seen := map[int]bool{}
	for _, t := range s.tokens {
		seen[t.line] = true
	}
	return len(seen)
}
