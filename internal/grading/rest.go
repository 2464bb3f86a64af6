package grading

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// The checks are sure of a pass only for what they check. An expected
// answer often says more than its checks cover ("CFTR is Tclin with
// approved drugs; TP53 is Tchem but has no approved drugs" checked only for
// the two levels): an answer that passes every check but turns the rest
// around is not surely right. So what the expected answer states under a
// negation, and the change of bases it gives, must be in the answer too
// when no check covers them; otherwise the checks cannot be sure, and say
// so. (Its other values and names are often context the answer may leave
// out: the judge weighs those.)

// restName is the name of the check on the rest of the expected answer.
const restName = "the rest of the expected answer"

// alleleRE finds a change of bases: "C>T", "C > T", and the "C>T" of
// "c.187C>T".
var alleleRE = regexp.MustCompile(`[ACGTacgt]\s*>\s*[ACGTacgt]\b`)

// rest checks that the answer states what the expected answer says and
// no check covers; it returns no result when there is nothing of the
// kind, or when the answer states all of it.
func (a *answer) rest() (eval.CheckResult, bool) {
	e := a.expected
	if e == nil {
		return eval.CheckResult{}, false
	}
	covered := a.coveredIn(e.Raw)
	inCovered := func(s Span) bool {
		return slices.ContainsFunc(covered, func(c Span) bool { return c.Start < s.End && s.Start < c.End })
	}
	qwords := map[string]bool{}
	for _, w := range splitWordsOf(a.c.Input) {
		qwords[w] = true
	}
	var missing []string
	for _, loc := range alleleRE.FindAllStringIndex(e.Raw, -1) {
		if inCovered(Span{loc[0], loc[1]}) || strings.Contains(a.c.Input, e.Raw[loc[0]:loc[1]]) || loc[0] > 0 && latinLetter(rune(e.Raw[loc[0]-1])) {
			continue
		}
		want := strings.ToUpper(strings.ReplaceAll(e.Raw[loc[0]:loc[1]], " ", ""))
		found := false
		for _, m := range alleleRE.FindAllString(a.text.Raw, -1) {
			found = found || strings.ToUpper(strings.ReplaceAll(m, " ", "")) == want
		}
		if !found && !strings.Contains(strings.ToUpper(a.text.Raw), want[:1]+" TO "+want[2:]) {
			missing = append(missing, e.Raw[loc[0]:loc[1]])
		}
	}
	for _, w := range a.negatedInExpected(inCovered) {
		if !a.statesNegated(w) {
			missing = append(missing, "no "+w)
		}
	}
	if len(missing) == 0 {
		return eval.CheckResult{}, false
	}
	r := decided(restName, undecided, fmt.Sprintf("the expected answer also says %s, which no check covers and the answer does not state: the checks cannot be sure of a pass",
		strings.Join(quoteAll(missing), ", ")))
	return r, true
}

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = quote(w)
	}
	return out
}

// coveredIn returns the spans of text the case's checks read: their terms
// and subjects, their values, their patterns' matches.
func (a *answer) coveredIn(text string) []Span {
	var out []Span
	ch := a.c.Checks
	for _, t := range append(append(eval.Terms{}, ch.Contains...), ch.NotContains...) {
		for _, sp := range append(append(slices.Clone(t.Any), t.Of...), t.NotOf...) {
			find, _ := spelling(sp)
			out = append(out, Find(text, find)...)
		}
	}
	for _, n := range ch.Numbers {
		for _, m := range Numbers(text) {
			if valueMatches(text, m, n) {
				out = append(out, Span{m.Start, m.End})
			}
		}
		for _, sp := range append(slices.Clone(n.Of), n.NotOf...) {
			out = append(out, Find(text, sp)...)
		}
	}
	for _, p := range append(slices.Clone(ch.Regexp), ch.NotRegexp...) {
		re, err := regexp.Compile(p)
		if err != nil {
			continue
		}
		for _, m := range re.FindAllStringIndex(text, -1) {
			out = append(out, Span{m[0], m[1]})
		}
	}
	return out
}

// qualifiersOfSlots returns the qualifiers the expected answer gives in
// the statements its checks read: "hg38" of "On hg38 the variant is at
// chr9:96931892 (hg19 chr9:99694174)" for a check of 96931892, not the
// "hg19" of the aside.
func (a *answer) qualifiersOfSlots() map[string]bool {
	out := map[string]bool{}
	e := a.expected
	if e == nil {
		return out
	}
	units := map[int]bool{}
	for _, s := range a.coveredIn(e.Raw) {
		for k := e.TokenAt(s.Start); k < len(e.Tokens) && e.Tokens[k].Start < s.End; k++ {
			units[e.Tokens[k].Unit] = true
		}
	}
	for _, tok := range e.Tokens {
		if tok.Word && units[tok.Unit] && qualifierWords[tok.Lower] {
			out[tok.Lower] = true
		}
	}
	return out
}

// negatedInExpected returns the words the expected answer negates and no
// check covers: the first word after each negation that says what is
// absent ("drugs" of "no approved drugs"), not a neutral word.
func (a *answer) negatedInExpected(inCovered func(Span) bool) []string {
	e := a.expected
	var out []string
	for i, tok := range e.Tokens {
		if !tok.Word || e.negator(i) == 0 {
			continue
		}
		for k := i + 1; k < len(e.Tokens) && e.Tokens[k].Clause == tok.Clause; k++ {
			n := e.Tokens[k]
			w := n.Lower
			if !n.Word || neutralWords[w] || polarityWords[w] || negators[w] || len(w) < 3 {
				continue
			}
			if !isNumberToken(w) && !inCovered(Span{n.Start, n.End}) && !slices.Contains(out, w) {
				out = append(out, w)
			}
			break
		}
	}
	return out
}

// statesNegated reports whether the answer states a word (or another form
// of it) under a negation, or in a clause that negates.
func (a *answer) statesNegated(w string) bool {
	st := stem(w)
	if st == "" {
		st = w
	}
	t := a.text
	for i, tok := range t.Tokens {
		if !tok.Word || !strings.HasPrefix(tok.Lower, st) {
			continue
		}
		if t.Negated(tok.Start, tok.End) {
			return true
		}
		for _, o := range t.Tokens {
			if o.Clause == t.Tokens[i].Clause && o.Word && (polarityWords[o.Lower] || negators[o.Lower] || strings.HasSuffix(o.Lower, "n't")) {
				return true
			}
		}
	}
	return false
}
