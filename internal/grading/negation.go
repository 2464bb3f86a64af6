package grading

import "strings"

// negators are the words that take back what follows them in their
// clause, in the languages answers and judges write in. A negator counts
// once: "neither A nor B" negates each of A and B once.
var negators = wordSet(
	// English
	"not", "no", "never", "none", "nothing", "nobody", "nowhere", "neither", "nor", "cannot", "without", "zero",
	"lack", "lacks", "lacking", "lacked", "absent", "absence", "missing", "shortage", "excluding", "except",
	"unlike", "non", "nope",
	// Spanish, Portuguese, Italian, French, German, Dutch, Russian, Polish
	"nunca", "ni", "ningún", "ninguna", "ninguno", "nada", "nadie", "sin", "tampoco",
	"não", "nao", "nenhum", "nenhuma", "sem", "nem",
	"non", "mai", "nessun", "nessuno", "nessuna", "niente", "nulla", "senza", "né",
	"ne", "pas", "jamais", "aucun", "aucune", "rien", "sans",
	"nicht", "kein", "keine", "keinen", "keiner", "keines", "keinem", "nie", "niemals", "nichts", "ohne", "weder",
	"niet", "geen", "nooit", "niets", "zonder",
	"не", "нет", "ни", "никогда", "ничего", "без", "nigdy", "żaden", "żadna", "bez",
	// Hindi, Arabic, Hebrew, Vietnamese, Indonesian, Turkish
	"नहीं", "न", "لا", "ليس", "ليست", "لم", "لن", "לא", "אין", "không", "chẳng", "tidak", "bukan", "değil", "yok",
)

// concord words join a negation already under way instead of undoing it:
// "neither A nor B", French "ne ... pas", Spanish "no hay ningún error".
var concord = wordSet("nor", "pas", "jamais", "rien", "aucun", "aucune", "nada", "nunca", "ningún", "ninguna", "ninguno",
	"nadie", "ni", "tampoco", "nenhum", "nenhuma", "nem", "niente", "nulla", "nessuno", "nessuna", "mai", "né",
	"ничего", "никогда", "ни", "żaden", "żadna", "nigdy", "nichts", "niets")

// negatorPhrases take back what follows them: "rather than X", "instead
// of X", "other than X".
var negatorPhrases = phraseList(
	"rather than", "instead of", "other than", "as opposed to", "apart from", "aside from", "fails to", "failed to",
	"fail to", "unable to", "no longer", "free of", "devoid of", "en lugar de", "au lieu de", "statt", "anstatt",
	"em vez de", "invece di", "в отличие от",
)

// idioms hold a negator that negates nothing: "not only", "no doubt".
var idioms = phraseList(
	"not only", "not just", "not merely", "not simply", "not least", "no doubt", "no question", "no wonder",
	"no surprise", "not surprising", "not surprisingly", "no matter", "without doubt", "without a doubt",
	"no less", "not to mention", "nothing but", "cannot but", "no sooner", "none other", "no other", "nothing else",
)

// interjections are negators that, directly before a clause's end, answer
// a question instead of negating: "No, it is benign."
var interjections = wordSet("no", "nope", "non", "nein", "não", "nao", "нет", "nie", "nee", "नहीं", "لا", "לא", "không", "tidak", "hayır")

// scope is how many words back a negator reaches within its clause.
const scope = 12

// negator returns how many tokens the negator at tokens[i] spans (a phrase
// spans several), or 0 when tokens[i] begins no negator: an idiom ("not
// only"), an interjection ("No, ..."), or no negative word at all.
func (t *Text) negator(i int) int {
	tok := t.Tokens[i]
	if !tok.Word {
		return 0
	}
	if phraseAt(t.Tokens, i, idioms) > 0 {
		return 0
	}
	if n := phraseAt(t.Tokens, i, negatorPhrases); n > 0 {
		return n
	}
	w := tok.Lower
	switch {
	case negators[w]:
	case strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "n’t"):
	case strings.HasPrefix(w, "n'") || strings.HasPrefix(w, "n’"): // French n'est, n'a
	default:
		return 0
	}
	if interjections[w] && (i+1 == len(t.Tokens) || t.endsClauseAt(i+1)) {
		return 0
	}
	if items[w] && (i+1 == len(t.Tokens) || itemEnds[t.Tokens[i+1].Text] || t.endsClauseAt(i+1)) {
		return 0 // "Genres: None, Drama, Comedy": an item of a list, a value
	}
	return 1
}

// items are negators that, set apart by a mark right after them, stand as
// a value of their own ("None, Drama, Comedy", "inhibitors: none;") and
// take back nothing that follows.
var itemEnds = wordSet(",", ";", ":", "(", ")", "[", "]")

var items = wordSet("none", "nothing", "nobody", "zero", "nil", "null", "nada", "keine", "aucun", "aucune", "rien", "nenhum", "ninguno")

// endsClauseAt reports whether tokens[i] ends the clause of the token
// before it.
func (t *Text) endsClauseAt(i int) bool {
	return i < len(t.Tokens) && (t.Tokens[i].Clause != t.Tokens[i-1].Clause || !t.Tokens[i].Word && t.isBreak(i))
}

func (t *Text) isBreak(i int) bool {
	c, _ := t.breaksClause(i)
	return c
}

// Negated reports whether the words at byte offsets [start, end) are
// taken back: an odd number of negations reach them. A negation reaches
// the words after its negator in the same clause ("STRING has no record
// of an interaction", "not p.P63S", "rather than 0.35"), and a verb's
// negation reaches its subject too ("VIRMA is not connected", "TP53 does
// not appear"). Two negations cancel ("no partner other than VIRMA"). A
// negator inside [start, end) belongs to what is read, not to its
// context.
func (t *Text) Negated(start, end int) bool {
	first := t.TokenAt(start)
	if first >= len(t.Tokens) {
		return false
	}
	return t.negations(first, start, end)%2 == 1
}

// negations counts the negations that reach tokens[first], leaving out
// negators between the byte offsets start and end.
func (t *Text) negations(first, start, end int) int {
	clause := t.Tokens[first].Clause
	// Negators before the span, within its clause.
	var before []int
	words := 0
	for j := first - 1; j >= 0 && t.Tokens[j].Clause == clause && words < scope; j-- {
		if t.Tokens[j].Word {
			words++
		}
		before = append(before, j)
	}
	n := 0
	negated := false // a negation is under way (for concord words)
	for k := len(before) - 1; k >= 0; k-- {
		j := before[k]
		m := t.negator(j)
		if m == 0 || t.Tokens[j].Start >= start && t.Tokens[j].Start < end {
			continue
		}
		if q := t.Tokens[j].Quoted; q != 0 && q != t.Tokens[first].Quoted {
			continue // a negation quoted negates nothing outside its quotation
		}
		if concord[t.Tokens[j].Lower] && negated {
			continue
		}
		n++
		negated = true
		k -= m - 1 // a phrase's other words
	}
	if t.predicateNegated(first, clause, end) {
		n++
	}
	return n
}

// predicateNegated reports whether the verb that follows the subject at
// tokens[first] in its clause denies it: "MECP2 and CDKL5 are not",
// "Ivacaftor isn't approved", "TP53 does not appear", "cep-1 is not the
// ortholog", "TP53 is missing". A negated verb that comments on the
// subject instead ("a score of 8.103 does not suggest pathogenicity", "8.103
// is not high") leaves it stated.
func (t *Text) predicateNegated(first, clause, end int) bool {
	for j := first; j < len(t.Tokens) && t.Tokens[j].Clause == clause && j < first+10; j++ {
		tok := t.Tokens[j]
		if tok.Start < end || !tok.Word {
			continue
		}
		w := tok.Lower
		if strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "n’t") || w == "cannot" {
			return t.negator(j) > 0 && t.denies(j+1, clause, t.isValue(first))
		}
		if auxiliaries[w] {
			// the first verb decides: "is not", "does not", "is never", "is missing"
			for k := j + 1; k < len(t.Tokens) && k <= j+2 && t.Tokens[k].Clause == clause; k++ {
				next := t.Tokens[k].Lower
				if next == "missing" || next == "absent" {
					return t.negator(k) > 0
				}
				if next == "not" || next == "never" || next == "neither" {
					return t.negator(k) > 0 && t.denies(k+1, clause, t.isValue(first))
				}
				if (w == "has" || w == "have" || w == "had") && (next == "no" || next == "none" || next == "nothing") && j <= t.TokenAt(end)+1 {
					return true // "BRCA2 has none", "TP53 has no approved drugs"
				}
				if !adverbs[next] {
					break
				}
			}
			return false
		}
	}
	return false
}

// denies reports whether the predicate from tokens[i] on, after a
// negation, denies its subject: nothing more ("are not."), an identity
// ("not the ortholog") or a verb of being, listing or relation ("not
// listed", "not connected", "not among").
// A comparison denies a named subject ("Engineering is not above 90%")
// but only compares a value ("8.103 is not above 20").
func (t *Text) denies(i, clause int, value bool) bool {
	for k := i; k < len(t.Tokens) && t.Tokens[k].Clause == clause; k++ {
		w := t.Tokens[k].Lower
		if !t.Tokens[k].Word || adverbs[w] || w == "be" || w == "been" || w == "being" {
			continue
		}
		return denials[w] || !value && comparisons[w] || strings.HasSuffix(w, "ed") && !commentVerbs[w]
	}
	return true
}

// comparisons after a negated verb deny a named subject its place.
var comparisons = wordSet("above", "over", "beyond", "below", "under", "within", "higher", "lower", "greater",
	"more", "less", "larger", "smaller", "exceeding", "exceed", "exceeds", "reach", "reaches")

// isValue reports whether tokens[i] is a number.
func (t *Text) isValue(i int) bool {
	return i < len(t.Tokens) && len(Numbers(t.Tokens[i].Text)) > 0 && digits(t.Tokens[i].Text)
}

// denials are the words after a negated verb that deny its subject.
var denials = wordSet("the", "a", "an", "one", "its", "their", "part", "among", "in", "on", "listed", "found", "present",
	"associated", "linked", "connected", "interact", "interacts", "interacting", "included", "involved", "reported",
	"classified", "expressed", "approved", "annotated", "known", "mentioned", "observed", "seen", "recorded",
	"detected", "appear", "appears", "exist", "exists", "belong", "belongs", "carry", "carries", "have", "has",
	"contain", "contains", "show", "shows", "map", "maps", "lie", "lies", "fall", "falls", "correspond", "corresponds",
	"match", "matches", "cause", "causes", "target", "targets", "bind", "binds", "encode", "encodes", "there",
	"true", "correct", "right", "valid", "available", "pathogenic", "benign", "damaging", "tolerant", "intolerant",
	"tolerated", "expressed")

// commentVerbs end in -ed but comment on their subject instead of denying
// it: "8.103 is not considered high".
var commentVerbs = wordSet("considered", "regarded", "expected", "needed", "required", "deemed", "supposed", "intended",
	"used", "based", "limited", "restricted", "concerned", "worried", "surprised", "related")

// adverbs may stand between a verb and its negation: "is also not".
var adverbs = wordSet("also", "still", "clearly", "actually", "really", "certainly", "definitely", "therefore", "thus", "in", "fact")

// Asked reports whether the byte offset off lies in a question: a
// sentence that ends in "?" states nothing.
func (t *Text) Asked(off int) bool {
	i := t.TokenAt(off)
	return i < len(t.Tokens) && t.Tokens[i].Question
}

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// phraseList splits phrases into their lower-cased words.
func phraseList(phrases ...string) [][]string {
	out := make([][]string, len(phrases))
	for i, p := range phrases {
		out[i] = strings.Fields(strings.ToLower(p))
	}
	return out
}

// phraseAt returns how many tokens, from tokens[i], the first phrase of
// list that begins there spans (marks between its words are not
// allowed), or 0.
func phraseAt(tokens []Token, i int, list [][]string) int {
	for _, p := range list {
		if i+len(p) > len(tokens) {
			continue
		}
		ok := true
		for k, w := range p {
			if tokens[i+k].Lower != w {
				ok = false
				break
			}
		}
		if ok {
			return len(p)
		}
	}
	return 0
}
