package grading

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpeval/mcpeval/internal/eval"
)

// answer is an answer as the checks read it: its clauses and negations,
// the numbers it states and the subjects it names.
type answer struct {
	c       eval.Case
	text    *Text
	numbers []Number
	// subjects are the subjects the case's checks bind values and terms
	// to (Of, NotOf), by index; mentions are where the answer names them.
	subjects Subjects
	mentions []Mention
	// peers are the offsets of the occurrences of bound values and terms,
	// for pairing a list of subjects with a list of values.
	peers []int
	// others are the numbers that may stand beside a value as another one
	// (see alternatives).
	others []Number
}

func readAnswer(c eval.Case, text string) *answer {
	a := &answer{c: c, text: Parse(text), numbers: Numbers(text)}
	a.subjects.Known = map[string]bool{}
	for _, w := range append(strings.FieldsFunc(c.Input, func(r rune) bool { return !IsWordRune(r) }), Variants(c.Input)...) {
		a.subjects.Known[strings.ToLower(w)] = true
	}
	for _, of := range a.bindings() {
		if a.subject(of) < 0 {
			a.subjects.Named = append(a.subjects.Named, of)
		}
		for _, s := range of {
			a.subjects.Symbols = a.subjects.Symbols || IsSymbol(strings.TrimSuffix(s, "*"))
		}
	}
	if len(a.subjects.Named) == 0 {
		return a
	}
	a.mentions = a.text.Mentions(a.subjects)
	for _, t := range c.Checks.Contains {
		if len(t.Of) > 0 {
			for _, sp := range t.Any {
				for _, o := range a.find(sp) {
					a.peers = append(a.peers, o.Start)
				}
			}
		}
	}
	for _, n := range c.Checks.Numbers {
		if len(n.Of) > 0 {
			for _, m := range a.numbers {
				if a.valueMatches(m, n) {
					a.peers = append(a.peers, m.Start)
				}
			}
		}
	}
	return a
}

// bindings returns the subjects the case's checks name, each by its
// spellings.
func (a *answer) bindings() []eval.Spellings {
	var out []eval.Spellings
	for _, t := range append(append(eval.Terms{}, a.c.Checks.Contains...), a.c.Checks.NotContains...) {
		out = appendNonEmpty(out, t.Of, t.NotOf)
	}
	for _, n := range a.c.Checks.Numbers {
		out = appendNonEmpty(out, n.Of, n.NotOf)
	}
	return out
}

func appendNonEmpty(out []eval.Spellings, lists ...eval.Spellings) []eval.Spellings {
	for _, l := range lists {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// subject returns the index of the subject spelt of, or -1.
func (a *answer) subject(of eval.Spellings) int {
	return slices.IndexFunc(a.subjects.Named, func(s []string) bool { return slices.Equal(s, of) })
}

// occurrence is where a term or value stands in the answer, and why it
// does not count when it does not.
type occurrence struct {
	Span
	why string // "" when it counts
}

// failure orders the reasons an occurrence does not count, from the one
// that says most to a case author.
var failure = []string{"bound", "hedged", "negated", "affirmed", "asked"}

// judge reads one occurrence: it counts when the answer states it
// (negated when negated is set), gives it to the subject of (any, when of
// is empty) and offers no other value beside it. hedged says whether an
// alternative stands beside it.
func (a *answer) judge(o Span, negated bool, of eval.Spellings, hedged func(Span) (Span, bool)) occurrence {
	t := a.text
	at := func(s Span) string { return quote(t.Snippet(s.Start, s.End, 70)) }
	switch {
	case t.Asked(o.Start):
		return occurrence{o, "asked: found only in a question, at " + at(o)}
	case t.Negated(o.Start, o.End) != negated && negated:
		return occurrence{o, "affirmed: wanted under a negation, found stated at " + at(o)}
	case t.Negated(o.Start, o.End) != negated:
		return occurrence{o, "negated: found only under a negation or a contrast, at " + at(o)}
	}
	if len(of) > 0 {
		if m, ok := t.Owner(o.Start, a.mentions, a.peers, false); ok && m.Subject != a.subject(of) {
			return occurrence{o, fmt.Sprintf("bound to another subject: the answer gives it to %s, not %s, at %s", quote(m.Name), quote(of[0]), at(Span{Start: min(o.Start, m.Start), End: max(o.End, m.End)}))}
		}
	}
	if alt, ok := hedged(o); ok && !negated { // "no drugs or ligands" offers no alternative
		return occurrence{o, "hedged: the answer offers another value beside it, at " + at(alt)}
	}
	return occurrence{o, ""}
}

// verdict returns whether some occurrence counts, and otherwise the most
// telling reason why none does, or missing.
func verdict(occurrences []occurrence, missing string) (bool, string) {
	best, rank := missing, len(failure)
	for _, o := range occurrences {
		if o.why == "" {
			return true, ""
		}
		for i, f := range failure {
			if strings.HasPrefix(o.why, f) && i < rank {
				best, rank = o.why, i
			}
		}
	}
	return false, best
}

// anyHedged returns an occurrence offered beside another value: it fails
// the check however often the answer states the value elsewhere.
func anyHedged(occurrences []occurrence) (occurrence, bool) {
	for _, o := range occurrences {
		if strings.HasPrefix(o.why, "hedged") {
			return o, true
		}
	}
	return occurrence{}, false
}

// spelling splits a term's spelling into what to find and whether it is
// wanted under a negation ("not X", "no X").
func spelling(s string) (find string, negated bool) {
	s = strings.TrimSpace(s)
	lower := strings.ToLower(s)
	for _, p := range []string{"not ", "no "} {
		if strings.HasPrefix(lower, p) && strings.TrimSpace(s[len(p):]) != "" {
			return strings.TrimSpace(s[len(p):]), true
		}
	}
	return s, false
}

// find returns the spans where a spelling occurs: whole words, or
// anywhere with substring.
func (a *answer) find(s string) []Span {
	if !a.c.Checks.Substring {
		return Find(a.text.Raw, s)
	}
	var out []Span
	lower, needle := strings.ToLower(a.text.Raw), strings.ToLower(strings.TrimSpace(s))
	for off := 0; needle != "" && len(lower) == len(a.text.Raw); {
		i := strings.Index(lower[off:], needle)
		if i < 0 {
			break
		}
		out = append(out, Span{Start: off + i, End: off + i + len(needle)})
		off += i + len(needle)
	}
	return out
}

// termOccurrences reads every occurrence of t's spellings, and of the
// antonyms a negation turns into them ("not intolerant" for "tolerant").
func (a *answer) termOccurrences(t eval.Term) []occurrence {
	var out []occurrence
	hedged := func(s Span) (Span, bool) { return a.text.HedgedTerm(s.Start, s.End) }
	for _, sp := range t.Any {
		find, negated := spelling(sp)
		for _, o := range a.find(find) {
			out = append(out, a.judge(o, negated, t.Of, hedged))
		}
		if a.c.Checks.Substring {
			continue
		}
		for _, anti := range antonyms(find) {
			for _, o := range Find(a.text.Raw, anti) {
				if occ := a.judge(o, !negated, t.Of, hedged); occ.why == "" {
					out = append(out, occ)
				}
			}
		}
	}
	return out
}

// antonymPrefixes make a word's opposite: "intolerant", "nonpathogenic",
// "unexpressed".
var antonymPrefixes = []string{"non-", "non", "un", "in", "im", "ir", "il", "dis"}

// antonyms returns the words whose negation states word: "intolerant" for
// "tolerant" ("not intolerant"), and "tolerant" for "intolerant" ("not
// tolerant"). Only single words of letters have them.
func antonyms(word string) []string {
	if word == "" || strings.ContainsFunc(word, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
		return nil
	}
	var out []string
	lower := strings.ToLower(word)
	for _, p := range antonymPrefixes {
		if strings.HasPrefix(lower, p) && len(lower) > len(p)+3 {
			out = append(out, word[len(p):])
		} else {
			out = append(out, p+word)
		}
	}
	return out
}

func (a *answer) contains(t eval.Term) (bool, string) {
	occurrences := a.termOccurrences(t)
	if o, ok := anyHedged(occurrences); ok {
		return false, o.why
	}
	return verdict(occurrences, a.missing(t.Any))
}

// missing says why a term was not found: nowhere, or only inside longer
// words (the whole-word rule).
func (a *answer) missing(spellings []string) string {
	if !a.c.Checks.Substring {
		for _, sp := range spellings {
			find, _ := spelling(sp)
			if i := strings.Index(strings.ToLower(a.text.Raw), strings.ToLower(strings.TrimSuffix(find, "*"))); i >= 0 && find != "" {
				word := wordAround(a.text.Raw, i, i+len(find))
				return fmt.Sprintf("not found as a whole word: only inside %s; contains matches whole words (set substring: true to match inside words)", quote(word))
			}
		}
	}
	return "not found in the answer"
}

// wordAround returns the whole word around s[start:end].
func wordAround(s string, start, end int) string {
	for start > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:start])
		if !IsWordRune(r) {
			break
		}
		start -= n
	}
	for end < len(s) {
		r, n := utf8.DecodeRuneInString(s[end:])
		if !IsWordRune(r) {
			break
		}
		end += n
	}
	return s[start:end]
}

func (a *answer) notContains(t eval.Term) (bool, string) {
	for _, o := range a.termOccurrences(t) {
		if o.why != "" && !strings.HasPrefix(o.why, "hedged") && !strings.HasPrefix(o.why, "bound") {
			continue
		}
		if len(t.Of) > 0 {
			// Only where the answer itself gives it to the subject.
			m, ok := a.text.Owner(o.Start, a.mentions, a.peers, true)
			if !ok || m.Subject != a.subject(t.Of) {
				continue
			}
			return false, fmt.Sprintf("found for %s, at %s", quote(m.Name), quote(a.text.Snippet(min(o.Start, m.Start), max(o.End, m.End), 70)))
		}
		return false, "found in the answer, at " + quote(a.text.Snippet(o.Start, o.End, 70))
	}
	return true, ""
}

// regexp reads the matches of re: a match counts unless a question holds
// it or a negation before it takes it back ("not absent" is no match for
// \babsent\b); negations inside the match are the pattern's own.
func (a *answer) regexp(re *regexp.Regexp) (bool, string) {
	var occurrences []occurrence
	none := func(Span) (Span, bool) { return Span{}, false }
	for _, m := range re.FindAllStringIndex(a.text.Raw, -1) {
		occurrences = append(occurrences, a.judge(Span{Start: m[0], End: m[1]}, false, nil, none))
	}
	if len(occurrences) == 0 && re.MatchString(a.text.Raw) { // an empty match
		return true, ""
	}
	return verdict(occurrences, "no match in the answer")
}

func (a *answer) notRegexp(re *regexp.Regexp) (bool, string) {
	for _, m := range re.FindAllStringIndex(a.text.Raw, -1) {
		if a.text.Asked(m[0]) || a.text.Negated(m[0], m[1]) {
			continue
		}
		return false, "matches " + quote(truncateRunes(a.text.Raw[m[0]:m[1]], 80)) + " in the answer"
	}
	if re.MatchString(a.text.Raw) && len(re.FindAllStringIndex(a.text.Raw, -1)) == 0 {
		return false, "matches in the answer"
	}
	return true, ""
}

func truncateRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// valueMatches reports whether the stated number m is n's value within
// its tolerance (allowing for the rounding of decimal fractions) and in
// one of its units; a percentage also matches as a fraction.
func (a *answer) valueMatches(m Number, n eval.NumberCheck) bool {
	slack := 1e-9 * max(1, math.Abs(n.Value))
	near := func(v float64) bool { return math.Abs(v-n.Value) <= n.Tolerance+slack }
	switch {
	case n.Percent && !m.Percent && near(100*m.Value) && math.Abs(m.Value) <= 1:
		return true
	case !near(m.Value):
		return false
	}
	return unitOK(a.text.Raw, m.End, n.Unit)
}

func (a *answer) number(n eval.NumberCheck) (bool, string) {
	missing := "no such number in the answer"
	if len(n.Unit) > 0 {
		missing = "no such number in " + quote(n.Unit[0]) + " in the answer"
	}
	var occurrences []occurrence
	for _, m := range a.numbers {
		if !a.valueMatches(m, n) {
			continue
		}
		others, expected := a.alternatives()
		hedged := func(s Span) (Span, bool) {
			return a.text.HedgedNumber(s.Start, s.End, others, expected)
		}
		occurrences = append(occurrences, a.judge(Span{Start: m.Start, End: m.End}, false, n.Of, hedged))
	}
	if o, ok := anyHedged(occurrences); ok {
		return false, o.why
	}
	return verdict(occurrences, missing)
}

// alternatives returns the numbers of the answer that could be offered
// beside a value as another one: all but the parts of numbers (the "117"
// of "117 120 017"); expected tells the values of the case's number
// checks, which a range may join ("residues 95 to 289") but "or" may not.
// They are the same for every value, and read once.
func (a *answer) alternatives() (others []Number, expected func(Number) bool) {
	if a.others == nil {
		// The numbers come sorted by start: a number is a part of a longer
		// one that starts at or before it and ends at or after it.
		a.others = []Number{}
		reach := -1 // end of the longest number started so far
		for i, o := range a.numbers {
			part := o.End <= reach && !(i > 0 && a.numbers[i-1].Start == o.Start && a.numbers[i-1].End == o.End)
			for j := i + 1; j < len(a.numbers) && a.numbers[j].Start == o.Start; j++ {
				part = part || a.numbers[j].End > o.End
			}
			if !part {
				a.others = append(a.others, o)
			}
			reach = max(reach, o.End)
		}
	}
	return a.others, func(o Number) bool {
		return slices.ContainsFunc(a.c.Checks.Numbers, func(n eval.NumberCheck) bool { return a.valueMatches(o, n) })
	}
}

// unitOK reports whether the number whose literal ends at end is in one of
// units (always, when units is empty): a unit right after it, optionally
// after white space or an opening parenthesis, must be one of them ("63.18
// TPM", "1.7 %"); a number followed by another word that can be a unit
// ("63.18 RPKM") is not; a number followed by nothing of the sort is when
// the text names one of the units elsewhere ("median TPM: 63.18").
func unitOK(text string, end int, units eval.Units) bool {
	if len(units) == 0 {
		return true
	}
	rest := strings.TrimLeft(text[end:], " \t\u00a0([")
	for _, u := range units {
		if strings.TrimSpace(u) != "" && PrefixPattern(u).MatchString(rest) {
			return true
		}
	}
	if word := leadingWord(rest); word != "" && !notUnits[strings.ToLower(word)] {
		return false // another unit
	}
	for _, u := range units {
		if strings.TrimSpace(u) != "" && Pattern(u).MatchString(text) {
			return true
		}
	}
	return false
}

// leadingWord returns the word s begins with: letters (with µ), or a
// percent or per-mille sign; "" when s begins otherwise.
func leadingWord(s string) string {
	if strings.HasPrefix(s, "%") || strings.HasPrefix(s, "‰") {
		return s[:len(string([]rune(s)[0]))]
	}
	end := 0
	for i, r := range s {
		if !unicode.IsLetter(r) {
			break
		}
		end = i + utf8.RuneLen(r)
	}
	return s[:end]
}

// notUnits are words that often follow a number without being its unit.
var notUnits = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "but": true, "by": true,
	"for": true, "from": true, "in": true, "is": true, "of": true, "on": true, "or": true, "the": true,
	"than": true, "to": true, "versus": true, "vs": true, "was": true, "were": true, "whereas": true,
	"which": true, "while": true, "with": true, "compared": true,
}
