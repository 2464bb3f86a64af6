package grading

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text is a text split into tokens, clauses and sentences.
type Text struct {
	Raw    string
	Tokens []Token
	// data is the structure of a text that is JSON, nil for prose.
	data *jsonShape
}

// Token is a word (letters, digits and underscores, with apostrophes and
// decimal marks inside: "isn't", "MECP2's", "8.103", "10,452") or a single
// mark.
type Token struct {
	Start, End int // byte offsets in Raw
	Text       string
	Lower      string
	Word       bool
	// Sentence and Clause number the token's sentence and clause (a
	// negation's scope ends with its clause). Bind numbers its clause for
	// attributing values to subjects, which a colon or a dash does not end
	// ("Tclin: TP53").
	Sentence, Clause, Bind int
	// Question is true for a token of a sentence that ends in "?": it
	// asks, and states nothing.
	Question bool
	// Paren is how many parentheses or brackets enclose the token.
	Paren int
	// Quoted numbers the quotation the token stands in (0 outside any):
	// a negation inside quotation marks ("'not constrained' means the
	// same") negates nothing outside them.
	Quoted int
	// Unit numbers the stretch a statement makes: its clause as Bind
	// numbers it, with an aside in parentheses or brackets left out
	// ("BRCA1 (Entrez 672) has 15.96 TPM" is one unit; the aside has
	// units of its own), each item of a list apart ("Engineering 135500,
	// Finance 99222") and a spaced hyphen inside ("Brain - Cerebellum").
	// Host is the unit an aside interrupts (a token's own unit outside
	// asides); Aside numbers the innermost aside a token stands in (0
	// outside).
	Unit, Host, Aside int
}

// Parse splits text into tokens and numbers their clauses and sentences.
func Parse(text string) *Text {
	t := &Text{Raw: text, Tokens: tokenize(text)}
	t.number()
	t.quotations()
	t.data, _ = scanJSON(text)
	return t
}

// IsWordRune reports whether r belongs in a word: a letter, a digit or an
// underscore.
func IsWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// tokenize splits s into words and marks; white space separates.
func tokenize(s string) []Token {
	var out []Token
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			out = append(out, mark(s, i, size))
			i += size
		case unicode.IsSpace(r):
			i += size
		case IsWordRune(r):
			j := i + size
			for j < len(s) {
				r2, n := utf8.DecodeRuneInString(s[j:])
				if IsWordRune(r2) || joinsWord(s, j, r2, n) {
					j += n
					continue
				}
				break
			}
			out = append(out, Token{Start: i, End: j, Text: s[i:j], Lower: strings.ToLower(s[i:j]), Word: true})
			i = j
		default:
			out = append(out, mark(s, i, size))
			i += size
		}
	}
	return out
}

// joinsWord reports whether the mark r at s[j:j+n] joins the word before
// it to the one after: an apostrophe between letters ("isn't", "MECP2's",
// "n'est") or a decimal mark between digits ("8.103", "10,452").
func joinsWord(s string, j int, r rune, n int) bool {
	if j == 0 || j+n >= len(s) {
		return false
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:j])
	next, _ := utf8.DecodeRuneInString(s[j+n:])
	switch r {
	case '\'', '’':
		return IsWordRune(prev) && unicode.IsLetter(next)
	case '.', ',':
		return unicode.IsDigit(prev) && unicode.IsDigit(next)
	}
	return false
}

func mark(s string, i, size int) Token {
	return Token{Start: i, End: i + size, Text: s[i : i+size], Lower: s[i : i+size]}
}

// breaksClause reports whether the mark at tokens[i] ends a clause, and
// whether it ends the sentence. A period, comma or colon ends one only
// before white space or the end ("p.P63S", "10,452" and "chr9:99694174"
// go on); a comma that continues a list ("not BRCA1, BRCA2 or TP53") does
// not.
func (t *Text) breaksClause(i int) (clause, sentence bool) {
	tok := t.Tokens[i]
	if tok.Word {
		return false, false
	}
	spaced := tok.End >= len(t.Raw)
	if !spaced {
		r, _ := utf8.DecodeRuneInString(t.Raw[tok.End:])
		spaced = unicode.IsSpace(r) || strings.ContainsRune(`"'”’)]*_`, r)
	}
	switch tok.Text {
	case "\n", "!", "?", ";", "。", "！", "？", "；", "؟", "؛", "।":
		return true, true
	case ".":
		return spaced, spaced
	case ",", "，", "、", "،":
		return spaced && !t.continuesList(i), false
	case ":", "：":
		return spaced, false
	case "(", ")", "[", "]", "—", "–", "|", "•", "=", "≠":
		return true, false
	case "-":
		// a spaced hyphen is a dash: "No - wrong gene"
		before := tok.Start > 0 && unicode.IsSpace(rune(t.Raw[tok.Start-1]))
		return before && spaced, false
	}
	return false, false
}

// continuesList reports whether the comma at tokens[i] separates items of
// a list: a few words, none a verb or pronoun, then another comma, "or",
// "and" or "nor".
func (t *Text) continuesList(i int) bool {
	words := 0
	for j := i + 1; j < len(t.Tokens); j++ {
		tok := t.Tokens[j]
		if !tok.Word {
			return words > 0 && tok.Text == ","
		}
		if listEnds[tok.Lower] {
			return words > 0
		}
		if clauseWords[tok.Lower] || auxiliaries[tok.Lower] || pronouns[tok.Lower] {
			return false
		}
		if words++; words > 3 {
			return false
		}
	}
	return false
}

var listEnds = map[string]bool{"or": true, "and": true, "nor": true}

// number numbers the tokens' clauses and sentences and marks questions.
func (t *Text) number() {
	sentence, clause, bind, paren := 0, 0, 0, 0
	unit, next := 0, 1 // the unit of the current stretch, the next unit number
	var outer []int    // the units an opening parenthesis interrupted
	var asides []int   // the asides open, innermost last
	asideNext := 1
	newUnit := func() { unit, next = next, next+1 }
	host := func() int {
		if len(outer) > 0 {
			return outer[0]
		}
		return unit
	}
	start := 0 // first token of the current sentence
	for i := range t.Tokens {
		tok := &t.Tokens[i]
		switch tok.Text {
		case "(", "[":
			paren++
			outer = append(outer, unit)
			newUnit()
			asides = append(asides, asideNext)
			asideNext++
		case ")", "]":
			paren = max(0, paren-1)
			if len(outer) > 0 {
				unit, outer = outer[len(outer)-1], outer[:len(outer)-1]
			}
			if len(asides) > 0 {
				asides = asides[:len(asides)-1]
			}
		}
		tok.Paren = paren
		if len(asides) > 0 {
			tok.Aside = asides[len(asides)-1]
		}
		tok.Unit, tok.Host = unit, host()
		if tok.Word && i > 0 && t.startsClause(i) {
			clause++
			bind++
			newUnit()
			tok.Unit, tok.Host = unit, host()
		}
		tok.Sentence, tok.Clause, tok.Bind = sentence, clause, bind
		c, s := t.breaksClause(i)
		if c {
			clause++
			if !bindGoesOn[tok.Text] {
				bind++
				if !strings.Contains("()[]-|", tok.Text) {
					newUnit()
				}
			}
		} else if (tok.Text == "," || tok.Text == ";") && i+1 < len(t.Tokens) && t.Tokens[i+1].Word && !isNumberToken(t.Tokens[i+1].Text) {
			newUnit() // the next item of a list ("Engineering 135500, Finance 99222"), not a value set apart ("score, 33.656")
		}
		if s {
			outer, asides = outer[:0], asides[:0]
			if tok.Text == "?" || tok.Text == "？" {
				for j := start; j <= i; j++ {
					t.Tokens[j].Question = true
				}
			}
			sentence++
			start = i + 1
		}
	}
}

// quotations numbers the quotations: the words between an opening and a
// closing quotation mark on one line.
func (t *Text) quotations() {
	open, id := -1, 0
	var mark string
	for i, tok := range t.Tokens {
		switch {
		case tok.Text == "\n":
			open = -1
		case open < 0 && isOpeningQuote(tok.Text):
			open, mark = i, tok.Text
		case open >= 0 && closes(mark, tok.Text):
			id++
			for k := open + 1; k < i; k++ {
				t.Tokens[k].Quoted = id
			}
			open = -1
		}
	}
}

func isOpeningQuote(s string) bool {
	return s == "'" || s == `"` || s == "“" || s == "‘" || s == "«" || s == "„"
}

func closes(open, s string) bool {
	switch open {
	case "“":
		return s == "”"
	case "‘":
		return s == "’"
	case "«":
		return s == "»"
	case "„":
		return s == "“" || s == "”"
	}
	return s == open
}

// bindGoesOn are the marks that end a clause but not the stretch in which
// a value is attributed to a subject: "Tclin: TP53", "99 variants — in
// NUTM2A", the cells of a table's row ("| TP53 | 7157 |").
var bindGoesOn = map[string]bool{":": true, "：": true, "=": true, "—": true, "–": true, "|": true}

// clauseWords begin a clause of their own: contrasts and subordinate
// clauses.
var clauseWords = map[string]bool{
	"but": true, "however": true, "whereas": true, "while": true, "although": true, "though": true, "yet": true,
	"which": true, "who": true, "whose": true, "where": true, "because": true, "since": true, "so": true,
	"therefore": true, "thus": true, "hence": true, "versus": true, "vs": true, "whilst": true, "if": true, "unless": true,
	"than": true, "when": true, "whereby": true, "meaning": true,
	"pero": true, "sino": true, "mais": true, "aber": true, "sondern": true, "mas": true, "ma": true, "maar": true, "но": true,
}

var auxiliaries = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "being": true, "am": true,
	"does": true, "do": true, "did": true, "has": true, "have": true, "had": true, "can": true, "could": true,
	"will": true, "would": true, "shall": true, "should": true, "may": true, "might": true, "must": true,
	"appears": true, "seems": true, "gets": true,
}

var pronouns = map[string]bool{
	"it": true, "its": true, "they": true, "this": true, "that": true, "these": true, "those": true, "there": true,
	"he": true, "she": true, "we": true, "i": true, "you": true, "then": true, "also": true,
}

// relationVerbs say how an answer relates to another: "and matches".
var relationVerbs = wordSet("matches", "agrees", "aligns", "corresponds", "meets", "satisfies", "confirms", "contradicts",
	"conflicts", "differs", "misses", "omits", "lacks", "fails")

// startsClause reports whether the word at tokens[i] begins a new clause:
// a contrast or subordinating word ("but", "whereas", "which"), or "and"
// and "or" before a verb or a pronoun ("and does not", "and it", "and
// gives").
func (t *Text) startsClause(i int) bool {
	w := t.Tokens[i].Lower
	if w == "than" && i > 0 && (t.Tokens[i-1].Lower == "rather" || t.Tokens[i-1].Lower == "other") {
		return false
	}
	if clauseWords[w] {
		return true
	}
	if (w == "and" || w == "or") && i+1 < len(t.Tokens) {
		next := t.Tokens[i+1].Lower
		return auxiliaries[next] || pronouns[next] || strings.HasSuffix(next, "n't") || negators[next] && !lexicalNegators[next] ||
			contentVerbs[next] || relationVerbs[next]
	}
	return false
}

// TokenAt returns the index of the token that holds byte offset off, or
// of the first token after it; len(Tokens) past the end.
func (t *Text) TokenAt(off int) int {
	return sort.Search(len(t.Tokens), func(i int) bool { return t.Tokens[i].End > off })
}

// Snippet returns the text around [start, end), at most about width
// characters, on one line, with "…" where it was cut.
func (t *Text) Snippet(start, end, width int) string {
	return Snippet(t.Raw, start, end, width)
}

// Snippet returns the text around s[start:end], at most about width
// characters, on one line, with "…" where it was cut.
func Snippet(s string, start, end, width int) string {
	from, to := start, end
	for budget := width - (end - start); budget > 0 && (from > 0 || to < len(s)); budget-- {
		if budget%2 == 0 && from > 0 {
			_, n := utf8.DecodeLastRuneInString(s[:from])
			from -= n
		} else if to < len(s) {
			_, n := utf8.DecodeRuneInString(s[to:])
			to += n
		} else if from > 0 {
			_, n := utf8.DecodeLastRuneInString(s[:from])
			from -= n
		}
	}
	out := strings.Join(strings.Fields(s[from:to]), " ")
	if from > 0 {
		out = "…" + out
	}
	if to < len(s) {
		out += "…"
	}
	return out
}
