package grading

import (
	"sort"
	"strings"
)

// Cue is a stretch of a text that judges an answer, and how.
type Cue struct {
	// Says is "yes" (the answer is right) or "no" (it is wrong).
	Says string
	// Text is the cue as written; Why names its kind.
	Text string
	Why  string
	// AnswersQuestion is true for a verdict word that answers a question
	// the text itself asked ("Could it be the rat value? No."), Asked for
	// a cue in a question ("Does 'not constrained' conflict with it?"),
	// and Conditional for one stated under a condition ("if it were hg19,
	// the answer would be wrong"): in a reasoning, the judge weighing a
	// case, not a verdict.
	AnswersQuestion, Asked, Conditional bool
}

// Stance is what a text says of the answer it grades.
type Stance struct {
	Cues []Cue
	// Verdicts are the cues that state a verdict outright: a "yes" or
	// "no" standing alone ("Correct: no", "Verdict — no", "Nein."), in
	// any language.
	Verdicts []Cue
}

// Says reports whether some cue says verdict ("yes" or "no").
func (s Stance) Says(verdict string) bool {
	for _, c := range append(s.Cues, s.Verdicts...) {
		if c.Says == verdict {
			return true
		}
	}
	return false
}

// States reports whether some cue states verdict outright.
func (s Stance) States(verdict string) bool {
	for _, c := range s.Verdicts {
		if c.Says == verdict {
			return true
		}
	}
	return false
}

// First returns the first cue that says verdict.
func (s Stance) First(verdict string) (Cue, bool) {
	for _, c := range append(s.Verdicts, s.Cues...) {
		if c.Says == verdict {
			return c, true
		}
	}
	return Cue{}, false
}

// Judge reads what text says of an answer: the verdict words that stand
// alone, the words that judge it right ("correct", "matches",
// "richtig", "正确") or wrong ("incorrect", "wrong", "falsch", "неверно",
// "不正确") with the negations that reach them ("not correct" is wrong,
// "no errors" is right), and the negations that reach no such word,
// which take something back all the same ("8103 is not 8.103", "it does
// not mention the unit"): a careful reader takes them as a doubt.
// Negations about the expected answer ("details not in the expected
// answer") and idioms ("no doubt") take nothing back.
func Judge(text string) Stance {
	t := Parse(text)
	var s Stance
	add := func(says, why string, i int) {
		s.Cues = append(s.Cues, Cue{Says: says, Text: t.Tokens[i].Text, Why: why, Conditional: t.conditional(i), Asked: t.Tokens[i].Question})
	}
	words := t.wordsPerClause()
	for i, tok := range t.Tokens {
		if !tok.Word {
			switch tok.Text {
			case "≠", "✗", "✘", "❌", "👎":
				add("no", "a sign", i)
			case "✓", "✔", "✅", "👍":
				add("yes", "a sign", i)
			}
			continue
		}
		w := tok.Lower
		if t.inCompound(i) {
			continue // "url-pass-7d2b91", "TP53-adjacent": part of a name
		}
		if v := verdictWords[w]; v != "" && words[tok.Clause] == 1 {
			s.Verdicts = append(s.Verdicts, Cue{Says: v, Text: tok.Text, Why: "a verdict word standing alone", AnswersQuestion: t.afterQuestion(i)})
			continue
		}
		negated := t.judgementNegations(i)%2 == 1
		if v := verdictWords[w]; v != "" && t.labelled(i) {
			if negated {
				v = opposite(v)
			}
			s.Verdicts = append(s.Verdicts, Cue{Says: v, Text: tok.Text, Why: "a verdict stated", Conditional: t.conditional(i)})
			continue
		}
		if t.reported(i) {
			continue // what the answer or the reference says, not a judgement of it
		}
		switch {
		case isWrongWord(w) && !t.aboutPresentation(i):
			if negated {
				add("yes", "a negated word of wrongness", i)
			} else {
				add("no", "a word of wrongness", i)
			}
		case isRightWord(w) && (negated || !t.attributive(i)) && !t.aboutPresentation(i):
			switch {
			case negated:
				add("no", "a negated word of rightness", i)
			case t.qualified(i):
				add("no", "a qualified word of rightness", i)
			default:
				add("yes", "a word of rightness", i)
			}
		case t.negator(i) > 0 && !t.reachesJudgement(i) && t.deniesContent(i):
			add("no", "a negation of what the answer gives", i)
		}
	}
	s.Cues = append(s.Cues, cjkCues(text)...)
	return s
}

// conditional reports whether the sentence of tokens[i] states a
// condition: "if", "would", "unless", "suppose".
func (t *Text) conditional(i int) bool {
	for _, tok := range t.Tokens {
		if tok.Sentence == t.Tokens[i].Sentence && tok.Word && conditions[tok.Lower] {
			return true
		}
	}
	return false
}

var conditions = wordSet("if", "would", "unless", "suppose", "supposing", "were", "had", "si", "wenn", "falls", "se", "als", "если")

// reported reports whether the verb of judgement at tokens[i] has a
// subject of its own in what a text reports the answer or the reference as
// saying: "the answer says no OMIM phenotype matches" judges nothing (but
// "the answer names Nutm2 and matches the reference" does).
func (t *Text) reported(i int) bool {
	if !judgementVerbs[t.Tokens[i].Lower] {
		return false
	}
	if k := i - 1; k >= 0 && coordinators[t.Tokens[k].Lower] {
		return false
	}
	for k := i - 1; k >= 0 && t.Tokens[k].Clause == t.Tokens[i].Clause; k-- {
		if !t.Tokens[k].Word || !reportVerbs[t.Tokens[k].Lower] {
			continue
		}
		for j := k - 1; j >= 0 && j >= k-3; j-- {
			if reporters[t.Tokens[j].Lower] {
				return true
			}
		}
	}
	return false
}

var (
	judgementVerbs = wordSet("match", "matches", "matched", "agree", "agrees", "corresponds", "correspond", "differ",
		"differs", "conflicts", "conflict", "coincide", "coinciden", "stimmt", "stimmen", "klopt", "corresponde")
	coordinators = wordSet("and", "und", "y", "et", "e", "en", "и", "but", "aber", "pero", "mais")
)

var (
	reportVerbs = wordSet("says", "say", "said", "states", "stated", "reports", "reported", "notes", "mentions",
		"writes", "explains", "dice", "indica", "afirma", "dit", "indique", "sagt", "diz", "afferma")
	reporters = wordSet("answer", "response", "reply", "reference", "expected", "it", "they", "respuesta", "réponse",
		"antwort", "resposta", "risposta", "referencia", "référence", "referenz")
)

// afterQuestion reports whether the word at tokens[i] begins the sentence
// right after one that asks.
func (t *Text) afterQuestion(i int) bool {
	for k := i - 1; k >= 0; k-- {
		if t.Tokens[k].Sentence != t.Tokens[i].Sentence {
			return t.Tokens[k].Question
		}
		if t.Tokens[k].Word {
			return false
		}
	}
	return false
}

// inCompound reports whether the word at tokens[i] is joined to another by
// a hyphen with no space around it.
func (t *Text) inCompound(i int) bool {
	joined := func(k int) bool {
		return k > 0 && k+1 < len(t.Tokens) && t.Tokens[k].Text == "-" &&
			t.Tokens[k-1].End == t.Tokens[k].Start && t.Tokens[k].End == t.Tokens[k+1].Start &&
			t.Tokens[k-1].Word && t.Tokens[k+1].Word
	}
	return joined(i-1) || joined(i+1)
}

// wordsPerClause counts the words of each clause.
func (t *Text) wordsPerClause() map[int]int {
	n := map[int]int{}
	for _, tok := range t.Tokens {
		if tok.Word {
			n[tok.Clause]++
		}
	}
	return n
}

// labelled reports whether the verdict word at tokens[i] ends a clause
// that names a verdict: "The verdict is no.", "Final answer would be yes".
func (t *Text) labelled(i int) bool {
	c := t.Tokens[i].Clause
	for k := i + 1; k < len(t.Tokens) && t.Tokens[k].Clause == c; k++ {
		if t.Tokens[k].Word {
			return false
		}
	}
	for k := i - 1; k >= 0 && t.Tokens[k].Clause == c; k-- {
		if verdictNouns[t.Tokens[k].Lower] {
			return true
		}
	}
	// "I would say no", "it's a no"
	return i > 0 && t.Tokens[i-1].Clause == c && verdictVerbs[t.Tokens[i-1].Lower]
}

// verdictVerbs introduce a verdict word: "I would say no".
var verdictVerbs = wordSet("say", "says", "said", "answer", "is", "be", "a", "conclude", "concluded", "decide", "decided",
	"grade", "mark", "vote", "definitely", "clearly", "simply")

// judgementNegations counts the negations that reach the judgement word at
// tokens[i]. Lexical negators ("missing", "lacks") are judgement words of
// their own there, not negations of what follows.
func (t *Text) judgementNegations(i int) int {
	clause := t.Tokens[i].Clause
	from := i
	for words := 0; from > 0 && t.Tokens[from-1].Clause == clause && words < scope; from-- {
		if t.Tokens[from-1].Word {
			words++
		}
	}
	n, under := 0, false
	for k := from; k < i; k++ {
		if !t.isPlainNegator(k) {
			continue
		}
		if q := t.Tokens[k].Quoted; q != 0 && q != t.Tokens[i].Quoted {
			continue // a negation quoted negates nothing outside its quotation
		}
		if concord[t.Tokens[k].Lower] && under {
			continue
		}
		n++
		under = true
	}
	if t.predicateNegated(i, clause, t.Tokens[i].End) {
		n++
	}
	if k := i + 1; k < len(t.Tokens) && t.Tokens[k].Clause == clause && postNegators[t.Tokens[k].Lower] {
		n++ // a verb negated after it: "stimmt nicht", "klopt niet"
	}
	return n
}

// postNegators negate the verb before them.
var postNegators = wordSet("nicht", "niet", "not", "pas", "nie")

// isPlainNegator reports whether tokens[k] is a negator that is not itself
// a judgement word.
func (t *Text) isPlainNegator(k int) bool {
	w := t.Tokens[k].Lower
	return t.negator(k) > 0 && !isWrongWord(w) && !lexicalNegators[w]
}

var lexicalNegators = wordSet("lack", "lacks", "lacking", "lacked", "absent", "absence", "missing", "shortage",
	"excluding", "except", "unlike")

// reachesJudgement reports whether the negator at tokens[i] reaches a word
// of rightness or wrongness, a word about the expected answer, or a
// lexical negator in its clause: then that word carries the meaning.
func (t *Text) reachesJudgement(i int) bool {
	if lexicalNegators[t.Tokens[i].Lower] {
		return true // "missing", "lacks": judged as words of wrongness
	}
	clause := t.Tokens[i].Clause
	for k := i + 1; k < len(t.Tokens) && t.Tokens[k].Clause == clause; k++ {
		w := t.Tokens[k].Lower
		if isWrongWord(w) || isRightWord(w) || lexicalNegators[w] || aboutExpected[w] && t.inExpected(k) {
			return true
		}
	}
	// a negated subject: "No detail is missing", "nothing is wrong"
	return false
}

// deniesContent reports whether the negation at tokens[i], which reaches
// no word of judgement, still takes back what the answer gives: a value
// ("8103 is not 8.103", "81.03, not the expected 8.103"), the expected
// answer itself ("not the expected gene"), or what the answer says ("it
// does not mention the unit"). A negation of a fact ("no interaction",
// "no OMIM entry") is the answer's content, not a judgement of it.
func (t *Text) deniesContent(i int) bool {
	clause := t.Tokens[i].Clause
	for k := i + 1; k < len(t.Tokens) && t.Tokens[k].Clause == clause; k++ {
		tok := t.Tokens[k]
		w := tok.Lower
		if len(Numbers(tok.Text)) > 0 && strings.IndexFunc(tok.Text, func(r rune) bool { return r >= 'A' && r <= 'z' }) < 0 {
			return true
		}
		if aboutExpected[w] || contentVerbs[w] {
			return true
		}
	}
	// "8103 is not 8.103": a value before the negated verb
	return i > 1 && auxiliaries[t.Tokens[i-1].Lower] && t.isValue(i-2) && t.Tokens[i-2].Clause == clause
}

// contentVerbs say what an answer gives.
var contentVerbs = wordSet("mention", "mentions", "mentioned", "give", "gives", "given", "state", "states", "stated",
	"include", "includes", "included", "name", "names", "named", "provide", "provides", "provided", "address",
	"addresses", "addressed", "specify", "specifies", "specified", "contain", "contains", "identify", "identifies",
	"identified", "answer", "answers", "answered", "cover", "covers", "covered", "report", "reports", "list", "lists",
	"say", "says", "said", "menciona", "mentionne", "erwähnt", "nennt", "menziona", "menciona")

// inExpected reports whether the word about the expected answer at
// tokens[k] follows a preposition: "not in the expected answer", "absent
// from the reference" (but not "not the expected gene").
func (t *Text) inExpected(k int) bool {
	for j, words := k-1, 0; j >= 0 && words < 2; j-- {
		if !t.Tokens[j].Word {
			continue
		}
		words++
		switch t.Tokens[j].Lower {
		case "in", "from", "of", "by", "to", "en", "dans", "de", "im", "in der", "nella", "na", "no":
			return true
		}
	}
	return false
}

// aboutExpected are words that make a negation about the expected answer
// or the question, not about the graded one.
var aboutExpected = wordSet("expected", "reference", "question", "asked", "required", "requested", "esperada", "esperado",
	"attendue", "erwartete", "erwarteten")

// attributive reports whether the adjective of rightness at tokens[i]
// qualifies a noun ("the correct value is 8.103"), saying nothing of the
// answer.
func (t *Text) attributive(i int) bool {
	if !adjectives[t.Tokens[i].Lower] || i+1 >= len(t.Tokens) || !t.Tokens[i+1].Word || t.Tokens[i+1].Clause != t.Tokens[i].Clause {
		return false
	}
	next := t.Tokens[i+1].Lower
	return !notNouns[next] && !isRightWord(next) && !isWrongWord(next)
}

var adjectives = wordSet("correct", "right", "accurate", "acceptable", "valid", "true", "consistent", "same",
	"identical", "equal", "equivalent", "exact", "complete", "good", "fine", "correcto", "correcta", "exacto",
	"exacta", "válido", "válida", "igual", "mismo", "misma", "correcte", "exacte", "juste", "valide", "identique",
	"richtig", "korrekt", "genau", "gleich", "gleicher", "gleiche", "correto", "correta", "certo", "certa", "exato",
	"exata", "corretto", "corretta", "giusto", "giusta", "esatto", "esatta", "valido", "valida", "uguale", "stesso",
	"stessa", "juist", "верный", "верная", "правильный", "правильная", "poprawna", "poprawny", "doğru")

func opposite(verdict string) string {
	if verdict == "yes" {
		return "no"
	}
	return "yes"
}

var notNouns = wordSet("and", "or", "but", "as", "in", "on", "with", "to", "for", "of", "at", "by", "since", "because",
	"overall", "here", "there", "now", "too", "indeed", "y", "et", "und", "e", "ed", "и", "en", "que", "da", "weil")

// qualified reports whether the word of rightness at tokens[i] is
// qualified: a qualifier right before it ("partially correct", "mostly
// right"), or a contrast after it in its sentence ("Trp53 is right but the
// confidence is low", "correct, although incomplete").
func (t *Text) qualified(i int) bool {
	for k, words := i-1, 0; k >= 0 && words < 2 && t.Tokens[k].Clause == t.Tokens[i].Clause; k-- {
		if t.Tokens[k].Word {
			words++
			if qualifiers[t.Tokens[k].Lower] {
				return true
			}
		}
	}
	for k := i + 1; k < len(t.Tokens) && t.Tokens[k].Sentence == t.Tokens[i].Sentence; k++ {
		if t.Tokens[k].Word && contrasts[t.Tokens[k].Lower] {
			return true
		}
	}
	return false
}

// contrasts turn a sentence against what it said before them.
var contrasts = wordSet("but", "however", "although", "though", "yet", "whereas", "except", "pero", "sin", "embargo",
	"mais", "cependant", "aber", "jedoch", "allerdings", "mas", "porém", "ma", "però", "tuttavia", "maar", "но", "однако")

var qualifiers = wordSet("partially", "partly", "mostly", "largely", "almost", "nearly", "somewhat", "half",
	"roughly", "approximately", "parcialmente", "partiellement", "teilweise", "parzialmente", "частично")

// aboutPresentation reports whether the word of judgement at tokens[i] is
// about form, not content: "different wording", "phrased differently",
// "not the exact wording".
func (t *Text) aboutPresentation(i int) bool {
	for k := max(0, i-2); k < len(t.Tokens) && k <= i+2; k++ {
		if presentation[t.Tokens[k].Lower] || strings.HasPrefix(t.Tokens[k].Lower, "phras") ||
			strings.HasPrefix(t.Tokens[k].Lower, "word") || strings.HasPrefix(t.Tokens[k].Lower, "format") {
			return true
		}
	}
	return false
}

var presentation = wordSet("form", "order", "notation", "style", "spelling", "representation", "rounding",
	"precision", "capitalization", "capitalisation", "case", "terms", "language", "way", "manner", "layout",
	"redacción", "formulación", "formulation", "formulierung")

// verdictWords are "yes" and "no" in the languages judges answer in.
var verdictWords = map[string]string{
	"yes": "yes", "yep": "yes", "yeah": "yes", "sí": "yes", "oui": "yes", "ja": "yes", "sim": "yes", "sì": "yes",
	"да": "yes", "tak": "yes", "evet": "yes", "correct": "yes", "correcto": "yes", "correcta": "yes",
	"richtig": "yes", "true": "yes", "pass": "yes", "accept": "yes", "accepted": "yes",
	"no": "no", "nope": "no", "non": "no", "nein": "no", "não": "no", "nao": "no", "нет": "no", "nie": "no",
	"nee": "no", "hayır": "no", "नहीं": "no", "لا": "no", "לא": "no", "không": "no", "tidak": "no",
	"हाँ": "yes", "हां": "yes", "نعم": "yes", "כן": "yes", "có": "yes", "ya": "yes", "incorrect": "no", "incorrecto": "no", "incorrecta": "no", "falsch": "no",
	"false": "no", "wrong": "no", "fail": "no", "reject": "no", "rejected": "no",
}

// verdictNouns name a verdict: "The verdict is no".
var verdictNouns = wordSet("verdict", "final", "decision", "grade", "judgement", "judgment", "result", "conclusion",
	"answer", "veredicto", "verdicto", "respuesta", "réponse", "décision", "verdetto", "risposta", "urteil",
	"antwort", "entscheidung", "resposta", "veredito", "вердикт", "ответ", "oordeel", "antwoord")

// rightWords judge an answer right.
var rightWords = wordSet(
	"correct", "correctly", "right", "accurate", "accurately", "acceptable", "accept", "accepted", "accepts",
	"valid", "true", "match", "matches", "matched", "matching", "agree", "agrees", "consistent", "same",
	"identical", "equal", "equals", "equivalent", "supported", "confirms", "confirmed", "exact", "exactly",
	"fine", "ok", "okay", "satisfies", "satisfy", "meet", "meets", "aligns", "corresponds", "complete", "good",
	"correcto", "correcta", "acertado", "acertada", "exacto", "exacta", "coincide", "coinciden", "válido",
	"válida", "aceptable", "acepto", "aceptada", "aceptado", "igual", "mismo", "misma",
	"correcte", "exact", "exacte", "juste", "valide", "accepté", "acceptée", "identique", "conforme", "correspond",
	"richtig", "korrekt", "stimmt", "zutreffend", "gültig", "akzeptiert", "akzeptabel", "genau", "gleich",
	"gleicher", "gleiche", "übereinstimmend",
	"correto", "correta", "certo", "certa", "exato", "exata", "aceito", "aceita", "corresponde",
	"corretto", "corretta", "giusto", "giusta", "esatto", "esatta", "valido", "valida", "accettabile", "accettato",
	"uguale", "stesso", "stessa", "juist", "klopt", "goed", "верно", "верный", "верная", "правильно",
	"правильный", "правильная", "совпадает", "точно", "соответствует", "соответствуют", "соответствие", "entspricht",
	"entsprechen", "corrisponde", "overeen", "corresponds", "poprawna", "poprawny", "prawidłowa", "prawidłowy",
	"doğru", "सही", "صحيح", "صحيحة", "נכון", "נכונה", "đúng", "benar", "tepat",
)

// wrongWords judge an answer wrong; wrongStems begin such words.
var (
	wrongWords = wordSet(
		"wrong", "wrongly", "false", "mistaken", "mistake", "mistakes", "error", "errors", "invalid",
		"unacceptable", "reject", "rejected", "rejects", "rejecting", "fail", "fails", "failed", "failing",
		"differs", "differ", "different", "differently", "difference", "differences", "missing", "misses",
		"omits", "omitted", "lacks", "lacking", "incomplete", "unsupported", "deviates", "flawed", "faulty",
		"nonsense", "untrue", "swapped", "bad", "off", "disagrees", "disagree", "not-correct", "issue", "issues",
		"problem", "problems", "concern", "concerns", "flaw", "flaws",
		"equivocado", "equivocada", "erróneo", "errónea", "errado", "errada", "falso", "falsa", "errores",
		"rechazo", "rechazar", "rechazada", "rechazado", "difiere", "distinto", "distinta", "diferente",
		"faux", "fausse", "erroné", "erronée", "erreur", "erreurs", "rejeté", "rejetée", "rejeter", "différent",
		"différente", "inexact", "inexacte",
		"falsch", "fehlerhaft", "fehler", "abgelehnt", "ablehnen", "ungenau", "abweichend", "unrichtig",
		"erro", "erros", "rejeitado", "rejeitada", "rejeitar", "inexato", "inexata",
		"sbagliato", "sbagliata", "errato", "errata", "errore", "errori", "rifiutato", "rifiutata", "inesatto",
		"inesatta", "scorretto", "scorretta",
		"fout", "onjuist", "verkeerd", "afgewezen",
		"неверно", "неверный", "неверная", "неправильно", "неправильный", "неправильная", "ошибка", "ошибочно",
		"ошибочный", "ложно", "отклонено", "błędna", "błędny", "niepoprawna", "niepoprawny", "nieprawidłowa",
		"źle", "yanlış", "hatalı", "गलत", "ग़लत", "خطأ", "خاطئ", "خاطئة", "שגוי", "שגויה", "sai", "salah", "keliru",
	)
	wrongStems = []string{"incorrect", "inaccura", "contradict", "mismatch", "discrepan", "inconsisten", "conflict",
		"hallucinat", "misattribut", "misidentif", "misstat", "misread", "confus", "erroneous", "incorrect",
		"inexact", "unacceptabl", "inkorrekt", "incorrecto", "incorrecta", "incorrecte", "incorreto", "incorreta",
		"erron", "errón", "falsch", "fehlerhaft", "unrichtig", "ungenau", "equivocad", "sbagliat", "errat",
		"scorrett", "errad", "incorret", "inesatt", "inexat", "неверн", "неправильн", "ошиб", "błędn", "niepoprawn",
		"nieprawidłow", "onjuist", "verkeerd"}
)

// rightStems begin inflected words of rightness: "richtige", "korrekte",
// "correctos", "правильный".
var rightStems = []string{"correct", "richtig", "korrekt", "corrett", "accurat", "exakt", "правильн", "верн", "верен",
	"правилен", "корректн", "корректен", "точен", "poprawn", "prawidłow"}

func isRightWord(w string) bool { return inLexicon(w, rightWords, rightStems) }

func isWrongWord(w string) bool { return inLexicon(w, wrongWords, wrongStems) }

// inLexicon reports whether w is one of words or begins with one of stems.
func inLexicon(w string, words map[string]bool, stems []string) bool {
	if words[w] {
		return true
	}
	for _, s := range stems {
		if strings.HasPrefix(w, s) {
			return true
		}
	}
	return false
}

// cjk holds the cues of languages written without spaces between words,
// found as parts of the text: longer ones first, a double negation ("没有
// 错误", no error) before a negation, a negation ("不正确") before the
// word it negates ("正确").
var cjk = []struct {
	says   string
	phrase []string
}{
	{"yes", []string{"没有错误", "没有错", "没错", "无误", "没有问题", "間違いない", "間違いありません", "誤りはない", "誤りはありません",
		"問題ない", "問題ありません", "틀리지 않", "틀린 곳이 없", "문제없", "문제 없"}},
	{"no", []string{"不正确", "不对", "不准确", "不一致", "不符合", "不符", "不相符", "不匹配", "不接受", "错误", "有误", "错",
		"拒绝", "正しくない", "正しくありません", "正確ではない", "正確ではありません", "一致しない", "一致しません", "不正解", "不正確",
		"誤り", "間違い", "違う", "違います", "いいえ", "틀렸", "틀린", "틀림", "오답", "잘못", "부정확", "불일치", "아니요", "아니오",
		"아닙니다", "맞지 않", "일치하지 않", "정답이 아"}},
	{"yes", []string{"正确", "准确", "一致", "符合", "相符", "匹配", "接受", "对的", "是的", "正しい", "正解", "正確", "はい",
		"정답", "맞습니다", "맞다", "정확", "일치"}},
}

// cjkCues finds the cues of cjk in text, each part of the text used once.
func cjkCues(text string) []Cue {
	used := make([]bool, len(text))
	type found struct {
		at  int
		cue Cue
	}
	var all []found
	for _, group := range cjk {
		phrases := append([]string(nil), group.phrase...)
		sort.SliceStable(phrases, func(i, j int) bool { return len(phrases[i]) > len(phrases[j]) })
		for _, p := range phrases {
			for off := 0; ; {
				i := strings.Index(text[off:], p)
				if i < 0 {
					break
				}
				at := off + i
				off = at + len(p)
				free := true
				for k := at; k < at+len(p); k++ {
					free = free && !used[k]
				}
				if !free {
					continue
				}
				for k := at; k < at+len(p); k++ {
					used[k] = true
				}
				all = append(all, found{at, Cue{Says: group.says, Text: p, Why: "a word of judgement"}})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at < all[j].at })
	out := make([]Cue, len(all))
	for i, f := range all {
		out[i] = f.cue
	}
	return out
}
