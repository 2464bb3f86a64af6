package prices

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prices.yaml")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func TestLoadAndCost(t *testing.T) {
	table, err := Load(write(t, `
# USD per million tokens
- {model: google/gemini-2.5-flash, input: 0.30, output: 2.50, checked: "2026-11-01"}
- model: gpt-4.1-mini
  input: 0.4
  output: 1.6
  checked: "2026-10-15"
`))
	require.NoError(t, err)
	usd, ok := table.Cost("google/gemini-2.5-flash", eval.Usage{PromptTokens: 1_000_000, CompletionTokens: 200_000})
	require.True(t, ok)
	assert.InDelta(t, 0.30+0.5, usd, 1e-12)
	usd, ok = table.Cost("gpt-4.1-mini", eval.Usage{PromptTokens: 2500, CompletionTokens: 500})
	require.True(t, ok)
	assert.InDelta(t, (2500*0.4+500*1.6)/1e6, usd, 1e-15)
	_, ok = table.Cost("unknown/model", eval.Usage{PromptTokens: 1})
	assert.False(t, ok, "a model without a price is unpriced, not free")
	p, ok := table.Lookup("gpt-4.1-mini")
	require.True(t, ok)
	assert.Equal(t, "2026-10-15", p.Checked)
}

// Prompt tokens the provider's cache served cost the cached price; a model
// without one pays the input price for them.
func TestCachedTokensCostTheCachedPrice(t *testing.T) {
	table, err := Load(write(t, `
- {model: cached, input: 2.00, output: 8.00, cached_input: 0.50, checked: "2026-11-01"}
- {model: plain, input: 2.00, output: 8.00, checked: "2026-11-01"}
`))
	require.NoError(t, err)
	u := eval.Usage{PromptTokens: 10_000, CachedTokens: 8_000, CompletionTokens: 1_000}
	usd, ok := table.Cost("cached", u)
	require.True(t, ok)
	assert.InDelta(t, (2_000*2.00+8_000*0.50+1_000*8.00)/1e6, usd, 1e-15)
	usd, ok = table.Cost("plain", u)
	require.True(t, ok)
	assert.InDelta(t, (10_000*2.00+1_000*8.00)/1e6, usd, 1e-15)
	usd, _ = table.Cost("cached", eval.Usage{PromptTokens: 100, CachedTokens: 500})
	assert.InDelta(t, 100*0.50/1e6, usd, 1e-15, "a cached count above the prompt is the whole prompt")
}

func TestMissingFileIsAnEmptyTable(t *testing.T) {
	table, err := Load(filepath.Join(t.TempDir(), "none.yaml"))
	require.NoError(t, err)
	_, ok := table.Cost("m", eval.Usage{})
	assert.False(t, ok)
	var none *Table
	_, ok = none.Lookup("m")
	assert.False(t, ok)
}

func TestMalformedTableNamesFileAndLine(t *testing.T) {
	tests := []struct{ name, content, want string }{
		{"not a list", "model: x\n", ":1: expected a list of prices"},
		{"misspelt field", "- {model: a, input: 1, output: 1}\n- {model: b, input: 1, ouput: 2}\n", `:2: unknown field "ouput"`},
		{"negative price", "- {model: a, input: -1, output: 1}\n", ":1: model a: input, output and cached_input must be prices of 0 or more"},
		{"negative cached price", "- {model: a, input: 1, output: 1, cached_input: -0.1}\n", "must be prices of 0 or more"},
		{"not a number", "- {model: a, input: cheap, output: 1}\n", ":1: "},
		{"no model", "- {input: 1, output: 1}\n", ":1: a price without a model"},
		{"duplicate", "- {model: a, input: 1, output: 1}\n- {model: a, input: 2, output: 2}\n", ":2: model a has a price already, at line 1"},
		{"yaml error", "- {model: a, input: 1\n", "prices.yaml"},
		{"infinite", "- {model: a, input: .inf, output: 1}\n", "must be prices of 0 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := write(t, tt.content)
			_, err := Load(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// Without a price table of its own, a project (a module mcpeval init made)
// is priced by the list the suite comes with, and says so.
func TestBundledPricesWithoutAFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "prices.yaml")
	table, err := Load(missing)
	require.NoError(t, err)
	assert.True(t, table.Bundled)
	assert.Equal(t, "the suite's bundled price list (no "+missing+")", table.Describe())
	usd, ok := table.Cost("gpt-4.1-mini", eval.Usage{PromptTokens: 1_000_000})
	require.True(t, ok, "a model of the bundled list has its price")
	assert.InDelta(t, 0.40, usd, 1e-12)

	own, err := Load(write(t, "- {model: m, input: 1, output: 2}\n"))
	require.NoError(t, err)
	assert.False(t, own.Bundled)
	_, ok = own.Cost("gpt-4.1-mini", eval.Usage{PromptTokens: 1})
	assert.False(t, ok, "a table of one's own replaces the bundled list")
}
