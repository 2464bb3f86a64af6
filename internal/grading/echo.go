package grading

import (
	"math"
	"strings"
	"unicode"
)

// An echo is a span of the answer that repeats at least echoWords
// consecutive words of the question and at least echoShare of its words, or
// that repeats a whole sentence of the question of at least sentenceWords
// words. A shorter question is an echo only when repeated whole.
const (
	echoWords     = 5
	echoShare     = 0.6
	sentenceWords = 3
)

// withoutEcho returns answer without the spans that repeat the question
// (see echoWords). Words compare ignoring case and the punctuation around
// them, so "Is Chr9:99694174 C>T present in gnomAD?" is found in "is
// chr9:99694174 C>T present in gnomAD". A restatement of part of the
// question ("no interaction between NUTM2G and MECP2") is not an echo.
// Each span is replaced by a line break. onlyEcho is true when spans were
// removed and no letter or digit is left.
func withoutEcho(question, answer string) (text string, onlyEcho bool) {
	q := words(question)
	if len(q) == 0 {
		return answer, false
	}
	a := words(answer)
	need := min(len(q), max(echoWords, int(math.Ceil(echoShare*float64(len(q))))))
	// sentence[j] is the number of words of the question's sentence that
	// ends at word j, 0 when no sentence ends there.
	sentence := make([]int, len(q))
	start := 0
	for j, w := range q {
		if j == len(q)-1 || w.endsSentence {
			sentence[j] = j - start + 1
			start = j + 1
		}
	}

	// run[j] is the length of the longest run of answer words ending at
	// the current word that equals question words ending at q[j].
	run, prev := make([]int, len(q)), make([]int, len(q))
	covered := make([]bool, len(a))
	found := false
	for i := range a {
		longest := 0
		for j := range q {
			run[j] = 0
			if a[i].norm != q[j].norm {
				continue
			}
			run[j] = 1
			if j > 0 {
				run[j] = prev[j-1] + 1
			}
			if run[j] >= need {
				longest = max(longest, run[j])
			}
			if n := sentence[j]; n >= sentenceWords && run[j] >= n {
				longest = max(longest, n)
			}
		}
		if longest > 0 {
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
	// endsSentence is true when the word ends with a full stop, question
	// or exclamation mark.
	endsSentence bool
}

// words splits text into words, leaving out those with no letter or digit.
func words(text string) []word {
	var out []word
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		raw := text[start:end]
		w := strings.TrimFunc(raw, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if w != "" {
			tail := strings.TrimRight(raw, `"')]”’`)
			out = append(out, word{start, end, strings.ToLower(w), strings.HasSuffix(tail, ".") || strings.HasSuffix(tail, "?") || strings.HasSuffix(tail, "!")})
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
