package grading

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// outcome is what a check decides: pass and fail only when the reader is
// sure, undecided otherwise (the judge decides; without one the case is
// undecided).
type outcome int

const (
	undecided outcome = iota
	pass
	fail
)

// statement is how an answer states one occurrence of a term or value.
type statement struct {
	Span
	// negated is the occurrence's polarity, by the plain negations that
	// reach it.
	negated bool
	// unclear says why the occurrence is not stated plainly ("" when it
	// is): a word the reader cannot account for, a take-back in its
	// sentence, another value in its clause.
	unclear string
	// sentenceNegation: a plain negation stands in its sentence, whether
	// or not it reaches the occurrence ("OMIM has nothing for NUTM2G").
	sentenceNegation bool
}

// vocabulary returns the words of the case the reader accounts for in a
// clause: those of the question (but its take-backs, "or" in "benign or
// pathogenic?"), of the expected answer and of the case's checks, and the
// neutral words.
//
// Another form of such a word counts too ("expressed" for "expression"):
// the vocabulary holds the words and, under stemKey, their stems.
func vocabulary(c caseWords) map[string]bool {
	v := map[string]bool{}
	add := func(text string, takeBacksToo bool) {
		for _, w := range splitWordsOf(text) {
			if takeBacksToo || !takeBacks[w] && !comparisonWords[w] {
				v[w] = true
				if st := stem(w); st != "" {
					v[stemKey+st] = true
				}
			}
		}
	}
	add(c.question, false)
	for _, text := range c.own {
		add(text, true)
	}
	return v
}

// caseWords are the texts whose words a clause may repeat.
type caseWords struct {
	question string
	// own are the expected answer and the texts of the checks: terms,
	// subjects and units.
	own []string
}

// splitWordsOf returns the lower-cased words of text, a word split where
// it joins parts ("cadd_phred", "99694174C", "Pro63Ser" give their parts)
// and without a possessive "'s".
func splitWordsOf(text string) []string {
	var out []string
	for _, tok := range tokenize(text) {
		if tok.Word {
			out = append(out, wordParts(tok.Lower)...)
		}
	}
	return out
}

// wordParts splits a lower-cased word at underscores, hyphens and the
// borders of letters and digits, and drops a possessive ending; the word
// itself comes first.
func wordParts(w string) []string {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	out := []string{w}
	var part []rune
	kind := 0 // 1 letter, 2 digit
	flush := func() {
		if len(part) > 0 && string(part) != w {
			out = append(out, string(part))
		}
		part = part[:0]
	}
	for _, r := range w {
		k := 0
		switch {
		case unicode.IsLetter(r):
			k = 1
		case unicode.IsDigit(r):
			k = 2
		}
		if k == 0 || k != kind && kind != 0 {
			flush()
		}
		kind = k
		if k != 0 {
			part = append(part, r)
		}
	}
	flush()
	return out
}

// accounted reports whether a lower-cased word is one the reader accounts
// for: in the vocabulary, neutral, a number, or made of such parts joined
// by underscores or hyphens ("cadd_phred"). A word of letters and digits
// ("hg38", "NUTM2A") is accounted for only whole, or as a position glued
// to its bases ("99694174c") or a protein change ("pro63ser", "p63s") whose
// number the case states.
func (a *answer) accounted(w string) bool {
	parts := wordParts(w)
	whole := parts[0]
	if a.known(whole) || isDigits(whole) {
		return true
	}
	if len(parts) == 1 {
		return false
	}
	if m := gluedRE.FindStringSubmatch(whole); m != nil {
		return a.vocab[m[1]] && (bases(m[2]) && m[3] == "" || aminoAcidCode(m[2]) && aminoAcidCode(m[3]))
	}
	if m := proteinRE.FindStringSubmatch(whole); m != nil {
		return aminoAcidCode(m[1]) && a.vocab[m[2]] && aminoAcidCode(m[3])
	}
	for _, p := range parts[1:] {
		if !isDigits(p) && !a.known(p) || isDigits(p) && !strings.ContainsAny(whole, "_-") {
			return false
		}
	}
	return strings.ContainsAny(whole, "_-")
}

// gluedRE is a position glued to its bases ("99694174c") or a protein
// change without its first residue; proteinRE a protein change ("p63s",
// "pro63ser").
var (
	gluedRE   = regexp.MustCompile(`^(\d+)([a-z]+)()$`)
	proteinRE = regexp.MustCompile(`^([a-z]{1,3})(\d+)([a-z]{1,3})$`)
)

// aminoAcidCode reports whether a lower-cased word is an amino acid in one
// or three letters, or a stop.
func aminoAcidCode(w string) bool {
	return aminoAcid[w] || len(w) == 1 && strings.Contains("acdefghiklmnpqrstvwy*", w) || w == "fs" || w == "x"
}

// known reports whether a word is in the case's vocabulary, another form
// of one, or neutral.
func (a *answer) known(w string) bool {
	if a.vocab[w] || neutralWords[w] {
		return true
	}
	st := stem(w)
	return st != "" && a.vocab[stemKey+st] && !takeBacks[w] && !comparisonWords[w]
}

// stemKey marks a stem in a vocabulary (no word begins with it).
const stemKey = "\x00"

// stem returns a word without its inflectional or derivational ending
// ("expressed", "expression", "expresses" give "express"), or "" for a
// word too short to have one.
func stem(w string) string {
	if len(w) < 5 || !isLetters(w) {
		return ""
	}
	for _, suffix := range []string{"ations", "ation", "ions", "ion", "ings", "ing", "edly", "ed", "es", "s", "ly", "al", "ic", "er", "ers"} {
		if rest, ok := strings.CutSuffix(w, suffix); ok && len(rest) >= 4 {
			return rest
		}
	}
	return w
}

func isLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// aminoAcid holds the three-letter amino acid codes.
var aminoAcid = wordSet("ala", "arg", "asn", "asp", "cys", "gln", "glu", "gly", "his", "ile", "leu", "lys", "met",
	"phe", "pro", "ser", "thr", "trp", "tyr", "val", "ter", "sec", "pyl")

// bases reports whether a lower-cased word is a run of nucleotide bases.
func bases(w string) bool {
	return w != "" && strings.Trim(w, "acgt") == ""
}

// state reads how the answer states the occurrence at s. inSpan tells
// the tokens that belong to what is read (a regexp's match: its own
// negations are the pattern's); numbers tells whether a number token is
// one the clause may hold besides the occurrence (the question's, an
// identifier's part, a value of the case's checks).
func (a *answer) state(s Span, ownNumber func(Number) bool) statement {
	return a.stateOf(s, ownNumber, nil)
}

// stateMatch reads how the answer states a match of re at s: the words the
// pattern spells out are its own (its negations too); the others, what its
// wildcards took in, are read as the clause's. Numbers beside a pattern
// that asks for no value are no rivals of it.
func (a *answer) stateMatch(s Span, re *regexp.Regexp) statement {
	own := a.ownNumber
	if !asksValue(re) {
		own = a.anyNumber
	}
	return a.stateOf(s, own, func(k int) bool { return a.swallowed(re, k) })
}

// stateOf is state; with swallowed set, the words of s it reports are read
// as the clause's, not as what is read.
func (a *answer) stateOf(s Span, ownNumber func(Number) bool, swallowed func(k int) bool) statement {
	t := a.text
	st := statement{Span: s, negated: t.Negated(s.Start, s.End)}
	first := t.TokenAt(s.Start)
	if first >= len(t.Tokens) {
		st.unclear = "not found"
		return st
	}
	inside := func(k int) bool {
		tok := t.Tokens[k]
		if tok.Start < s.Start || tok.Start >= s.End {
			return false
		}
		return swallowed == nil || !tok.Word || !swallowed(k)
	}
	if swallowed != nil {
		for k := first; k < len(t.Tokens) && t.Tokens[k].Start < s.End; k++ {
			if tok := t.Tokens[k]; tok.Word && !inside(k) && (polarityWords[tok.Lower] || negators[tok.Lower]) {
				st.unclear = fmt.Sprintf("the match holds %s, which the pattern does not spell out, at %s", quote(tok.Text), quote(t.Snippet(s.Start, s.End, 70)))
				return st
			}
		}
	}
	at := func(k int) string { return quote(t.Snippet(t.Tokens[k].Start, t.Tokens[k].End, 60)) }
	// The sentence: a take-back anywhere in it.
	last := max(first, min(t.TokenAt(max(s.End-1, s.Start)), len(t.Tokens)-1))
	lo, hi := first, last
	for lo > 0 && t.Tokens[lo-1].Sentence == t.Tokens[first].Sentence {
		lo--
	}
	for hi+1 < len(t.Tokens) && t.Tokens[hi+1].Sentence == t.Tokens[last].Sentence {
		hi++
	}
	for k := lo; k <= hi; k++ {
		tok := t.Tokens[k]
		if !tok.Word || inside(k) {
			continue
		}
		if polarityWords[tok.Lower] || strings.HasSuffix(tok.Lower, "n't") || strings.HasSuffix(tok.Lower, "n’t") {
			st.sentenceNegation = true
		}
		if w := strings.TrimSuffix(tok.Lower, "'s"); takeBacks[w] && !a.vocab[w] && (w != "far" || k+1 < len(t.Tokens) && t.Tokens[k+1].Lower == "from") {
			st.unclear = fmt.Sprintf("its sentence says %s, which may take it back, at %s", quote(tok.Text), quote(t.Snippet(s.Start, s.End, 70)))
			return st
		}
		if strings.HasSuffix(tok.Lower, "n't") && (strings.HasPrefix(tok.Lower, "could") || strings.HasPrefix(tok.Lower, "would") ||
			strings.HasPrefix(tok.Lower, "should") || strings.HasPrefix(tok.Lower, "might")) {
			st.unclear = fmt.Sprintf("its sentence says %s, at %s", quote(tok.Text), quote(t.Snippet(s.Start, s.End, 70)))
			return st
		}
	}
	// In a list, a negated predicate after it may deny every item: "Drama,
	// Comedy are absent"; not "BRCA1, not BRCA2" nor "Drama, which is not
	// rare, leads", whose comma opens no further item.
	if k := last + 1; !st.negated && k+1 <= hi && t.Tokens[k].Text == "," && t.Tokens[k+1].Word && !clauseOpeners[t.Tokens[k+1].Lower] && t.negator(k+1) == 0 {
		for j := k + 1; j <= hi; j++ {
			if t.negator(j) > 0 {
				st.unclear = fmt.Sprintf("it stands in a list that %s may deny, at %s", quote(t.Tokens[j].Text), quote(t.Snippet(s.Start, t.Tokens[j].End, 70)))
				return st
			}
		}
	}
	// "Drama: none": given nothing.
	if k := last + 1; k+1 < len(t.Tokens) && labelMarks[t.Tokens[k].Text] && t.Tokens[k+1].Word && items[t.Tokens[k+1].Lower] {
		st.unclear = fmt.Sprintf("the answer gives it %s, at %s", quote(t.Tokens[k+1].Text), quote(t.Snippet(s.Start, t.Tokens[k+1].End, 70)))
		return st
	}
	// The sentence after it may take it back: "However, ...".
	for k := hi + 1; k < len(t.Tokens); k++ {
		if tok := t.Tokens[k]; tok.Word {
			if contrastOpeners[tok.Lower] {
				st.unclear = fmt.Sprintf("the next sentence begins %s, at %s", quote(tok.Text), quote(t.Snippet(s.Start, tok.End, 70)))
				return st
			}
			break
		}
	}
	// The clause (a colon or a table cell does not end it), and the asides
	// that stand right beside the occurrence ("7673802 (hg19)"): every word
	// accounted for; and in the list item, no other value.
	binds, units, asides := map[int]bool{}, map[int]bool{}, map[int]bool{}
	for k := first; k < len(t.Tokens) && t.Tokens[k].Start < s.End; k++ {
		binds[t.Tokens[k].Bind], units[t.Tokens[k].Unit] = true, true
	}
	holdsValue := func(aside int) bool {
		for _, tok := range t.Tokens {
			if tok.Aside == aside && isNumberToken(tok.Text) {
				return true
			}
		}
		return false
	}
	if k := last + 1; k < len(t.Tokens) && t.Tokens[k].Text == "(" && k+1 < len(t.Tokens) && !holdsValue(t.Tokens[k+1].Aside) {
		asides[t.Tokens[k+1].Aside] = true // "7673802 (hg19)"; not "96931892 (hg19 chr9:99694174)", a statement of its own
	}
	if k := first - 1; k > 0 && t.Tokens[k].Text == ")" && !holdsValue(t.Tokens[k-1].Aside) {
		asides[t.Tokens[k-1].Aside] = true
	}
	for k := lo; k <= hi; k++ {
		tok := t.Tokens[k]
		inClause := binds[tok.Bind] && tok.Aside == t.Tokens[first].Aside || tok.Aside > 0 && asides[tok.Aside]
		if !inClause || inside(k) {
			continue
		}
		if k < first && a.approximates(k, first) {
			continue // "~8.10", "about 63.2": within the tolerance, or it would not match
		}
		if !tok.Word {
			if qualifyingMarks[tok.Text] && (k == first-1 || k == last+1) && !a.inNotation(k) {
				st.unclear = fmt.Sprintf("its clause qualifies it with %s, at %s", quote(tok.Text), at(k))
				return st
			}
			continue
		}
		w := tok.Lower
		switch {
		case polarityWords[w] || strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "n’t"):
			continue // the statement's polarity
		case isNumberToken(tok.Text) || numberWord(w):
			n, ok := a.numberAt(tok.Start)
			if ok && (units[tok.Unit] || asides[tok.Aside]) && !ownNumber(n) && !a.identifierPart(n) && !a.questionNumber(n) && w != "one" {
				st.unclear = fmt.Sprintf("its clause gives another value, %s, at %s", quote(t.Raw[n.Start:n.End]), quote(t.Snippet(min(s.Start, n.Start), max(s.End, n.End), 70)))
				return st
			}
		case qualifierWords[strings.TrimSuffix(w, "'s")]:
			if !a.expectedWord(w) {
				st.unclear = fmt.Sprintf("its clause qualifies it by %s, which the expected answer does not, at %s", quote(tok.Text), at(k))
				return st
			}
		case comparisonWords[w] && !a.vocab[w]:
			st.unclear = fmt.Sprintf("its clause compares it (%s), at %s", quote(tok.Text), at(k))
			return st
		case !a.accounted(w):
			st.unclear = fmt.Sprintf("its clause also says %s, which the checks cannot account for, at %s", quote(tok.Text), quote(t.Snippet(s.Start, s.End, 70)))
			return st
		}
	}
	if a.failure != "" {
		st.unclear = a.failure
	}
	return st
}

// clauseOpeners begin, after a comma, a clause of its own rather than
// the next item of a list.
var clauseOpeners = wordSet("which", "who", "whom", "whose", "that", "where", "when", "while", "although", "though",
	"because", "since", "as", "but", "so", "and", "or", "yet", "unlike", "if", "unless")

// labelMarks set a label apart from its value: "Drama: none".
var labelMarks = wordSet(":", "-", "–", "—", "=")

// qualifyingMarks qualify the value right beside them: "< 0.05", "±2",
// "~8.1" (a match within the tolerance already took "~" and "≈" in, see
// approximates).
var qualifyingMarks = wordSet("~", "≈", "±", "<", ">", "≤", "≥", "+/-")

// approximates reports whether the tokens from k up to the occurrence at
// tokens[first] mark it as an approximation: "~", "≈", "about",
// "approximately". A value that matches is within its tolerance, so the
// mark takes nothing back.
func (a *answer) approximates(k, first int) bool {
	t := a.text
	for j := k; j < first; j++ {
		tok := t.Tokens[j]
		if !approximations[tok.Lower] {
			return false
		}
	}
	return first-k <= 2
}

// approximations mark a value as approximate.
var approximations = wordSet("~", "≈", "about", "approximately", "approx", "around", "roughly", "circa", "ca", "nearly", ".")

// expectedWord reports whether the expected answer gives a qualifier (or
// another spelling of it) in the statements its checks read: a qualifier
// the question names, or one the expected answer gives elsewhere, may not
// be the one the value is due ("hg19" asked, "hg38" due).
func (a *answer) expectedWord(w string) bool {
	w = strings.TrimSuffix(w, "'s")
	own := a.slotQualifiers
	if len(own) == 0 {
		own = a.own // checks that read nothing of the expected answer
	}
	if own[w] {
		return true
	}
	for _, same := range sameQualifier[w] {
		if own[same] {
			return true
		}
	}
	return false
}

// numberWord reports whether a lower-cased word writes a number ("nine",
// "forty", "hundred").
func numberWord(w string) bool {
	_, unit := smallNumbers[w]
	_, ten := tens[w]
	return unit || ten || w == "hundred" || w == "thousand" || w == "million"
}

// isNumberToken reports whether a word token is written in digits.
func isNumberToken(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r >= '0' && r <= '9'
}

// numberAt returns the longest number that begins at byte offset off.
func (a *answer) numberAt(off int) (Number, bool) {
	var best Number
	found := false
	for _, n := range a.numbers {
		if n.Start == off && (!found || n.End > best.End) {
			best, found = n, true
		}
	}
	return best, found
}

// inNotation reports whether the mark at tokens[k] is part of a variant's
// notation ("C>T").
func (a *answer) inNotation(k int) bool {
	t := a.text
	return k > 0 && k+1 < len(t.Tokens) && t.Tokens[k-1].End == t.Tokens[k].Start && t.Tokens[k].End == t.Tokens[k+1].Start
}

// identifierPart reports whether a number is part of an identifier rather
// than a value: glued to a letter or to a mark that joins identifiers
// ("c.187C>T", "chr9:99694174", "PolyPhen-2", "NM_001045477.4", "HP:0001878",
// "rs12345"), or a run of five digits or more (an accession or position).
func (a *answer) identifierPart(n Number) bool {
	text := a.text.Raw
	before, _ := utf8.DecodeLastRuneInString(text[:n.Start])
	after, _ := utf8.DecodeRuneInString(text[n.End:])
	if unicode.IsLetter(before) || before == '_' || unicode.IsLetter(after) || after == '_' {
		return true
	}
	if before == ':' || before == '.' || before == '-' || before == '/' {
		b2, _ := utf8.DecodeLastRuneInString(text[:n.Start-1])
		if unicode.IsLetter(b2) || unicode.IsDigit(b2) {
			return true
		}
	}
	if after == ':' {
		return true // "9:99694174"
	}
	// A number that a word names as an identifier: "chromosome 7", "exon 3",
	// "gnomAD v2", "Entrez Gene 675".
	if p := a.text.TokenAt(n.Start); p < len(a.text.Tokens) {
		for k := p - 1; k >= 0 && k >= p-2; k-- {
			if tok := a.text.Tokens[k]; tok.Word {
				if identifierWords[tok.Lower] {
					return true
				}
				break
			}
		}
	}
	lit := text[n.Start:n.End]
	if isDigits(lit) && len(lit) == 4 && n.Value >= 1800 && n.Value <= 2100 {
		return true // a year
	}
	if isDigits(lit) && rowLabel(text, n.Start, n.End) {
		return true
	}
	return n.Value == math.Trunc(n.Value) && len(lit) >= 5 && isDigits(lit)
}

// rowLabelRE is a line that begins with a row label: an integer set apart
// from the row by two spaces or more, as a table printed by pandas shows
// its index.
var rowLabelRE = regexp.MustCompile(`(?m)^[ \t]*\d+[ \t]{2,}\S`)

// rowLabel reports whether the integer at text[start:end] labels a row of a
// printed table: it begins its line, and another line begins so too.
func rowLabel(text string, start, end int) bool {
	lineStart := strings.LastIndexByte(text[:start], '\n') + 1
	if strings.TrimSpace(text[lineStart:start]) != "" || !strings.HasPrefix(text[end:], "  ") {
		return false
	}
	return len(rowLabelRE.FindAllStringIndex(text, 3)) >= 2
}

// identifierWords name the number after them as an identifier.
var identifierWords = wordSet("chromosome", "chr", "exon", "exons", "intron", "introns", "build", "version", "release",
	"v", "isoform", "entrez", "id", "mim", "omim", "pmid", "pubmed", "geneid", "taxon", "taxid", "gene", "hgnc",
	"rs", "dbsnp", "accession", "phase", "class", "tier", "grade", "type", "step", "table", "figure")

// questionNumber reports whether the question states the number too.
func (a *answer) questionNumber(n Number) bool {
	for _, q := range a.questionNumbers {
		if q == n.Value {
			return true
		}
	}
	return false
}

// agentFailure returns why an answer reports a failure of its own lookup
// ("I could not find", "the tool returned an error"), which takes back
// any value it then gives, or "".
func agentFailure(t *Text) string {
	for i, tok := range t.Tokens {
		if !tok.Word {
			continue
		}
		w := tok.Lower
		failed := w == "unable" || w == "couldn't" || w == "could" && i+1 < len(t.Tokens) && t.Tokens[i+1].Lower == "not" ||
			w == "cannot" || w == "can't" || w == "failed" || w == "unavailable" || w == "error"
		if !failed {
			continue
		}
		// The failure must be the lookup's: its sentence speaks of "I",
		// "we" or the tools.
		for _, o := range t.Tokens {
			if o.Sentence != tok.Sentence || !o.Word {
				continue
			}
			switch o.Lower {
			case "i", "we", "my", "our", "tool", "tools", "lookup", "query", "search", "server", "api", "request", "call", "function":
				return fmt.Sprintf("the answer reports a failed lookup, at %s", quote(t.Snippet(tok.Start, tok.End, 70)))
			}
		}
	}
	return ""
}
