package docs

import (
	"encoding/json"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"slices"
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

// kinds are the tags a fenced block of the pages may have, each checked by
// a test of this package (tree: a directory layout, which nothing checks).
var kinds = map[string]string{
	"sh":   "TestShellBlocks runs it",
	"text": "TestShellBlocks compares it with the output of the sh block before it",
	"yaml": "TestYAMLAndJSONBlocksLoad loads it", "yml": "TestYAMLAndJSONBlocksLoad loads it", "json": "TestYAMLAndJSONBlocksLoad loads it",
	"go":   "TestGoBlocks compares it with the file mcpeval init writes",
	"tree": "a directory layout",
}

// Every fenced block of README.md and docs/ is of a kind a test checks; a
// block names a file only when it is a yaml or json file; a text block
// shows the output of the sh block before it, unless it is one of
// untestedOutput; and the lines the shell test leaves alone are still on
// their pages.
func TestBlockKinds(t *testing.T) {
	_, _, blocks := pageBlocks(t)
	for i, b := range blocks {
		where := b.Page + ":" + strconv.Itoa(b.Line)
		_, known := kinds[b.Lang]
		assert.True(t, known, "%s: a block tagged %q, which no test checks (tags: sh, text, yaml, yml, json, go, tree)", where, b.Lang)
		if b.File != "" {
			assert.Contains(t, []string{"yaml", "yml", "json"}, b.Lang, "%s: only a yaml or json block names a file", where)
		}
		if b.Lang == "text" {
			_, untested := exempt(untestedOutput, b.Page, b.Line)
			assert.True(t, untested || outputOf(blocks, i) >= 0, "%s: a text block shows the output of the sh block before it, or is one of untestedOutput", where)
		}
	}
	for _, e := range untestedOutput {
		i := slices.IndexFunc(blocks, func(b Block) bool { return b.Page == e.page && b.Line == e.line })
		assert.True(t, i >= 0 && blocks[i].Lang == "text", "untestedOutput names %s:%d, which is no text block", e.page, e.line)
	}
	for _, e := range exemptLines {
		i := slices.IndexFunc(blocks, func(b Block) bool {
			return b.Page == e.page && b.Lang == "sh" && b.Line < e.line && e.line <= b.Line+strings.Count(b.Text, "\n")
		})
		if assert.True(t, i >= 0, "exemptLines names %s:%d, which is in no sh block", e.page, e.line) {
			line := strings.Split(blocks[i].Text, "\n")[e.line-blocks[i].Line-1]
			assert.True(t, strings.HasPrefix(strings.TrimSpace(line), e.text), "%s:%d is exempted as %q but reads %q", e.page, e.line, e.text, line)
		}
	}
}

// initTestFile is the test file mcpeval init writes into a new module.
const initTestFile = "cmd/mcpeval/internal/initcmd/template/evaltest/main_test.go.tmpl"

// Every go block is the test file mcpeval init writes, token for token
// (comments aside, but for //go: directives), so that the page shows the
// wiring a new module really has.
func TestGoBlocks(t *testing.T) {
	root, _, blocks := pageBlocks(t)
	file, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(initTestFile)))
	require.NoError(t, err)
	want := goTokens(t, initTestFile, file)
	checked := 0
	for _, b := range blocks {
		if b.Lang == "go" {
			checked++
			where := b.Page + ":" + strconv.Itoa(b.Line)
			assert.Equal(t, want, goTokens(t, where, []byte(b.Text)), "%s: not the code of %s", where, initTestFile)
		}
	}
	assert.Positive(t, checked, "the pages' go blocks")
}

// goTokens are the tokens of Go source, one a string, without comments
// other than directives; a syntax error fails the test.
func goTokens(t *testing.T, name string, src []byte) []string {
	fset := token.NewFileSet()
	var s scanner.Scanner
	var errs scanner.ErrorList
	s.Init(fset.AddFile(name, -1, len(src)), src, func(pos token.Position, msg string) { errs.Add(pos, msg) }, scanner.ScanComments)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.COMMENT && !strings.HasPrefix(lit, "//go:") || tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		out = append(out, tok.String()+" "+lit)
	}
	require.NoError(t, errs.Err(), name)
	return out
}
