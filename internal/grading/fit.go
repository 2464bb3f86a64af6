package grading

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A judge's reply must fit the answer it grades: a verdict is only as good
// as the reading behind it. A reply whose quote is not in the answer,
// whose reason gives the answer a number or a name it does not hold, sets
// the answer's value against another one and still says yes, speaks of a
// value neither the answer nor the expected answer holds, or carries a
// score on the other side of its scale's pass mark, read another answer or
// misread this one: it is unclear.

// graded are the texts a judge graded, and the values the case's checks
// ask for.
type graded struct {
	question, expected, answer string
	checked                    []float64
}

// known reports whether the texts are known: a reply read without them (a
// test of its other signals) is read by its other signals alone.
func (g graded) known() bool { return strings.TrimSpace(g.answer) != "" }

// misfit says why a verdict object and the reply's other texts (its text
// beside the call, its reasoning) do not fit the graded answer, or "".
func misfit(o verdictObject, others []string, g graded) string {
	if !g.known() {
		return ""
	}
	if o.quote != "" && !quoted(o.quote, g.answer) {
		return fmt.Sprintf("its quote %s is not in the answer", quote(truncateRunes(o.quote, 80)))
	}
	texts := append([]string{o.reason}, others...)
	for _, text := range texts {
		if why := scoreMisfit(o.verdict, text); why != "" {
			return why
		}
		if why := rangeScoreMisfit(o.verdict, text); why != "" {
			return why
		}
		if why := starsMisfit(o.verdict, text); why != "" {
			return why
		}
	}
	if why := phraseMisfit(o.reason, g); why != "" {
		return why
	}
	return reasonMisfit(o.verdict, o.reason, g)
}

// foldSpace lower-cases text, drops the marks of markdown and quotation,
// unifies dashes and collapses white space: a quote may differ from the
// answer in those.
func foldSpace(s string) string {
	s = strings.NewReplacer("“", `"`, "”", `"`, "‘", "'", "’", "'", "–", "-", "—", "-", "\u00a0", " ", "\u202f", " ").Replace(s)
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r == '*' || r == '_' || r == '`' || r == '"' || r == '#':
			continue
		case unicode.IsSpace(r):
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// ellipsisRE splits a quote at the ellipses that leave out part of it.
var ellipsisRE = regexp.MustCompile(`\s*(?:\.\.\.|…|\[\.\.\.\]|\[…\])\s*`)

// quoted reports whether q is quoted from text: each of its parts between
// ellipses occurs in text, in order, ignoring case, white space, markdown
// and the ends' punctuation.
func quoted(q, text string) bool {
	t := foldSpace(text)
	from := 0
	for _, part := range ellipsisRE.Split(q, -1) {
		p := strings.Trim(foldSpace(part), " .,;:'\"()[]")
		if p == "" {
			continue
		}
		i := strings.Index(t[from:], p)
		if i < 0 {
			return false
		}
		from += i + len(p)
	}
	return true
}

// scoreRE finds a score on a scale: "Score: 2/10", "3/5", "rated 7 out of
// 10", "40/100".
var scoreRE = regexp.MustCompile(`(?i)(\d+(?:[.,]\d+)?)\s*(?:/|out\s+of|of|de|sur|von|su|из|z)\s*(\d+)\b`)

// scoreWords say that a number on a scale is a score.
var scoreWords = []string{"score", "scor", "rating", "rate", "rated", "grade", "graded", "mark", "points", "punt",
	"note", "bewert", "nota", "оцен", "ocen", "puan", "calific", "valutaz"}

// scoreMisfit says why a score in text disagrees with the verdict: one
// below its scale's pass mark (half the scale) given with a yes, or at or
// above it with a no.
func scoreMisfit(verdict, text string) string {
	for _, m := range scoreRE.FindAllStringSubmatchIndex(text, -1) {
		got, err1 := strconv.ParseFloat(strings.ReplaceAll(text[m[2]:m[3]], ",", "."), 64)
		scale, err2 := strconv.ParseFloat(text[m[4]:m[5]], 64)
		if err1 != nil || err2 != nil || scale <= 0 || got > scale || !isScale(scale) {
			continue
		}
		around := strings.ToLower(text[max(0, m[0]-25):m[1]])
		if !containsAny(around, scoreWords) {
			continue // "3 of 5 genes": a count, not a score
		}
		mark := scale / 2
		switch {
		case verdict == "yes" && got < mark:
			return fmt.Sprintf("the verdict is yes but it scores the answer %s, below the pass mark of its scale", quote(text[m[0]:m[1]]))
		case verdict == "no" && got >= mark:
			return fmt.Sprintf("the verdict is no but it scores the answer %s, at or above the pass mark of its scale", quote(text[m[0]:m[1]]))
		}
	}
	return ""
}

// rangeScaleRE and scaleFirstRE find a score on a scale given as a range:
// "2 on a 1-5 scale", "Score on a 1-5 scale: 2".
var (
	rangeScaleRE = regexp.MustCompile(`(?i)(\d+(?:[.,]\d+)?)\s*(?:on|in)\s+(?:a|the)\s+\d+\s*(?:-|–|to)\s*(\d+)(?:[ -]*point)?\s+scale`)
	scaleFirstRE = regexp.MustCompile(`(?i)(?:on|in)\s+(?:a|the)\s+\d+\s*(?:-|–|to)\s*(\d+)(?:[ -]*point)?\s+scale\W{0,4}(\d+(?:[.,]\d+)?)`)
)

// rangeScoreMisfit is scoreMisfit for scores on a scale given as a range.
func rangeScoreMisfit(verdict, text string) string {
	check := func(gotText, scaleText, shown string) string {
		got, err1 := strconv.ParseFloat(strings.ReplaceAll(gotText, ",", "."), 64)
		scale, err2 := strconv.ParseFloat(scaleText, 64)
		if err1 != nil || err2 != nil || scale <= 0 || got > scale {
			return ""
		}
		switch mark := scale / 2; {
		case verdict == "yes" && got < mark:
			return fmt.Sprintf("the verdict is yes but it scores the answer %s, below the pass mark of its scale", quote(shown))
		case verdict == "no" && got >= mark:
			return fmt.Sprintf("the verdict is no but it scores the answer %s, at or above the pass mark of its scale", quote(shown))
		}
		return ""
	}
	for _, m := range rangeScaleRE.FindAllStringSubmatch(text, -1) {
		if why := check(m[1], m[2], m[0]); why != "" {
			return why
		}
	}
	for _, m := range scaleFirstRE.FindAllStringSubmatch(text, -1) {
		if why := check(m[2], m[1], m[0]); why != "" {
			return why
		}
	}
	return ""
}

// starsRE finds a rating in stars: "★★☆☆☆".
var starsRE = regexp.MustCompile(`[★☆]{3,10}`)

// starsMisfit is scoreMisfit for a rating in stars.
func starsMisfit(verdict, text string) string {
	for _, m := range starsRE.FindAllString(text, -1) {
		got, scale := float64(strings.Count(m, "★")), float64(utf8.RuneCountInString(m))
		switch mark := scale / 2; {
		case verdict == "yes" && got < mark:
			return fmt.Sprintf("the verdict is yes but it rates the answer %s, below half its stars", m)
		case verdict == "no" && got >= mark:
			return fmt.Sprintf("the verdict is no but it rates the answer %s, at or above half its stars", m)
		}
	}
	return ""
}

// attributedPhraseRE finds what a reason says the answer gives: "the
// answer names Cells - Cultured fibroblasts as ...".
var attributedPhraseRE = regexp.MustCompile(`(?i)\b(?:the\s+)?(?:answer|response|reply)(?:'s)?\s+(?:names|says|states|gives|lists|reports|calls|identifies|mentions|picks|chooses|selects|cites)\s+(?:that\s+)?([^,;.:()]+)`)

// phraseStop ends the phrase a reason attributes to the answer.
var phraseStop = regexp.MustCompile(`(?i)\s+(?:as|for|in line|which|consistent|matching|like|just|exactly|over|against|with the|than|instead|rather|not|but|while|whereas|compared)\b`)

// phraseMisfit says why what a reason says the answer gives is not in the
// answer: a word of it (not a neutral one) the answer does not hold in any
// form.
func phraseMisfit(reason string, g graded) string {
	answerWords := map[string]bool{}
	for _, w := range splitWordsOf(g.answer) {
		answerWords[w] = true
		if st := stem(w); st != "" {
			answerWords[st] = true
		}
	}
	for _, m := range attributedPhraseRE.FindAllStringSubmatch(reason, -1) {
		phrase := m[1]
		if loc := phraseStop.FindStringIndex(phrase); loc != nil {
			phrase = phrase[:loc[0]]
		}
		// "the wrong gene" judges what the answer gives: of such a phrase
		// only the names it quotes are held to the answer.
		appraising := slices.ContainsFunc(tokenize(phrase), func(tok Token) bool { return appraisals[tok.Lower] })
		for _, tok := range tokenize(phrase) {
			w := tok.Lower
			if !tok.Word || len(w) < 4 || neutralWords[w] || polarityWords[w] || isNumberToken(w) || numberWord(w) || appraisals[w] {
				continue
			}
			if appraising && !IsSymbol(tok.Text) && !identifierWord(tok.Text) {
				continue
			}
			if st := stem(w); !answerWords[w] && (st == "" || !answerWords[st]) && len(Find(g.answer, tok.Text)) == 0 {
				return fmt.Sprintf("its reason says the answer gives %s, but the answer does not say %s", quote(strings.TrimSpace(phrase)), quote(tok.Text))
			}
		}
	}
	return ""
}

// appraisals are words by which a reason judges what the answer gives
// instead of saying it.
var appraisals = wordSet("wrong", "right", "correct", "incorrect", "different", "unrelated", "other", "another", "same",
	"mistaken", "erroneous", "invalid", "false", "true", "accurate", "inaccurate", "proper", "relevant", "irrelevant",
	"expected", "unexpected", "outdated", "stale", "made-up", "fabricated", "invented", "bogus", "plausible")

// isScale reports whether n is a usual scale of scores.
func isScale(n float64) bool {
	return n == 1 || n == 3 || n == 4 || n == 5 || n == 7 || n == 10 || n == 20 || n == 100
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// The words that say whose value a clause of a reason gives: the answer's
// or the expected answer's.
var (
	answerWords = []string{"answer", "response", "reply", "model", "candidate", "actual", "respuesta", "réponse",
		"reponse", "antwort", "resposta", "risposta", "antwoord", "ответ", "odpowied", "cevap", "回答", "答案", "응답", "답변"}
	referenceWords = []string{"expected", "reference", "ground truth", "gold", "should be", "correct value",
		"correct answer", "esperad", "attendu", "erwartet", "referenz", "referencia", "référence", "riferimento",
		"verwacht", "ожида", "эталон", "oczekiw", "beklenen", "期望", "参考", "正确答案", "标准答案", "기대", "정답", "参照", "正解"}
)

// attributed says whose value the word at byte offset off of a reason is:
// "answer" or "reference", by the nearest word before it in its sentence
// that names one ("The answer names ... 247.35 TPM, the reference's
// value" gives it to the answer; a contrast between them, "instead of",
// "not", "than", to the other side), else the nearest after it; "" when its
// sentence names neither. Words are found within others too, as Chinese
// and Japanese write them without spaces.
func attributed(t *Text, off int) string {
	p := t.TokenAt(off)
	if p >= len(t.Tokens) {
		return ""
	}
	lo, hi := p, p
	for lo > 0 && t.Tokens[lo-1].Sentence == t.Tokens[p].Sentence {
		lo--
	}
	for hi+1 < len(t.Tokens) && t.Tokens[hi+1].Sentence == t.Tokens[p].Sentence {
		hi++
	}
	before := strings.ToLower(t.Raw[t.Tokens[lo].Start:off])
	after := strings.ToLower(t.Raw[off:t.Tokens[hi].End])
	best, at := "", -1
	for whose, words := range map[string][]string{"answer": answerWords, "reference": referenceWords} {
		for _, w := range words {
			if i := lastWord(before, w); i > at {
				best, at = whose, i
			}
		}
	}
	if best != "" {
		// "the answer gives 123 instead of 441457": a contrast after the
		// naming word gives what follows it to the other side.
		if loc := contrastBefore.FindStringIndex(before); loc != nil && loc[0] > at {
			return map[string]string{"answer": "reference", "reference": "answer"}[best]
		}
		return best
	}
	first := len(after)
	for whose, words := range map[string][]string{"answer": answerWords, "reference": referenceWords} {
		for _, w := range words {
			if i := strings.Index(after, w); i >= 0 && i < first {
				best, first = whose, i
			}
		}
	}
	return best
}

// contrastBefore finds, right before a value, a contrast that sets it
// against the one named before it ("gives 123 instead of 441457", "not
// the expected 441457"); a contrast between clauses ("while brief, gives
// 441457") sets nothing against it.
var contrastBefore = regexp.MustCompile(`(?i)\b(?:instead of|rather than|not|versus|vs\.?|compared (?:to|with)|than)\s+(?:the\s+)?(?:\S+\s+)?$`)

// lastWord returns where w last begins a word of s (for a word of Latin
// letters, one that does not continue another), or -1.
func lastWord(s, w string) int {
	for end := len(s); end > 0; {
		i := strings.LastIndex(s[:end], w)
		if i < 0 {
			return -1
		}
		prev, _ := utf8.DecodeLastRuneInString(s[:i])
		first, _ := utf8.DecodeRuneInString(w)
		if i == 0 || !latinLetter(first) || !latinLetter(prev) {
			return i
		}
		end = i
	}
	return -1
}

// reasonMisfit says why a reason does not fit the answer: it gives the
// answer a value or name the answer does not hold, speaks of one neither
// the answer nor the expected answer holds, or, with a yes, sets a value
// only the answer holds against one only the expected answer holds.
func reasonMisfit(verdict, reason string, g graded) string {
	if strings.TrimSpace(reason) == "" {
		return ""
	}
	t := Parse(reason)
	scores := scoreRE.FindAllStringIndex(reason, -1)
	inScore := func(off int) bool {
		for _, s := range scores {
			if off >= s[0] && off < s[1] && strings.Contains(reason[s[0]:s[1]], "/") {
				return true
			}
		}
		return false
	}
	answerOnly, referenceOnly := "", ""
	cited, citedExpected, citedChecked := 0, 0, 0
	numbers := Numbers(reason)
	for _, n := range numbers {
		lit := reason[n.Start:n.End]
		if inScore(n.Start) || !isNumberToken(lit) || gluedToWord(reason, n) || partOf(n, numbers) {
			continue
		}
		n, lit = scaledByUnit(reason, n, lit)
		inAnswer, inExpected, inQuestion := holdsValue(g.answer, n, lit), holdsValue(g.expected, n, lit), holdsValue(g.question, n, lit)
		if !inQuestion {
			cited++
			if inExpected {
				citedExpected++
			}
			for _, v := range g.checked {
				if holdsValue(strconv.FormatFloat(v, 'f', -1, 64), n, lit) {
					citedChecked++
					break
				}
			}
		}
		ofAnswer := attributed(t, n.Start) == "answer"
		switch {
		case ofAnswer && !inAnswer:
			return fmt.Sprintf("its reason gives the answer %s, which the answer does not hold", quote(lit))
		case !inAnswer && !inExpected && !inQuestion:
			return fmt.Sprintf("its reason speaks of %s, which neither the answer nor the expected answer holds", quote(lit))
		case inAnswer && !inExpected && answerOnly == "":
			answerOnly = lit
		case inExpected && !inAnswer && referenceOnly == "":
			referenceOnly = lit
		}
	}
	if verdict == "yes" && answerOnly != "" && referenceOnly != "" {
		return fmt.Sprintf("the verdict is yes but its reason sets the answer's %s against the expected %s", quote(answerOnly), quote(referenceOnly))
	}
	if verdict == "yes" && cited > 0 && citedExpected == 0 && len(Numbers(g.expected)) > 0 {
		return fmt.Sprintf("the verdict is yes but its reason vouches only for values the expected answer does not give (%s)", quote(answerOnly))
	}
	if verdict == "yes" && cited > 0 && len(g.checked) > 0 && citedChecked == 0 {
		return "the verdict is yes but its reason vouches for none of the values the case asks for"
	}
	for _, tok := range t.Tokens {
		name := strings.TrimSuffix(strings.TrimSuffix(tok.Text, "'s"), "’s")
		if !tok.Word || !IsSymbol(name) && !identifierWord(name) {
			continue
		}
		inAnswer, inExpected, inQuestion := len(Find(g.answer, name)) > 0, len(Find(g.expected, name)) > 0, len(Find(g.question, name)) > 0
		ofAnswer := attributed(t, tok.Start) == "answer"
		switch {
		case ofAnswer && !inAnswer:
			return fmt.Sprintf("its reason gives the answer %s, which the answer does not name", quote(name))
		case !inAnswer && !inExpected && !inQuestion:
			return fmt.Sprintf("its reason speaks of %s, which neither the answer nor the expected answer names", quote(name))
		}
	}
	return ""
}

// gluedToWord reports whether a number of text is part of a word: glued
// to a Latin letter or an underscore ("hg19", "TP53", "p.P63S",
// "rs28934906"), or a version after a dot ("NM_001045477.4"). A position
// after a colon ("chr17:7673802") is a value of its own, and so is a number
// beside Chinese, Japanese or Korean text, which sets no space around it.
func gluedToWord(text string, n Number) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:n.Start])
	after, _ := utf8.DecodeRuneInString(text[n.End:])
	if latinLetter(before) || before == '_' || latinLetter(after) || after == '_' {
		return true
	}
	if before == '.' || before == '-' {
		b2, _ := utf8.DecodeLastRuneInString(text[:max(0, n.Start-1)])
		return latinLetter(b2) || unicode.IsDigit(b2)
	}
	return false
}

// latinLetter reports whether r is a letter of an alphabet written with
// spaces between words (not a CJK ideograph, kana or hangul).
func latinLetter(r rune) bool {
	return unicode.IsLetter(r) && !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// partOf reports whether n is part of a longer number of numbers ("18" of
// "63,18", "117" of "117,120,017").
func partOf(n Number, numbers []Number) bool {
	for _, m := range numbers {
		if m.Start <= n.Start && m.End >= n.End && m.End-m.Start > n.End-n.Start {
			return true
		}
	}
	return false
}

// identifierWord reports whether a word is an identifier with a value in
// it: Latin letters and at least three digits ("rs28934906",
// "ENSG00000188152"), nothing else.
func identifierWord(w string) bool {
	letters, digits := 0, 0
	for _, r := range w {
		switch {
		case r < 128 && unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		case r == '.' || r == '_' || r == '-':
		default:
			return false
		}
	}
	return letters > 0 && digits >= 3 && len(w) <= 30
}

// unitScales are the units after a number that scale it: "117.12 Mb" is
// 117,120,000 bases.
var unitScales = map[string]float64{"kb": 1e3, "mb": 1e6, "gb": 1e9, "k": 1e3, "m": 1e6, "thousand": 1e3, "million": 1e6, "billion": 1e9}

// rangeEndRE is the other end of a range a number begins: "–117.308718".
var rangeEndRE = regexp.MustCompile(`^(?:-|–|—|\s+to\s+)\s*\d+(?:\.\d+)?`)

// scaledByUnit returns a number of text multiplied by the unit after it,
// with a literal of the same precision, or the number itself.
func scaledByUnit(text string, n Number, lit string) (Number, string) {
	rest := strings.TrimLeft(text[n.End:], " \u00a0")
	if m := rangeEndRE.FindString(rest); m != "" {
		rest = strings.TrimLeft(rest[len(m):], " \u00a0") // "117.12–117.31 Mb": the unit is the range's
	}
	word := strings.ToLower(leadingWord(rest))
	scale, ok := unitScales[word]
	if !ok || n.Value*scale == n.Value {
		return n, lit
	}
	decimals := 0
	if i := strings.LastIndex(lit, "."); i >= 0 {
		decimals = len(lit) - i - 1
	}
	shift := int(math.Round(math.Log10(scale)))
	places := max(0, decimals-shift)
	n.Value *= scale
	return n, strconv.FormatFloat(n.Value, 'f', places, 64)
}

// holdsValue reports whether text states the value of n (written lit) in
// any form: the same number to the precision lit is written with, or the
// same as a percentage or a fraction.
func holdsValue(text string, n Number, lit string) bool {
	if strings.TrimSpace(text) == "" {
		return false
	}
	tol := 1e-9
	if i := strings.LastIndexAny(lit, ".,"); i >= 0 && i < len(lit)-1 {
		tol = 0.5 * math.Pow(10, -float64(len(lit)-i-1))
	}
	for _, m := range Numbers(text) {
		for _, v := range []float64{m.Value, m.Value * 100, m.Value / 100} {
			mt := tol
			if v != m.Value {
				mt = math.Max(tol, 1e-9*math.Abs(v))
			}
			if math.Abs(v-n.Value) <= mt+1e-9*math.Abs(n.Value) {
				return true
			}
		}
		// the reason's value written with fewer decimals than the text's
		// ("8.1" for 8.103); not the other way: a reason that gives the
		// answer 78.6 where it says 79 credits it with what it does not say
		if rounds(m.Value, lit, n.Value) {
			return true
		}
	}
	return false
}
