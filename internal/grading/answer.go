package grading

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpeval/mcpeval/evaltest/eval"
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

	// vocab are the words the reader accounts for in a clause besides the
	// neutral ones (see vocabulary); slot are those that name what the
	// number checks ask for (the measure and subject of the expected
	// answer's values); expected is the expected answer, read.
	vocab, slot map[string]bool
	// own are the words of the expected answer and of the checks' texts,
	// not the question's; slotQualifiers are the qualifiers (builds,
	// species, populations) the expected answer gives in the statements
	// the checks read.
	own, slotQualifiers map[string]bool
	expected            *Text
	// questionNumbers are the values the question states, expectedNumbers
	// those the expected answer states.
	questionNumbers, expectedNumbers []float64
	// failure says why the answer reports a failed lookup, or "".
	failure string
}

func readAnswer(c eval.Case, text string) *answer {
	a := &answer{c: c, text: Parse(text), numbers: Numbers(text)}
	a.vocab = vocabulary(caseWords{question: c.Input, own: checkTexts(c)})
	a.own = map[string]bool{}
	for _, text := range checkTexts(c) {
		for _, w := range splitWordsOf(text) {
			a.own[w] = true
		}
	}
	if strings.TrimSpace(c.Expected) != "" {
		a.expected = Parse(c.Expected)
		for _, n := range Numbers(c.Expected) {
			a.expectedNumbers = append(a.expectedNumbers, n.Value)
		}
	}
	for _, n := range Numbers(c.Input) {
		a.questionNumbers = append(a.questionNumbers, n.Value)
	}
	a.slot = a.slotWords()
	a.slotQualifiers = a.qualifiersOfSlots()
	a.failure = agentFailure(a.text)
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

// checkTexts returns the texts of a case whose words an answer may repeat:
// the expected answer and the checks' terms, subjects and units.
func checkTexts(c eval.Case) []string {
	out := []string{c.Expected}
	terms := append(append(eval.Terms{}, c.Checks.Contains...), c.Checks.NotContains...)
	for _, t := range terms {
		for _, sp := range t.Any {
			find, _ := spelling(sp)
			out = append(out, strings.TrimSuffix(find, "*"))
		}
		out = append(out, t.Of...)
		out = append(out, t.NotOf...)
	}
	for _, n := range c.Checks.Numbers {
		out = append(out, n.Of...)
		out = append(out, n.NotOf...)
		out = append(out, n.Unit...)
	}
	return out
}

// slotWords returns the words that name what the number checks ask for:
// those the expected answer puts in the clause of each checked value (not
// the neutral ones), and the checks' subjects and units.
func (a *answer) slotWords() map[string]bool {
	slot := map[string]bool{}
	add := func(text string) {
		for _, w := range splitWordsOf(text) {
			if !neutralWords[w] && !isDigits(w) && !polarityWords[w] {
				slot[w] = true
			}
		}
	}
	for _, n := range a.c.Checks.Numbers {
		for _, s := range n.Of {
			add(s)
		}
		for _, u := range n.Unit {
			add(u)
		}
		if a.expected == nil {
			continue
		}
		e := a.expected
		for _, m := range Numbers(e.Raw) {
			if !valueMatches(e.Raw, m, n) {
				continue
			}
			p := e.TokenAt(m.Start)
			if p >= len(e.Tokens) {
				continue
			}
			for _, tok := range e.Tokens {
				if tok.Bind == e.Tokens[p].Bind && tok.Word && !isNumberToken(tok.Text) {
					add(tok.Text)
				}
			}
		}
	}
	return slot
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
	return valueMatches(a.text.Raw, m, n)
}

// valueMatches is answer.valueMatches for a number of text.
func valueMatches(text string, m Number, n eval.NumberCheck) bool {
	slack := 1e-9 * max(1, math.Abs(n.Value))
	near := func(v float64) bool { return math.Abs(v-n.Value) <= n.Tolerance+slack }
	switch {
	case n.Percent && !m.Percent && near(100*m.Value) && math.Abs(m.Value) <= 1:
		return true
	case !near(m.Value):
		return false
	}
	return unitOK(text, m.End, n.Unit)
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
