package htmlreport

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/rundata/rundatatest"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// realRunCases runs under TestGeneAndVariantUtilities in a reference run on
// the bundled sample server: two cases pass, "Drifted" expects a value the
// server does not hold and fails. The second case carries script injection
// rundatatest.Payloads in its name, question and expected answer; each would set
// window.__xss if it ever ran.
const realRunCases = `
- case:
    name: "NUTM2G symbol"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of NUTM2G?"
    expected: "441457"
    checks: {contains: ["441457"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
- case:
    name: "Hostile <script>window.__xss=1</script>"
    category: "Gene and Variant Utilities"
    input: "</script><script>window.__xss=2</script> \"><img src=x onerror=window.__xss=3> What is NUTM2G's id?"
    expected: "<a href=\"javascript:window.__xss=4\">441457</a>"
    checks: {contains: ["441457"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
- case:
    name: "Drifted"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of NUTM2G really?"
    expected: "999999"
    checks: {contains: ["999999"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
`

// moduleRoot is the nearest directory above the working directory with a
// go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the working directory")
		dir = parent
	}
}

// runRealSuite runs the project's suite, `go test ./evaltest -json`, as a
// reference run of the cases in casesYAML, and returns its run directory
// and the path of its event stream. Keys and suite settings of the
// developer's environment, and the project's .env, never reach it.
func runRealSuite(t *testing.T, casesYAML string) (outDir, streamPath string) {
	t.Helper()
	return runSuiteWith(t, casesYAML, "EVAL_REFERENCE=1")
}

// runSuiteWith runs the project's suite on the cases in casesYAML with the
// given settings (NAME=value) besides an isolated environment.
func runSuiteWith(t *testing.T, casesYAML string, env ...string) (outDir, streamPath string) {
	t.Helper()
	dir := t.TempDir()
	casePath := filepath.Join(dir, "cases.yaml")
	require.NoError(t, os.WriteFile(casePath, []byte(casesYAML), 0o644))
	outDir = filepath.Join(dir, "out")
	streamPath = filepath.Join(dir, "run.json")

	cmd := exec.Command("go", "test", "./evaltest", "-json", "-count=1")
	cmd.Dir = moduleRoot(t)
	cmd.Env = append(settings.IsolatedEnv(), "EVAL_CASES="+casePath,
		"EVAL_OUT="+outDir, "EVAL_CACHE="+filepath.Join(dir, "cache.json"))
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stream, err := cmd.Output()
	// A failing case makes go test exit 1; anything else is a broken run.
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1 && bytes.Contains(stream, []byte(`"Action":"fail"`))) {
		t.Fatalf("go test ./evaltest: %v\n%s\n%s", err, stream, stderr.Bytes())
	}
	require.NoError(t, os.WriteFile(streamPath, stream, 0o644))
	runDir, err := runs.Resolve(outDir, runs.Latest)
	require.NoError(t, err, "the run marks itself as the latest")
	return runDir, streamPath
}

// realRunReport makes the report of a real reference run of casesYAML
// for a browser test: its data, the path of its HTML file, and the run's
// summary. The test is skipped under -short and without Chromium.
func realRunReport(t *testing.T, casesYAML string) (*rundata.Data, string, eval.Summary) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the suite")
	}
	chromiumPath(t)
	outDir, stream := runRealSuite(t, casesYAML)
	d := rundatatest.Load(t, outDir, stream)
	path := filepath.Join(t.TempDir(), "report.html")
	writeFile(t, path, d)
	summary, err := runs.ReadSummary(outDir)
	require.NoError(t, err, "the suite writes its summary")
	return d, path, summary
}

// TestRealRunReportInBrowser makes a report of a real run of the suite and
// checks it in Chromium: the counts are the run's, a case shows its
// conversation with the tool call and its result, the status filter works,
// and hostile text from the case file is shown as text and runs nothing.
func TestRealRunReportInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	d, path, summary := realRunReport(t, realRunCases)
	require.Equal(t, []int{3, 2, 1}, []int{summary.Total, summary.Passed, summary.Failed},
		"the run itself: 3 cases, 2 passed, 1 failed")
	require.Empty(t, d.Problems, "a clean run has no run problems")

	p := openBrowser(t)
	p.cases = len(d.Groups)
	p.open(path)
	p.screenshot("real-run-overview", "")
	p.screenshot("real-run-cases", ".cases-panel")
	caseID := func(name string) int { return caseIndex(t, d, name) }

	t.Run("counts are the run's", func(t *testing.T) {
		p.t = t
		for key, want := range map[string]int{
			"total": summary.Total, "pass": summary.Passed, "fail": summary.Failed,
			"error": summary.Errors, "token_limit": summary.TokenLimit, "cached": summary.Cached,
		} {
			got := jsEval[string](p, `document.querySelector('[data-count="`+key+`"] .n').textContent`)
			assert.Equal(t, fmt.Sprint(want), got, key)
		}
		assert.Equal(t, "66.7%", jsEval[string](p, `document.getElementById('rate').textContent`))
		assert.Len(t, rowIDs(p), summary.Total)
		assert.Equal(t, "reference agent (no model)", jsEval[string](p,
			`[...document.querySelectorAll('.meta > div')].find(d => d.querySelector('dt').textContent === 'Model').querySelector('dd').textContent`))
		cats := jsEval[[]string](p, `[...document.querySelectorAll('#categories tbody tr')].map(r => r.textContent)`)
		require.Len(t, cats, 1)
		assert.Contains(t, cats[0], "Gene and Variant Utilities")
		assert.Contains(t, cats[0], "2 / 3")
	})

	t.Run("at 1400 px every column fits and the metric columns read whole", func(t *testing.T) {
		p.t = t
		p.reset()
		assert.Equal(t, 1400, jsEval[int](p, `window.innerWidth`))
		assert.LessOrEqual(t, jsEval[int](p, `document.documentElement.scrollWidth`), 1400, "the page itself is no wider")
		wrap := `document.querySelector('.table-wrap')`
		assert.GreaterOrEqual(t, jsEval[int](p, `document.querySelectorAll('#cases thead th.metric').length`), 6)
		assert.LessOrEqual(t, jsEval[int](p, wrap+`.scrollWidth`), jsEval[int](p, wrap+`.clientWidth`), "no horizontal scrolling")
		assert.False(t, jsEval[bool](p, `document.querySelector('.table-box').classList.contains('more-right')`))
		assert.Equal(t, []string{}, jsEval[[]string](p, `[...document.querySelectorAll('#cases thead th')].filter(th => {
			const c = th.getBoundingClientRect(), l = (th.querySelector('.rot') || th).getBoundingClientRect();
			return th.scrollWidth > th.clientWidth || l.left < c.left - 0.5 || l.right > c.right + 0.5 || l.top < c.top - 0.5 || l.bottom > c.bottom + 0.5;
		}).map(th => th.textContent)`), "headers cut short")
		assert.Equal(t, []string{}, jsEval[[]string](p, `[...document.querySelectorAll('#cases tbody td[data-key^="metric:"]')]
			.filter(td => td.scrollWidth > td.clientWidth).map(td => td.dataset.key + ' ' + td.textContent)`), "scores cut short")
		p.screenshot("real-run-cases", ".cases-panel")
	})

	t.Run("narrower, the table scrolls in its card with the first columns in view", func(t *testing.T) {
		p.t = t
		p.reset()
		p.do(chromedp.EmulateViewport(1000, 1000))
		defer p.do(chromedp.EmulateViewport(1400, 1000))
		p.waitFor(`window.innerWidth === 1000`)
		wrap := `document.querySelector('.table-wrap')`
		require.Greater(t, jsEval[int](p, wrap+`.scrollWidth`), jsEval[int](p, wrap+`.clientWidth`),
			"the columns do not fit 1000 px: the table scrolls in its card")
		jsEval[chromedp.Void](p, `window.dispatchEvent(new Event('resize'))`)
		p.waitFor(`document.querySelector('.table-box').classList.contains('more-right')`)
		// Scrolled to the far right, the last column shows whole and the
		// status and case columns stay where they were.
		jsEval[chromedp.Void](p, wrap+`.scrollLeft = `+wrap+`.scrollWidth`)
		p.waitFor(`document.querySelector('.table-box').classList.contains('scrolled')`)
		p.screenshot("real-run-cases-scrolled", ".cases-panel")
		box := jsEval[map[string]float64](p, `(() => {
			const w = document.querySelector('.table-wrap').getBoundingClientRect();
			const row = document.querySelector('#cases tbody tr');
			const status = row.querySelector('[data-key="status"]').getBoundingClientRect();
			const name = row.querySelector('[data-key="name"]').getBoundingClientRect();
			const last = row.lastElementChild.getBoundingClientRect();
			return {wrapLeft: w.left, wrapRight: w.right, statusLeft: status.left, nameLeft: name.left, statusRight: status.right, lastRight: last.right};
		})()`)
		assert.InDelta(t, box["wrapLeft"], box["statusLeft"], 1)
		assert.InDelta(t, box["statusRight"], box["nameLeft"], 1)
		assert.LessOrEqual(t, box["lastRight"], box["wrapRight"]+1)
		assert.False(t, jsEval[bool](p, `document.querySelector('.table-box').classList.contains('more-right')`))
		jsEval[chromedp.Void](p, wrap+`.scrollLeft = 0`)
	})

	t.Run("metrics summary shows each metric once", func(t *testing.T) {
		p.t = t
		labels := jsEval[[]string](p, `[...document.querySelectorAll('#metrics-summary .metric-tile .k')].map(k => k.textContent)`)
		for _, want := range []string{"Overall", "Correctness", "Coverage", "Performance", "Recovery", "Understanding",
			"Errors encountered", "Successful recoveries", "Recovery success rate"} {
			assert.Contains(t, labels, want)
		}
		seen := map[string]bool{}
		for _, l := range labels {
			assert.False(t, seen[l], "tile %q shown twice", l)
			seen[l] = true
		}
		tiles := jsEval[map[string]string](p, `Object.fromEntries([...document.querySelectorAll('#metrics-summary .metric-tile')]
			.map(t => [t.querySelector('.k').textContent, t.querySelector('.v').textContent]))`)
		assert.Equal(t, "0", tiles["Errors encountered"])
		assert.Equal(t, "—", tiles["Recovery success rate"], "no errors, nothing to recover from")
		assert.Equal(t, "3", tiles["Cases scored"])
		// The columns of the case table have the same names.
		assert.Equal(t, []string{"Overall", "Correctness", "Performance", "Understanding", "Coverage", "Recovery"},
			jsEval[[]string](p, `[...document.querySelectorAll('#cases thead th.metric')].map(th => th.textContent)`))
	})

	t.Run("case conversation with the tool call and its result", func(t *testing.T) {
		p.t = t
		p.reset()
		id := caseID("NUTM2G symbol")
		rec := d.Cases[id].Record
		require.NotNil(t, rec)
		require.Len(t, rec.ToolCalls, 1)
		p.clickUntil(fmt.Sprintf(`#cases tr[data-id="%d"]`, id), `!document.getElementById('detail').hidden`)
		p.screenshot("real-run-case", "")
		assert.Equal(t, "NUTM2G symbol", jsEval[string](p, `document.querySelector('#detail h2').textContent`))
		roles := jsEval[[]string](p, `[...document.querySelectorAll('#detail .chat .msg-head .role')].map(r => r.textContent)`)
		assert.Equal(t, []string{"user", "assistant", "tool", "assistant"}, roles)
		chat := jsEval[string](p, `document.querySelector('#detail .chat').textContent`)
		assert.Contains(t, chat, "What is the Entrez id of NUTM2G?")
		call := jsEval[string](p, `document.querySelector('#detail .msg-assistant .call').textContent`)
		assert.Contains(t, call, "get_gene_by_symbol")
		assert.Contains(t, call, `"gene_symbol": "NUTM2G"`)
		toolMsg := jsEval[string](p, `document.querySelector('#detail .msg-tool .msg-body').textContent`)
		assert.JSONEq(t, rec.ToolCalls[0].Result, toolMsg, "the tool message shows the call's result")
		assert.Contains(t, toolMsg, `"entrezId": 441457`)

		p.click(`#detail .tab[data-tab="tools"]`)
		calls := jsEval[string](p, `document.querySelector('#detail .pane[data-tab="tools"]').textContent`)
		assert.Contains(t, calls, "get_gene_by_symbol")
		assert.Contains(t, calls, `"entrezId": 441457`)
		p.assertClean()
		p.click(`#close`)
		p.waitFor(`document.getElementById('detail').hidden`)
	})

	t.Run("filter by status", func(t *testing.T) {
		p.t = t
		p.reset()
		p.click(`.chip[data-status="fail"]`)
		p.waitForRows(caseID("Drifted"))
		assert.Contains(t, jsEval[string](p, `document.querySelector('#cases tbody').textContent`), `do not hold 1 fact of the expected answer (found nowhere, nor computed from them): 999999`)
		p.click(`.chip[data-status="pass"]`)
		ids := rowIDs(p)
		require.Len(t, ids, summary.Passed)
		for _, id := range ids {
			assert.Equal(t, eval.Pass, d.Cases[id].Status)
		}
		p.click(`.chip[data-status="all"]`)
		assert.Len(t, rowIDs(p), summary.Total)
	})

	t.Run("hostile case text renders as text", func(t *testing.T) {
		p.t = t
		p.reset()
		id := caseID("Hostile <script>window.__xss=1</script>")
		row := jsEval[string](p, fmt.Sprintf(`document.querySelector('#cases tr[data-id="%d"]').textContent`, id))
		assert.Contains(t, row, "Hostile <script>window.__xss=1</script>")
		assert.Contains(t, row, `</script><script>window.__xss=2</script> "><img src=x onerror=window.__xss=3>`)
		assert.Contains(t, row, `<a href="javascript:window.__xss=4">441457</a>`)
		// A score that does not apply (the rundatatest.Payloads hide the question's
		// gene from the understanding metric) shows as none, not as 0.
		understanding := jsEval[string](p, fmt.Sprintf(
			`document.querySelector('#cases tr[data-id="%d"] td[data-key="metric:understanding"]').textContent`, id))
		if u := d.Cases[id].Record.Metrics.PromptUnderstanding; u.NotApplicable {
			assert.Equal(t, "—", understanding)
		} else {
			assert.Equal(t, fmt.Sprintf("%.2f", u.Score), understanding)
		}

		p.clickUntil(fmt.Sprintf(`#cases tr[data-id="%d"]`, id), `!document.getElementById('detail').hidden`)
		assert.Equal(t, "Hostile <script>window.__xss=1</script>", jsEval[string](p, `document.querySelector('#detail h2').textContent`))
		body := jsEval[string](p, `document.querySelector('#detail .drawer-body').textContent`)
		assert.Contains(t, body, `<a href="javascript:window.__xss=4">441457</a>`)
		assert.Contains(t, jsEval[string](p, `document.querySelector('#detail .msg-user').textContent`),
			`</script><script>window.__xss=2</script>`)
		p.screenshot("real-run-hostile-case", "")
		p.assertClean()
		p.do(chromedp.KeyEvent("\u001b")) // Escape
		p.waitFor(`document.getElementById('detail').hidden`)
		p.assertClean()
	})

	t.Run("tools view: coverage and a sortable table of the tools' health", func(t *testing.T) {
		p.t = t
		require.NotNil(t, summary.Tools, "the run records its tool surface")
		require.Len(t, summary.Tools.Servers, 1)
		srv := summary.Tools.Servers[0]
		require.Equal(t, 1, srv.Exercised, "the three cases call one tool")
		cov := jsEval[string](p, `document.querySelector('#tools .coverage').textContent`)
		assert.Equal(t, fmt.Sprintf("bundled sample server (sampleserver): 1 of %d exercised (%.1f%%)", srv.Tools, srv.Coverage), cov)
		never := jsEval[[]string](p, `[...document.querySelectorAll('#tools .never-called code')].map(c => c.textContent)`)
		assert.Equal(t, srv.NeverCalled, never)
		assert.NotContains(t, never, "get_gene_by_symbol")

		rows := func() []string {
			return jsEval[[]string](p, `[...document.querySelectorAll('#tool-stats tbody tr')].map(r => r.dataset.tool)`)
		}
		cell := func(tool, key string) string {
			return jsEval[string](p, `document.querySelector('#tool-stats tr[data-tool=`+jsString(tool)+`] td[data-key=`+jsString(key)+`]').textContent`)
		}
		shown := rows()
		require.Len(t, shown, 10, "a long list shows its first rows")
		assert.Equal(t, "get_gene_by_symbol", shown[0], "sorted by calls, most first")
		assert.Equal(t, "3", cell("get_gene_by_symbol", "calls"))
		assert.Equal(t, "3", cell("get_gene_by_symbol", "cases"))
		assert.Equal(t, "0.0%", cell("get_gene_by_symbol", "error_rate"))
		assert.Equal(t, "66.7%", cell("get_gene_by_symbol", "pass_share"), "two of its three cases passed")
		assert.Equal(t, "—", cell(shown[1], "error_rate"), "a tool never called has no rate")

		// Sorting by name, both ways, then everything shown.
		p.click(`#tool-stats th[data-key="name"]`)
		names := make([]string, len(srv.Surface))
		for i, tl := range srv.Surface {
			names[i] = tl.Name
		}
		assert.Equal(t, names[:10], rows())
		assert.Equal(t, "ascending", jsEval[string](p, `document.querySelector('#tool-stats th[data-key="name"]').getAttribute('aria-sort')`))
		p.click(`#tool-stats th[data-key="name"]`)
		assert.Equal(t, names[len(names)-1], rows()[0])
		p.click(`#more-tools`)
		assert.Len(t, rows(), srv.Tools)
		assert.True(t, jsEval[bool](p, `document.getElementById('more-tools').hidden`))

		// Each tool's description and input schema, as the server listed them.
		jsEval[chromedp.Void](p, `document.querySelector('#tool-stats tr[data-tool="get_gene_by_symbol"] details').open = true`)
		assert.Equal(t, srv.Surface[slices.IndexFunc(srv.Surface, func(tl eval.Tool) bool { return tl.Name == "get_gene_by_symbol" })].Description,
			jsEval[string](p, `document.querySelector('#tool-stats tr[data-tool="get_gene_by_symbol"] .tool-desc').textContent`))
		assert.Contains(t, jsEval[string](p, `document.querySelector('#tool-stats tr[data-tool="get_gene_by_symbol"] pre').textContent`), `"gene_symbol"`)
		p.screenshot("real-run-tools", "#tools")
		p.assertClean()
	})
}
