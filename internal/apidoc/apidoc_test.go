package apidoc

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/files"
)

// Every exported name of the module's public packages has a doc comment.
func TestPublicPackagesAreDocumented(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	for _, pkg := range []string{"evaltest", "evaltest/eval", "scoring", "cache", "report"} {
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
	assert.Equal(t, []string{"14: String", "26: BareVar", "34: Record.Bare", "7: Bare", "9: BareType"}, names)
}

// Every package of the module has one package comment, in one file.
func TestOnePackageCommentPerPackage(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	var dirs []string
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "out") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && !slices.Contains(dirs, filepath.Dir(path)) {
			dirs = append(dirs, filepath.Dir(path))
		}
		return nil
	}))
	require.Greater(t, len(dirs), 30, "the module's packages")
	for _, dir := range dirs {
		docs, err := PackageDocs(dir)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, dir)
		assert.Len(t, docs, 1, "package %s: files with a package comment: %v", rel, docs)
	}
}
