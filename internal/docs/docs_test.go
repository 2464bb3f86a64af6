package docs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/files"
)

// Every relative link of README.md and docs/ leads to a file, and to a
// heading of it when it names one.
func TestLinksLeadSomewhere(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	pages, err := Pages(root)
	require.NoError(t, err)
	require.Greater(t, len(pages), 1)
	broken, err := BrokenLinks(pages)
	require.NoError(t, err)
	assert.Empty(t, broken)
}

// The check finds a dead page, a dead heading and nothing else.
func TestBrokenLinks(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "a.md")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.md"), []byte("# B page\n\n## Set-up: two `commands`\n"), 0o644))
	require.NoError(t, os.WriteFile(page, []byte("# A\n[ok](b.md) [ok](b.md#set-up-two-commands) [here](#a)\n"+
		"[gone](c.md) [gone](b.md#nowhere) [web](https://example.org/x)\n`[not](a link)`\n```\n[not](inside code)\n```\n"), 0o644))
	broken, err := BrokenLinks([]string{page})
	require.NoError(t, err)
	assert.Equal(t, []string{page + ":3: c.md (no such file)", page + ":3: b.md#nowhere (no such heading in b.md)"}, broken)
}
