package reading

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Pattern compiles a spelling into a case-insensitive pattern that finds
// it as whole words: a spelling that begins or ends with a letter or digit
// does not match inside a longer word there ("pathogenic" is not found in
// "nonpathogenic", "10,452" not in "110,452"). Any run of white space
// matches any other; a hyphen matches a hyphen, white space or nothing
// ("post-embryonic" finds "post embryonic" and "postembryonic"); a final
// "*" matches the rest of a word ("interact*" finds "interaction").
func Pattern(spelling string) *regexp.Regexp { return pattern(spelling, false) }

// PrefixPattern is Pattern anchored at the start of the text.
func PrefixPattern(spelling string) *regexp.Regexp { return pattern(spelling, true) }

func pattern(spelling string, atStart bool) *regexp.Regexp {
	s := strings.TrimSpace(spelling)
	prefix := strings.HasSuffix(s, "*") && len(s) > 1
	s = strings.TrimSuffix(s, "*")
	var b strings.Builder
	b.WriteString("(?i)")
	first, _ := utf8.DecodeRuneInString(s)
	switch {
	case atStart:
		b.WriteString("^")
	case isWordRune(first):
		b.WriteString(`(?:^|[^\p{L}\p{N}_])`)
	}
	b.WriteString("(")
	for i, field := range strings.Fields(s) {
		if i > 0 {
			b.WriteString(`\s+`)
		}
		for j, part := range strings.Split(field, "-") {
			if j > 0 {
				b.WriteString(`(?:-|\s+)?`)
			}
			b.WriteString(regexp.QuoteMeta(part))
		}
	}
	b.WriteString(")")
	last, _ := utf8.DecodeLastRuneInString(s)
	switch {
	case prefix:
		b.WriteString(`[\p{L}\p{N}_]*`)
	case isWordRune(last):
		b.WriteString(`(?:$|[^\p{L}\p{N}_])`)
	}
	return regexp.MustCompile(b.String())
}

// Span is a stretch of a text, by byte offsets.
type Span struct{ Start, End int }

// Find returns the spans where spelling occurs in text as whole words
// (see Pattern), without overlaps.
func Find(text, spelling string) []Span {
	if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(spelling), "*")) == "" {
		return nil
	}
	re := Pattern(spelling)
	var out []Span
	for off := 0; off <= len(text); {
		m := re.FindStringSubmatchIndex(text[off:])
		if m == nil {
			break
		}
		start, end := off+m[2], off+m[3]
		if strings.HasSuffix(strings.TrimSpace(spelling), "*") {
			end = off + m[1]
			if r, n := utf8.DecodeLastRuneInString(text[:end]); end > start && !isWordRune(r) {
				end -= n
			}
		}
		out = append(out, Span{start, end})
		off = max(end, off+m[2]+1)
	}
	return out
}
