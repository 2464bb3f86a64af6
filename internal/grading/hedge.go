package grading

import (
	"math"
	"strings"
)

// hedgeWords offer a value as one possibility among others.
var hedgeWords = wordSet("possibly", "perhaps", "maybe", "might", "may", "could", "alternatively", "probably")

// HedgedTerm returns where the words at [start, end) are offered with an
// alternative beside them: "P63S or P63L", "either benign or damaging",
// "pathogenic or possibly benign". An "or" that ends a list ("BRCA1,
// BRCA2, TP53 or PALB2") or follows a comma ("MFS, or major facilitator")
// offers no alternative.
func (t *Text) HedgedTerm(start, end int) (Span, bool) {
	first, last := t.TokenAt(start), t.TokenAt(end-1)
	if first >= len(t.Tokens) {
		return Span{}, false
	}
	// "X or Y"
	if k := t.nextWord(last); k >= 0 && t.isOr(k) && !t.commaBefore(k) && !t.endsList(first) {
		if alt := t.nextWord(k); alt >= 0 {
			return Span{t.Tokens[first].Start, t.Tokens[alt].End}, true
		}
	}
	// "Y or X", "either Y or X"
	if k := t.prevWord(first); k >= 0 && t.isOr(k) && !t.commaBefore(k) && !t.endsList(k) {
		if alt := t.prevWord(k); alt >= 0 {
			return Span{t.Tokens[alt].Start, t.Tokens[last].End}, true
		}
	}
	return Span{}, false
}

// HedgedNumber returns where the number at [start, end) is offered with
// another number beside it: "0.027 or 0.27", "either 63.18 or 6.318",
// "between 8.103 and 81.03", "10,452–10,600", "8.103/81.03", "0.35
// (possibly 0.74)".
// other lists the numbers of the text that may be alternatives; expected
// tells those the reader expects besides this one, which a range may join
// ("residues 95 to 289") but "or" may not.
func (t *Text) HedgedNumber(start, end int, other []Number, expected func(Number) bool) (Span, bool) {
	p := t.TokenAt(start)
	if p >= len(t.Tokens) {
		return Span{}, false
	}
	for _, o := range other {
		q := t.TokenAt(o.Start)
		if q >= len(t.Tokens) || q == p || t.Tokens[q].Sentence != t.Tokens[p].Sentence || o.Start < end && start < o.End {
			continue
		}
		a, b := t.TokenAt(end-1), q
		if q < p {
			a, b = t.TokenAt(o.End-1), p
		}
		span := Span{min(start, o.Start), max(end, o.End)}
		between := t.wordsBetween(a, b)
		switch {
		case len(between) == 1 && (between[0] == "or" || between[0] == "and/or"):
			return span, true
		case len(between) == 2 && between[0] == "or" && hedgeWords[between[1]]:
			return span, true
		case expected(o) || !digits(t.Tokens[q].Text) || t.precision(q):
			continue
		case len(between) == 1 && between[0] == "to":
			return span, true
		case len(between) == 0 && (t.dashBetween(a, b) || t.slashBetween(a, b)) && near(t, p, q):
			return span, true
		case len(between) == 1 && between[0] == "and" && t.wordBefore(a, "between"):
			return span, true
		}
		// "0.35 (possibly 0.74)", "it may also be 0.74"
		if q > p {
			for k, words := q-1, 0; k > p && words < 3; k-- {
				if t.Tokens[k].Word {
					words++
					if hedgeWords[t.Tokens[k].Lower] {
						return span, true
					}
				}
			}
		}
	}
	return Span{}, false
}

// digits reports whether a word is written in digits.
func digits(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// precision reports whether the number at tokens[q] counts places, not a
// value: "to two decimal places", "to 3 significant digits".
func (t *Text) precision(q int) bool {
	for k := q + 1; k < len(t.Tokens) && k <= q+2; k++ {
		switch t.Tokens[k].Lower {
		case "decimal", "decimals", "places", "digits", "significant", "dp", "d.p":
			return true
		}
	}
	return false
}

// near reports whether two numbers are of a size: a range of alternatives
// (10,452–10,600), not two different things joined by a dash.
func near(t *Text, p, q int) bool {
	a, b := leadingValue(t.Tokens[p].Text), leadingValue(t.Tokens[q].Text)
	if a == 0 || b == 0 {
		return false
	}
	r := math.Abs(a / b)
	return r >= 1/10.5 && r <= 10.5
}

func leadingValue(s string) float64 {
	for _, n := range Numbers(s) {
		return n.Value
	}
	return 0
}

// wordsBetween returns the lower-cased words strictly between tokens a and
// b, or nil (with one "" word) when a clause or sentence ends between
// them.
func (t *Text) wordsBetween(a, b int) []string {
	var out []string
	for k := a + 1; k < b; k++ {
		tok := t.Tokens[k]
		if tok.Word {
			out = append(out, tok.Lower)
		} else if tok.Text != "/" && tok.Text != "-" && tok.Text != "–" && tok.Text != "—" {
			return []string{""}
		}
	}
	return out
}

func (t *Text) slashBetween(a, b int) bool {
	return b == a+2 && t.Tokens[a+1].Text == "/"
}

func (t *Text) dashBetween(a, b int) bool {
	for k := a + 1; k < b; k++ {
		switch t.Tokens[k].Text {
		case "-", "–", "—":
			return true
		}
	}
	return false
}

// wordBefore reports whether one of the two words before tokens[a] is w.
func (t *Text) wordBefore(a int, w string) bool {
	for k, words := a-1, 0; k >= 0 && words < 2; k-- {
		if t.Tokens[k].Word {
			words++
			if t.Tokens[k].Lower == w {
				return true
			}
		}
	}
	return false
}

// nextWord returns the index of the first word after tokens[i] in its
// sentence, with no mark but a dot, a hyphen, a slash or an asterisk
// between, or -1.
func (t *Text) nextWord(i int) int { return t.wordFrom(i, 1) }

// prevWord is nextWord backwards.
func (t *Text) prevWord(i int) int { return t.wordFrom(i, -1) }

func (t *Text) wordFrom(i, step int) int {
	for k := i + step; k >= 0 && k < len(t.Tokens) && t.Tokens[k].Sentence == t.Tokens[i].Sentence; k += step {
		if t.Tokens[k].Word {
			return k
		}
		if !strings.Contains(".-/*", t.Tokens[k].Text) {
			return -1
		}
	}
	return -1
}

func (t *Text) isOr(k int) bool {
	w := t.Tokens[k].Lower
	return w == "or" || w == "o" || w == "ou" || w == "oder" || w == "или"
}

// commaBefore reports whether a comma stands right before tokens[k].
func (t *Text) commaBefore(k int) bool {
	return k > 0 && t.Tokens[k-1].Text == ","
}

// endsList reports whether the words before tokens[k] are a list
// ("BRCA1, BRCA2, TP53 or ..."): a comma within the three words before.
func (t *Text) endsList(k int) bool {
	for j, words := k-1, 0; j >= 0 && words <= 3; j-- {
		if t.Tokens[j].Word {
			words++
			continue
		}
		if t.Tokens[j].Text == "," {
			return true
		}
		if t.isBreak(j) {
			return false
		}
	}
	return false
}
