// Package tokens counts tokens with tiktoken, offline.
//
// The BPE files come embedded from tiktoken-go-loader, so counting never
// downloads anything. Model names map to encodings through an own table,
// since tiktoken's does not know provider-prefixed or newer names.
package tokens

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Default is the encoding used for models the table does not know, and for
// the token limit, as upstream counted: cl100k_base.
const Default = "cl100k_base"

// Counter counts tokens in one encoding. It is safe for concurrent use. The
// encoding's tables load on first use (they take a few hundred
// milliseconds), so a run that never needs to count pays nothing.
type Counter struct {
	Encoding string
	load     func() (*tiktoken.Tiktoken, error)
}

var (
	setLoader sync.Once
	encodings sync.Map // encoding name -> func() (*tiktoken.Tiktoken, error)
)

// known lists the encodings embedded in tiktoken-go-loader.
var known = []string{"cl100k_base", "o200k_base", "p50k_base", "r50k_base"}

// New returns a counter for the named encoding (cl100k_base, o200k_base,
// p50k_base or r50k_base).
func New(encoding string) (*Counter, error) {
	if !slices.Contains(known, encoding) {
		return nil, fmt.Errorf("tokens: unknown encoding %s (known: %s)", encoding, strings.Join(known, ", "))
	}
	load, _ := encodings.LoadOrStore(encoding, sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
		setLoader.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
		return tiktoken.GetEncoding(encoding)
	}))
	return &Counter{Encoding: encoding, load: load.(func() (*tiktoken.Tiktoken, error))}, nil
}

// ForModel returns a counter for the encoding a model uses.
func ForModel(model string) (*Counter, error) {
	return New(encodingFor(model))
}

// encodingFor maps a model name, with or without a provider prefix such as
// "openai/", to its encoding; unknown models get Default.
func encodingFor(model string) string {
	name := strings.ToLower(model)
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	for _, prefix := range []string{"gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o", "gpt-oss"} {
		if strings.HasPrefix(name, prefix) {
			return "o200k_base"
		}
	}
	return Default
}

// Count returns the number of tokens in text.
func (c *Counter) Count(text string) int {
	return len(c.encoding().EncodeOrdinary(text))
}

// encoding returns the loaded tables. They are embedded in the binary, so a
// failure to load them is a broken build, not a run-time condition.
func (c *Counter) encoding() *tiktoken.Tiktoken {
	enc, err := c.load()
	if err != nil {
		panic(fmt.Sprintf("tokens: load embedded encoding %s: %v", c.Encoding, err))
	}
	return enc
}

// Exceeds reports whether text has more than limit tokens, and the count
// when it had to count. Every token covers at least one byte, so text of at
// most limit bytes is never counted. Text far above the limit is judged on
// a prefix when that suffices (see Measure): n is then the prefix's count
// and exact is false.
func (c *Counter) Exceeds(text string, limit int) (over bool, n int, exact bool) {
	if limit <= 0 || len(text) <= limit {
		return false, 0, false
	}
	n, exact = c.Measure(text, limit)
	return n > limit, n, exact
}

// Measure returns the number of tokens in text. Text far above limit (more
// than 16 bytes per allowed token) is counted on a prefix when that prefix
// is already above the limit, so a 100 MB tool result costs no more than a
// 1.6 MB one: n is then the prefix's count and exact is false. A limit of
// 0 or less counts the whole text.
func (c *Counter) Measure(text string, limit int) (n int, exact bool) {
	if text == "" {
		return 0, true
	}
	if prefixBytes := 16 * limit; limit > 0 && len(text) > prefixBytes {
		prefix := strings.ToValidUTF8(text[:prefixBytes], "")
		if n := c.Count(prefix); n > limit {
			return n, false
		}
	}
	return c.Count(text), true
}
