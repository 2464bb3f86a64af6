package docs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/internal/arms"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
)

// Every yaml and json block of README.md and docs/ is what it shows: a
// case file loads with the suite's loader, an arms file with the arms
// loader, a label file with the labels loader, a servers file with the
// servers loader (a fragment of one inside an object), any other block is
// valid YAML or JSON.
func TestYAMLAndJSONBlocksLoad(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	pages, err := Pages(root)
	require.NoError(t, err)
	blocks, err := Blocks(pages)
	require.NoError(t, err)
	checked := 0
	for _, b := range blocks {
		where := b.Page + ":" + strconv.Itoa(b.Line)
		text := strings.TrimSpace(b.Text)
		switch b.Lang {
		case "yaml", "yml":
			checked++
			var err error
			switch {
			case strings.HasPrefix(text, "- case:"):
				_, err = evalcase.Parse(where, []byte(b.Text))
			case strings.HasPrefix(text, "arms:"):
				_, err = arms.Parse(where, []byte(b.Text))
			case strings.Contains(b.Text, "\nlabels:"):
				_, err = evalcase.ParseLabels(where, []byte(b.Text))
			default:
				var v any
				err = yaml.Unmarshal([]byte(b.Text), &v)
			}
			assert.NoError(t, err, where)
		case "json":
			checked++
			doc := text
			if !strings.HasPrefix(doc, "{") {
				doc = `{"mcpServers": {` + doc + `}}` // the servers of a servers file
			}
			if !assert.True(t, json.Valid([]byte(doc)), "%s: not JSON", where) {
				continue
			}
			if strings.Contains(doc, `"mcpServers"`) {
				path := filepath.Join(t.TempDir(), ".mcp.json")
				require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
				_, err := mcpconn.LoadServersFile(path, func(string) (string, bool) { return "x", true })
				assert.NoError(t, err, where)
			}
		}
	}
	assert.Greater(t, checked, 5, "the pages' yaml and json blocks")
}
