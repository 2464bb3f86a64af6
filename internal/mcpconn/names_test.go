package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Names providers would refuse are offered in a safe form, readable and
// the same on every run whatever other tools the servers offer, never
// twice; valid unique names stay as they are.
func TestOfferedNames(t *testing.T) {
	long := strings.Repeat("very_long_tool_name_", 5)
	tools := []Tool{
		{Server: "fs", Name: "read.file"},
		{Server: "fs", Name: "read_file"},
		{Server: "git", Name: "status"},
		{Server: "azure", Name: "status"},
		{Server: "azure", Name: "storage account list"},
		{Server: "azure", Name: long},
		{Server: "azure", Name: long + "b"},
		{Server: "x", Name: "ünïcode/tool"},
		{Server: "x", Name: "météo prévision"},
		{Server: "x", Name: "天气"},
		{Server: "x", Name: "天気"},
	}
	offeredNames(tools)
	got := map[string]string{}
	seen := map[string]bool{}
	for _, tool := range tools {
		assert.Regexp(t, `^[a-zA-Z0-9_-]{1,64}$`, tool.Offered, tool.Name)
		assert.False(t, seen[tool.Offered], "offered twice: %s", tool.Offered)
		seen[tool.Offered] = true
		got[tool.Server+"/"+tool.Name] = tool.Offered
	}
	assert.Equal(t, "read_file", got["fs/read_file"], "a valid unique name is kept")
	assert.Equal(t, "read_file_"+shortHash("read.file"), got["fs/read.file"], "a safe form ends with a hash of the name")
	assert.Equal(t, "git__status", got["git/status"])
	assert.Equal(t, "azure__status", got["azure/status"])
	assert.Equal(t, "storage_account_list_"+shortHash("storage account list"), got["azure/storage account list"])
	assert.Equal(t, "unicode_tool_"+shortHash("ünïcode/tool"), got["x/ünïcode/tool"], "accents dropped")
	assert.Equal(t, "meteo_prevision_"+shortHash("météo prévision"), got["x/météo prévision"])
	assert.Equal(t, "tool_"+shortHash("天气"), got["x/天气"], "no Latin letter: tool and the hash")
	assert.NotEqual(t, got["x/天气"], got["x/天気"])
	assert.Len(t, got["azure/"+long], 64)
	assert.NotEqual(t, got["azure/"+long], got["azure/"+long+"b"])

	again := []Tool{tools[7], tools[6], tools[5], tools[4], tools[3], tools[2], tools[1], tools[0]}
	for i := range again {
		again[i].Offered = ""
	}
	offeredNames(again)
	for _, tool := range again {
		assert.Equal(t, got[tool.Server+"/"+tool.Name], tool.Offered, "independent of order")
	}

	// Another server joins with tools of its own: no safe name changes.
	joined := append([]Tool{{Server: "new", Name: "read_file_x"}, {Server: "new", Name: "meteo.prevision"}}, tools...)
	for i := range joined {
		joined[i].Offered = ""
	}
	offeredNames(joined)
	for _, tool := range joined[2:] {
		if tool.Name != "status" {
			assert.Equal(t, got[tool.Server+"/"+tool.Name], tool.Offered, "%s keeps its name", tool.Name)
		}
	}
}

func TestSelectedTools(t *testing.T) {
	tests := []struct {
		patterns []string
		server   string
		name     string
		want     bool
	}{
		{nil, "s", "anything", true},
		{[]string{"get_gene_*"}, "s", "get_gene_by_symbol", true},
		{[]string{"get_gene_*"}, "s", "search_pubmed", false},
		{[]string{"memory/*"}, "memory", "read_graph", true},
		{[]string{"memory/*"}, "fs", "read_graph", false},
		{[]string{"!run_pandas"}, "s", "run_pandas", false},
		{[]string{"!run_pandas"}, "s", "get_gene_by_symbol", true},
		{[]string{"*", "!fs/write_*"}, "fs", "write_file", false},
		{[]string{"*", "!fs/write_*"}, "fs", "read_file", true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.patterns, tt.server, tt.name), func(t *testing.T) {
			assert.Equal(t, tt.want, selected(tt.patterns, tt.server, tt.name))
		})
	}
	require.Error(t, CheckPatterns([]string{"get_[gene"}))
	require.NoError(t, CheckPatterns([]string{"!memory/*", "get_*"}))
}

func TestCheckToolCount(t *testing.T) {
	a, b := &Server{}, &Server{}
	set := &Set{Servers: []*Server{a, b}, names: []string{"big", "small"}}
	for i := range 150 {
		srv := a
		if i >= 140 {
			srv = b
		}
		set.entries = append(set.entries, Tool{Name: fmt.Sprint("t", i), server: srv})
		set.tools = append(set.tools, set.entries[i].Listed)
	}
	require.NoError(t, set.CheckToolCount(0))
	require.NoError(t, set.CheckToolCount(150))
	err := set.CheckToolCount(128)
	var tooMany *TooManyToolsError
	require.ErrorAs(t, err, &tooMany)
	assert.Equal(t, "the servers offer 150 tools (big: 140, small: 10), more than the 128 a provider accepts in one request", err.Error())
}

// A view shows the model a subset of the tools, overridden, and calls
// still reach the real server under the tools' own names.
func TestView(t *testing.T) {
	spec, opts := stdioSpec(t, modeTools, Options{})
	streamable, _ := streamableSpec(t)
	set, err := ConnectAll(context.Background(), []string{spec, streamable}, opts)
	require.NoError(t, err)
	t.Cleanup(set.Close)

	desc := "Says back what it is given (overridden)."
	view, err := set.View(Surface{
		Servers:  []string{"mcpconn-test"},
		Hide:     []string{"fail"},
		Override: map[string]Override{"echo": {Description: &desc, InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}},
	})
	require.NoError(t, err)
	var names []string
	for _, tool := range view.Tools() {
		names = append(names, tool.Name)
		if tool.Name == "echo" {
			assert.Equal(t, desc, tool.Description)
			assert.JSONEq(t, `{"type":"object","properties":{"text":{"type":"string"}}}`, string(tool.Parameters))
		}
	}
	assert.Contains(t, names, "echo", "one server left: the name is no longer qualified")
	assert.NotContains(t, names, "fail")
	assert.NotContains(t, names, "mcpconn-test-2__echo")
	res, err := view.Call(context.Background(), "echo", map[string]any{"text": "hi"})
	require.NoError(t, err)
	assert.Equal(t, "hi", res.Text)
	assert.NotEqual(t, set.Hash(), view.Hash(), "another surface, another cache key")

	none, err := set.View(Surface{Servers: []string{}})
	require.NoError(t, err)
	assert.Empty(t, none.Tools())
	view.Close() // a view closes nothing
	_, err = set.Call(context.Background(), "pid", nil)
	require.NoError(t, err, "the servers still run")

	for name, s := range map[string]Surface{
		"unknown server": {Servers: []string{"nope"}},
		"unknown tool":   {Override: map[string]Override{"nope": {Description: &desc}}},
		"bad schema":     {Override: map[string]Override{"echo": {InputSchema: json.RawMessage(`[1]`)}}},
		"bad pattern":    {Hide: []string{"["}},
	} {
		_, err := set.View(s)
		assert.Error(t, err, name)
	}
}
