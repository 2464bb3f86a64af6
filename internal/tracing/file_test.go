package tracing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// TestFileNamedLate: batches exported before the run's directory is
// named (the servers' start) are written, before the later ones, once it
// is; after the export ends nothing is written.
func TestFileNamedLate(t *testing.T) {
	batch := func(name string) []*tracepb.ResourceSpans {
		return []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{Name: name}}}}}}
	}
	c := &fileClient{}
	require.NoError(t, c.Start(t.Context()))
	require.NoError(t, c.UploadTraces(t.Context(), batch("connect MCP servers")))
	path := filepath.Join(t.TempDir(), FileName)
	require.NoError(t, c.open(path))
	require.NoError(t, c.UploadTraces(t.Context(), batch("case X")))
	require.Error(t, c.open(path), "named twice")
	require.NoError(t, c.Stop(t.Context()))
	require.Error(t, c.UploadTraces(t.Context(), batch("late")), "after the end")

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"name":"connect MCP servers"`)
	assert.Contains(t, lines[1], `"name":"case X"`)

	unnamed := &fileClient{}
	require.NoError(t, unnamed.UploadTraces(t.Context(), batch("connect MCP servers")))
	require.NoError(t, unnamed.Stop(t.Context()), "a run that never made its directory drops its spans")
}
