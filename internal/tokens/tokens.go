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

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Default is the encoding used for models the table does not know, and for
// the token limit, as upstream counted: cl100k_base.
const Default = "cl100k_base"

// Counter counts tokens in one encoding. It is safe for concurrent use. The
// encoding's tables load on first use (they take a few hundred
// milliseconds), so a run that never needs to count pays nothing.
type Counter struct {
	Encoding string
	load     func() (*encoding, error)
}

// encoding is a loaded encoding.
type encoding struct {
	tk *tiktoken.Tiktoken
	// digitsByThree is true when the encoding cuts a run of ASCII digits
	// into groups of three from its start, each a single token
	// (cl100k_base and o200k_base): the run's count is then known without
	// tokenizing it.
	digitsByThree bool
}

var (
	setLoader sync.Once
	encodings sync.Map // encoding name -> func() (*encoding, error)
)

// known lists the encodings embedded in tiktoken-go-loader.
var known = []string{"cl100k_base", "o200k_base", "p50k_base", "r50k_base"}

// New returns a counter for the named encoding (cl100k_base, o200k_base,
// p50k_base or r50k_base).
func New(name string) (*Counter, error) {
	if !slices.Contains(known, name) {
		return nil, fmt.Errorf("tokens: unknown encoding %s (known: %s)", name, strings.Join(known, ", "))
	}
	load, _ := encodings.LoadOrStore(name, sync.OnceValues(func() (*encoding, error) {
		return loadEncoding(name)
	}))
	return &Counter{Encoding: name, load: load.(func() (*encoding, error))}, nil
}

// digitsByThree says, for each known encoding, whether it cuts a run of
// ASCII digits into groups of three from its start, each a single token
// (TestDigitsByThree proves each entry by tokenizing).
var digitsByThree = map[string]bool{"cl100k_base": true, "o200k_base": true, "p50k_base": false, "r50k_base": false}

// loadEncoding loads the named encoding from the embedded files.
func loadEncoding(name string) (*encoding, error) {
	setLoader.Do(func() { tiktoken.SetBpeLoader(assetLoader{}) })
	tk, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, err
	}
	return &encoding{tk: tk, digitsByThree: digitsByThree[name]}, nil
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

// Count returns the number of tokens in text (see Measure).
func (c *Counter) Count(text string) int {
	n, _ := c.Measure(text)
	return n
}

// encoding returns the loaded tables. They are embedded in the binary, so a
// failure to load them is a broken build, not a run-time condition.
func (c *Counter) encoding() *encoding {
	enc, err := c.load()
	if err != nil {
		panic(fmt.Sprintf("tokens: load embedded encoding %s: %v", c.Encoding, err))
	}
	return enc
}

// Exceeds reports whether text has more than limit tokens, and its count
// (see Measure) when it had to count: every token covers at least one byte,
// so text of at most limit bytes is never counted.
func (c *Counter) Exceeds(text string, limit int) (over bool, n int, exact bool) {
	if limit <= 0 || len(text) <= limit {
		return false, 0, false
	}
	n, exact = c.Measure(text)
	return n > limit, n, exact
}

// toolOverhead is what each tool definition adds besides its name,
// description and schema: the framing the provider wraps it in.
const toolOverhead = 8

// DefinitionMethod says how ToolDefinition counts: a count recorded with
// another method (an earlier version's) is not one of its counts. It
// changes with ToolDefinition.
const DefinitionMethod = "name+description+parameters+8"

// ToolDefinitions counts the tokens that tool definitions add to a request
// in c's encoding: each tool's name, description and parameter schema, and
// its framing. It is what a tool surface costs on every request.
func ToolDefinitions(c *Counter, tools []eval.Tool) int {
	n := 0
	for _, t := range tools {
		n += ToolDefinition(c, t)
	}
	return n
}

// ToolDefinition counts the tokens of one tool definition (see
// ToolDefinitions).
func ToolDefinition(c *Counter, t eval.Tool) int {
	return c.Count(t.Name) + c.Count(t.Description) + c.Count(string(t.Parameters)) + toolOverhead
}
