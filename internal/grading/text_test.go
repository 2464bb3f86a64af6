package grading

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// span returns the span of the first occurrence of part in text.
func span(t *testing.T, text, part string) Span {
	t.Helper()
	i := strings.Index(text, part)
	require.GreaterOrEqual(t, i, 0, "%q not in %q", part, text)
	return Span{i, i + len(part)}
}

// A negation or a contrast takes back what follows it in its clause, a
// verb's negation its subject; two negations cancel; idioms and answers
// ("No, ...") negate nothing.
func TestNegated(t *testing.T) {
	tests := []struct {
		text, word string
		negated    bool
	}{
		{"STRING has no record of an interaction between NUTM2G and VIRMA.", "VIRMA", true},
		{"Not p.P63S as often assumed: the change is p.P63L.", "P63S", true},
		{"Not p.P63S as often assumed: the change is p.P63L.", "P63L", false},
		{"It is not pathogenic but benign.", "benign", false},
		{"It is not pathogenic but benign.", "pathogenic", true},
		{"NUTM2G is not intolerant of LoF variation.", "intolerant", true},
		{"No, the variant is pathogenic.", "pathogenic", false},
		{"No doubt several controls overlap MECP2.", "overlap", false},
		{"No other partner is listed.", "partner", false},
		{"There is no partner other than VIRMA.", "VIRMA", false},
		{"There is no partner other than VIRMA.", "partner", true},
		{"Neither HumDiv nor HumVar calls it damaging: both say benign.", "damaging", true},
		{"Neither HumDiv nor HumVar calls it damaging: both say benign.", "benign", false},
		{"Human Resources and Marketing, not Engineering, Finance or Operations.", "Operations", true},
		{"Human Resources and Marketing, not Engineering, Finance or Operations.", "Marketing", false},
		{"MECP2 and CDKL5 are not.", "MECP2", true},
		{"Ivacaftor isn't approved for CFTR.", "Ivacaftor", true},
		{"TP53 does not appear among them.", "TP53", true},
		{"A CADD phred score of 8.103 does not suggest pathogenicity.", "8.103", false},
		{"The score is 8.103, which is not high.", "8.103", false},
		{"Engineering is not above 90%.", "Engineering", true},
		{"8.103 is not above 20.", "8.103", false},
		{"CFTR is not only expressed in the pancreas.", "expressed", false},
		{"The CADD phred score isn't 8.103; it is 81.03.", "81.03", false},
		{"The CADD phred score isn't 8.103; it is 81.03.", "8.103", true},
		{"The variant lies in NUTM2G and does not affect splicing.", "NUTM2G", false},
		{"It was never found in gnomAD.", "found", true},
		{"Nothing is missing and nothing is wrong.", "wrong", true},
		{"La respuesta no es correcta.", "correcta", true},
		{"Die Antwort ist nicht richtig.", "richtig", true},
		{"La réponse n'est pas correcte.", "correcte", true},
	}
	for _, tt := range tests {
		t.Run(tt.text+" "+tt.word, func(t *testing.T) {
			s := span(t, tt.text, tt.word)
			assert.Equal(t, tt.negated, Parse(tt.text).Negated(s.Start, s.End))
		})
	}
}

// A sentence that ends in "?" asks and states nothing.
func TestAsked(t *testing.T) {
	text := "Absent? No, it is present in gnomAD."
	tx := Parse(text)
	assert.True(t, tx.Asked(span(t, text, "Absent").Start))
	assert.False(t, tx.Asked(span(t, text, "present").Start))
}

func values(ns []Number) []float64 {
	var out []float64
	for _, n := range ns {
		out = append(out, n.Value)
	}
	return out
}

// Numbers are read in every common form.
func TestNumbers(t *testing.T) {
	tests := []struct {
		text string
		want []float64
	}{
		{"", nil},
		{"none", nil},
		{"a 1,234.5 b", []float64{1234.5, 1, 234.5}},
		{"[1,234]", []float64{1234, 1, 234}},
		{"[1,2345]", []float64{1, 2345}},
		{"[0.5,0.25]", []float64{0.5, 0.25}},
		{"[1,0.5]", []float64{1, 0.5}},
		{"x -3 and +4", []float64{-3, 4}},
		{"(-0.5)", []float64{-0.5}},
		{"9-99694174", []float64{9, 99694174}},
		{"c.187C>T", []float64{187}},
		{"version 1.2.3", []float64{1.2, 3}},
		{"-2e-3", []float64{-0.002}},
		{"score:-1.5E2", []float64{-150}},
		{"2024-01-05", []float64{2024, 1, 5}},
		{"10 452 homozygotes", []float64{10, 10452, 452}},
		{"10\u202f452", []float64{10, 10452, 452}},
		{"10\u2009452", []float64{10, 10452, 452}},
		{"10'452", []float64{10, 10452, 452}},
		{"0,35", []float64{0.35, 0, 35}},
		{"8,103", []float64{8103, 8, 103}},
		{"ninety-nine", []float64{99}},
		{"Ten thousand four hundred fifty-two", []float64{10452}},
		{"four hundred and two", []float64{402}},
		{"a hundred", []float64{100}},
		{"zero point three five", []float64{0.35}},
		{"$164k", []float64{164, 164000}},
		{"2.6 million", []float64{2.6, 2.6e6}},
		{"480K", []float64{480, 480000}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			assert.InDeltaSlice(t, tt.want, values(Numbers(tt.text)), 1e-9)
			assert.Len(t, Numbers(tt.text), len(tt.want))
		})
	}
	sci := Numbers("REVEL = 2.7 × 10^-2")
	assert.Contains(t, roundAll(values(sci)), 0.027, "scientific notation")
	percent := Numbers("78.6% and 1.7 percent, 3 per cent; 0.786")
	require.Len(t, percent, 4)
	assert.Equal(t, []bool{true, true, true, false}, []bool{percent[0].Percent, percent[1].Percent, percent[2].Percent, percent[3].Percent})
}

func roundAll(vs []float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = float64(int64(v*1e9+0.5)) / 1e9
	}
	return out
}

// A term matches as whole words; a hyphen matches a space or nothing; a
// final * matches the rest of a word.
func TestFind(t *testing.T) {
	tests := []struct {
		text, spelling string
		found          []string
	}{
		{"It is nonpathogenic.", "pathogenic", nil},
		{"It is pathogenic.", "pathogenic", []string{"pathogenic"}},
		{"The post embryonic stage", "post-embryonic", []string{"post embryonic"}},
		{"The postembryonic stage", "post-embryonic", []string{"postembryonic"}},
		{"no interactions", "interact*", []string{"interactions"}},
		{"110,452", "10,452", nil},
		{"HP:0001878", "HP:0001878", []string{"HP:0001878"}},
		{"αpathogenic or pathogenicé, then Pathogenic and pathogenic.", "pathogenic", []string{"Pathogenic", "pathogenic"}},
		{"x²10 and 10", "10", []string{"10"}},
		{"NUTM2G-NUTM2G", "NUTM2G", []string{"NUTM2G", "NUTM2G"}},
		{"c.187C>Tc.187C>T (c.187C>T)", "c.187C>T", []string{"c.187C>T"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			var got []string
			for _, s := range Find(tt.text, tt.spelling) {
				got = append(got, tt.text[s.Start:s.End])
			}
			assert.Equal(t, tt.found, got)
		})
	}
}

// PrefixPattern matches at the start of the text only, as whole words.
func TestPrefixPattern(t *testing.T) {
	for text, want := range map[string]bool{"TPM in liver": true, "tpm": true, "TPMs": false, "the TPM": false, "": false} {
		assert.Equal(t, want, PrefixPattern("TPM").MatchString(text), text)
	}
	assert.True(t, Pattern("TPM").MatchString("median TPM: 63.18"))
	assert.False(t, Pattern("TPM").MatchString("median TPMs"))
}

// A value belongs to the subject a careful reader gives it.
func TestOwner(t *testing.T) {
	subjects := Subjects{Named: [][]string{{"NUTM2G"}}, Symbols: true, Known: map[string]bool{}}
	tests := []struct {
		text, value, owner string // owner "" when none
	}{
		{"0.35 is MECP2's; NUTM2G's is 0.74.", "0.35", "MECP2"},
		{"0.35 is MECP2's; NUTM2G's is 0.74.", "0.74", "NUTM2G"},
		{"For NUTM2G, the LoF o/e is 0.35.", "0.35", "NUTM2G"},
		{"The LoF o/e is 0.35.", "0.35", ""},
		{"104 in TP53 versus 136 in MECP2.", "136", "MECP2"},
		{"NUTM2G is higher (0.35) than MECP2 (0.31).", "0.35", "NUTM2G"},
		{"99 is the count for NUTM2A; NUTM2G has none.", "99", "NUTM2A"},
		{"8.103 was reported for a different transcript.", "8.103", "different transcript"},
		{"| Gene | Score |\n|---|---|\n| MECP2 | 0.31 |\n| NUTM2G | 0.35 |", "0.35", "NUTM2G"},
		{`{"symbol": "NUTM2G", "aliases": ["NUTM2A"], "oe_lof": 0.35}`, "0.35", "NUTM2G"},
		{`{"NUTM2A": 0.35}`, "0.35", "NUTM2A"},
	}
	for _, tt := range tests {
		t.Run(tt.text+" "+tt.value, func(t *testing.T) {
			tx := Parse(tt.text)
			m, ok := tx.Owner(span(t, tt.text, tt.value).Start, tx.Mentions(subjects), nil, false)
			if tt.owner == "" {
				assert.False(t, ok, "owner %q", m.Name)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.owner, m.Name)
		})
	}
	// Two values after as many subjects pair in order.
	for _, text := range []string{"TP53 and BRCA1 are 7157 and 672, respectively.", "TP53 and BRCA1 have IDs 7157 and 672."} {
		two := Subjects{Named: [][]string{{"TP53"}, {"BRCA1"}}}
		tx := Parse(text)
		peers := []int{span(t, text, "7157").Start, span(t, text, "672").Start}
		for i, want := range []string{"TP53", "BRCA1"} {
			m, ok := tx.Owner(peers[i], tx.Mentions(two), peers, false)
			require.True(t, ok)
			assert.Equal(t, want, m.Name, text)
		}
	}
	assert.True(t, IsSymbol("Mdm2"))
	assert.False(t, IsSymbol("P63S"), "a protein change")
	assert.False(t, IsSymbol("Pro63Ser"))
	assert.False(t, IsSymbol("GRCh38"))
}

// A value offered beside another is hedged; a range of two expected values
// is not.
func TestHedged(t *testing.T) {
	numberTests := []struct {
		text, value string
		hedged      bool
	}{
		{"Either 0.35 or 0.74.", "0.35", true},
		{"Somewhere between 8.103 and 81.03.", "8.103", true},
		{"10,452–10,600 depending on the release.", "10,452", true},
		{"8.103/81.03 depending on the source.", "8.103", true},
		{"The o/e is 0.35, maybe 0.4.", "0.35", true},
		{"The o/e is 0.35 (CI 0.21–0.62).", "0.35", false},
		{"Residues 95 to 289.", "95", false},
	}
	for _, tt := range numberTests {
		t.Run(tt.text, func(t *testing.T) {
			tx := Parse(tt.text)
			s := span(t, tt.text, tt.value)
			var others []Number
			for _, n := range Numbers(tt.text) {
				if n.End <= s.Start || n.Start >= s.End {
					others = append(others, n)
				}
			}
			expected := func(n Number) bool { return n.Value == 289 }
			_, hedged := tx.HedgedNumber(s.Start, s.End, others, expected)
			assert.Equal(t, tt.hedged, hedged)
		})
	}
	termTests := []struct {
		text, term string
		hedged     bool
	}{
		{"p.P63S or p.P63L.", "P63S", true},
		{"It is pathogenic or likely benign.", "pathogenic", true},
		{"BRCA1, BRCA2, TP53 or PALB2.", "TP53", false},
		{"An MFS, or major facilitator, domain.", "MFS", false},
	}
	for _, tt := range termTests {
		t.Run(tt.text, func(t *testing.T) {
			s := span(t, tt.text, tt.term)
			_, hedged := Parse(tt.text).HedgedTerm(s.Start, s.End)
			assert.Equal(t, tt.hedged, hedged)
		})
	}
}

// What a text says of an answer, in the languages judges write in.
func TestJudge(t *testing.T) {
	tests := []struct {
		text    string
		yes, no bool
	}{
		{"Correct: no", true, true},
		{"The response is incorrect.", false, true},
		{"The answer isn't correct.", false, true},
		{"I cannot accept this answer.", false, true},
		{"Veredicto: no. La respuesta es incorrecta.", false, true},
		{"Verdict — no", false, true},
		{"The answer is wrong: 8103 is not 8.103.", false, true},
		{"Die Antwort ist falsch.", false, true},
		{"答案不正确。", false, true},
		{"回答は正しくありません。", false, true},
		{"Ответ неверный.", false, true},
		{"Partially correct.", false, true},
		{"No discrepancy: it states 8.103.", true, false},
		{"Nothing is missing and nothing is wrong.", true, false},
		{"The answer adds details not in the expected answer; they are accurate.", true, false},
		{"Different wording, same value.", false, false},
		{"The answer is correct.", true, false},
		{"回答正确，与预期一致。", true, false},
		{"The correct value is 8.103; the answer gives 81.03.", false, false},
		{"Sí, la respuesta es correcta.", true, false},
		{"Oui, la réponse est correcte.", true, false},
		{"No, è sbagliata.", false, true},
		{"Нет, ответ неверный.", false, true},
		{"いいえ、間違っています。", false, true},
		{"아니요, 틀렸습니다.", false, true},
		{"Hayır, yanlış.", false, true},
		{"Nie, odpowiedź jest błędna.", false, true},
		{"Nee, het antwoord is fout.", false, true},
		{"नहीं, उत्तर गलत है।", false, true},
		{"لا، الإجابة خاطئة.", false, true},
		{"לא, התשובה שגויה.", false, true},
		{"Không, câu trả lời sai.", false, true},
		{"Tidak, jawabannya salah.", false, true},
		{"Die Antwort stimmt nicht.", false, true},
		{"The key is url-pass-7d2b91.", false, false},
		{"It says there is no interaction between NUTM2G and MECP2, as expected.", false, false},
		{"The answer states 81.03, not the expected 8.103.", false, true},
		{"It does not mention the unit.", false, true},
		{"Although the answer doesn't use the exact wording, it conveys the same meaning.", true, false},
		{"I would say no.", false, true},
		{"Does not meet the expected answer.", false, true},
		{"The answer correctly states that NUTM2G has no OMIM entry.", true, false},
		{"The answer does not contradict the expected answer and gives the same value.", true, false},
		{"The answer is right; no discrepancies or errors.", true, false},
		{"The answer 81.03 does not equal 8.103.", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			s := Judge(tt.text)
			assert.Equal(t, tt.yes, s.Says("yes"), "%+v", s)
			assert.Equal(t, tt.no, s.Says("no"), "%+v", s)
		})
	}
}

// letterRuns finds the words the pattern [A-Za-z]+ finds, in any text:
// ASCII letters only, so accented letters, digits and marks split words.
func FuzzLetterRuns(f *testing.F) {
	for _, seed := range []string{"", "a", "Z", "1", "ninety-nine", "four hundred and two", "é", "naïve café",
		"BRCA1 c.68_69delAG", "  two  ", "x\u00a0y", "ΑΒΓ abc", "a\x00b", "\xff\xfeab\xff", "zero point three five"} {
		f.Add(seed)
	}
	pattern := regexp.MustCompile(`[A-Za-z]+`)
	f.Fuzz(func(t *testing.T, text string) {
		assert.Equal(t, pattern.FindAllStringIndex(text, -1), letterRuns(text), "%q", text)
	})
}

// Text without an ASCII digit gives only the numbers written in words, as
// the patterns that need a digit would find none.
func TestNumbersWithoutDigits(t *testing.T) {
	for _, text := range []string{"ninety-nine patients", "a hundred and two", "no numbers here", "١٢٣ (Arabic-Indic digits)", "²³ superscripts"} {
		var values []float64
		for _, n := range Numbers(text) {
			values = append(values, n.Value)
		}
		want := map[string][]float64{"ninety-nine patients": {99}, "a hundred and two": {102}}[text]
		assert.Equal(t, want, values, text)
	}
}

// decimalLiterals finds what decimalPattern finds, in any text.
func FuzzDecimalLiterals(f *testing.F) {
	for _, seed := range []string{"", "1", "-1", "+-5", "--5", "1,234.5e3", "1,,2", "1,2,3", ".5", "-.5e-3", "1e", "1e+",
		"1.e5", "1..2", "5.", "\u22123.5", "\u2212", "\u2212.5", "x\u22121", "\xe2\x88", "\xe2\xe2\x88\x921", "a1b2", "1E+10,5",
		"9-99694174", "c.187C>T", "[0.5,0.25]", "١٢٣", "3,", ",3", "e5", "1e5e5", "0x1F", "1 234"} {
		f.Add(seed)
	}
	pattern := regexp.MustCompile(decimalPattern)
	f.Fuzz(func(t *testing.T, text string) {
		assert.Equal(t, pattern.FindAllStringIndex(text, -1), decimalLiterals(text), "%q", text)
	})
}

// The checks that let Numbers skip a pattern never skip one that matches.
func FuzzNumberPatternChecks(f *testing.F) {
	for _, seed := range []string{"", "10 452", "10\u00a0452", "10'452", "10’452", "1 23", "2.7 × 10^-2", "2.7x10⁻²", "2.7·10^-2",
		"3 *\t10**5", "x10", "5 x 1", "5\u00a0x 10", "\xff10 452", "1\xe2\x80\x89234", "4×\n\n10"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !mayHoldSpaceGrouped(text) {
			assert.Empty(t, spaceGroupedRE.FindAllStringIndex(text, -1), "%q", text)
		}
		if !mayHoldScientific(text) {
			assert.Empty(t, scientificRE.FindAllStringIndex(text, -1), "%q", text)
		}
	})
}

// Reading the numbers of a long answer: 22 KB of prose with numbers, a
// few in rarer forms.
func BenchmarkNumbers(b *testing.B) {
	text := strings.Repeat("The gene BRCA1 has 24 exons; ninety-nine variants were found in 1,234 patients, 12.5% of them. ", 230) +
		"p = 2.7 × 10^-2 over 10 452 reads."
	for b.Loop() {
		Numbers(text)
	}
}

// What follows a number reads the same in full and in the start of it
// that wordsAfter keeps.
func FuzzWordsAfter(f *testing.F) {
	for _, seed := range []string{"", "%", " %", "  %", " percent", " Percent of", " per   cent", " per\tcentury", " percentage",
		"k", "kg", "M ", "bn.", " thousand", "   trillion dollars", " trillions", " pct", "\u00a0%", " per \n cent!"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, rest string) {
		assert.Equal(t, percentRE.MatchString(rest), percentAfter(rest), "%q", rest)
		assert.Equal(t, scaleSuffixRE.FindStringSubmatch(rest), scaleSuffixRE.FindStringSubmatch(wordsAfter(rest)), "%q", rest)
	})
}
