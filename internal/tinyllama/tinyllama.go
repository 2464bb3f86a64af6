// Package tinyllama writes a tiny llama for tests: a GGUF file of a
// one-layer llama whose hand-set weights make its greedy reply a fixed
// text, chosen by the marker tokens that occur in its context. An inference
// server (Ollama, llama.cpp) loads it in well under a second and answers
// through its own tokenizer, chat template, sampler and tool-call parser; no
// weights are downloaded.
//
// The vocabulary is byte-level BPE (GPT-2's byte alphabet, so any text can
// be tokenized) with the special tokens the chat template writes, one token
// per marker word (made by merges) and one token per piece of a reply. The
// layer has one attention head per marker that tells whether the marker
// occurs anywhere in the context; the output layer turns the reply start
// token and those heads into the first token of a reply, each reply token
// into the next (a bigram) and the last one into end-of-sequence. At every
// step the greedy token leads the printable ASCII characters by half a
// logit to three, so that any temperature above 0 soon strays from the
// reply.
package tinyllama

import (
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
)

// Model describes the model to write.
type Model struct {
	// Specials are the control tokens the chat template writes (<|user|>,
	// ...): the tokenizer keeps each one whole.
	Specials []string
	// Start is the special token that ends every prompt: the reply follows
	// it.
	Start string
	// Markers are the tokens whose occurrence anywhere in the context
	// chooses the reply, most important first: special tokens, or words of
	// at least two ASCII letters (the tokenizer makes one token of such a
	// word wherever it stands between non-letters). At most 4.
	Markers []string
	// Replies are the fixed replies. Of those whose markers all occur in
	// the context, the model gives the one with the most important markers
	// (compared as binary numbers: the first marker outweighs all the
	// others together), so a reply without markers is the default.
	Replies []Reply
}

// Reply is one fixed reply.
type Reply struct {
	// When lists the markers that must occur in the context.
	When []string
	// Tokens is the reply's text, one token each. A token may appear in
	// several replies only when the same token follows it in each; replies
	// start with different tokens.
	Tokens []string
}

// BOS and EOS are the beginning- and end-of-sequence tokens.
const (
	BOS = "<s>"
	EOS = "</s>"
)

// The model's shape.
const (
	embd       = 64
	heads      = 4
	headDim    = embd / heads
	ffnLen     = 16
	contextLen = 32768
	// ropeBase makes the rotation of the dimensions the heads use
	// negligible at any position, so that attention depends on content
	// alone.
	ropeBase = 1e30
)

// The residual stream. Every token's embedding is 1 in dimConst and 1 in
// one dimension that names what the model sees in it; the heads write
// whether marker i occurs into dimSeen+i.
const (
	dimConst  = 0
	dimOther  = 1 // any token the model does not tell apart
	dimStart  = 2
	dimMarker = 3
	dimSeen   = dimMarker + heads
	dimReply  = dimSeen + heads // one per reply token
	maxReply  = embd - dimReply
)

// Logits, in units of the normalized residual stream (about 4 to 6 logits
// each).
const (
	next  = 3.0 // the token that follows
	decoy = 2.8 // every printable ASCII character, at every step
	// gate bounds what the markers add to a reply's first token at the
	// other steps, where it must stay below the token that follows.
	gate = 2.4
	// qk makes a head's attention score 32 on its marker and 0 elsewhere,
	// so that one marker among millions of tokens takes all the weight.
	qk = 2.0
)

var wordRE = regexp.MustCompile(`^[A-Za-z]{2,}$`)

// Write writes the model as GGUF to w.
func (m Model) Write(w io.Writer) error {
	b, err := m.build()
	if err != nil {
		return err
	}
	return b.write(w)
}

// built is a model's vocabulary and weights.
type built struct {
	tokens  []string // as stored: byte-level encoded
	types   []int32
	merges  []string
	tensors []tensor
}

// Token types, as llama.cpp numbers them.
const (
	typeNormal  = 1
	typeControl = 3
)

// vocab assigns ids to tokens.
type vocab struct {
	tokens []string
	types  []int32
	ids    map[string]int
}

func (v *vocab) add(token string, typ int32) int {
	if id, ok := v.ids[token]; ok {
		return id
	}
	v.ids[token] = len(v.tokens)
	v.tokens = append(v.tokens, token)
	v.types = append(v.types, typ)
	return len(v.tokens) - 1
}

func (m Model) build() (*built, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	v := &vocab{ids: map[string]int{}}
	v.add(BOS, typeControl)
	v.add(EOS, typeControl)
	for _, s := range m.Specials {
		v.add(s, typeControl)
	}
	for b := range 256 {
		v.add(string(byteRune[b]), typeNormal)
	}
	var merges []string
	for _, word := range m.Markers {
		if slices.Contains(m.Specials, word) {
			continue
		}
		for i := 2; i <= len(word); i++ {
			if _, ok := v.ids[word[:i]]; !ok {
				v.add(word[:i], typeNormal)
				merges = append(merges, word[:i-1]+" "+word[i-1:i])
			}
		}
	}
	// The reply tokens, each with the dimension that names it.
	replyDim := map[int]int{}
	for _, r := range m.Replies {
		for _, text := range r.Tokens {
			enc := byteLevel(text)
			if id, ok := v.ids[enc]; ok {
				if _, reply := replyDim[id]; !reply {
					return nil, fmt.Errorf("tinyllama: reply token %q is already a token of the vocabulary (a special, a byte or a marker word)", text)
				}
				continue
			}
			replyDim[v.add(enc, typeNormal)] = dimReply + len(replyDim)
		}
	}
	if len(replyDim) > maxReply {
		return nil, fmt.Errorf("tinyllama: the replies have %d distinct tokens; at most %d fit", len(replyDim), maxReply)
	}

	n := len(v.tokens)
	tokEmbd := make([]float32, n*embd)
	for id := range n {
		dim := dimOther
		switch {
		case v.tokens[id] == m.Start:
			dim = dimStart
		case replyDim[id] != 0:
			dim = replyDim[id]
		}
		if i := slices.Index(m.Markers, v.tokens[id]); i >= 0 {
			dim = dimMarker + i
		}
		tokEmbd[id*embd+dimConst] = 1
		tokEmbd[id*embd+dim] = 1
	}

	q, k, val, o := make([]float32, embd*embd), make([]float32, embd*embd), make([]float32, embd*embd), make([]float32, embd*embd)
	for h := range m.Markers {
		q[(h*headDim+headDim-1)*embd+dimConst] = qk
		k[(h*headDim+headDim-1)*embd+dimMarker+h] = qk
		val[(h*headDim)*embd+dimMarker+h] = 1
		// The attention norm scales an embedding's 1 to sqrt(embd/2):
		// scale it back, so that a head writes 1 when its marker occurs.
		o[(dimSeen+h)*embd+h*headDim] = float32(math.Sqrt(2.0 / embd))
	}

	out := make([]float32, n*embd)
	for b := 0x21; b <= 0x7e; b++ {
		out[v.ids[string(byteRune[b])]*embd+dimConst] = decoy
	}
	weight, penalty, scale := markerWeights(len(m.Markers))
	for _, r := range m.Replies {
		// The first token: next at the reply start when the reply's
		// markers all occur, plus the weight of those markers; a missing
		// marker costs more than all the others can add.
		first := v.ids[byteLevel(r.Tokens[0])] * embd
		out[first+dimStart] += next - scale*penalty*float32(len(r.When))
		for _, marker := range r.When {
			i := slices.Index(m.Markers, marker)
			out[first+dimSeen+i] += scale * (weight[i] + penalty)
		}
		for i, text := range r.Tokens {
			after := v.ids[EOS]
			if i+1 < len(r.Tokens) {
				after = v.ids[byteLevel(r.Tokens[i+1])]
			}
			out[after*embd+replyDim[v.ids[byteLevel(text)]]] = next
		}
	}

	ones := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = 1
		}
		return s
	}
	return &built{tokens: v.tokens, types: v.types, merges: merges, tensors: []tensor{
		{"token_embd.weight", []int{embd, n}, tokEmbd},
		{"blk.0.attn_norm.weight", []int{embd}, ones(embd)},
		{"blk.0.attn_q.weight", []int{embd, embd}, q},
		{"blk.0.attn_k.weight", []int{embd, embd}, k},
		{"blk.0.attn_v.weight", []int{embd, embd}, val},
		{"blk.0.attn_output.weight", []int{embd, embd}, o},
		{"blk.0.ffn_norm.weight", []int{embd}, ones(embd)},
		{"blk.0.ffn_gate.weight", []int{embd, ffnLen}, make([]float32, embd*ffnLen)},
		{"blk.0.ffn_up.weight", []int{embd, ffnLen}, make([]float32, embd*ffnLen)},
		{"blk.0.ffn_down.weight", []int{ffnLen, embd}, make([]float32, embd*ffnLen)},
		{"output_norm.weight", []int{embd}, ones(embd)},
		{"output.weight", []int{embd, n}, out},
	}}, nil
}

// markerWeights returns the weight of each of n markers (the first
// outweighs all the others together), the penalty of a missing marker
// (more than all weights together) and the scale that keeps what markers
// add to a first token below gate.
func markerWeights(n int) (weight []float32, penalty, scale float32) {
	for i := range n {
		weight = append(weight, float32(int(1)<<(n-1-i)))
	}
	penalty = float32(int(1)<<n - 1)
	if n > 0 {
		scale = gate / (float32(n+1) * penalty)
	}
	return weight, penalty, scale
}

func (m Model) validate() error {
	if !slices.Contains(m.Specials, m.Start) {
		return fmt.Errorf("tinyllama: the start token %q is not one of the specials", m.Start)
	}
	for _, s := range m.Specials {
		if s == "" || s == BOS || s == EOS {
			return fmt.Errorf("tinyllama: special token %q: empty, or %s or %s (which the model has already)", s, BOS, EOS)
		}
	}
	if len(m.Markers) > heads {
		return fmt.Errorf("tinyllama: %d markers; the model has %d heads", len(m.Markers), heads)
	}
	for i, marker := range m.Markers {
		switch {
		case slices.Index(m.Markers, marker) != i:
			return fmt.Errorf("tinyllama: marker %q is listed twice", marker)
		case marker == m.Start:
			return fmt.Errorf("tinyllama: the start token %q cannot be a marker", marker)
		case !slices.Contains(m.Specials, marker) && !wordRE.MatchString(marker):
			return fmt.Errorf("tinyllama: marker %q is neither a special token nor a word of at least two ASCII letters", marker)
		}
	}
	if len(m.Replies) == 0 {
		return errors.New("tinyllama: no reply")
	}
	when := map[string]int{}
	starts := map[string]int{}
	follows := map[string]string{}
	for r, reply := range m.Replies {
		if len(reply.Tokens) == 0 {
			return fmt.Errorf("tinyllama: reply %d has no tokens", r+1)
		}
		set := slices.Clone(reply.When)
		slices.Sort(set)
		for i, marker := range set {
			if !slices.Contains(m.Markers, marker) {
				return fmt.Errorf("tinyllama: reply %d: %q is not a marker", r+1, marker)
			}
			if i > 0 && set[i-1] == marker {
				return fmt.Errorf("tinyllama: reply %d names marker %q twice", r+1, marker)
			}
		}
		key := strings.Join(set, "\x00")
		if other, ok := when[key]; ok {
			return fmt.Errorf("tinyllama: replies %d and %d have the same markers", other+1, r+1)
		}
		when[key] = r
		if other, ok := starts[reply.Tokens[0]]; ok {
			return fmt.Errorf("tinyllama: replies %d and %d start with the same token %q", other+1, r+1, reply.Tokens[0])
		}
		starts[reply.Tokens[0]] = r
		for i, token := range reply.Tokens {
			after := EOS
			if i+1 < len(reply.Tokens) {
				after = reply.Tokens[i+1]
			}
			if token == "" {
				return fmt.Errorf("tinyllama: reply %d has an empty token", r+1)
			}
			if prev, ok := follows[token]; ok && prev != after {
				return fmt.Errorf("tinyllama: reply token %q is followed by %q in one reply and by %q in another", token, prev, after)
			}
			follows[token] = after
		}
	}
	return nil
}

// byteRune is GPT-2's byte alphabet: printable bytes stand for themselves,
// the others (space, control characters, ...) for the runes from U+0100
// on, in order.
var byteRune = func() [256]rune {
	var m [256]rune
	next := rune(0x100)
	for b := range 256 {
		if (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || b >= 0xae {
			m[b] = rune(b)
		} else {
			m[b] = next
			next++
		}
	}
	return m
}()

// byteLevel writes text in the byte alphabet, as a BPE vocabulary stores it.
func byteLevel(text string) string {
	var b strings.Builder
	for i := range len(text) {
		b.WriteRune(byteRune[text[i]])
	}
	return b.String()
}
