package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/files"
)

// docs/settings.md is the reference the table of settings makes: a
// setting added, renamed or explained otherwise fails here until the page
// is made again.
func TestSettingsReferenceIsCurrent(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	page, err := os.ReadFile(filepath.Join(root, ReferencePath))
	require.NoError(t, err)
	assert.Equal(t, Reference(), string(page), "%s is stale: make it again with go run ./cmd/mcpeval help settings > %s", ReferencePath, ReferencePath)
}

// The reference lists every setting of the table, once, with its flag.
func TestReferenceListsEverySetting(t *testing.T) {
	ref := Reference()
	for _, s := range table() {
		assert.Equal(t, 1, strings.Count(ref, "| `"+s.env+"` | `-"+s.flag), "%s (-%s)", s.env, s.flag)
	}
}
