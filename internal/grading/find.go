package grading

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pattern compiles a spelling into a case-insensitive matcher that finds
// it as whole words: a spelling that begins or ends with a letter or digit
// does not match inside a longer word there ("pathogenic" is not found in
// "nonpathogenic", "10,452" not in "110,452"). Any run of white space
// matches any other; a hyphen matches a hyphen, white space or nothing
// ("post-embryonic" finds "post embryonic" and "postembryonic"), and white
// space matches a hyphen too ("major facilitator" finds
// "major-facilitator"); a final "*" matches the rest of a word
// ("interact*" finds "interaction"). An underscore ends a word for a
// spelling that has none ("TPM" is found in "BRCA1_median_TPM", as JSON
// keys join words).
func Pattern(spelling string) *Matcher { return newMatcher(spelling, false) }

// PrefixPattern is Pattern anchored at the start of the text.
func PrefixPattern(spelling string) *Matcher { return newMatcher(spelling, true) }

// A Matcher finds one spelling (see Pattern). Its expression is the
// spelling alone; the word boundaries are checked on the text around a
// match, which costs nothing to compile (a Unicode letter class in the
// expression made each compilation cost more than the checks it served).
type Matcher struct {
	re *regexp.Regexp
	// atStart anchors it at the start of the text; left and right forbid
	// a word rune right before and right after it; prefix extends a match
	// over the rest of its word.
	atStart, left, right, prefix bool
	// underscoreJoins: the spelling has an underscore, so one continues a
	// word around it.
	underscoreJoins bool
}

func newMatcher(spelling string, atStart bool) *Matcher {
	s := strings.TrimSpace(spelling)
	prefix := strings.HasSuffix(s, "*") && len(s) > 1
	s = strings.TrimSuffix(s, "*")
	var b strings.Builder
	b.WriteString("(?i)")
	if atStart {
		b.WriteString("^")
	}
	for i, field := range strings.Fields(s) {
		if i > 0 {
			b.WriteString(`(?:\s+|\s*-\s*)`)
		}
		for j, part := range strings.Split(field, "-") {
			if j > 0 {
				b.WriteString(`(?:-|\s+)?`)
			}
			b.WriteString(regexp.QuoteMeta(part))
		}
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	return &Matcher{re: regexp.MustCompile(b.String()), atStart: atStart, prefix: prefix,
		left: !atStart && IsWordRune(first), right: !prefix && IsWordRune(last), underscoreJoins: strings.Contains(s, "_")}
}

// MatchString reports whether the spelling occurs in text.
func (m *Matcher) MatchString(text string) bool {
	_, ok := m.next(text, 0)
	return ok
}

// next returns the first occurrence that starts at off or later.
func (m *Matcher) next(text string, off int) (Span, bool) {
	for off <= len(text) && (off == 0 || !m.atStart) {
		loc := m.re.FindStringIndex(text[off:])
		if loc == nil {
			return Span{}, false
		}
		start, end := off+loc[0], off+loc[1]
		if m.prefix {
			end += wordLength(text[end:], m.underscoreJoins)
		}
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		joins := func(r rune) bool { return boundaryRune(r) && (r != '_' || m.underscoreJoins) }
		if !(m.left && start > 0 && joins(before)) && !(m.right && end < len(text) && joins(after)) {
			return Span{start, end}, true
		}
		_, n := utf8.DecodeRuneInString(text[start:])
		off = start + max(n, 1)
	}
	return Span{}, false
}

// boundaryRune reports whether r continues a word for the whole-word
// rule: a letter, a number or an underscore. It is wider than IsWordRune
// (any number, such as ², not only digits), as the rule always was: a
// spelling's own ends and the end of a prefix match are judged by
// IsWordRune, the text around a match by boundaryRune.
func boundaryRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// wordLength is the length of the word runes s begins with; an underscore
// is one only with underscore.
func wordLength(s string, underscore bool) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !boundaryRune(r) || r == '_' && !underscore {
			break
		}
		n += size
	}
	return n
}

// Span is a stretch of a text, by byte offsets.
type Span struct{ Start, End int }

// Find returns the spans where spelling occurs in text as whole words
// (see Pattern), without overlaps.
func Find(text, spelling string) []Span {
	if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(spelling), "*")) == "" {
		return nil
	}
	m := Pattern(spelling)
	var out []Span
	for off := 0; off <= len(text); {
		sp, ok := m.next(text, off)
		if !ok {
			break
		}
		next := max(sp.End, sp.Start+1)
		if r, n := utf8.DecodeLastRuneInString(text[:sp.End]); m.prefix && sp.End > sp.Start && !IsWordRune(r) {
			sp.End -= n
		}
		out = append(out, sp)
		off = next
	}
	return out
}
