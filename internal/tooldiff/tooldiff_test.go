package tooldiff

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

func summary(servers ...eval.ServerTools) *eval.ToolSummary {
	return &eval.ToolSummary{Servers: servers}
}

func server(name, version string, tools ...eval.Tool) eval.ServerTools {
	return eval.ServerTools{Server: "cmd-" + name, Name: name, Version: version, Surface: tools}
}

func tool(name, desc, schema string) eval.Tool {
	return eval.Tool{Name: name, Description: desc, Parameters: json.RawMessage(schema)}
}

const (
	lookupV1 = `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`
	// lookupV1Reordered is lookupV1 with other key order and spacing.
	lookupV1Reordered = `{ "required": ["id"], "properties": {"id": {"type": "string"}}, "type": "object" }`
	lookupV2          = `{"type":"object","properties":{"id":{"type":"string"},"source":{"type":"string","enum":["local","remote"]}},"required":["id","source"]}`
)

func TestCompare(t *testing.T) {
	base := summary(server("genes", "1.0", tool("lookup", "Look up an item.", lookupV1), tool("list", "List items.", `{"type":"object"}`)))
	for _, tc := range []struct {
		name string
		old  *eval.ToolSummary
		cur  *eval.ToolSummary
		want eval.ToolChanges
	}{
		{name: "same surface", old: base, cur: base},
		{
			name: "key order and white space of a schema do not count",
			old:  base,
			cur:  summary(server("genes", "1.0", tool("lookup", "Look up an item.", lookupV1Reordered), tool("list", "List items.", `{ "type" : "object" }`))),
		},
		{
			name: "a description changed",
			old:  base,
			cur:  summary(server("genes", "1.0", tool("lookup", "Look up an item by its id.", lookupV1), tool("list", "List items.", `{"type":"object"}`))),
			want: eval.ToolChanges{Changed: []eval.ToolChange{{ToolRef: eval.ToolRef{Tool: "lookup", Server: "genes"},
				DescriptionChanged: true, OldDescription: "Look up an item.", NewDescription: "Look up an item by its id."}}},
		},
		{
			name: "a description emptied",
			old:  base,
			cur:  summary(server("genes", "1.0", tool("lookup", "", lookupV1), tool("list", "List items.", `{"type":"object"}`))),
			want: eval.ToolChanges{Changed: []eval.ToolChange{{ToolRef: eval.ToolRef{Tool: "lookup", Server: "genes"},
				DescriptionChanged: true, OldDescription: "Look up an item."}}},
		},
		{
			name: "tools added and removed, a server's version",
			old:  base,
			cur:  summary(server("genes", "1.1", tool("lookup", "Look up an item.", lookupV1), tool("search", "Search.", `{"type":"object"}`))),
			want: eval.ToolChanges{
				Added:   []eval.ToolRef{{Tool: "search", Server: "genes"}},
				Removed: []eval.ToolRef{{Tool: "list", Server: "genes"}},
				Servers: []eval.ServerChange{{Name: "genes", OldVersion: "1.0", NewVersion: "1.1"}},
			},
		},
		{
			name: "another server",
			old:  base,
			cur:  summary(server("other", "3", tool("ping", "Ping.", `{}`))),
			want: eval.ToolChanges{
				Added:   []eval.ToolRef{{Tool: "ping", Server: "other"}},
				Removed: []eval.ToolRef{{Tool: "list", Server: "genes"}, {Tool: "lookup", Server: "genes"}},
				Servers: []eval.ServerChange{{Name: "genes", OldVersion: "1.0", Removed: true}, {Name: "other", NewVersion: "3", Added: true}},
			},
		},
		{
			name: "a server without serverInfo is known by how the run names it",
			old:  summary(eval.ServerTools{Server: "node server.js", Surface: []eval.Tool{tool("a", "A.", `{}`)}}),
			cur:  summary(eval.ServerTools{Server: "node server.js", Surface: []eval.Tool{tool("a", "A.", `{}`)}}),
		},
		{
			name: "nothing before",
			old:  nil,
			cur:  summary(server("genes", "1.0", tool("list", "List items.", `{"type":"object"}`))),
			want: eval.ToolChanges{Added: []eval.ToolRef{{Tool: "list", Server: "genes"}},
				Servers: []eval.ServerChange{{Name: "genes", NewVersion: "1.0", Added: true}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Compare(tc.old, tc.cur)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.want.Added == nil && tc.want.Removed == nil && tc.want.Changed == nil && tc.want.Servers == nil, got.Empty())
		})
	}
}

func TestSchemaDiff(t *testing.T) {
	got := Compare(summary(server("genes", "1", tool("lookup", "L", lookupV1))), summary(server("genes", "1", tool("lookup", "L", lookupV2))))
	require.Len(t, got.Changed, 1)
	c := got.Changed[0]
	assert.False(t, c.DescriptionChanged)
	assert.Equal(t, `--- lookup (before)
+++ lookup (now)
@@ -2,10 +2,18 @@
   "properties": {
     "id": {
       "type": "string"
+    },
+    "source": {
+      "enum": [
+        "local",
+        "remote"
+      ],
+      "type": "string"
     }
   },
   "required": [
-    "id"
+    "id",
+    "source"
   ],
   "type": "object"
 }
`, c.SchemaDiff)
	assert.Equal(t, "input schema", What(c))
}

func TestSchemaDiffKeepsTextThatIsNotJSON(t *testing.T) {
	got := Compare(summary(server("s", "1", tool("t", "", `{"type":`))), summary(server("s", "1", tool("t", "", `{"type":"object"}`))))
	require.Len(t, got.Changed, 1)
	assert.Contains(t, got.Changed[0].SchemaDiff, "-{\"type\":\n")
	assert.Contains(t, got.Changed[0].SchemaDiff, "+  \"type\": \"object\"\n")
}

func TestLines(t *testing.T) {
	ch := Compare(
		summary(server("genes", "1.0", tool("lookup", "Look up an item.", lookupV1), tool("gone", "G.", `{}`))),
		summary(server("genes", "1.1", tool("lookup", "Look up\x1b[31m an item\nby id.", lookupV2), tool("fresh", "F.", `{}`))))
	lines := Lines(&ch)
	text := strings.Join(lines, "\n")
	assert.Equal(t, "1 added, 1 removed, 1 changed, 1 server changed", Count(&ch))
	assert.Equal(t, `  server genes: version 1.0 → 1.1`, lines[0])
	assert.Contains(t, lines, `  added: fresh (genes)`)
	assert.Contains(t, lines, `  removed: gone (genes)`)
	assert.Contains(t, lines, `  changed: lookup (genes): description and input schema`)
	assert.Contains(t, lines, `    description was: "Look up an item."`)
	assert.Contains(t, lines, `    description now: "Look up\x1b[31m an item\nby id."`, "quoted: no escape sequence or line break reaches the terminal")
	assert.Contains(t, lines, `      +    "source"`)
	assert.NotContains(t, text, "\x1b")
	assert.Nil(t, Lines(&eval.ToolChanges{}))
	assert.Equal(t, "no tool changed in meaning (only how a schema is written)", Count(&eval.ToolChanges{}))
	assert.Nil(t, Lines(nil))
}

func TestLinesCutLongDiffs(t *testing.T) {
	props := func(n int) string {
		var parts []string
		for i := range n {
			parts = append(parts, fmt.Sprintf(`"p%03d":{"type":"string"}`, i))
		}
		return `{"type":"object","properties":{` + strings.Join(parts, ",") + `}}`
	}
	ch := Compare(summary(server("s", "1", tool("t", "", props(1)))), summary(server("s", "1", tool("t", "", props(100)))))
	lines := Lines(&ch)
	assert.Len(t, lines, 1+1+maxDiffLines+1)
	assert.Equal(t, "1 changed", Count(&ch))
	assert.Regexp(t, `^      … \d+ more lines \(summary.json holds the whole diff\)$`, lines[len(lines)-1])
	assert.Greater(t, strings.Count(ch.Changed[0].SchemaDiff, "\n"), 300, "the summary keeps the whole diff")
}

func TestName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"get_gene_by_symbol", "get_gene_by_symbol"},
		{"get-sum", "get-sum"},
		{"ns/tool.v2:x", "ns/tool.v2:x"},
		{"Gène_ß", "Gène_ß"},
		{"two words", `"two words"`},
		{"red\x1b[31m", `"red\x1b[31m"`},
		{"line\nbreak", `"line\nbreak"`},
		{strings.Repeat("a", 120), strings.Repeat("a", 100) + "…"},
		{"", ""},
	} {
		assert.Equal(t, tc.want, Name(tc.in), "%q", tc.in)
	}
}

func TestExplain(t *testing.T) {
	ch := Compare(
		summary(server("genes", "1", tool("lookup", "L", lookupV1), tool("gone", "G", `{}`), tool("same", "S", `{}`), tool("renamed", "R", `{}`))),
		summary(server("genes", "1", tool("lookup", "L", lookupV2), tool("fresh", "F", `{}`), tool("same", "S", `{}`), tool("renamed", "R2", `{}`))))
	for _, tc := range []struct {
		called []string
		want   []string
	}{
		{nil, nil},
		{[]string{"same"}, nil},
		{[]string{"lookup", "same", "lookup"}, []string{"lookup: input schema changed"}},
		{[]string{"gone", "fresh", "renamed"}, []string{"fresh: added", "gone: removed", "renamed: description changed"}},
		{[]string{"unknown_tool"}, nil},
		{[]string{"we\x1bird"}, nil},
	} {
		assert.Equal(t, tc.want, Explain(&ch, tc.called), "%v", tc.called)
	}
	assert.Nil(t, Explain(nil, []string{"lookup"}))
}

// withTokens gives a surface's tools their definition sizes, in order, and
// the total.
func withTokens(s *eval.ToolSummary, encoding string, sizes ...int) *eval.ToolSummary {
	s.Encoding = encoding
	for i := range s.Servers {
		srv := &s.Servers[i]
		srv.Stats = make([]eval.ToolStats, len(srv.Surface))
		for j, t := range srv.Surface {
			srv.Stats[j] = eval.ToolStats{Name: t.Name, DefinitionTokens: sizes[j]}
			s.DefinitionTokens += sizes[j]
		}
	}
	return s
}

// Growth of the definitions is flagged, tool by tool, largest first;
// runs counted in other encodings are not compared.
func TestTokenGrowth(t *testing.T) {
	old := withTokens(summary(server("genes", "1.0", tool("lookup", "L.", lookupV1), tool("list", "L.", `{}`))), "cl100k_base", 100, 40)
	cur := withTokens(summary(server("genes", "1.0", tool("lookup", "L.", lookupV2), tool("list", "L.", `{}`), tool("fresh", "F.", `{}`))), "cl100k_base", 160, 40, 30)
	ch := Compare(old, cur)
	require.NotNil(t, ch.Tokens)
	assert.Equal(t, eval.TokenChange{Encoding: "cl100k_base", Before: 140, Now: 230,
		Grew: []eval.ToolTokens{{Tool: "lookup", Before: 100, Now: 160}, {Tool: "fresh", Now: 30}}}, *ch.Tokens)
	assert.Equal(t, "1 added, 1 changed, definitions grew by 90 tokens", Count(&ch))
	lines := Lines(&ch)
	assert.Equal(t, "  tool definitions grew 140 → 230 tokens (+90, +64.3%, cl100k_base): the context tax of every request went up", lines[0])
	assert.Equal(t, "    lookup: 100 → 160 tokens", lines[1])
	assert.Equal(t, "    fresh: 0 → 30 tokens", lines[2])

	shrunk := Compare(cur, old)
	assert.False(t, shrunk.Tokens.Growth())
	assert.Equal(t, "  tool definitions shrank 230 → 140 tokens (-90, -39.1%, cl100k_base)", Lines(&shrunk)[0])

	other := withTokens(summary(server("genes", "1.0", tool("lookup", "L.", lookupV1), tool("list", "L.", `{}`))), "o200k_base", 90, 35)
	assert.Nil(t, Compare(old, other).Tokens, "counts in other encodings do not compare")
	assert.Nil(t, Compare(summary(server("genes", "1.0", tool("lookup", "L.", lookupV1))), cur).Tokens, "a run that did not count")
}
