package htmlreport

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/rundata/rundatatest"
)

// TestTraceLinkInBrowser: a case's details show its trace ID, linked
// through the run's trace URL template; a template that is no http(s) URL
// links nothing.
func TestTraceLinkInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	chromiumPath(t)
	const id = "4bf92f3577b34da6a3ce929d0e0e4736"
	for _, tc := range []struct{ name, template, href string }{
		{"jaeger", "http://localhost:16686/trace/{trace_id}", "http://localhost:16686/trace/" + id},
		{"not http", "javascript:alert('{trace_id}')", ""},
	} {
		dir := t.TempDir()
		rundatatest.WriteRecords(t, dir, eval.Record{Name: "Traced", Category: "Genes", Status: eval.Pass, TraceID: id})
		b, err := json.Marshal(eval.Summary{Model: "m", TraceURL: tc.template})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), b, 0o644))
		d := rundatatest.Load(t, dir)
		path := filepath.Join(t.TempDir(), "report.html")
		writeFile(t, path, d)
		p := openBrowser(t)
		p.cases = len(d.Groups)
		p.open(path)
		p.clickUntil(`#cases tr[data-id="0"]`, `!document.getElementById('detail').hidden`)
		assert.Contains(t, jsEval[string](p, `document.querySelector('#detail .facts').textContent`), "Trace"+id, tc.name)
		assert.Equal(t, tc.href, jsEval[string](p, `document.querySelector('#detail .facts a.trace-link')?.href ?? ''`), tc.name)
		p.assertClean()
	}
}
