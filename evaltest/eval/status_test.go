package eval

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/files"
)

// The table of statuses (docs/outcomes.md) is Statuses, in order, each
// with its meaning:
// a status added, renamed or explained otherwise fails here until the
// table says the same.
func TestDocsListEveryStatus(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	page, err := os.ReadFile(filepath.Join(root, "docs", "outcomes.md"))
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(page), "| status | meaning |\n| --- | --- |\n")
	require.True(t, ok, "docs/outcomes.md has a table of statuses")
	table, _, _ = strings.Cut(table, "\n\n")
	row := regexp.MustCompile("^\\| `([a-z_]+)` \\| (.*) \\|$")
	var listed []Status
	for _, line := range strings.Split(table, "\n") {
		m := row.FindStringSubmatch(line)
		require.NotNil(t, m, "a row of the table: %q", line)
		listed = append(listed, Status(m[1]))
		assert.Equal(t, Status(m[1]).Meaning(), m[2], "the meaning of %s", m[1])
	}
	assert.Equal(t, Statuses(), listed)
	for _, s := range Statuses() {
		assert.NotEmpty(t, s.Meaning(), "%s has a meaning", s)
	}
}
