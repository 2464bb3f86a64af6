package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The checked-in category functions match the corpus: a new category in
// cases/ needs `make generate`.
func TestCategoriesFileIsUpToDate(t *testing.T) {
	want, err := generate("../../cases", "evaltest", "evaluation")
	require.NoError(t, err)
	got, err := os.ReadFile("../../evaltest/categories_test.go")
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "evaltest/categories_test.go is stale: run `make generate`")
}

func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`
- case: {name: a, category: "Gene and Variant Utilities", input: q, expected: e}
- case: {name: b, input: q, expected: e}
`), 0o644))
	src, err := generate(file, "evaltest", "evaluation")
	require.NoError(t, err)
	assert.Contains(t, string(src), `func TestGeneAndVariantUtilities(t *testing.T) { evaluation.Run(t, "Gene and Variant Utilities") }`)
	assert.Contains(t, string(src), `func TestC(t *testing.T) { evaluation.Run(t, "c") }`, "a case without category belongs to its file")

	require.NoError(t, os.WriteFile(file, []byte(`
- case: {name: a, category: "gene-x", input: q, expected: e}
- case: {name: b, category: "Gene X", input: q, expected: e}
`), 0o644))
	_, err = generate(file, "evaltest", "evaluation")
	require.ErrorContains(t, err, "both make the test function TestGeneX")
}

func TestReservedNames(t *testing.T) {
	for _, category := range []string{"Main", "other categories", "日本語"} {
		file := filepath.Join(t.TempDir(), "c.yaml")
		require.NoError(t, os.WriteFile(file, []byte("- case: {name: a, category: \""+category+"\", input: q, expected: e}\n"), 0o644))
		_, err := generate(file, "evaltest", "evaluation")
		require.ErrorContains(t, err, "rename the category", category)
	}
}
