package tokens

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

func TestEncodingFor(t *testing.T) {
	for model, want := range map[string]string{
		"google/gemini-2.5-flash": "cl100k_base",
		"gpt-4":                   "cl100k_base",
		"openai/gpt-4o-mini":      "o200k_base",
		"gpt-5":                   "o200k_base",
		"o3-mini":                 "o200k_base",
		"":                        "cl100k_base",
	} {
		assert.Equal(t, want, encodingFor(model), model)
	}
}

func TestCountKnownTexts(t *testing.T) {
	c, err := New(Default)
	require.NoError(t, err)
	// Reference counts from OpenAI's tiktoken for cl100k_base.
	assert.Equal(t, 0, c.Count(""))
	assert.Equal(t, 2, c.Count("hello world"))
	// Well-known cl100k_base encodings.
	assert.Equal(t, []int{15339, 1917}, c.encoding().tk.EncodeOrdinary("hello world"))
	text := "The gene associated is NUTM2G: p.P63S, CADD 8.103."
	assert.Equal(t, text, c.encoding().tk.Decode(c.encoding().tk.EncodeOrdinary(text)))

	o, err := ForModel("gpt-4o")
	require.NoError(t, err)
	assert.Equal(t, "o200k_base", o.Encoding)
	assert.Equal(t, 2, o.Count("hello world"))
}

func TestExceeds(t *testing.T) {
	c, err := New(Default)
	require.NoError(t, err)
	over, n, _ := c.Exceeds("short", 100)
	assert.False(t, over)
	assert.Zero(t, n, "texts shorter than the limit in bytes are not counted")

	text := strings.Repeat("word ", 300) // 300 tokens, 1500 bytes
	over, n, exact := c.Exceeds(text, 200)
	assert.True(t, over)
	assert.True(t, exact)
	assert.Equal(t, c.Count(text), n)
	over, _, _ = c.Exceeds(text, 1000)
	assert.False(t, over)
	over, _, _ = c.Exceeds(text, 0)
	assert.False(t, over, "a limit of 0 disables the check")
}

func TestUnknownEncoding(t *testing.T) {
	_, err := New("nope_base")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nope_base")
}

func BenchmarkCount1MiB(b *testing.B) {
	c, err := New(Default)
	require.NoError(b, err)
	text := strings.Repeat("The NUTM2G variant chr9:99694174 C>T has CADD 8.103 and REVEL 0.027. ", 1<<20/70)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	var n int
	for b.Loop() {
		n = c.Count(text)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// A text far over the limit gets its true count, not a prefix's: a 10 MB
// result of 2,000,001 tokens says so.
func TestExceedsCountsHugeTextWhole(t *testing.T) {
	c, err := New(Default)
	require.NoError(t, err)
	huge := strings.Repeat("word ", 2_000_000) // 10 MB, 2,000,000 tokens
	over, n, exact := c.Exceeds(huge, 1000)
	assert.True(t, over)
	assert.True(t, exact)
	assert.Equal(t, 2_000_001, n, "the last space is a token of its own")

	near := strings.Repeat("word ", 1200) // 6,000 bytes, 1,200 tokens
	over, n, exact = c.Exceeds(near, 1000)
	assert.True(t, over)
	assert.True(t, exact)
	assert.Equal(t, 1201, n)
}

func TestDefinitionMethodSaysHowToolDefinitionCounts(t *testing.T) {
	c, err := New(Default)
	require.NoError(t, err)
	tool := eval.Tool{Name: "get_gene", Description: "Look up a gene.", Parameters: []byte(`{"type":"object"}`)}
	parts := c.Count(tool.Name) + c.Count(tool.Description) + c.Count(string(tool.Parameters))
	assert.Equal(t, parts+toolOverhead, ToolDefinition(c, tool))
	assert.Equal(t, "name+description+parameters+"+strconv.Itoa(toolOverhead), DefinitionMethod)
}

// TestDigitsByThree proves the table digitsByThree by tokenizing: an
// encoding listed true makes every string of one to three ASCII digits
// (leading zeros too) a single token and cuts longer runs into groups of
// three; one listed false does not.
func TestDigitsByThree(t *testing.T) {
	byThree := func(c *Counter) bool {
		enc, err := c.load()
		require.NoError(t, err)
		for n := range 1000 {
			for _, digits := range []string{strconv.Itoa(n), fmt.Sprintf("%02d", n), fmt.Sprintf("%03d", n)} {
				if len(digits) <= 3 && len(enc.tk.EncodeOrdinary(digits)) != 1 {
					return false
				}
			}
		}
		for _, run := range []string{"1234", "12345", "123456", "1234567890123"} {
			if len(enc.tk.EncodeOrdinary(run)) != (len(run)+2)/3 {
				return false
			}
		}
		return true
	}
	require.ElementsMatch(t, known, slices.Collect(maps.Keys(digitsByThree)), "every known encoding has an entry")
	for _, name := range known {
		c, err := New(name)
		require.NoError(t, err)
		assert.Equal(t, byThree(c), digitsByThree[name], name)
	}
}

// TestAssetLoaderReadsWhatTheOfflineLoaderReads: the same ranks for every
// embedded encoding.
func TestAssetLoaderReadsWhatTheOfflineLoaderReads(t *testing.T) {
	for _, file := range []string{"cl100k_base.tiktoken", "o200k_base.tiktoken", "p50k_base.tiktoken", "r50k_base.tiktoken"} {
		want, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(file)
		require.NoError(t, err)
		got, err := assetLoader{}.LoadTiktokenBpe("https://example.invalid/" + file)
		require.NoError(t, err)
		require.Greater(t, len(want), 50000, file)
		assert.Equal(t, want, got, file)
	}
	_, err := assetLoader{}.LoadTiktokenBpe("none.tiktoken")
	assert.Error(t, err)
}

func BenchmarkLoadEncoding(b *testing.B) {
	for _, loader := range []struct {
		name string
		load func(string) (map[string]int, error)
	}{{"asset", assetLoader{}.LoadTiktokenBpe}, {"offline", tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe}} {
		b.Run(loader.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := loader.load("cl100k_base.tiktoken"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
