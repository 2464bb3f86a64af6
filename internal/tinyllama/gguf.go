package tinyllama

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// GGUF, version 3, as ggml's docs/gguf.md describes it: a header, typed
// key-value metadata, the tensors' descriptions, then their data, each
// tensor aligned to 32 bytes. Everything is little-endian.
const (
	ggufVersion   = 3
	ggufAlignment = 32
)

// Metadata value types.
const (
	ggufUint32  = 4
	ggufInt32   = 5
	ggufFloat32 = 6
	ggufBool    = 7
	ggufString  = 8
	ggufArray   = 9
)

// ggmlF32 is the tensor type of 32-bit floats.
const ggmlF32 = 0

// tensor is a tensor of 32-bit floats. Its shape lists the fastest-varying
// dimension first, as ggml does: a linear layer from n inputs to m outputs
// is {n, m}, stored one output row after another.
type tensor struct {
	name  string
	shape []int
	data  []float32
}

// kv is one metadata entry.
type kv struct {
	key   string
	value any // uint32, float32, bool, string, []string or []int32
}

func (b *built) metadata() []kv {
	return []kv{
		{"general.architecture", "llama"},
		{"general.name", "tinyllama"},
		{"general.file_type", uint32(0)}, // all F32
		{"llama.vocab_size", uint32(len(b.tokens))},
		{"llama.context_length", uint32(contextLen)},
		{"llama.embedding_length", uint32(embd)},
		{"llama.block_count", uint32(1)},
		{"llama.feed_forward_length", uint32(ffnLen)},
		{"llama.attention.head_count", uint32(heads)},
		{"llama.attention.head_count_kv", uint32(heads)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.dimension_count", uint32(headDim)},
		{"llama.rope.freq_base", float32(ropeBase)},
		{"tokenizer.ggml.model", "gpt2"},
		{"tokenizer.ggml.pre", "default"},
		{"tokenizer.ggml.tokens", b.tokens},
		{"tokenizer.ggml.token_type", b.types},
		{"tokenizer.ggml.merges", b.merges},
		{"tokenizer.ggml.bos_token_id", uint32(0)},
		{"tokenizer.ggml.eos_token_id", uint32(1)},
		{"tokenizer.ggml.add_bos_token", false},
		{"tokenizer.ggml.add_eos_token", false},
	}
}

func (b *built) write(w io.Writer) error {
	e := &encoder{w: bufio.NewWriter(w)}
	e.raw([]byte("GGUF"))
	e.u32(ggufVersion)
	meta := b.metadata()
	e.u64(uint64(len(b.tensors)))
	e.u64(uint64(len(meta)))
	for _, m := range meta {
		e.str(m.key)
		e.value(m.value)
	}
	offset := 0
	for _, t := range b.tensors {
		e.str(t.name)
		e.u32(uint32(len(t.shape)))
		for _, d := range t.shape {
			e.u64(uint64(d))
		}
		e.u32(ggmlF32)
		e.u64(uint64(offset))
		offset += aligned(4 * len(t.data))
	}
	e.pad()
	for _, t := range b.tensors {
		for _, f := range t.data {
			e.u32(math.Float32bits(f))
		}
		e.pad()
	}
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

func aligned(n int) int { return (n + ggufAlignment - 1) / ggufAlignment * ggufAlignment }

// encoder writes little-endian values and keeps the first error.
type encoder struct {
	w   *bufio.Writer
	n   int
	err error
}

func (e *encoder) raw(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
		e.n += len(p)
	}
}

func (e *encoder) u32(v uint32) { e.raw(binary.LittleEndian.AppendUint32(nil, v)) }
func (e *encoder) u64(v uint64) { e.raw(binary.LittleEndian.AppendUint64(nil, v)) }

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.raw([]byte(s))
}

func (e *encoder) pad() { e.raw(make([]byte, aligned(e.n)-e.n)) }

func (e *encoder) value(v any) {
	switch v := v.(type) {
	case uint32:
		e.u32(ggufUint32)
		e.u32(v)
	case float32:
		e.u32(ggufFloat32)
		e.u32(math.Float32bits(v))
	case bool:
		e.u32(ggufBool)
		if v {
			e.raw([]byte{1})
		} else {
			e.raw([]byte{0})
		}
	case string:
		e.u32(ggufString)
		e.str(v)
	case []string:
		e.u32(ggufArray)
		e.u32(ggufString)
		e.u64(uint64(len(v)))
		for _, s := range v {
			e.str(s)
		}
	case []int32:
		e.u32(ggufArray)
		e.u32(ggufInt32)
		e.u64(uint64(len(v)))
		for _, i := range v {
			e.u32(uint32(i))
		}
	default:
		panic(fmt.Sprintf("tinyllama: no GGUF type for %T", v))
	}
}
