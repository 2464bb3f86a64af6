package evalcase

import (
	"strings"
	"unicode"
)

// echoWords is how many consecutive words of the question an answer must
// repeat for the repetition to count as an echo of the question.
const echoWords = 5

// withoutEcho returns answer without the spans that repeat the question:
// every run of at least echoWords consecutive words (or of the whole
// question, when it is shorter) that also occur consecutively in the
// question. Words compare ignoring case and the punctuation around them, so
// "Is Chr9:99694174 C>T present in gnomAD?" is found in "is
// chr9:99694174 C>T present in gnomAD". Each span is replaced by a line
// break. onlyEcho is true when spans were removed and no letter or digit is
// left.
func withoutEcho(question, answer string) (text string, onlyEcho bool) {
	q := words(question)
	if len(q) == 0 {
		return answer, false
	}
	a := words(answer)
	need := min(echoWords, len(q))

	// run[j] is the length of the longest run of answer words ending at
	// the current word that equals question words ending at q[j].
	run, prev := make([]int, len(q)), make([]int, len(q))
	covered := make([]bool, len(a))
	found := false
	for i := range a {
		longest := 0
		for j := range q {
			run[j] = 0
			if a[i].norm == q[j].norm {
				run[j] = 1
				if j > 0 {
					run[j] = prev[j-1] + 1
				}
				longest = max(longest, run[j])
			}
		}
		if longest >= need {
			found = true
			for k := i - longest + 1; k <= i; k++ {
				covered[k] = true
			}
		}
		run, prev = prev, run
	}
	if !found {
		return answer, false
	}

	var b strings.Builder
	last := 0
	for i := 0; i < len(a); i++ {
		if !covered[i] {
			continue
		}
		j := i
		for j+1 < len(a) && covered[j+1] {
			j++
		}
		b.WriteString(answer[last:a[i].start])
		b.WriteString("\n")
		last = a[j].end
		i = j
	}
	b.WriteString(answer[last:])
	text = b.String()
	return text, strings.IndexFunc(text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0
}

// word is one white-space separated word of a text: its byte span and its
// form for comparison (lower case, without the punctuation around it).
type word struct {
	start, end int
	norm       string
}

// words splits text into words, leaving out those with no letter or digit.
func words(text string) []word {
	var out []word
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.TrimFunc(text[start:end], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if w != "" {
			out = append(out, word{start, end, strings.ToLower(w)})
		}
		start = -1
	}
	for i, r := range text {
		if unicode.IsSpace(r) {
			flush(i)
		} else if start < 0 {
			start = i
		}
	}
	flush(len(text))
	return out
}
