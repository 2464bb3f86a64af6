package grading

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Number is a number a text states, in any of its common forms.
type Number struct {
	Value float64
	// Start and End delimit the number as written ("10 452",
	// "ninety-nine", "164k", "2.7 × 10^-2"), without a following percent
	// sign or unit.
	Start, End int
	// Percent is true when a percent sign or word follows it ("78.6%",
	// "78.6 percent").
	Percent bool
}

// decimalPattern is the decimal literals decimalLiterals finds, as a
// regular expression: digit groups joined by commas, an optional fraction
// and exponent, an optional sign (U+2212 included).
const decimalPattern = `[-+\x{2212}]?(?:\d+(?:,\d+)*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?`

// decimalLiterals returns the start and end of each match of
// decimalPattern in text, as regexp's FindAllStringIndex would, in one
// pass: every part after the first digits is optional, so the leftmost
// match is the longest run of the parts from its start.
func decimalLiterals(text string) [][]int {
	var out [][]int
	for i := 0; i < len(text); {
		if end := decimalAt(text, i); end > i {
			out = append(out, []int{i, end})
			i = end
			continue
		}
		i++
	}
	return out
}

// decimalAt returns the end of the decimal literal that starts at i, or -1.
func decimalAt(text string, i int) int {
	j := i
	switch {
	case text[j] == '-' || text[j] == '+':
		j++
	case strings.HasPrefix(text[j:], "\u2212"):
		j += len("\u2212")
	}
	switch {
	case digitAt(text, j):
		j = skipDigits(text, j)
		for j < len(text) && text[j] == ',' && digitAt(text, j+1) {
			j = skipDigits(text, j+1)
		}
		if j < len(text) && text[j] == '.' && digitAt(text, j+1) {
			j = skipDigits(text, j+1)
		}
	case j < len(text) && text[j] == '.' && digitAt(text, j+1):
		j = skipDigits(text, j+1)
	default:
		return -1
	}
	if j < len(text) && (text[j] == 'e' || text[j] == 'E') {
		k := j + 1
		if k < len(text) && (text[k] == '-' || text[k] == '+') {
			k++
		}
		if digitAt(text, k) {
			j = skipDigits(text, k)
		}
	}
	return j
}

// digitAt reports whether text has an ASCII digit at i.
func digitAt(text string, i int) bool { return i < len(text) && '0' <= text[i] && text[i] <= '9' }

// skipDigits returns the index past the ASCII digits from i.
func skipDigits(text string, i int) int {
	for digitAt(text, i) {
		i++
	}
	return i
}

// commaGroupedRE matches a literal with comma thousands separators.
var commaGroupedRE = regexp.MustCompile(`^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:[eE][-+]?\d+)?$`)

// spaceGroupedRE finds numbers grouped in thousands by a space, a
// no-break, thin or narrow no-break space, or an apostrophe: "10 452",
// "10 452", "10'452".
var spaceGroupedRE = regexp.MustCompile(`\d{1,3}(?:([ \x{00A0}\x{2009}\x{202F}'’])\d{3})(?:[ \x{00A0}\x{2009}\x{202F}'’]\d{3})*(?:\.\d+)?`)

// scientificRE finds "2.7 × 10^-2", "2.7x10⁻²", "2.7·10^-2".
var scientificRE = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*[×xX*·⋅]\s*10\s*(?:\^|\*\*)?\s*([-+\x{2212}⁻⁺]?[0-9⁰¹²³⁴⁵⁶⁷⁸⁹]+)`)

// Numbers returns the numbers text states, by position: decimal
// literals ("1,234.5", "0.35", "-2e-3"), numbers grouped in thousands by
// commas, spaces or apostrophes ("10,452", "10 452", "10'452"), a decimal
// comma where it cannot group thousands ("0,35"), scaled numbers ("164k",
// "2.6 million"), scientific notation ("2.7 × 10^-2") and numbers in words
// ("ninety-nine", "four hundred and two"). A comma-joined literal also
// gives each comma-separated number, as in compact JSON ("[1,234]" gives
// 1234, 1 and 234). A sign or dot right after a letter or digit joins
// words instead of starting a number: "9-99694174" gives 9 and 99694174,
// "c.187C>T" gives 187.
func Numbers(text string) []Number {
	var out []Number
	add := func(lit string, start, end int) {
		if v, err := strconv.ParseFloat(lit, 64); err == nil && !math.IsInf(v, 0) {
			out = append(out, Number{Value: v, Start: start, End: end})
		}
	}
	// The patterns below need an ASCII digit (regexp's \d): text without
	// one skips them.
	digits := strings.ContainsAny(text, "0123456789")
	for _, loc := range decimalLiterals(text) {
		start, lit := loc[0], text[loc[0]:loc[1]]
		if before, _ := utf8.DecodeLastRuneInString(text[:start]); IsWordRune(before) {
			trimmed := strings.TrimLeft(lit, "-+\u2212.")
			start += len(lit) - len(trimmed)
			lit = trimmed
		}
		lit = strings.Replace(lit, "\u2212", "-", 1)
		if commaGroupedRE.MatchString(lit) {
			add(strings.ReplaceAll(lit, ",", ""), start, loc[1])
		} else if v, ok := decimalComma(lit); ok {
			out = append(out, Number{Value: v, Start: start, End: loc[1]})
		}
		pos := start
		for part := range strings.SplitSeq(lit, ",") {
			add(part, pos, pos+len(part))
			pos += len(part) + 1
		}
	}
	for _, loc := range findAll(spaceGroupedRE, text, digits && mayHoldSpaceGrouped(text)) {
		if !standsAlone(text, loc[0], loc[1]) {
			continue
		}
		lit := strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) || r == '.' {
				return r
			}
			return -1
		}, text[loc[0]:loc[1]])
		add(lit, loc[0], loc[1])
	}
	var scientific [][]int
	if digits && mayHoldScientific(text) {
		scientific = scientificRE.FindAllStringSubmatchIndex(text, -1)
	}
	for _, m := range scientific {
		mantissa, _ := strconv.ParseFloat(text[m[2]:m[3]], 64)
		exp, err := strconv.Atoi(plainDigits(text[m[4]:m[5]]))
		if err == nil && exp > -300 && exp < 300 {
			out = append(out, Number{Value: mantissa * math.Pow10(exp), Start: m[0], End: m[1]})
		}
	}
	out = append(out, numberWords(text)...)
	out = scaled(text, out)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	for i := range out {
		out[i].Percent = percentAfter(text[out[i].End:])
	}
	return out
}

// findAll returns re's matches in text, or none without looking when
// text cannot hold one.
func findAll(re *regexp.Regexp, text string, possible bool) [][]int {
	if !possible {
		return nil
	}
	return re.FindAllStringIndex(text, -1)
}

// spaceSeparators are the characters spaceGroupedRE groups thousands by.
const spaceSeparators = " \u00A0\u2009\u202F'’"

// mayHoldSpaceGrouped reports whether text has what every match of
// spaceGroupedRE has: a digit, a separator and three digits in a row.
func mayHoldSpaceGrouped(text string) bool {
	for i := 0; i < len(text); i++ {
		if !digitAt(text, i) {
			continue
		}
		sep, size := utf8.DecodeRuneInString(text[i+1:])
		if size > 0 && strings.ContainsRune(spaceSeparators, sep) &&
			digitAt(text, i+1+size) && digitAt(text, i+2+size) && digitAt(text, i+3+size) {
			return true
		}
	}
	return false
}

// mayHoldScientific reports whether text has what every match of
// scientificRE has: a digit, a times sign and "10", with only white space
// (regexp's \s) between them.
func mayHoldScientific(text string) bool {
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
	for i, r := range text {
		if !strings.ContainsRune("×xX*·⋅", r) {
			continue
		}
		before := i - 1
		for before >= 0 && space(text[before]) {
			before--
		}
		after := i + utf8.RuneLen(r)
		for after < len(text) && space(text[after]) {
			after++
		}
		if before >= 0 && digitAt(text, before) && strings.HasPrefix(text[after:], "10") {
			return true
		}
	}
	return false
}

// decimalComma reads "0,35", "0,160" or "8,1" as a decimal with a comma:
// one comma, no point, and one or two digits after it, or a zero before
// it (three digits after any other number group its thousands).
func decimalComma(lit string) (float64, bool) {
	whole, frac, ok := strings.Cut(strings.TrimLeft(lit, "+-"), ",")
	if !ok || strings.ContainsAny(frac, ",.eE") || whole == "" || frac == "" || len(frac) > 2 && whole != "0" {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.Replace(lit, ",", ".", 1), 64)
	return v, err == nil
}

// standsAlone reports whether text[start:end] is not part of a longer
// number or word.
func standsAlone(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	joined := func(r rune) bool { return IsWordRune(r) || r == '.' || r == ',' }
	return (start == 0 || !joined(before)) && (end == len(text) || !unicode.IsDigit(after))
}

// plainDigits turns superscript digits and signs into plain ones.
func plainDigits(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '⁻', '\u2212':
			return '-'
		case '⁺':
			return '+'
		case '⁰':
			return '0'
		case '¹':
			return '1'
		case '²':
			return '2'
		case '³':
			return '3'
		}
		if r >= '⁴' && r <= '⁹' {
			return '4' + (r - '⁴')
		}
		return r
	}, s)
}

// scaleWords multiply the number before them.
var scaleWords = map[string]float64{"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}

// scaleSuffixRE is a scale written right after a number: "164k", "2.6M",
// "3bn", or a scale word after it: "2.6 million".
var scaleSuffixRE = regexp.MustCompile(`^(?:([kK]|M|bn)\b|\s+(thousand|million|billion|trillion)\b)`)

// scaled adds, for each number followed by a scale, the scaled number.
func scaled(text string, numbers []Number) []Number {
	out := numbers
	for _, n := range numbers {
		m := scaleSuffixRE.FindStringSubmatch(wordsAfter(text[n.End:]))
		if m == nil {
			continue
		}
		factor := map[string]float64{"k": 1e3, "K": 1e3, "M": 1e6, "bn": 1e9}[m[1]]
		if m[2] != "" {
			factor = scaleWords[m[2]]
		}
		out = append(out, Number{Value: n.Value * factor, Start: n.Start, End: n.End + len(m[0])})
	}
	return out
}

// percentRE is a percent sign or word after a number.
var percentRE = regexp.MustCompile(`^\s?(?:%|(?i:percent|per\s+cent|pct)\b)`)

func percentAfter(rest string) bool { return percentRE.MatchString(wordsAfter(rest)) }

// wordsAfter returns the start of rest that holds every match of
// scaleSuffixRE and percentRE, and the byte after it that decides their
// \b: white space, up to three bytes ("per"), white space, up to eight
// bytes ("trillion"), and four more. Matching anchored patterns on all of
// rest costs time in its length (regexp readies its state for the whole
// input), which made reading a long text's numbers quadratic.
func wordsAfter(rest string) string {
	space := func(i int) int {
		for i < len(rest) && strings.IndexByte(" \t\n\f\r", rest[i]) >= 0 {
			i++
		}
		return i
	}
	end := space(min(space(0)+3, len(rest))) + 8 + 4
	return rest[:min(end, len(rest))]
}

var (
	smallNumbers = map[string]float64{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
		"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
		"seventeen": 17, "eighteen": 18, "nineteen": 19,
	}
	tens = map[string]float64{
		"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
	}
)

// numberWords finds numbers written in English words: "ninety-nine",
// "four hundred and two", "ten thousand four hundred fifty-two", "a
// hundred", "zero point three five".
func numberWords(text string) []Number {
	words := letterRuns(text)
	var out []Number
	for i := 0; i < len(words); {
		n, next := readNumberWords(text, words, i)
		if next > i {
			out = append(out, n)
			i = next
			continue
		}
		i++
	}
	return out
}

// letterRuns returns the start and end of each run of ASCII letters in
// text, the words numbers are written in.
func letterRuns(text string) [][]int {
	var runs [][]int
	start := -1
	for i := 0; i < len(text); i++ {
		c := text[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		switch {
		case letter && start < 0:
			start = i
		case !letter && start >= 0:
			runs = append(runs, []int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		runs = append(runs, []int{start, len(text)})
	}
	return runs
}

// readNumberWords reads a number in words from words[i]; next is the
// index after it, or i when none begins there.
func readNumberWords(text string, words [][]int, i int) (n Number, next int) {
	word := func(k int) string { return strings.ToLower(text[words[k][0]:words[k][1]]) }
	// joined reports whether words k-1 and k are joined by white space or
	// a hyphen only.
	joined := func(k int) bool {
		gap := text[words[k-1][1]:words[k][0]]
		return strings.TrimSpace(strings.TrimSpace(gap)) == "" || strings.TrimSpace(gap) == "-"
	}
	isNumberWord := func(w string) bool {
		_, small := smallNumbers[w]
		_, ten := tens[w]
		_, scale := scaleWords[w]
		return small || ten || scale || w == "hundred"
	}
	total, current := 0.0, 0.0
	seen, last := false, i
	k := i
	if word(k) == "a" && k+1 < len(words) && joined(k+1) && (word(k+1) == "hundred" || scaleWords[word(k+1)] > 0) {
		current, k = 1, k+1
	}
	for ; k < len(words); k++ {
		w := word(k)
		if k > i && !joined(k) {
			break
		}
		if w == "and" && seen && k+1 < len(words) && joined(k+1) && isNumberWord(word(k+1)) {
			continue
		}
		switch {
		case smallNumbers[w] > 0 || w == "zero":
			current += smallNumbers[w]
		case tens[w] > 0:
			current += tens[w]
		case w == "hundred" && (seen || current > 0):
			current *= 100
		case scaleWords[w] > 0 && (seen || current > 0):
			total += current * scaleWords[w]
			current = 0
		case w == "point" && seen && k+1 < len(words) && joined(k+1):
			frac, scale := 0.0, 0.1
			j := k + 1
			for ; j < len(words) && joined(j); j++ {
				d, ok := smallNumbers[word(j)]
				if !ok || d > 9 {
					break
				}
				frac += d * scale
				scale /= 10
			}
			if j == k+1 {
				return n, i
			}
			return Number{Value: total + current + frac, Start: words[i][0], End: words[j-1][1]}, j
		default:
			if !seen {
				return n, i
			}
			return Number{Value: total + current, Start: words[i][0], End: words[last][1]}, last + 1
		}
		seen, last = true, k
	}
	if !seen {
		return n, i
	}
	return Number{Value: total + current, Start: words[i][0], End: words[last][1]}, last + 1
}
