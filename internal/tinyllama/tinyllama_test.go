package tinyllama

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chat is a model shaped like a chat model that calls a tool, answers from
// the tool's result and grades answers.
var chat = Model{
	Specials: []string{"<|user|>", "<|assistant|>", "<|tool|>"},
	Start:    "<|assistant|>",
	Markers:  []string{"verdict", "<|tool|>", "CFTR"},
	Replies: []Reply{
		{Tokens: []string{`{"name": "lookup", "arguments": {"symbol": "NUTM2G"}}`}},
		{When: []string{"CFTR"}, Tokens: []string{`{"name": "lookup", "arguments": {"symbol": "CFTR"}}`}},
		{When: []string{"<|tool|>"}, Tokens: []string{"NUTM2G is 441457", ", says the tool."}},
		{When: []string{"<|tool|>", "CFTR"}, Tokens: []string{"CFTR is 1080", ", says the tool."}},
		{When: []string{"verdict"}, Tokens: []string{`{"verdict": "yes", `, `"reason": "fine"}`}},
	},
}

func TestGreedyReplies(t *testing.T) {
	b, err := chat.build()
	require.NoError(t, err)
	filler := strings.Repeat("Some text that names no marker: 123 {\"x\": [1, 2]}.\n", 100)
	tests := []struct {
		name, context, reply string
	}{
		{"no marker: the default", "<|user|>What is the id of NUTM2G?<|assistant|>", `{"name": "lookup", "arguments": {"symbol": "NUTM2G"}}`},
		{"a word marker", "<|user|>What is the id of CFTR?<|assistant|>", `{"name": "lookup", "arguments": {"symbol": "CFTR"}}`},
		{"a special marker", "<|user|>NUTM2G?<|assistant|>call<|tool|>{\"id\": 441457}<|assistant|>", "NUTM2G is 441457, says the tool."},
		{"two markers", "<|user|>CFTR?<|assistant|>call<|tool|>{\"id\": 1080}<|assistant|>", "CFTR is 1080, says the tool."},
		{"the first marker outweighs the others", "<|user|>Give a verdict on CFTR<|tool|><|assistant|>", `{"verdict": "yes", "reason": "fine"}`},
		{"a marker far back", "<|user|>Your verdict?" + filler + "<|assistant|>", `{"verdict": "yes", "reason": "fine"}`},
		{"a marker inside a longer word", "<|user|>Is it CFTRs?<|assistant|>", `{"name": "lookup", "arguments": {"symbol": "CFTR"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids := tokenize(b, tt.context)
			var reply []int
			for range 5 {
				logits := forward(b, append(slices.Clone(ids), reply...))
				best := argmax(logits)
				// The greedy token leads every printable character by half
				// a logit to three (temperature 1 soon strays from it), and
				// every other token by some.
				lead := logits[best] - maxOf(logits, func(id int) bool {
					return b.types[id] == typeNormal && len(b.tokens[id]) == 1 && b.tokens[id] > " " && b.tokens[id] < "\x7f"
				})
				assert.True(t, lead > 0.5 && lead < 3, "lead over the printable characters: %.2f", lead)
				assert.Greater(t, logits[best]-maxOf(logits, func(id int) bool { return id != best }), 0.3)
				if b.tokens[best] == EOS {
					break
				}
				reply = append(reply, best)
			}
			assert.Equal(t, tt.reply, decode(b, reply))
		})
	}
}

func TestWriteIsGGUF(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, chat.Write(&buf))
	f := readGGUF(t, buf.Bytes())
	b, err := chat.build()
	require.NoError(t, err)
	assert.Equal(t, "llama", f.meta["general.architecture"])
	assert.Equal(t, "gpt2", f.meta["tokenizer.ggml.model"])
	assert.Equal(t, b.tokens, f.meta["tokenizer.ggml.tokens"])
	assert.Equal(t, []string{"v e", "ve r", "ver d", "verd i", "verdi c", "verdic t", "C F", "CF T", "CFT R"}, f.meta["tokenizer.ggml.merges"])
	assert.Equal(t, uint32(1), f.meta["tokenizer.ggml.eos_token_id"])
	tokens := f.meta["tokenizer.ggml.tokens"].([]string)
	assert.Equal(t, EOS, tokens[1])
	assert.Contains(t, tokens, "NUTM2GĠisĠ441457", "reply tokens are stored in the byte alphabet")
	require.Len(t, f.tensors, len(b.tensors))
	for i, want := range b.tensors {
		got := f.tensors[i]
		assert.Equal(t, want.name, got.name)
		assert.Equal(t, want.shape, got.shape)
		assert.Equal(t, want.data, got.data, want.name)
	}
}

func TestInvalidModels(t *testing.T) {
	reply := []Reply{{Tokens: []string{"hello there"}}}
	tests := []struct {
		name  string
		model Model
		want  string
	}{
		{"start not special", Model{Start: "<s>", Replies: reply}, `the start token "<s>" is not one of the specials`},
		{"too many markers", Model{Specials: []string{"<a>"}, Start: "<a>", Markers: []string{"aa", "bb", "cc", "dd", "ee"}, Replies: reply}, "5 markers; the model has 4 heads"},
		{"marker not a word", Model{Specials: []string{"<a>"}, Start: "<a>", Markers: []string{"a1"}, Replies: reply}, `marker "a1" is neither a special token nor a word of at least two ASCII letters`},
		{"no reply", Model{Specials: []string{"<a>"}, Start: "<a>"}, "no reply"},
		{"unknown marker", Model{Specials: []string{"<a>"}, Start: "<a>", Replies: []Reply{{When: []string{"xy"}, Tokens: []string{"hi there"}}}}, `reply 1: "xy" is not a marker`},
		{"same start", Model{Specials: []string{"<a>"}, Start: "<a>", Markers: []string{"xy"}, Replies: []Reply{
			{Tokens: []string{"hi there"}}, {When: []string{"xy"}, Tokens: []string{"hi there", "!!"}}}}, `replies 1 and 2 start with the same token "hi there"`},
		{"two followers", Model{Specials: []string{"<a>"}, Start: "<a>", Markers: []string{"xy"}, Replies: []Reply{
			{Tokens: []string{"hi there", "you"}}, {When: []string{"xy"}, Tokens: []string{"hello", "hi there", "me"}}}}, `reply token "hi there" is followed by "you" in one reply and by "me" in another`},
		{"same markers", Model{Specials: []string{"<a>"}, Start: "<a>", Replies: []Reply{{Tokens: []string{"hi there"}}, {Tokens: []string{"ho there"}}}}, "replies 1 and 2 have the same markers"},
		{"token of the vocabulary", Model{Specials: []string{"<a>"}, Start: "<a>", Replies: []Reply{{Tokens: []string{"x"}}}}, `reply token "x" is already a token of the vocabulary (a special, a byte or a marker word)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.model.Write(io.Discard)
			require.Error(t, err)
			assert.Equal(t, "tinyllama: "+tt.want, err.Error())
		})
	}
}

// tokenize splits text as a BPE tokenizer with this vocabulary does:
// specials whole, the rest into bytes merged by the merges in order.
func tokenize(b *built, text string) []int {
	ids := map[string]int{}
	for id, tok := range b.tokens {
		ids[tok] = id
	}
	var out []int
	for text != "" {
		at, special := len(text), ""
		for id, tok := range b.tokens {
			if i := strings.Index(text, tok); b.types[id] == typeControl && i >= 0 && i < at {
				at, special = i, tok
			}
		}
		var syms []string
		for i := range at {
			syms = append(syms, string(byteRune[text[i]]))
		}
		for _, merge := range b.merges {
			left, right, _ := strings.Cut(merge, " ")
			for i := 0; i+1 < len(syms); i++ {
				if syms[i] == left && syms[i+1] == right {
					syms = slices.Replace(syms, i, i+2, left+right)
				}
			}
		}
		for _, s := range syms {
			out = append(out, ids[s])
		}
		if special != "" {
			out = append(out, ids[special])
		}
		text = text[min(len(text), at+len(special)):]
	}
	return out
}

func decode(b *built, ids []int) string {
	var s strings.Builder
	for _, id := range ids {
		for _, r := range b.tokens[id] {
			s.WriteByte(byte(slices.Index(byteRune[:], r)))
		}
	}
	return s.String()
}

// forward runs the model on ids, as llama.cpp does, and returns the
// logits of the last position.
func forward(b *built, ids []int) []float64 {
	w := map[string][]float32{}
	for _, t := range b.tensors {
		w[t.name] = t.data
	}
	matVec := func(name string, x []float64, rows int) []float64 {
		out := make([]float64, rows)
		for i := range rows {
			for j, v := range w[name][i*len(x) : (i+1)*len(x)] {
				out[i] += float64(v) * x[j]
			}
		}
		return out
	}
	last := len(ids) - 1
	var keys, values [][]float64
	var x, query []float64
	for pos, id := range ids {
		e := make([]float64, embd)
		for i, v := range w["token_embd.weight"][id*embd : (id+1)*embd] {
			e[i] = float64(v)
		}
		h := rmsNorm(e)
		keys = append(keys, rope(matVec("blk.0.attn_k.weight", h, embd), pos))
		values = append(values, matVec("blk.0.attn_v.weight", h, embd))
		if pos == last {
			x, query = e, rope(matVec("blk.0.attn_q.weight", h, embd), pos)
		}
	}
	attn := make([]float64, embd)
	for hd := range heads {
		lo, hi := hd*headDim, (hd+1)*headDim
		scores := make([]float64, len(keys))
		for j, k := range keys {
			for d := lo; d < hi; d++ {
				scores[j] += query[d] * k[d] / math.Sqrt(headDim)
			}
		}
		top := slices.Max(scores)
		var sum float64
		for j := range scores {
			scores[j] = math.Exp(scores[j] - top)
			sum += scores[j]
		}
		for j, v := range values {
			for d := lo; d < hi; d++ {
				attn[d] += scores[j] / sum * v[d]
			}
		}
	}
	for i, v := range matVec("blk.0.attn_output.weight", attn, embd) {
		x[i] += v
	}
	h := rmsNorm(x)
	gate, up := matVec("blk.0.ffn_gate.weight", h, ffnLen), matVec("blk.0.ffn_up.weight", h, ffnLen)
	for i := range gate {
		gate[i] = gate[i] / (1 + math.Exp(-gate[i])) * up[i]
	}
	for i, v := range matVec("blk.0.ffn_down.weight", gate, embd) {
		x[i] += v
	}
	return matVec("output.weight", rmsNorm(x), len(b.tokens))
}

func rmsNorm(x []float64) []float64 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	scale := 1 / math.Sqrt(ss/float64(len(x))+1e-5)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * scale
	}
	return out
}

// rope rotates each pair of dimensions of each head by pos times its
// frequency (llama.cpp's "normal" RoPE).
func rope(x []float64, pos int) []float64 {
	out := slices.Clone(x)
	for hd := range heads {
		for i := 0; i < headDim; i += 2 {
			theta := float64(pos) * math.Pow(ropeBase, -float64(i)/headDim)
			a, b := x[hd*headDim+i], x[hd*headDim+i+1]
			out[hd*headDim+i] = a*math.Cos(theta) - b*math.Sin(theta)
			out[hd*headDim+i+1] = a*math.Sin(theta) + b*math.Cos(theta)
		}
	}
	return out
}

func argmax(x []float64) int { return maxIndex(x, func(int) bool { return true }) }

func maxOf(x []float64, keep func(int) bool) float64 { return x[maxIndex(x, keep)] }

func maxIndex(x []float64, keep func(int) bool) int {
	best := -1
	for i, v := range x {
		if keep(i) && (best < 0 || v > x[best]) {
			best = i
		}
	}
	return best
}

// gguf is a GGUF file read back.
type gguf struct {
	meta    map[string]any
	tensors []tensor
}

// readGGUF reads what Write writes, checking the layout as it goes.
func readGGUF(t *testing.T, data []byte) gguf {
	t.Helper()
	r := bytes.NewReader(data)
	u32 := func() uint32 { var v uint32; require.NoError(t, binary.Read(r, binary.LittleEndian, &v)); return v }
	u64 := func() uint64 { var v uint64; require.NoError(t, binary.Read(r, binary.LittleEndian, &v)); return v }
	str := func() string {
		s := make([]byte, u64())
		_, err := io.ReadFull(r, s)
		require.NoError(t, err)
		return string(s)
	}
	var value func(typ uint32) any
	value = func(typ uint32) any {
		switch typ {
		case ggufUint32:
			return u32()
		case ggufInt32:
			return int32(u32())
		case ggufFloat32:
			return math.Float32frombits(u32())
		case ggufBool:
			v, err := r.ReadByte()
			require.NoError(t, err)
			return v == 1
		case ggufString:
			return str()
		case ggufArray:
			elem, n := u32(), u64()
			switch elem {
			case ggufString:
				out := []string{}
				for range n {
					out = append(out, str())
				}
				return out
			case ggufInt32:
				out := []int32{}
				for range n {
					out = append(out, int32(u32()))
				}
				return out
			}
		}
		t.Fatalf("unexpected GGUF type %d", typ)
		return nil
	}
	magic := make([]byte, 4)
	_, err := io.ReadFull(r, magic)
	require.NoError(t, err)
	require.Equal(t, "GGUF", string(magic))
	require.Equal(t, uint32(3), u32())
	nTensors, nMeta := u64(), u64()
	f := gguf{meta: map[string]any{}}
	for range nMeta {
		key := str()
		f.meta[key] = value(u32())
	}
	var offsets []uint64
	for range nTensors {
		tn := tensor{name: str()}
		dims := u32()
		size := 1
		for range dims {
			d := int(u64())
			tn.shape = append(tn.shape, d)
			size *= d
		}
		require.Equal(t, uint32(ggmlF32), u32())
		offsets = append(offsets, u64())
		tn.data = make([]float32, size)
		f.tensors = append(f.tensors, tn)
	}
	start := aligned(len(data) - r.Len())
	end := start
	for i, tn := range f.tensors {
		require.Zero(t, offsets[i]%ggufAlignment, "tensor %s is aligned", tn.name)
		at := start + int(offsets[i])
		for j := range tn.data {
			tn.data[j] = math.Float32frombits(binary.LittleEndian.Uint32(data[at+4*j:]))
		}
		end = at + aligned(4*len(tn.data))
	}
	require.Equal(t, len(data), end, "the file ends with the last tensor")
	return f
}
