package scoring

import (
	"strings"
	"unicode"

	"github.com/mcpeval/mcpeval/internal/grading"
)

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
			for j < len(rs) && grading.IsWordRune(rs[j]) {
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
			for j < len(rs) && (grading.IsWordRune(rs[j]) || rs[j] == '.') {
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
			out = append(out, grading.Words(t.text)...)
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
