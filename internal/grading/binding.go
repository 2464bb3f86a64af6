package grading

import (
	"regexp"
	"slices"
	"strings"
)

// Subjects are what values and terms of a text may belong to: named
// subjects, each by its spellings, and, when Symbols is set, every word
// shaped like a gene symbol or identifier (MECP2, NUTM2A, Mdm2, PALB2)
// that is not one of them and not in Known, and every variant written in
// HGVS or genomic notation ("c.188C>A", "chr9:99694175").
type Subjects struct {
	Named   [][]string
	Symbols bool
	// Known are lower-cased words that are never subjects of their own:
	// those of the question, which the answer may repeat freely.
	Known map[string]bool
}

// Mention is a subject named in a text.
type Mention struct {
	// Subject is the index of a named subject, or -1 for a symbol.
	Subject int
	// Name is the mention as written.
	Name  string
	Start int
	End   int
	token int
}

// symbolRE is a word shaped like a gene symbol or an accession: a capital,
// then letters and digits, at least one digit.
var symbolRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*[0-9][A-Za-z0-9]*$`)

// notSymbolRE are words of that shape that name no subject: protein
// changes (P63S, Pro63Ser), genome builds, chromosomes and versions.
var notSymbolRE = regexp.MustCompile(`^(?:[A-Z]\d+[A-Z]|[A-Z][a-z]{2}\d+(?:[A-Z][a-z]{2}|Ter|del|dup|fs)|(?i:grch|hg|chr|rs|nm|np|nc|ns|ver|v|build|exon|intron|phase)\d.*)$`)

// IsSymbol reports whether word is shaped like a gene symbol or an
// identifier that can be a subject: MECP2, NUTM2A, Mdm2, Q5VZR4.
func IsSymbol(word string) bool {
	return len(word) >= 3 && len(word) <= 15 && symbolRE.MatchString(word) && !notSymbolRE.MatchString(word) &&
		!accessionRE.MatchString(word)
}

// variantRE finds variants written in HGVS or genomic notation, which are
// subjects of their own beside gene symbols: "c.188C>A", "p.Arg175His",
// "chr9:99694175".
var variantRE = regexp.MustCompile(`\b(?:[cgnmr]\.[-*]?\d+(?:[-+]\d+)?[ACGTacgt]+>[ACGTacgt]+|p\.(?:\(` + protein + `\)|` + protein + `)|chr(?:\d{1,2}|X|Y):\d+)`)

// protein is a protein change: R175H, Arg175His, Arg175Ter.
const protein = `[A-Z](?:[a-z]{2})?\d+(?:[A-Z](?:[a-z]{2})?|Ter|\*|=|fs)`

// Variants returns the variants text writes in HGVS or genomic notation.
func Variants(text string) []string { return variantRE.FindAllString(text, -1) }

// accessionRE is an accession rather than a symbol: five digits in a row
// (ENSG00000188152).
var accessionRE = regexp.MustCompile(`\d{5}`)

// Mentions returns the mentions of subs in t, in order; a longer mention
// wins over a shorter one it overlaps ("likely benign" over "benign").
func (t *Text) Mentions(subs Subjects) []Mention {
	var all []Mention
	for i, spellings := range subs.Named {
		for _, sp := range spellings {
			for _, s := range Find(t.Raw, sp) {
				all = append(all, Mention{Subject: i, Name: t.Raw[s.Start:s.End], Start: s.Start, End: s.End})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b Mention) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return (b.End - b.Start) - (a.End - a.Start)
	})
	var out []Mention
	for _, m := range all {
		if len(out) > 0 && m.Start < out[len(out)-1].End {
			continue
		}
		out = append(out, m)
	}
	if subs.Symbols {
		named := map[int]bool{} // tokens within a named mention
		for _, m := range out {
			for k := t.TokenAt(m.Start); k < len(t.Tokens) && t.Tokens[k].Start < m.End; k++ {
				named[k] = true
			}
		}
		for i, tok := range t.Tokens {
			word := strings.TrimSuffix(strings.TrimSuffix(tok.Text, "'s"), "’s")
			if !tok.Word || named[i] || !IsSymbol(word) || subs.Known[strings.ToLower(word)] {
				continue
			}
			out = append(out, Mention{Subject: -1, Name: word, Start: tok.Start, End: tok.Start + len(word), token: i})
		}
		for _, loc := range variantRE.FindAllStringIndex(t.Raw, -1) {
			name := t.Raw[loc[0]:loc[1]]
			if subs.Known[strings.ToLower(name)] || slices.ContainsFunc(out, func(m Mention) bool {
				// within another mention, or right after one: "BRCA1's p.C61G"
				return m.Start < loc[1] && loc[0] < m.End || m.End <= loc[0] && strings.TrimLeft(t.Raw[m.End:loc[0]], "'’s ") == ""
			}) {
				continue
			}
			out = append(out, Mention{Subject: -1, Name: name, Start: loc[0], End: loc[1]})
		}
		slices.SortStableFunc(out, func(a, b Mention) int { return a.Start - b.Start })
	}
	for i := range out {
		out[i].token = t.TokenAt(out[i].Start)
	}
	return out
}

// linkers tie a value to the subject named right after it: "63.18 TPM in
// pancreas", "99 is the count for NUTM2A", "0.35 is MECP2's".
var linkers = wordSet("in", "for", "of", "at", "on", "from", "by", "to", "belongs", "belong", "belonging",
	"is", "are", "was", "were", "within")

// Owner returns the subject the words at byte offset start belong to, and
// false when no mention decides it. peers are the offsets of the other
// values of the text that are bound to subjects: a sentence that names
// several subjects and then as many values pairs them in order ("TP53 and
// BRCA1 are 7157 and 672"). Otherwise the clause decides: a subject named
// right after the value and tied to it ("0.35 is MECP2's", "104 in TP53"),
// else the nearest subject named before it in the clause, else the first
// named after it. When the clause names none, the subject last named
// before it in the text owns it ("For NUTM2G, the score is 0.35"); with
// clauseOnly, only when the clause refers back to its sentence ("0.66 TPM
// in liver, its highest tissue"). In a text that is JSON, the record the
// value sits in decides (see jsonShape.owner).
func (t *Text) Owner(start int, mentions []Mention, peers []int, clauseOnly bool) (Mention, bool) {
	p := t.TokenAt(start)
	if p >= len(t.Tokens) {
		return Mention{}, false
	}
	if t.data != nil {
		return t.data.owner(start, mentions)
	}
	if m, ok := t.parallel(p, mentions, peers); ok {
		return m, true
	}
	if m, ok := t.another(p); ok {
		return m, true
	}
	if m, ok := t.parenthesised(p, mentions); ok {
		return m, true
	}
	bind := t.Tokens[p].Bind
	var before, after []Mention
	for _, m := range mentions {
		if t.Tokens[m.token].Bind != bind || m.Start <= start && m.End > start {
			continue
		}
		if m.token < p {
			before = append(before, m)
		} else {
			after = append(after, m)
		}
	}
	if len(after) > 0 && t.tied(p, after[0].token) {
		return after[0], true
	}
	if len(before) > 0 {
		return before[len(before)-1], true
	}
	if len(after) > 0 {
		return after[0], true
	}
	if clauseOnly && !t.refersBack(p) {
		return Mention{}, false
	}
	// The subject last named: not one named in an aside (in parentheses)
	// or only to be set aside ("Unlike TP53, ...").
	var last Mention
	found := false
	for _, m := range mentions {
		if m.token < p && (!clauseOnly || t.Tokens[m.token].Sentence == t.Tokens[p].Sentence) &&
			t.Tokens[m.token].Paren <= t.Tokens[p].Paren && !t.Negated(m.Start, m.End) {
			last, found = m, true
		}
	}
	return last, found
}

// parenthesised returns the subject named in parentheses right after the
// value at tokens[p] ("0.35 (MECP2)", "0.35 TPM (for MECP2)").
func (t *Text) parenthesised(p int, mentions []Mention) (Mention, bool) {
	k := p + 1
	if k < len(t.Tokens) && t.Tokens[k].Word && !linkers[t.Tokens[k].Lower] {
		for _, m := range mentions {
			if m.token == k {
				return m, true // named right after it: "33 pathogenic (...)"
			}
		}
		k++ // a unit: "0.35 TPM (MECP2)"
	}
	if k >= len(t.Tokens) || t.Tokens[k].Text != "(" {
		return Mention{}, false
	}
	for _, m := range mentions {
		if m.token > k && m.token <= k+3 && t.Tokens[m.token].Paren == t.Tokens[k].Paren {
			return m, true
		}
	}
	return Mention{}, false
}

// refersBack reports whether the clause of tokens[p] begins with a word
// that refers to what the sentence named before: "its", "which", "it".
func (t *Text) refersBack(p int) bool {
	bind := t.Tokens[p].Bind
	first := p
	for first > 0 && t.Tokens[first-1].Bind == bind {
		first--
	}
	for ; first <= p; first++ {
		if t.Tokens[first].Word {
			return referring[t.Tokens[first].Lower]
		}
	}
	return false
}

var referring = wordSet("its", "it", "which", "whose", "this", "that", "where", "their", "they")

// another returns a mention of "another subject" when the value at
// tokens[p] is tied to one: "8.103 was reported for a different
// transcript", "99 is the count of another gene".
func (t *Text) another(p int) (Mention, bool) {
	bind := t.Tokens[p].Bind
	linked := false
	for k, words := p+1, 0; k < len(t.Tokens) && t.Tokens[k].Bind == bind && words < 6; k++ {
		tok := t.Tokens[k]
		if !tok.Word {
			continue
		}
		words++
		if linkers[tok.Lower] {
			linked = true
			continue
		}
		if linked && others[tok.Lower] {
			end := tok.End
			if k+1 < len(t.Tokens) && t.Tokens[k+1].Word {
				end = t.Tokens[k+1].End
			}
			return Mention{Subject: -1, Name: t.Raw[tok.Start:end], Start: tok.Start, End: end, token: k}, true
		}
	}
	return Mention{}, false
}

// others are words that name a subject other than the one asked about.
var others = wordSet("different", "another", "other", "separate", "unrelated", "neighbouring", "neighboring", "nearby")

// tied reports whether the mention at tokens[m] is tied to the value at
// tokens[p]: named right after it ("34 benign", "10,452 heterozygotes"),
// or within four words with a linking word between ("63.18 TPM in the
// pancreas", "0.35 is MECP2's").
func (t *Text) tied(p, m int) bool {
	words := 0
	linked := false
	for k := p + 1; k < m; k++ {
		tok := t.Tokens[k]
		if !tok.Word {
			if tok.Text == "," || tok.Text == ";" {
				return false // "65.1k, South ...": the next item of a list
			}
			continue
		}
		if words++; words > 4 {
			return false
		}
		linked = linked || linkers[tok.Lower]
	}
	return words == 0 || linked
}

// parallel pairs the value at tokens[p] with a subject when its sentence
// names n subjects, then n values (peers), in order.
func (t *Text) parallel(p int, mentions []Mention, peers []int) (Mention, bool) {
	sentence := t.Tokens[p].Sentence
	var ms []Mention
	for _, m := range mentions {
		if t.Tokens[m.token].Sentence == sentence {
			ms = append(ms, m)
		}
	}
	var vs []int
	for _, off := range peers {
		if i := t.TokenAt(off); i < len(t.Tokens) && t.Tokens[i].Sentence == sentence && !slices.Contains(vs, i) {
			vs = append(vs, i)
		}
	}
	slices.Sort(vs)
	if len(ms) < 2 || len(ms) != len(vs) || ms[len(ms)-1].token >= vs[0] {
		return Mention{}, false
	}
	seen := map[string]bool{}
	for _, m := range ms {
		key := strings.ToLower(m.Name)
		if m.Subject >= 0 {
			key = string(rune(m.Subject))
		}
		if seen[key] {
			return Mention{}, false
		}
		seen[key] = true
	}
	i := slices.Index(vs, p)
	if i < 0 {
		return Mention{}, false
	}
	return ms[i], true
}
