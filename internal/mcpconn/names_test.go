package mcpconn

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Names providers would refuse are offered in a safe form, the same on
// every run, never twice; valid unique names stay as they are.
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
	assert.Equal(t, "read_file_"+shortHash("fs\x00read.file"), got["fs/read.file"], "a safe form already taken gets a hash")
	assert.Equal(t, "git__status", got["git/status"])
	assert.Equal(t, "azure__status", got["azure/status"])
	assert.Equal(t, "storage_account_list", got["azure/storage account list"])
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
