package apidoc

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/files"
)

// Every exported name of the module's public packages has a doc comment.
func TestPublicPackagesAreDocumented(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	for _, pkg := range []string{"evaltest", "scoring", "cache", "report"} {
		bare, err := Undocumented(filepath.Join(root, pkg))
		require.NoError(t, err)
		assert.Empty(t, bare, "exported names of %s without a doc comment", pkg)
	}
}

// The check finds what go doc would show bare, and nothing else.
func TestUndocumented(t *testing.T) {
	bare, err := Undocumented(filepath.Join("testdata", "undocumented"))
	require.NoError(t, err)
	var names []string
	for _, b := range bare {
		names = append(names, b[len(filepath.Join("testdata", "undocumented", "undocumented.go"))+1:])
	}
	assert.Equal(t, []string{"14: String", "26: BareVar", "7: Bare", "9: BareType"}, names)
}
