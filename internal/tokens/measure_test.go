package tokens

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// whole counts text in one call of the tokenizer, as upstream does.
func whole(c *Counter, text string) int { return len(c.encoding().tk.EncodeOrdinary(text)) }

// randomText builds text from characters that meet at the places where the
// encodings' pre-tokenizers split, or must not be split: letters of several
// scripts and cases, digits, apostrophes and contractions, combining marks,
// spaces, tabs, line breaks, punctuation, symbols and emoji.
func randomText(rng *rand.Rand, n int) string {
	atoms := []string{
		"a", "Z", "é", "e\u0301", "ß", "Ж", "ж", "中", "文", "の", "ا", "1", "23", "4567", "٣", "½",
		" ", "  ", "\t", "\n", "\r\n", "\n\n", " \n", "'", "'s", "'LL", "n't", "\"", ",", ".", ":", "{", "}", "[", "]",
		"-", "_", "/", "//", "\\", "!", "?", "...", "😀", "€", "™", "\u00a0", "\u2028",
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(atoms[rng.IntN(len(atoms))])
	}
	return b.String()
}

// Measuring part by part gives the count of the whole text, in every
// encoding, for texts without long unsplittable runs.
func TestMeasureEqualsWholeCount(t *testing.T) {
	for _, encoding := range known {
		t.Run(encoding, func(t *testing.T) {
			c, err := New(encoding)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(1, uint64(len(encoding))))
			for i := range 300 {
				text := randomText(rng, 1+rng.IntN(2000))
				n, exact := c.Measure(text)
				require.True(t, exact, "text %d: %q", i, text)
				require.Equal(t, whole(c, text), n, "text %d: %q", i, text)
			}
			for name, text := range map[string]string{
				"empty": "", "json": `{"gene":"NUTM2G","variant":"chr9:99694174 C>T","scores":{"cadd":8.103,"revel":[0.027]}}`,
				"prose": "It's the gene's variant; they'll say it isn't.\nNUTM2G's CADD is 8.103.",
				"code":  "result = df.groupby('department')['salary'].mean().round(2)\n",
			} {
				n, exact := c.Measure(text)
				assert.True(t, exact, name)
				assert.Equal(t, whole(c, text), n, name)
			}
		})
	}
}

// Texts above the size counted by one worker are cut into chunks at places
// where they may be split: the count is still that of the whole.
func TestMeasureLargeTextInChunks(t *testing.T) {
	c, err := New(Default)
	require.NoError(t, err)
	var b strings.Builder
	for i := 0; b.Len() < 3*chunk; i++ {
		fmt.Fprintf(&b, `{"id":%d,"name":"sample_%x","note":"it's %d\u00e9"},`, i, i*7919, i%97)
		if i%50 == 0 {
			b.WriteString("\nLine of prose, with words and 12345 numbers.\n")
		}
	}
	text := b.String()
	require.Greater(t, len(splitChunks(text)), 2)
	n, exact := c.Measure(text)
	assert.True(t, exact)
	assert.Equal(t, whole(c, text), n)
}

// A long run without a place to split (a hostile tool result of one letter
// repeated, a wall of spaces) costs time quadratic in its length when
// tokenized whole. Runs of some kilobytes are still counted whole; past
// about a second of such work, runs are counted in parts, close to the true
// count.
func TestMeasureLongRuns(t *testing.T) {
	c, err := New(Default)
	require.NoError(t, err)
	tests := []struct {
		name string
		text string
	}{
		{"letters", strings.Repeat("a", 8<<10)},
		{"spaces", strings.Repeat(" ", 8<<10)},
		{"punctuation", strings.Repeat("!?", 4<<10)},
		{"letters in JSON", `{"blob":"` + strings.Repeat("Q", 8<<10) + `","ok":true}`},
		{"Chinese without punctuation", strings.Repeat("遗传学研究助理", 1000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, exact := c.Measure(tt.text)
			assert.True(t, exact)
			assert.Equal(t, whole(c, tt.text), n)
		})
	}

	// Two runs of 40,000 letters: the first is counted whole, the second,
	// past the budget, in parts.
	run := strings.Repeat("b", 40_000)
	n, exact := c.Measure(run + " " + run)
	assert.False(t, exact)
	want := whole(c, run+" ") + whole(c, " "+run) // some seconds, once
	assert.InDelta(t, want, n, float64(len(run)/approxPart), "within a token per part")

	// 16 MB of one letter: counted in parts.
	n, exact = c.Measure(strings.Repeat("a", 16<<20))
	assert.False(t, exact)
	assert.Equal(t, (16<<20)/approxPart*whole(c, strings.Repeat("a", approxPart)), n)
}
