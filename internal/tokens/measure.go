package tokens

import (
	"runtime"
	"sync"
	"unicode"
	"unicode/utf8"
)

// How Measure splits text. Every encoding's pre-tokenizer (the regular
// expression that cuts text into the pieces BPE works on) ends a piece at
// certain places (see splitsBetween): no piece spans them, so counting
// the text between them one part at a time gives the count of the whole.
// The parts are short and repeat (keys and values of JSON, words of
// prose), so their counts are remembered; large texts are counted on all
// cores.
const (
	// BPE takes time quadratic in the length of a piece. A part longer
	// than maxPart (a run of letters, spaces or punctuation without a
	// place to split) is counted whole while the squares of such parts'
	// lengths add up to at most longBudget (about a second of work, a
	// run of 45,000 bytes) per text and worker; past it, in runs of
	// approxPart bytes, which can differ from the true count by about a
	// token per run.
	maxPart    = 512
	longBudget = 2 << 30
	approxPart = 256
	// chunk is the share of a large text each worker counts at a time.
	chunk = 1 << 20
	// maxMemo bounds the remembered counts of one worker.
	maxMemo = 1 << 16
)

// Measure returns the number of tokens in text. exact is false when text
// holds long runs without a place to split them (see above) beyond what
// can be counted whole in about a second: those runs are counted in parts,
// since counting them whole would cost time quadratic in their length, and
// the count is then close, not exact.
// Measure takes time linear in the length of text; about 1 s per 10 MB of
// varied JSON on one core, much less for repetitive text, on every core.
func (c *Counter) Measure(text string) (n int, exact bool) {
	enc := c.encoding()
	if len(text) <= chunk {
		m := measurer{enc: enc}
		m.measure(text)
		return m.n, m.exact()
	}
	chunks := splitChunks(text)
	workers := min(runtime.GOMAXPROCS(0), len(chunks))
	results := make([]measurer, workers)
	next := make(chan string, len(chunks))
	for _, ch := range chunks {
		next <- ch
	}
	close(next)
	var wg sync.WaitGroup
	for w := range results {
		m := &results[w]
		m.enc = enc
		wg.Go(func() {
			for ch := range next {
				m.measure(ch)
			}
		})
	}
	wg.Wait()
	exact = true
	for _, m := range results {
		n += m.n
		exact = exact && m.exact()
	}
	return n, exact
}

// measurer counts the tokens of parts of a text, remembering the counts of
// the parts it saw.
type measurer struct {
	enc        *encoding
	memo       map[string]int
	n          int
	approxRuns int
	longWork   int64 // the sum of the squares of the long parts' lengths counted whole
}

func (m *measurer) exact() bool { return m.approxRuns == 0 }

// measure adds the tokens of text, part by part.
func (m *measurer) measure(text string) {
	for len(text) > 0 {
		end := nextSplit(text, 1)
		m.part(text[:end])
		text = text[end:]
	}
}

// part adds the tokens of one part.
func (m *measurer) part(p string) {
	if m.enc.digitsByThree && asciiDigits(p) {
		m.n += (len(p) + 2) / 3
		return
	}
	if n, ok := m.memo[p]; ok {
		m.n += n
		return
	}
	if len(p) > maxPart {
		cost := int64(len(p)) * int64(len(p))
		if cost > longBudget-m.longWork {
			m.approximate(p)
			return
		}
		m.longWork += cost
	}
	n := len(m.enc.tk.EncodeOrdinary(p))
	if m.memo == nil || len(m.memo) >= maxMemo {
		// Grown as parts come: most texts are short (a question, an
		// answer), and a map sized for many parts would be allocated for
		// each of them.
		m.memo = map[string]int{}
	}
	m.memo[p] = n
	m.n += n
}

// approximate adds the tokens of a long part counted in runs of approxPart
// bytes.
func (m *measurer) approximate(p string) {
	m.approxRuns++
	for len(p) > 0 {
		end := min(len(p), approxPart)
		for end < len(p) && !utf8.RuneStart(p[end]) {
			end++
		}
		m.part(p[:end])
		p = p[end:]
	}
}

// nextSplit returns the first place at or after from (a byte offset past
// the first character) where text may be split, or len(text).
func nextSplit(text string, from int) int {
	before, prev := rune(-1), rune(-1)
	for i, r := range text {
		if i >= from && i > 0 && splitsBetween(before, prev, r) {
			return i
		}
		before, prev = prev, r
	}
	return len(text)
}

// splitsBetween reports whether no piece of any encoding spans prev and
// next (before is the character before prev, or -1):
//   - a letter and a digit, either way round;
//   - a letter or digit and what is none of letter, digit, combining mark
//     or apostrophe (which can end a contraction: "it's");
//   - punctuation or a symbol and a digit (a space before a digit is part
//     of the digits' piece in p50k_base);
//   - a line break and a letter or digit, when the line break is the
//     whole run of white space before them (p50k_base and r50k_base cut a
//     run of white space according to what follows it).
func splitsBetween(before, prev, next rune) bool {
	p, n := classOf(prev), classOf(next)
	switch {
	case p == letter && n == digit, p == digit && n == letter:
		return true
	case p == letter || p == digit:
		return n == other && !unicode.IsMark(next) && next != '\'' && next != utf8.RuneError
	case prev == '\n' && n != other:
		return before != -1 && !unicode.IsSpace(before)
	case n == digit:
		return !unicode.IsSpace(prev) && !unicode.IsMark(prev) && prev != utf8.RuneError
	}
	return false
}

// class is what a pre-tokenizer sees in a character.
type class int

const (
	other class = iota
	letter
	digit
)

func classOf(r rune) class {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		return letter
	case '0' <= r && r <= '9':
		return digit
	case r < utf8.RuneSelf:
		return other
	case unicode.IsLetter(r):
		return letter
	case unicode.IsNumber(r):
		return digit
	}
	return other
}

// asciiDigits reports whether p is a non-empty run of ASCII digits.
func asciiDigits(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
	}
	return len(p) > 0
}

// splitChunks cuts a large text into chunks of about chunk bytes, each
// ending where text may be split.
func splitChunks(text string) []string {
	var chunks []string
	for len(text) > chunk {
		end := nextSplit(text, chunk)
		chunks = append(chunks, text[:end])
		text = text[end:]
	}
	if len(text) > 0 {
		chunks = append(chunks, text)
	}
	return chunks
}
