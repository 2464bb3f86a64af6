package tokens

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	assert.Equal(t, []int{15339, 1917}, c.encoding().EncodeOrdinary("hello world"))
	text := "The gene associated is NUTM2G: p.P63S, CADD 8.103."
	assert.Equal(t, text, c.encoding().Decode(c.encoding().EncodeOrdinary(text)))

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

func TestExceedsJudgesHugeTextOnAPrefix(t *testing.T) {
	c, err := New(Default)
	require.NoError(t, err)
	huge := strings.Repeat("word ", 2_000_000) // 10 MB, 2,000,000 tokens
	start := time.Now()
	over, n, exact := c.Exceeds(huge, 1000)
	assert.True(t, over)
	assert.False(t, exact)
	assert.Greater(t, n, 1000)
	assert.Less(t, n, 100_000, "only a prefix was counted")
	assert.Less(t, time.Since(start), 2*time.Second)

	// Text within 16 bytes per allowed token is counted exactly.
	near := strings.Repeat("word ", 1200) // 6,000 bytes, 1,200 tokens
	over, n, exact = c.Exceeds(near, 1000)
	assert.True(t, over)
	assert.True(t, exact)
	assert.Equal(t, c.Count(near), n)
}

func TestMeasure(t *testing.T) {
	c, err := New(Default)
	require.NoError(t, err)
	words := func(n int) string { return strings.Repeat("word ", n) }
	for _, tc := range []struct {
		name      string
		text      string
		limit     int
		want      int
		wantExact bool
	}{
		{"empty", "", 100, 0, true},
		{"short text under the limit is counted", "hello world", 100, 2, true},
		{"no limit counts everything", words(5000), 0, 5001, true},
		{"within 16 bytes per allowed token: whole", words(1200), 1000, 1201, true},
		{"far above the limit: a prefix", words(100_000), 1000, c.Count(words(16 * 1000 / 5)), false},
		{"far above in bytes, few tokens: whole", strings.Repeat(" ", 40_000), 1000, c.Count(strings.Repeat(" ", 40_000)), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, exact := c.Measure(tc.text, tc.limit)
			assert.Equal(t, tc.want, n)
			assert.Equal(t, tc.wantExact, exact)
		})
	}
}
