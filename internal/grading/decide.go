package grading

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Each check decides pass or fail only when it is sure; everything else is
// undecided, for the judge.
//
// A check passes when the answer states the expected content plainly (see
// answer.state): with the expected polarity ("there is no fly ortholog" is
// stated by a negation), bound to the asked subject, in a clause whose
// every word the reader accounts for and a sentence that nothing takes
// back, and offering no other value for the same thing. It fails when the
// content is absent in every form the reader recognises, or stated plainly
// with the opposite polarity, or when the answer plainly gives the asked
// thing another value.

// reading is what a check found of one term or value: the plain
// statements of it with the polarity wanted, with the other one, and why
// the others were not plain.
type reading struct {
	wanted, opposite []statement
	unclear          string
	// elsewhere counts the occurrences given to another subject.
	elsewhere int
}

func (r *reading) add(st statement, wantNegated bool) {
	r.addNegation(st, wantNegated)
}

func (r *reading) addNegation(st statement, wantNegated bool) {
	switch {
	case st.unclear != "":
		if r.unclear == "" {
			r.unclear = st.unclear
		}
	case st.negated == wantNegated:
		r.wanted = append(r.wanted, st)
	case wantNegated && st.sentenceNegation:
		// An absence was wanted and the sentence negates something else:
		// "OMIM has nothing for NUTM2G" does not state OMIM.
		if r.unclear == "" {
			r.unclear = "its clause holds a negation that does not reach it"
		}
	default:
		r.opposite = append(r.opposite, st)
	}
}

// at shows where a statement stands.
func (a *answer) at(s Span) string { return quote(a.text.Snippet(s.Start, s.End, 70)) }

// bound says whether the occurrence at s belongs to the subject spelt of:
// yes, no (another subject owns it), or no with why it is unclear. Sure
// only when its statement (see together) names the subject and no other
// one, or names only another one, or when the answer names no other
// subject and either names this one somewhere or answers a question that
// names it alone (an answer that names none of the subjects of a question
// that names none or several may speak of anything); in a JSON answer, the
// record it sits in decides.
func (a *answer) bound(s Span, of eval.Spellings) (ok bool, unclear string) {
	if len(of) == 0 {
		return true, ""
	}
	t := a.text
	p := t.TokenAt(s.Start)
	want := a.subject(of)
	if t.data != nil || p >= len(t.Tokens) {
		m, found := t.Owner(s.Start, a.mentions, a.peers, false)
		if found && m.Subject == want {
			return true, ""
		}
		if found {
			return false, ""
		}
		return false, "which subject it belongs to is unclear, at " + a.at(s)
	}
	mine, theirs, others, named := false, false, false, false
	var their Mention
	for _, m := range a.mentions {
		if m.Start <= s.Start && m.End >= s.End || a.knownName(m) {
			named = named || m.Subject == want || a.knownName(m)
			continue // the occurrence itself, or another name of what was asked
		}
		named = named || m.Subject == want
		if m.Subject != want {
			others = true
		}
		if !a.together(m.token, p) {
			continue
		}
		if m.Subject == want {
			mine = true
		} else {
			theirs, their = true, m
		}
	}
	switch {
	case mine && !theirs, !mine && !theirs && !others && (named || a.askedAlone(want)):
		return true, ""
	case !mine && !theirs && !others:
		return false, fmt.Sprintf("the answer never names %s, at %s", quote(of[0]), a.at(s))
	case theirs && !mine:
		return false, ""
	case mine && theirs:
		// Both named in the statement: the subject named nearest before
		// it, with no value between, owns it ("TP53 is 7157 and BRCA1 is
		// 672"); else the owner it is tied to.
		if m, ok := a.nearestBefore(p); ok {
			return m.Subject == want, ""
		}
		if m, found := t.Owner(s.Start, a.mentions, a.peers, false); found && a.together(m.token, p) && t.tied(m.token, p) {
			return m.Subject == want, ""
		}
		return false, fmt.Sprintf("which subject it belongs to is unclear (the answer names %s beside it), at %s", quote(their.Name), a.at(s))
	}
	return false, "which subject it belongs to is unclear, at " + a.at(s)
}

// askedAlone says whether the question names the subject of index want
// and no other subject of the case, so that an answer naming none speaks
// of it ("What is the CADD score of NUTM2G?" "It is 8.1.").
func (a *answer) askedAlone(want int) bool {
	asked := false
	for i, sp := range a.subjects.Named {
		named := slices.ContainsFunc(sp, func(s string) bool { return len(Find(a.c.Input, s)) > 0 })
		if i == want {
			asked = named
		} else if named {
			return false
		}
	}
	return asked
}

// nearestBefore returns the subject that owns the value at tokens[p] in a
// statement that names several: the one named in an aside right after it
// ("672 (BRCA1)"), else the one named nearest before it with no other value
// between ("TP53 is 7157 and BRCA1 is 672"), not one in another value's
// aside; none when subjects are listed before values to pair in order
// ("BRCA2 trails BRCA1: 8.52 versus 15.96").
func (a *answer) nearestBefore(p int) (Mention, bool) {
	t := a.text
	holdsValue := func(aside int) bool {
		return slices.ContainsFunc(t.Tokens, func(tok Token) bool { return tok.Aside == aside && isNumberToken(tok.Text) })
	}
	// "672 (BRCA1)" names the owner; "672 (BRCA2 is 675)" is a statement of its own.
	if k := p + 1; k+1 < len(t.Tokens) && t.Tokens[k].Text == "(" && !holdsValue(t.Tokens[k+1].Aside) {
		for _, m := range a.mentions {
			if m.token == k+1 && !a.knownName(m) {
				return m, true
			}
		}
	}
	if k := p - 1; k > 0 && t.Tokens[k].Text == "(" { // "Tara Singh (72500)"
		for _, m := range a.mentions {
			if m.End <= t.Tokens[k].Start && strings.TrimSpace(t.Raw[m.End:t.Tokens[k].Start]) == "" && !a.knownName(m) {
				return m, true
			}
		}
	}
	valueAside := func(m Mention) bool { // in the aside right after another value
		tm := t.Tokens[m.token]
		if tm.Aside == 0 {
			return false
		}
		for k := m.token - 1; k >= 0; k-- {
			if t.Tokens[k].Text == "(" && t.Tokens[k].Aside != tm.Aside {
				return k > 0 && isNumberToken(t.Tokens[k-1].Text)
			}
		}
		return false
	}
	var before []Mention
	for _, m := range a.mentions {
		if m.token < p && a.together(m.token, p) && !a.knownName(m) && !valueAside(m) {
			before = append(before, m)
		}
	}
	if len(before) == 0 {
		return Mention{}, false
	}
	best := before[len(before)-1]
	if !a.adjacent(best.token, p) {
		return Mention{}, false
	}
	// Subjects listed, then values: "A and B are 1 and 2", "A trails B: 1 versus 2".
	if len(before) >= 2 && a.adjacent(before[0].token, p) && before[0].Subject != best.Subject {
		return Mention{}, false
	}
	return best, true
}

// adjacent reports whether the value at tokens[p] follows the subject
// named at tokens[m] with no other value or subject between them.
func (a *answer) adjacent(m, p int) bool {
	t := a.text
	for k := m + 1; k < p; k++ {
		if t.Tokens[k].Word && isNumberToken(t.Tokens[k].Text) {
			if n, ok := a.numberAt(t.Tokens[k].Start); ok && !gluedToWord(t.Raw, n) {
				return false
			}
		}
	}
	return p-m <= 12
}

// together reports whether the subject named at tokens[m] and the value
// at tokens[p] stand in one statement: one unit, or one in an aside of the
// other's that holds nothing of the kind itself ("Ximena Ramos (164000)",
// "0.35 (MECP2)", but not "88.73 TPM in Cerebellum (96.41 TPM in the
// hemisphere)").
func (a *answer) together(m, p int) bool {
	tm, tp := a.text.Tokens[m], a.text.Tokens[p]
	switch {
	case tm.Unit == tp.Unit:
		return true
	case tm.Aside > 0 && tm.Host == tp.Unit:
		return !a.asideHolds(tm.Aside, func(k int) bool { return isNumberToken(a.text.Tokens[k].Text) })
	case tp.Aside > 0 && tp.Host == tm.Unit:
		return !a.asideHolds(tp.Aside, a.mentionAt)
	}
	return false
}

// asideHolds reports whether a word of the aside satisfies f.
func (a *answer) asideHolds(aside int, f func(k int) bool) bool {
	for k, tok := range a.text.Tokens {
		if tok.Aside == aside && tok.Word && f(k) {
			return true
		}
	}
	return false
}

// mentionAt reports whether a subject is named at tokens[k].
func (a *answer) mentionAt(k int) bool {
	return slices.ContainsFunc(a.mentions, func(m Mention) bool { return m.token == k && !a.knownName(m) })
}

// knownName reports whether a mention of a subject that no check names is
// one the case names itself (the question, the expected answer): another
// name of what was asked ("TP53 c.524G>A (p.R175H)"), not another subject.
func (a *answer) knownName(m Mention) bool {
	if m.Subject >= 0 || IsSymbol(m.Name) {
		return false // a gene the case names is a subject of its own
	}
	for _, tok := range tokenize(m.Name) {
		if tok.Word && !a.accounted(tok.Lower) {
			return false
		}
	}
	return true
}

// read reads the occurrences of a term or value: those only asked about
// and those given to another subject do not count.
func (a *answer) read(spans []Span, wantNegated bool, of eval.Spellings, own func(Number) bool) reading {
	var r reading
	for _, s := range spans {
		if a.text.Asked(s.Start) {
			continue
		}
		ok, why := a.bound(s, of)
		if !ok {
			if why != "" && r.unclear == "" {
				r.unclear = why
			}
			if why == "" {
				r.elsewhere++
			}
			continue
		}
		r.add(a.state(s, own), wantNegated)
	}
	return r
}

// anyNumber is the own-number test of a term: a number beside a term is
// no rival of it.
func (a *answer) anyNumber(Number) bool { return true }

// ownNumber reports whether a number is a value the case's checks ask
// for, or one the expected answer states: it may stand in a clause beside
// another.
func (a *answer) ownNumber(n Number) bool {
	return slices.ContainsFunc(a.c.Checks.Numbers, func(c eval.NumberCheck) bool { return a.valueMatches(n, c) }) ||
		slices.Contains(a.expectedNumbers, n.Value) || holdsValue(a.c.Expected, n, a.text.Raw[n.Start:n.End])
}

// wantsNegation reports whether a term's content is an absence: its
// spelling asks for it ("no drug*"), or the expected answer states it
// only under a negation ("There is no fly ortholog").
func (a *answer) wantsNegation(sp string) (find string, negated bool) {
	find, negated = spelling(sp)
	if negated || a.expected == nil {
		return find, negated
	}
	spans := Find(a.expected.Raw, find)
	if len(spans) == 0 {
		return find, false
	}
	for _, s := range spans {
		if !a.expected.Negated(s.Start, s.End) {
			return find, false
		}
	}
	return find, true
}

// termSpans returns the occurrences of a term's spellings, each with the
// polarity wanted, and those of the antonyms of its one-word spellings
// ("intolerant" for "tolerant"), which state the opposite.
//
// The polarity wanted is the spelling's; for a term the answer must state,
// also the expected answer's (see wantsNegation).
func (a *answer) termReading(t eval.Term, stated bool) reading {
	var r reading
	merge := func(x reading) {
		r.wanted = append(r.wanted, x.wanted...)
		r.opposite = append(r.opposite, x.opposite...)
		r.elsewhere += x.elsewhere
		if r.unclear == "" {
			r.unclear = x.unclear
		}
	}
	for _, sp := range t.Any {
		find, negated := spelling(sp)
		if stated {
			find, negated = a.wantsNegation(sp)
		}
		merge(a.read(a.find(find), negated, t.Of, a.anyNumber))
		if a.c.Checks.Substring {
			continue
		}
		for _, anti := range antonyms(find) {
			x := a.read(Find(a.text.Raw, anti), !negated, t.Of, a.anyNumber)
			// A negated antonym ("not intolerant") is not plain.
			if len(x.wanted) > 0 {
				x.unclear, x.wanted = "a negated antonym at "+a.at(x.wanted[0].Span), nil
			}
			merge(x)
		}
	}
	return r
}

func (a *answer) contains(t eval.Term) (outcome, string) {
	r := a.termReading(t, true)
	switch {
	case len(r.wanted) > 0 && len(r.opposite) > 0:
		return undecided, fmt.Sprintf("stated at %s and denied at %s", a.at(r.wanted[0].Span), a.at(r.opposite[0].Span))
	case len(r.opposite) > 0:
		return fail, "stated with the opposite polarity, at " + a.at(r.opposite[0].Span)
	case len(r.wanted) > 0:
		return pass, ""
	case r.unclear != "":
		return undecided, "not stated plainly: " + r.unclear
	case r.elsewhere > 0:
		return fail, fmt.Sprintf("found only for another subject, not %s", quote(t.Of[0]))
	}
	return a.absent(t)
}

// absent decides a term the answer never states: a failure, unless the
// answer may say it in a form the reader does not know: a negation in
// other words, another form of the word, or a name or identifier of its
// own for a term that names something.
func (a *answer) absent(t eval.Term) (outcome, string) {
	missing := a.missing(t.Any)
	for _, sp := range t.Any {
		find, negated := a.wantsNegation(sp)
		if negated {
			return undecided, "expects a negation, which the answer may say in other words: " + missing
		}
		if w, ok := a.nearForm(find); ok && !names(find) {
			return undecided, fmt.Sprintf("not found, but the answer says %s, which may be another form of %s", quote(w), quote(find))
		}
		if names(find) {
			if a.partsApart(find) {
				return undecided, fmt.Sprintf("not found, but the answer holds the parts of %s apart", quote(find))
			}
			if rival, ok := a.rivalName(); ok {
				return fail, fmt.Sprintf("%s; the answer names %s instead, at %s", missing, quote(a.text.Raw[rival.Start:rival.End]), a.at(rival.Span))
			}
			if w, ok := a.unaccountedWord(); ok {
				return undecided, fmt.Sprintf("not found, but the answer says %s, which may name the same thing otherwise", quote(w))
			}
		}
	}
	return fail, missing
}

// partsApart reports whether the answer holds every part of a spelling
// ("7", "q31.2" of "7q31.2"; "c.397", "C>T" of "c.397C>T") in one sentence,
// though not together; a spelling written whole inside a longer word
// ("12:04:05" in "2026-01-02T12:04:05") is not apart.
func (a *answer) partsApart(find string) bool {
	parts := splitWordsOf(strings.TrimSuffix(find, "*"))
	if len(parts) < 2 || strings.Contains(strings.ToLower(a.text.Raw), strings.ToLower(strings.TrimSuffix(find, "*"))) {
		return false
	}
	parts = parts[1:]
	for sentence := 0; len(a.text.Tokens) > 0 && sentence <= a.text.Tokens[len(a.text.Tokens)-1].Sentence; sentence++ {
		found := map[string]bool{}
		carriers := map[int]bool{} // the tokens that hold a part
		for k, tok := range a.text.Tokens {
			if tok.Sentence != sentence || !tok.Word {
				continue
			}
			for _, p := range wordParts(tok.Lower) {
				if slices.Contains(parts, p) {
					found[p], carriers[k] = true, true
				}
			}
		}
		if len(found) == len(dedup(parts)) && len(carriers) > 1 {
			return true
		}
	}
	return false
}

func dedup(words []string) []string {
	out := slices.Clone(words)
	slices.Sort(out)
	return slices.Compact(out)
}

// rivalName returns a plain statement of a symbol or identifier the case
// does not know: the answer names another thing where a name was
// expected ("That position falls in BRCA1").
func (a *answer) rivalName() (statement, bool) {
	others := func(k int) bool { // another symbol in its sentence, not the question's: a list, whose names may include the asked one's alias
		for j, o := range a.text.Tokens {
			if j != k && o.Sentence == a.text.Tokens[k].Sentence && o.Word && IsSymbol(strings.TrimSuffix(o.Text, "'s")) && len(Find(a.c.Input, o.Text)) == 0 {
				return true
			}
		}
		return false
	}
	for k, tok := range a.text.Tokens {
		if !tok.Word || !IsSymbol(strings.TrimSuffix(tok.Text, "'s")) || a.vocab[tok.Lower] || others(k) {
			continue
		}
		st := a.state(Span{Start: tok.Start, End: tok.End}, a.anyNumber)
		if st.unclear == "" && !st.negated {
			return st, true
		}
	}
	return statement{}, false
}

// unaccountedWord returns a word of the answer the reader cannot account
// for, or false when it accounts for every word.
func (a *answer) unaccountedWord() (string, bool) {
	for _, tok := range a.text.Tokens {
		if tok.Word && !isNumberToken(tok.Text) && !a.accounted(tok.Lower) && !polarityWords[tok.Lower] {
			return tok.Text, true
		}
	}
	return "", false
}

// names reports whether a spelling names a thing (a symbol, an identifier,
// a proper name) that an answer may also call by another name.
func names(s string) bool {
	s = strings.TrimSuffix(s, "*")
	if strings.ContainsFunc(s, func(r rune) bool { return r >= '0' && r <= '9' }) {
		return true
	}
	for _, w := range strings.Fields(s) {
		if w != strings.ToLower(w) {
			return true
		}
	}
	return false
}

// nearForm returns a word of the answer that shares the spelling's stem
// ("testes", "testicular" for "testis"), when the spelling is one word.
func (a *answer) nearForm(find string) (string, bool) {
	find = strings.ToLower(strings.TrimSuffix(find, "*"))
	if strings.ContainsAny(find, " -") || len([]rune(find)) < 4 {
		return "", false
	}
	stem := []rune(find)
	stem = stem[:max(4, len(stem)-2)]
	for _, tok := range a.text.Tokens {
		if tok.Word && strings.HasPrefix(tok.Lower, string(stem)) && tok.Lower != find {
			return tok.Text, true
		}
	}
	return "", false
}

func (a *answer) notContains(t eval.Term) (outcome, string) {
	r := a.termReading(t, false)
	switch {
	case len(r.wanted) > 0:
		return fail, "found in the answer, at " + a.at(r.wanted[0].Span)
	case r.unclear != "":
		return undecided, "may be stated: " + r.unclear
	}
	return pass, ""
}

// regexp reads the matches of re as statements of its content: the words
// the pattern spells out are its own (its negations too); the rest of a
// match, what its wildcards took in, is read like the rest of the clause,
// and a negation before it takes it back.
func (a *answer) regexp(re *regexp.Regexp) (outcome, string) {
	var r reading
	for _, s := range a.matches(re) {
		if s.Start == s.End {
			return pass, "" // an empty match: the pattern asks for nothing
		}
		if a.text.Asked(s.Start) {
			continue
		}
		r.add(a.stateMatch(s, re), false)
	}
	if len(r.wanted) == 0 && len(r.opposite) == 0 && r.unclear == "" && re.MatchString(a.text.Raw) && !re.MatchString("") {
		r.unclear = "matches only in a question"
	}
	switch {
	case len(r.wanted) > 0 && len(r.opposite) > 0:
		return undecided, fmt.Sprintf("matched at %s and denied at %s", a.at(r.wanted[0].Span), a.at(r.opposite[0].Span))
	case len(r.opposite) > 0:
		return fail, "matched only under a negation, at " + a.at(r.opposite[0].Span)
	case len(r.wanted) > 0:
		return pass, ""
	case r.unclear != "":
		return undecided, "not stated plainly: " + r.unclear
	case re.MatchString(""):
		return pass, ""
	case a.expectsAbsence(re):
		return undecided, "no match, and the expected answer states an absence, which the answer may say in other words"
	}
	return fail, "no match in the answer"
}

// expectsAbsence reports whether the expected answer states what re
// matches as an absence: a match there is negated, or holds a negation
// ("not present in gnomAD", "no record").
func (a *answer) expectsAbsence(re *regexp.Regexp) bool {
	e := a.expected
	if e == nil {
		return false
	}
	for _, m := range re.FindAllStringIndex(e.Raw, -1) {
		if e.Negated(m[0], m[1]) {
			return true
		}
		for _, w := range splitWordsOf(e.Raw[m[0]:m[1]]) {
			if polarityWords[w] || negators[w] {
				return true
			}
		}
	}
	return false
}

// matches returns the spans where re matches the answer, read also in a
// form with variants' positions apart from their bases ("g.99694174C>T"
// as "g.99694174 C>T"), so that a pattern written for one spelling of a
// variant finds the other.
func (a *answer) matches(re *regexp.Regexp) []Span {
	var out []Span
	for _, m := range re.FindAllStringIndex(a.text.Raw, -1) {
		out = append(out, Span{Start: m[0], End: m[1]})
	}
	norm, offsets := apartVariants(a.text.Raw)
	if norm == a.text.Raw {
		return out
	}
	for _, m := range re.FindAllStringIndex(norm, -1) {
		s := Span{Start: offsets[m[0]], End: offsets[m[1]]}
		if !slices.ContainsFunc(out, func(o Span) bool { return o.Start < s.End && s.Start < o.End }) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(x, y Span) int { return x.Start - y.Start })
	return out
}

// gluedVariantRE is a position glued to the bases of a variant: the
// "174C" of "g.99694174C>T".
var gluedVariantRE = regexp.MustCompile(`\d[ACGTacgt]+>[ACGTacgt]+`)

// apartVariants returns text with a space between each variant's position
// and its bases, and the offset in text of each byte of the result (and of
// its end).
func apartVariants(text string) (string, []int) {
	locs := gluedVariantRE.FindAllStringIndex(text, -1)
	if len(locs) == 0 {
		return text, nil
	}
	var b strings.Builder
	offsets := make([]int, 0, len(text)+len(locs)+1)
	prev := 0
	for _, l := range locs {
		cut := l[0] + 1 // after the digit
		b.WriteString(text[prev:cut])
		for i := prev; i < cut; i++ {
			offsets = append(offsets, i)
		}
		b.WriteByte(' ')
		offsets = append(offsets, cut)
		prev = cut
	}
	b.WriteString(text[prev:])
	for i := prev; i <= len(text); i++ {
		offsets = append(offsets, i)
	}
	return b.String(), offsets
}

// quantifierRE, escapeRE and classRE find the parts of a pattern that
// spell no text: counts ({0,40}), escapes (\d, \b) and classes ([0-9]).
var (
	quantifierRE = regexp.MustCompile(`\{\d*,?\d*\}`)
	escapeRE     = regexp.MustCompile(`\\[a-zA-Z]`)
	classRE      = regexp.MustCompile(`\[[^\]]*\]`)
)

// asksValue reports whether a pattern spells out digits: it asks for a
// value, so another value in its clause, or one its wildcards took in,
// competes with it.
func asksValue(re *regexp.Regexp) bool {
	src := quantifierRE.ReplaceAllString(re.String(), " ")
	src = classRE.ReplaceAllString(escapeRE.ReplaceAllString(src, " "), " ")
	return strings.ContainsAny(src, "0123456789")
}

// swallowed reports whether the word at tokens[k], inside a match of re,
// was taken in by the pattern's wildcards rather than spelt out by it: re
// still matches over it when it is masked.
func (a *answer) swallowed(re *regexp.Regexp, k int) bool {
	tok := a.text.Tokens[k]
	raw := a.text.Raw
	masked := raw[:tok.Start] + strings.Repeat("#", tok.End-tok.Start) + raw[tok.End:]
	for _, m := range re.FindAllStringIndex(masked, -1) {
		if m[0] <= tok.Start && m[1] >= tok.End {
			return true
		}
	}
	return false
}
func (a *answer) notRegexp(re *regexp.Regexp) (outcome, string) {
	var r reading
	for _, s := range a.matches(re) {
		if a.text.Asked(s.Start) {
			continue
		}
		r.add(a.stateMatch(s, re), false)
	}
	switch {
	case len(r.wanted) > 0:
		return fail, "matches " + quote(truncateRunes(a.text.Raw[r.wanted[0].Start:r.wanted[0].End], 80)) + " in the answer"
	case r.unclear != "":
		return undecided, "may match: " + r.unclear
	}
	return pass, ""
}

func (a *answer) number(n eval.NumberCheck) (outcome, string) {
	var spans []Span
	for _, m := range a.numbers {
		if a.valueMatches(m, n) {
			spans = append(spans, Span{Start: m.Start, End: m.End})
		}
	}
	r := a.read(spans, false, n.Of, a.ownNumber)
	rival, rivalPlain := a.rival(n, spans)
	switch {
	case len(r.opposite) > 0 && len(r.wanted) == 0 && r.unclear == "":
		return fail, "stated with the opposite polarity, at " + a.at(r.opposite[0].Span)
	case rival != nil && rivalPlain && len(r.wanted) == 0:
		return fail, fmt.Sprintf("the answer gives it as %s, at %s", quote(a.text.Raw[rival.Start:rival.End]), a.at(Span{Start: rival.Start, End: rival.End}))
	case rival != nil:
		return undecided, fmt.Sprintf("the answer offers another value, %s, at %s", quote(a.text.Raw[rival.Start:rival.End]), a.at(Span{Start: rival.Start, End: rival.End}))
	case len(r.wanted) > 0 && len(r.opposite) > 0:
		return undecided, fmt.Sprintf("stated at %s and denied at %s", a.at(r.wanted[0].Span), a.at(r.opposite[0].Span))
	case len(r.wanted) > 0:
		return pass, ""
	case r.unclear != "":
		return undecided, "not stated plainly: " + r.unclear
	case len(r.opposite) > 0:
		return fail, "stated with the opposite polarity, at " + a.at(r.opposite[0].Span)
	}
	missing := "no such number in the answer"
	if len(n.Unit) > 0 {
		missing = "no such number in " + quote(n.Unit[0]) + " in the answer"
	}
	if r.elsewhere > 0 {
		return fail, fmt.Sprintf("found only for another subject, not %s", quote(n.Of[0]))
	}
	if near, ok := a.nearValue(n); ok {
		return undecided, fmt.Sprintf("%s, but the answer says %s, which may be the same value written otherwise", missing, quote(a.text.Raw[near.Start:near.End]))
	}
	if n.Value == 0 && slices.ContainsFunc(a.text.Tokens, func(t Token) bool { return t.Word && (polarityWords[t.Lower] || takeBacks[t.Lower]) }) {
		return undecided, missing + ", but the answer may state a zero in words"
	}
	return fail, missing
}

// nearValue returns a number of the answer that may be the value written
// otherwise: rounded to fewer decimals ("8.1" for 8.103), or on another
// scale (a percentage, a fraction of a thousand: "16%" or "999" for 0.16
// and 0.999).
func (a *answer) nearValue(n eval.NumberCheck) (*Number, bool) {
	for i, m := range a.numbers {
		if a.identifierPart(m) || m.Value == n.Value {
			continue
		}
		if rounds(n.Value, a.text.Raw[m.Start:m.End], m.Value) {
			return &a.numbers[i], true
		}
		for _, scale := range []float64{100, 1000, 0.01, 0.001} {
			if v := m.Value / scale; math.Abs(v-n.Value) <= n.Tolerance+1e-9*max(1, math.Abs(n.Value)) {
				return &a.numbers[i], true
			}
		}
	}
	return nil, false
}

// rounds reports whether the literal lit (value v) is value rounded to the
// literal's decimals, fewer than value needs.
func rounds(value float64, lit string, v float64) bool {
	decimals := 0
	if i := strings.LastIndex(lit, "."); i >= 0 {
		decimals = len(lit) - i - 1
	}
	p := math.Pow(10, float64(decimals))
	r := math.Round(value*p) / p
	return r != value && math.Abs(r-v) < 1e-9*max(1, math.Abs(v)) && strconv.FormatFloat(value, 'f', -1, 64) != lit
}

// derived reports whether a number is worked out from two values the
// case asks for or the expected answer gives: their difference, sum or
// ratio ("MECP2 has 32 more" beside 136 and 104).
func (a *answer) derived(m Number) bool {
	var own []float64
	for _, n := range a.c.Checks.Numbers {
		own = append(own, n.Value)
	}
	own = append(own, a.expectedNumbers...)
	tol := precision(a.text.Raw[m.Start:m.End])
	for i, x := range own {
		for j, y := range own {
			if i == j {
				continue
			}
			if closeTo(x-y, m.Value, tol) || closeTo(x+y, m.Value, tol) || y != 0 && (closeTo(x/y, m.Value, tol) || closeTo(100*x/y, m.Value, tol)) {
				return true
			}
		}
	}
	return false
}

// rival returns a number the answer gives for the same thing as the
// checked value instead of it, and whether it gives it plainly: a number
// in the clause of an occurrence, or in a clause that names what was
// asked (the measure of the expected answer, the check's subject), or in
// a clause with no word of its own to say what it is.
func (a *answer) rival(n eval.NumberCheck, occurrences []Span) (*Number, bool) {
	t := a.text
	others, _ := a.alternatives()
	clauses := map[int]bool{}
	for _, s := range occurrences {
		if p := t.TokenAt(s.Start); p < len(t.Tokens) {
			clauses[t.Tokens[p].Unit] = true
		}
	}
	for i, m := range others {
		p := t.TokenAt(m.Start)
		if p >= len(t.Tokens) || t.Asked(m.Start) || a.ownNumber(m) || a.identifierPart(m) || a.questionNumber(m) ||
			!isNumberToken(t.Tokens[p].Text) || t.Tokens[p].Lower == "one" {
			continue
		}
		if ok, _ := a.bound(Span{Start: m.Start, End: m.End}, n.Of); !ok && len(n.Of) > 0 {
			continue
		}
		if near, _ := a.nearValue(n); near != nil && near.Start == m.Start || math.Abs(m.Value-n.Value) <= n.Tolerance || a.derived(m) {
			continue // the value itself (in another unit), written otherwise, or worked out from the values asked
		}
		unit := t.Tokens[p].Unit
		rival := clauses[unit]
		labelled := false
		for k := range t.Tokens {
			tok := t.Tokens[k]
			if tok.Unit != unit || !tok.Word || k == p {
				continue
			}
			w := strings.TrimSuffix(tok.Lower, "'s")
			switch {
			case a.slot[w]:
				rival = true
			case !a.accounted(w) || comparisonWords[w] && !a.vocab[w]:
				labelled = true
			}
		}
		if !rival && labelled {
			continue
		}
		st := a.state(Span{Start: m.Start, End: m.End}, func(x Number) bool { return x.Start == m.Start || a.ownNumber(x) })
		return &others[i], st.unclear == "" && !st.negated && !clauses[unit]
	}
	return nil, false
}
