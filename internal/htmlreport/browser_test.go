package htmlreport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/baseline"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/rundata/rundatatest"
)

// chromiumPath finds a Chromium to drive. Without one the browser tests skip,
// except under CI, where they must run.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium found (chromium, chromium-browser, google-chrome): apt-get install chromium")
	}
	t.Skip("no Chromium found: apt-get install chromium to run the browser tests")
	return ""
}

// page is a Chromium tab on a report, recording what should never happen:
// uncaught exceptions, dialogs and Content-Security-Policy violations.
type browserPage struct {
	t   *testing.T
	ctx context.Context

	// cases is the number of cases in the report.
	cases int

	mu         sync.Mutex
	exceptions []string
	dialogs    []string
}

// browser is the one Chromium the package's browser tests share, started by
// the first test that opens a page; TestMain stops it.
var browser struct {
	once sync.Once
	ctx  context.Context // the browser's first tab: its children open tabs in it
	err  error
	stop func()
}

// startBrowser starts the shared Chromium at path, once.
func startBrowser(path string) (context.Context, error) {
	browser.once.Do(func() {
		profile, err := os.MkdirTemp("", "htmlreport-chromium-")
		if err != nil {
			browser.err = err
			return
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(path),
			chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-extensions", true),
			chromedp.UserDataDir(profile),
			chromedp.WindowSize(1400, 1000),
		)
		ctx, cancel := chromedp.NewContext(alloc)
		browser.ctx, browser.err = ctx, chromedp.Do(ctx) // starts the browser
		browser.stop = func() { cancel(); cancelAlloc(); os.RemoveAll(profile) }
	})
	return browser.ctx, browser.err
}

// stopBrowser stops the shared Chromium, if a test started it.
func stopBrowser() {
	if browser.stop != nil {
		browser.stop()
	}
}

// openBrowser opens a tab of the shared Chromium for the test, in a
// BrowserContext of its own (a profile as fresh as a new browser's: no
// storage, cookies or cache of another test's tab), closed when the test
// ends. One browser serves every test: starting one per test cost more
// than most tests' own work.
func openBrowser(t *testing.T) *browserPage {
	t.Helper()
	root, err := startBrowser(chromiumPath(t))
	require.NoError(t, err, "starting Chromium")
	ctx, cancel := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)

	// The window's size is not the page's: set the viewport itself.
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1400, 1000)))
	p := &browserPage{t: t, ctx: ctx}
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
			p.exceptions = append(p.exceptions, msg)
		case *page.EventJavascriptDialogOpening:
			p.dialogs = append(p.dialogs, e.Message)
		}
	}))
	// Runs before the page's own script, outside its CSP: records every
	// policy violation, such as a blocked script or image a payload made.
	require.NoError(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.__csp = []; window.__errors = [];
				document.addEventListener('securitypolicyviolation', e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
				window.addEventListener('error', e => window.__errors.push(String(e.message)));`,
		})
		return err
	})))
	return p
}

func (p *browserPage) open(path string) { p.t.Helper(); p.openAt(path, "") }

// openAt opens the report at path with a fragment ("" for none).
func (p *browserPage) openAt(path, fragment string) {
	p.t.Helper()
	abs, err := filepath.Abs(path)
	require.NoError(p.t, err)
	if fragment != "" {
		abs += "#" + fragment
	}
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	p.navigate(abs)
	_, err = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](
		`document.querySelector('#cases tbody tr') !== null || (window.__errors || []).length > 0`,
		chromedp.WithPollingTimeout(50*time.Second)))
	require.NoError(p.t, err, "waiting for the report to render")
	require.Equal(p.t, []string{}, jsEval[[]string](p, `window.__errors`), "errors while rendering")
}

// navigate starts loading the file at the absolute path (and fragment).
// Page.navigate returns once the page starts loading, so a wait that
// follows sees the table appear while the browser still parses the blocks
// of the cases' details.
func (p *browserPage) navigate(abs string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	require.NoError(p.t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.Navigate, page.NavigateParams{URL: "file://" + abs})
		return err
	})))
}

// jsEval evaluates a JavaScript expression in the page.
func jsEval[T any](p *browserPage, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(p.t, err, expr)
	return v
}

// do runs actions with a time limit.
func (p *browserPage) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	require.NoError(p.t, chromedp.Do(ctx, steps...))
}

// click clicks the element selector finds, as a mouse does. The table
// may render again between finding the element and clicking it (a search
// or filter finishing): then the click is tried again on the new element.
func (p *browserPage) click(selector string) {
	p.t.Helper()
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
		err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(selector)))
		cancel()
		if err == nil || !strings.Contains(err.Error(), "Could not find node with given id") {
			break
		}
	}
	require.NoError(p.t, err, selector)
}

// clickUntil clicks the element selector finds until the JavaScript
// expression is truthy: a click that met the table while it rendered
// again (the old row clicked, nothing opened) is tried again.
func (p *browserPage) clickUntil(selector, expr string) {
	p.t.Helper()
	for attempt := 0; attempt < 5; attempt++ {
		p.click(selector)
		ctx, cancel := context.WithTimeout(p.ctx, 15*time.Second)
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(10*time.Second)))
		cancel()
		if err == nil {
			return
		}
	}
	p.waitFor(expr) // fails, saying what it waited for
}

// waitFor polls until the JavaScript expression is truthy.
func (p *browserPage) waitFor(expr string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(50*time.Second)))
	require.NoError(p.t, err, "waiting for %s", expr)
}

// assertClean checks that nothing ran that should not have.
func (p *browserPage) assertClean() {
	p.t.Helper()
	p.mu.Lock()
	assert.Empty(p.t, p.exceptions, "uncaught exceptions")
	assert.Empty(p.t, p.dialogs, "dialogs")
	p.mu.Unlock()
	assert.Equal(p.t, "undefined", jsEval[string](p, `typeof window.__xss`), "a payload ran")
	assert.NotContains(p.t, jsEval[string](p, `document.title`), "pwned")
	assert.Equal(p.t, []string{}, jsEval[[]string](p, `window.__csp`), "Content-Security-Policy violations")
	assert.Equal(p.t, 0, jsEval[int](p, `document.querySelectorAll('img, iframe, object, embed, a[href]:not(.comparison-link):not(.trace-link), svg:not(#history, #rate-chart, #cost-chart), svg image, svg foreignObject, svg a').length`),
		"elements from data (the report's own charts aside)")
	assert.Equal(p.t, 1, jsEval[int](p, `[...document.scripts].filter(s => s.type !== 'application/json' && s.type !== 'application/gzip').length`),
		"scripts other than the report's own")
}

// screenshot saves the browser's 1400x1000 viewport as name.png in the
// directory $REPORT_SCREENSHOTS, when it is set, for a person to look at.
// With a CSS selector, the page first scrolls its element to the top.
func (p *browserPage) screenshot(name, scrollTo string) {
	p.t.Helper()
	dir := os.Getenv("REPORT_SCREENSHOTS")
	if dir == "" {
		return
	}
	if scrollTo != "" {
		jsEval[chromedp.Void](p, `document.querySelector(`+jsString(scrollTo)+`).scrollIntoView()`)
	}
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(p.t, err)
	require.NoError(p.t, os.MkdirAll(dir, 0o755))
	require.NoError(p.t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

// search sets the search box as typing would.
func (p *browserPage) search(q string) {
	p.t.Helper()
	jsEval[chromedp.Void](p, `(() => { const s = document.getElementById('search'); s.value = `+jsString(q)+`; s.dispatchEvent(new Event('input')); })()`)
}

// waitForRows waits until the table shows exactly the rows of these cases.
func (p *browserPage) waitForRows(ids ...int) {
	p.t.Helper()
	want, _ := json.Marshal(ids)
	p.waitFor(`JSON.stringify([...document.querySelectorAll('#cases tbody tr[data-id]')].map(r => Number(r.dataset.id))) === ` + jsString(string(want)))
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// reset clears the filters, search and sort through the page's controls.
func (p *browserPage) reset() {
	p.t.Helper()
	p.search("")
	p.selectCategory(-1)
	jsEval[chromedp.Void](p, `document.querySelector('.chip[data-status="all"]').click()`)
	p.waitFor(`document.querySelectorAll('#cases tbody tr[data-id]').length >= ` + fmt.Sprint(min(p.cases, firstRows)))
}

// firstRows are the rows the table renders at first (the page's BATCH; a
// batch more when they do not fill its view and what is just below); it
// renders more as it scrolls to them.
const firstRows = 20

// assertFirstRows checks that the table rendered the rows near its view
// only: its first rows, far fewer than its first page of 200.
func assertFirstRows(t *testing.T, p *browserPage) {
	t.Helper()
	n := len(rowIDs(p))
	assert.GreaterOrEqual(t, n, firstRows, "the first rows")
	assert.LessOrEqual(t, n, 3*firstRows, "only the rows near the table's view")
}

// scrollTableUntil scrolls the case table to its end until it has rendered
// n rows.
func (p *browserPage) scrollTableUntil(n int) {
	p.t.Helper()
	p.waitFor(`(() => { const w = document.querySelector('.table-wrap'); w.scrollTop = w.scrollHeight;
		return document.querySelectorAll('#cases tbody tr[data-id]').length === ` + fmt.Sprint(n) + `; })()`)
}

// selectCategory picks the i-th category in the select box, or all for -1.
func (p *browserPage) selectCategory(i int) {
	p.t.Helper()
	value := ""
	if i >= 0 {
		value = fmt.Sprint(i)
	}
	p.do(chromedp.SetValue(chromedp.CSS(`#category`), value))
	jsEval[chromedp.Void](p, `document.getElementById('category').dispatchEvent(new Event('change'))`)
}

// rowIDs lists the data-id of the table rows shown.
func rowIDs(p *browserPage) []int {
	return jsEval[[]int](p, `[...document.querySelectorAll('#cases tbody tr[data-id]')].map(r => Number(r.dataset.id))`)
}

func TestReportInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	run := rundatatest.Fixture(t)
	d := rundatatest.Load(t, run.OutDir, run.Stream)
	path := filepath.Join(t.TempDir(), "report.html")
	writeFile(t, path, d)

	p := openBrowser(t)
	p.cases = len(d.Groups)
	p.open(path)
	p.screenshot("fixture-overview", "")
	p.screenshot("fixture-cases", ".cases-panel")
	caseID := func(name string) int { return caseIndex(t, d, name) }

	t.Run("counts", func(t *testing.T) {
		p.t = t
		assert.Equal(t, fmt.Sprintf("%.1f%%", d.Totals.Rate), jsEval[string](p, `document.getElementById('rate').textContent`))
		for key, want := range map[string]int{
			"total": d.Totals.Total, "pass": d.Totals.Passed, "fail": d.Totals.Failed, "error": d.Totals.Errors,
			"token_limit": d.Totals.TokenLimit, "skip": d.Totals.Skipped, "cached": d.Totals.Cached,
		} {
			got := jsEval[string](p, `document.querySelector('[data-count="`+key+`"] .n').textContent`)
			assert.Equal(t, fmt.Sprint(want), got, key)
		}
		tokens := jsEval[string](p, `document.querySelector('[data-count="tokens"]').textContent`)
		assert.Equal(t, fmt.Sprintf("%s%s", commas(d.Totals.Tokens), "Tokens (this run)"), tokens)
		assert.Len(t, rowIDs(p), len(d.Cases))
		assert.Equal(t, len(d.Categories), jsEval[int](p, `document.querySelectorAll('#categories tbody tr').length`))
		assert.Contains(t, jsEval[string](p, `document.getElementById('problems').textContent`), "TestServerStarts failed")
	})

	t.Run("failures first", func(t *testing.T) {
		p.t = t
		assert.Equal(t, "ascending", jsEval[string](p, `document.querySelector('#cases th[data-key="status"]').getAttribute('aria-sort')`))
		order := map[eval.Status]int{eval.Error: 0, eval.TokenLimit: 1, eval.Fail: 2, rundata.Skip: 3, eval.Pass: 4}
		var ranks []int
		for _, id := range rowIDs(p) {
			ranks = append(ranks, order[d.Groups[id].Status])
		}
		assert.IsNonDecreasing(t, ranks, "errors, token limits and failures come before passes")
		assert.NotEqual(t, eval.Pass, d.Groups[rowIDs(p)[0]].Status)
	})

	t.Run("header", func(t *testing.T) {
		p.t = t
		items := jsEval[map[string]string](p, `Object.fromEntries([...document.querySelectorAll('.meta > div')]
			.map(d => [d.querySelector('dt').textContent, d.querySelector('dd').textContent]))`)
		assert.Equal(t, "judge-model", items["Judge"])
		assert.Equal(t, fmt.Sprint(d.Run.Usage.Retries), items["Retries"])
		assert.Equal(t, fmt.Sprint(d.Run.ServerRestarts), items["Server restarts"])
	})

	t.Run("header cells match body cells", func(t *testing.T) {
		p.t = t
		for _, table := range []string{"#cases", "#categories"} {
			heads := jsEval[int](p, `document.querySelectorAll('`+table+` thead th').length`)
			cells := jsEval[[]int](p, `[...document.querySelectorAll('`+table+` tbody tr')].map(r => r.cells.length)`)
			require.NotEmpty(t, cells, table)
			for i, n := range cells {
				assert.Equal(t, heads, n, "%s row %d", table, i)
			}
		}
		// Metric columns are there because the fixture has metrics.
		assert.Contains(t, jsEval[[]string](p, `[...document.querySelectorAll('#cases thead th')].map(th => th.dataset.key)`),
			"metric:overall")
	})

	t.Run("injected text renders as text", func(t *testing.T) {
		p.t = t
		table := jsEval[string](p, `document.getElementById('cases').textContent`)
		for _, payload := range rundatatest.Payloads {
			assert.Contains(t, table, payload)
		}
		assert.Contains(t, jsEval[string](p, `document.querySelector('.meta').textContent`), `"><img src=x onerror=`)
		p.assertClean()
	})

	t.Run("filter by status", func(t *testing.T) {
		p.t = t
		p.reset()
		p.click(`.chip[data-status="error"]`)
		ids := rowIDs(p)
		require.Len(t, ids, d.Totals.Errors)
		for _, id := range ids {
			assert.Equal(t, eval.Error, d.Cases[id].Status)
		}
		p.click(`[data-count="fail"]`)
		ids = rowIDs(p)
		require.Len(t, ids, d.Totals.Failed)
		assert.Equal(t, eval.Fail, d.Cases[ids[0]].Status)
		p.click(`.chip[data-status="all"]`)
		assert.Len(t, rowIDs(p), len(d.Cases))
	})

	t.Run("filter by category", func(t *testing.T) {
		p.t = t
		p.reset()
		for i, cat := range d.Categories {
			p.selectCategory(i)
			ids := rowIDs(p)
			require.Len(t, ids, cat.Total, cat.Name)
			for _, id := range ids {
				assert.Equal(t, cat.Name, d.Cases[id].Category)
			}
		}
		// A category name in the breakdown filters too.
		p.reset()
		p.click(`#categories tbody tr:first-child .cat`)
		assert.Equal(t, "0", jsEval[string](p, `document.getElementById('category').value`))
		assert.Len(t, rowIDs(p), d.Categories[0].Total)
	})

	t.Run("search", func(t *testing.T) {
		p.t = t
		p.reset()
		// Typed as a person would; the words may be in any field and order.
		p.do(chromedp.SendKeys(chromedp.CSS(`#search`), "pmid NUTM2G"))
		p.waitForRows(caseID("PubMed search"))
		// Tool names are searched too.
		p.search("get_clinvar_by_gene_symbol")
		p.waitForRows(caseID("BRCA1 <b>injection</b>"))
		p.search("no case says this")
		p.waitFor(`document.querySelector('#cases tbody tr.no-rows') !== null`)
		p.search("")
		p.waitFor(`document.querySelectorAll('#cases tbody tr[data-id]').length === ` + fmt.Sprint(len(d.Cases)))
	})

	t.Run("sort by clicking headers", func(t *testing.T) {
		p.t = t
		p.reset()
		seconds := func() []float64 {
			var out []float64
			for _, id := range rowIDs(p) {
				out = append(out, d.Cases[id].Seconds)
			}
			return out
		}
		p.click(`#cases th[data-key="seconds"]`)
		assert.Equal(t, "descending", jsEval[string](p, `document.querySelector('#cases th[data-key="seconds"]').getAttribute('aria-sort')`))
		s := seconds()
		assert.IsNonIncreasing(t, s)
		p.click(`#cases th[data-key="seconds"]`)
		assert.IsNonDecreasing(t, seconds())
		p.click(`#cases th[data-key="name"]`)
		var names []string
		for _, id := range rowIDs(p) {
			names = append(names, strings.ToLower(d.Cases[id].Name))
		}
		assert.IsNonDecreasing(t, names)
	})

	t.Run("case conversation", func(t *testing.T) {
		p.t = t
		p.reset()
		id := caseID("BRCA1 <b>injection</b>")
		rec := d.Cases[id].Record
		p.clickUntil(fmt.Sprintf(`#cases tr[data-id="%d"]`, id), `!document.getElementById('detail').hidden`)
		assert.Equal(t, rec.Name, jsEval[string](p, `document.querySelector('#detail h2').textContent`))
		// The system prompt folds away; every other message is a bubble.
		assert.Equal(t, len(rec.Conversation), jsEval[int](p, `document.querySelectorAll('#detail .msg').length`))
		chat := jsEval[string](p, `document.querySelector('#detail .chat').textContent`)
		assert.Contains(t, chat, "</script><script>window.__xss=6</script>", "tool result shown as text")
		assert.Contains(t, chat, "get_clinvar_by_gene_symbol")
		assert.Equal(t, 1, jsEval[int](p, `document.querySelectorAll('#detail .chat .call.err').length`),
			"only the failed call is marked, not those with ids such as constructor")
		// Tool messages get their content back from the call with their id,
		// whatever the model named it.
		for _, tc := range rec.ToolCalls {
			shown := jsEval[string](p, `[...document.querySelectorAll('#detail .msg-tool')]
				.find(m => m.querySelector('.mono').textContent === `+jsString(tc.Name)+`)
				.querySelector('.msg-body').textContent`)
			if json.Valid([]byte(tc.Result)) {
				assert.JSONEq(t, tc.Result, shown, "result of call %q", tc.ID)
			} else {
				assert.Equal(t, tc.Result, shown, "result of call %q", tc.ID)
			}
		}

		p.click(`#detail .tab[data-tab="tools"]`)
		calls := jsEval[string](p, `document.querySelector('#detail .pane[data-tab="tools"]').textContent`)
		assert.Contains(t, calls, "connection refused")
		assert.Contains(t, calls, `"gene_symbol": "BRCA1"`, "arguments pretty-printed")

		p.click(`#detail .tab[data-tab="json"]`)
		js := jsEval[string](p, `document.querySelector('#detail .pane[data-tab="json"] pre').textContent`)
		assert.Contains(t, js, `"conversation": [`)
		assert.Contains(t, js, `"tool_call_id": "call_2"`)
		p.assertClean()

		p.do(chromedp.KeyEvent("\u001b")) // Escape
		p.waitFor(`document.getElementById('detail').hidden`)
	})

	t.Run("case without record", func(t *testing.T) {
		p.t = t
		p.reset()
		id := caseID("harness_crash")
		p.clickUntil(fmt.Sprintf(`#cases tr[data-id="%d"]`, id), `!document.getElementById('detail').hidden`)
		out := jsEval[string](p, `document.querySelector('#detail .pane[data-tab="output"]').textContent`)
		assert.Contains(t, out, "mcp server exited: connection refused")
		assert.Contains(t, jsEval[string](p, `document.querySelector('#detail .drawer-head').textContent`), "no record")
		p.click(`#close`)
		p.waitFor(`document.getElementById('detail').hidden`)
		p.assertClean()
	})
	t.Run("tools view: a hostile server's text renders as text, sorting works", func(t *testing.T) {
		p.t = t
		require.NotNil(t, d.Run.Tools)
		panel := jsEval[string](p, `document.getElementById('tools').textContent`)
		for _, payload := range rundatatest.Payloads {
			assert.Contains(t, panel, payload)
		}
		assert.Contains(t, panel, "marrvel-mock: 2 of 3 exercised (66.7%)")
		assert.Equal(t, "tag gate-fail", jsEval[string](p, `document.querySelector('#tools .coverage .tag').className`),
			"below the run's minimum coverage")
		changes := jsEval[string](p, `document.getElementById('tool-changes').textContent`)
		assert.Contains(t, changes, "Changed since run 20261120T101500Z-3fa2c1")
		assert.Contains(t, changes, "Description was: "+rundatatest.Payloads[3])
		assert.Contains(t, jsEval[string](p, `document.querySelector('#tool-changes .schema-diff').textContent`), "-"+rundatatest.Payloads[1])
		assert.Contains(t, changes, "3 cached passes were invalidated")

		rows := func() []string {
			return jsEval[[]string](p, `[...document.querySelectorAll('#tool-stats tbody tr')].map(r => r.dataset.tool)`)
		}
		assert.Equal(t, []string{"get_gene_by_symbol", rundatatest.Payloads[0], rundatatest.Payloads[1], rundatatest.Payloads[4]}, rows(), "most calls first")
		p.click(`#tool-stats th[data-key="error_rate"]`)
		assert.Equal(t, []string{rundatatest.Payloads[0], "get_gene_by_symbol", rundatatest.Payloads[1], rundatatest.Payloads[4]}, rows(), "highest error rate first, never called last")
		p.click(`#tool-stats th[data-key="error_rate"]`)
		assert.Equal(t, []string{rundatatest.Payloads[4], rundatatest.Payloads[1], "get_gene_by_symbol", rundatatest.Payloads[0]}, rows(), "and the other way")
		p.click(`#tool-stats th[data-key="latency_p95_ms"]`)
		assert.Equal(t, "get_gene_by_symbol", rows()[0])
		assert.Equal(t, "1,500", jsEval[string](p, `document.querySelector('#tool-stats tbody tr td[data-key="latency_p95_ms"]').textContent`))
		assert.Equal(t, "150,000", jsEval[string](p, `document.querySelector('#tool-stats tbody tr td[data-key="result_tokens_max"]').textContent`))
		assert.Equal(t, "no server offers it", jsEval[string](p, `document.querySelector('#tool-stats tr.unknown .unknown-tool').textContent`))
		assert.True(t, jsEval[bool](p, `document.getElementById('more-tools').hidden`), "four tools: all shown")
		heads := jsEval[int](p, `document.querySelectorAll('#tool-stats thead th').length`)
		for _, n := range jsEval[[]int](p, `[...document.querySelectorAll('#tool-stats tbody tr')].map(r => r.cells.length)`) {
			assert.Equal(t, heads, n)
		}
		jsEval[chromedp.Void](p, `document.querySelectorAll('#tool-stats details').forEach(d => d.open = true)`)
		assert.Contains(t, jsEval[string](p, `document.querySelector('#tool-stats').textContent`), rundatatest.Payloads[2], "a description")
		p.screenshot("fixture-tools", "#tools")
		p.assertClean()
	})
}

// TestRepeatedRunInBrowser opens the report of a go test -count=2 run: a
// case is one row with a mark per run, its detail switches between runs,
// and a tool call that never reached a server is marked so.
func TestRepeatedRunInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	chromiumPath(t)
	d := rundatatest.Repeated(t)
	path := filepath.Join(t.TempDir(), "report.html")
	writeFile(t, path, d)
	p := openBrowser(t)
	p.cases = len(d.Groups)
	p.open(path)
	p.screenshot("repeated-run", ".cases-panel")

	names := jsEval[[]string](p, `[...document.querySelectorAll('#cases tbody td[data-key="name"] .case-name')].map(td => td.textContent)`)
	require.Len(t, names, 4, "one row per case, not per run")
	marks := jsEval[[]string](p, `[...document.querySelectorAll('#cases tbody td[data-key="status"]')].map(td => [...td.querySelectorAll('.mark')].map(m => m.className).join(' ') + ' ' + (td.querySelector('.mark-count')?.textContent ?? ''))`)
	for _, m := range marks {
		assert.Regexp(t, `^mark m-\w+ mark m-\w+ (\d/[12])?$`, m, "two runs, two marks, and the passes of those that ran (none: no count)")
	}
	rates := jsEval[[]string](p, `[...document.querySelectorAll('#cases tbody td[data-key="rate"]')].map(td => td.textContent)`)
	require.Len(t, rates, 4, "a pass rate column with repeats")
	withK := 0
	for _, r := range rates {
		assert.Regexp(t, `^\d+\.\d%(pass@2 \d\.\d\d · pass\^2 \d\.\d\d)?$`, r, "each case's pass rate, and pass@k and pass^k over the runs that ran")
		if strings.Contains(r, "pass@2") {
			withK++
		}
	}
	assert.Positive(t, withK)
	if len(d.Run.Overall.PassAtK) > 1 {
		assert.Regexp(t, `pass@2 \d\.\d\d · pass\^2 \d\.\d\d, the means over the cases`, jsEval[string](p, `document.querySelector('.rate-card').textContent`))
	}

	var slow, slowRun int
	for i, g := range d.Groups {
		if g.Name == "slow server" {
			slow, slowRun = i, g.Runs[1]
		}
	}
	p.clickUntil(fmt.Sprintf(`#cases tr[data-id="%d"]`, slow), `!document.getElementById('detail').hidden`)
	assert.Equal(t, []string{"1", "2"}, jsEval[[]string](p, `[...document.querySelectorAll('#runs .run-btn')].map(b => b.textContent)`))
	assert.Regexp(t, `pass@k1: \d\.\d\d, 2: \d\.\d\d`, jsEval[string](p, `document.querySelector('#detail .facts').textContent`))
	p.click(fmt.Sprintf(`#runs .run-btn[data-run="%d"]`, slowRun))
	p.waitFor(fmt.Sprintf(`document.querySelector('#runs .run-btn[data-run="%d"]')?.getAttribute('aria-pressed') === 'true'`, slowRun))
	assert.Equal(t, []string{"not run", ""}, jsEval[[]string](p,
		`[...document.querySelectorAll('#detail .msg-tool .msg-head')].map(h => h.querySelector('.notrun-mark')?.textContent ?? '')`),
		"the second run's conversation")
	p.click(`#detail .tab[data-tab="tools"]`)
	assert.Equal(t, []string{"call notrun", "call"}, jsEval[[]string](p,
		`[...document.querySelectorAll('#detail .pane[data-tab="tools"] .call')].map(c => c.className)`))
	p.screenshot("repeated-run-case", "")
	p.assertClean()
}

// TestInterruptedRepeatsInBrowser opens the report of a run of four cases
// with -count=5 interrupted after repeat 0: each row is the case's own
// status over the run that ran, 1/1 with "4 not run" beside, and the
// counts and the category table say not run, not skipped.
func TestInterruptedRepeatsInBrowser(t *testing.T) {
	chromiumPath(t)
	var recs []eval.Record
	for _, name := range []string{"a", "b", "c", "d"} {
		status, reason := eval.Pass, "right"
		if name == "d" {
			status, reason = eval.Fail, "wrong"
		}
		recs = append(recs, eval.Record{Name: name, Category: "K", Test: "TestK/" + name, Status: status, Reason: reason})
		for r := 1; r < 5; r++ {
			recs = append(recs, eval.Record{Name: name, Category: "K", Test: "TestK/" + name, Repeat: r, Status: eval.NotRun,
				Reason: "not started: run stopped: interrupted (Ctrl-C)"})
		}
	}
	d := rundata.FromRecords(recs)
	path := filepath.Join(t.TempDir(), "report.html")
	writeFile(t, path, d)
	p := openBrowser(t)
	p.cases = len(d.Groups)
	p.open(path)

	statuses := jsEval[[]string](p, `[...document.querySelectorAll('#cases tbody td[data-key="status"]')].map(td => td.querySelector('.badge').textContent + ' ' + td.querySelector('.mark-count').textContent + ' ' + td.querySelector('.mark-notrun').textContent)`)
	assert.ElementsMatch(t, []string{"Pass 1/1 4 not run", "Pass 1/1 4 not run", "Pass 1/1 4 not run", "Fail 0/1 4 not run"}, statuses)
	rates := jsEval[[]string](p, `[...document.querySelectorAll('#cases tbody td[data-key="rate"]')].map(td => td.textContent)`)
	assert.ElementsMatch(t, []string{"100.0%", "100.0%", "100.0%", "0.0%"}, rates, "over the run that ran")
	assert.Equal(t, "16", jsEval[string](p, `document.querySelector('[data-count="not_run"] .n').textContent`))
	assert.Equal(t, "75.0%", jsEval[string](p, `document.getElementById('rate').textContent`))
	assert.Equal(t, []string{"Category", "", "Passed", "Rate", "Failed", "Errors", "Token limit", "Not run"},
		jsEval[[]string](p, `[...document.querySelectorAll('#categories thead th')].map(th => th.textContent)`), "no Skipped column: nothing was skipped")
	assert.Equal(t, "16", jsEval[string](p, `document.querySelector('#categories tbody td:last-child').textContent`))

	p.clickUntil(fmt.Sprintf(`#cases tr[data-id="%d"]`, 0), `!document.getElementById('detail').hidden`)
	assert.Contains(t, jsEval[string](p, `document.querySelector('#runs .runs-label').textContent`), "(1/1 passed, 4 not run)")
	assert.Contains(t, jsEval[string](p, `document.querySelector('#detail .facts').textContent`), "Pass rate100.0% (1 of 1 run; 4 not run)")
	p.assertClean()
}

// TestLargeReportInBrowser opens a 10,000-case report with 20 KB
// conversations and checks that it loads, pages, filters, searches and
// opens a case; it logs how long each took (cmd/evalbench measures the
// report's speed, which a busy machine would make a test's limit about).
func TestLargeReportInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	if testing.Short() {
		t.Skip("opens a 10,000-case report")
	}
	chromiumPath(t)
	d := syntheticData(10000, 20<<10)
	path := filepath.Join(t.TempDir(), "report.html")
	writeFile(t, path, d)

	p := openBrowser(t)
	start := time.Now()
	p.open(path)
	t.Logf("10,000 cases: table shown in %v", time.Since(start))
	p.waitFor(`document.readyState === 'complete'`)
	t.Logf("10,000 cases: whole page loaded in %v", time.Since(start))

	assertFirstRows(t, p)
	assert.Equal(t, "Showing 200 of 10,000", jsEval[string](p, `document.getElementById('shown').textContent`))
	assert.NotContains(t, jsEval[string](p, `document.querySelector('.meta').textContent`), "restarts",
		"no server restarts without a summary that counts them")
	p.scrollTableUntil(200)
	p.click(`#more`)
	p.waitFor(`document.querySelectorAll('#cases tbody tr[data-id]').length > 200`)
	p.scrollTableUntil(400)
	assert.Len(t, rowIDs(p), 400, "the next page of rows, rendered as the table scrolled to them")

	timed := func(what, expr string) {
		t.Helper()
		ms := jsEval[float64](p, `(() => { const t0 = performance.now(); `+expr+`; return performance.now() - t0; })()`)
		t.Logf("%s: %.0f ms", what, ms) // measured, not asserted: cmd/evalbench holds the targets
	}
	timed("filter by status", `document.querySelector('.chip[data-status="fail"]').click()`)
	assertFirstRows(t, p)
	timed("sort by tokens", `document.querySelector('#cases th[data-key="tokens"]').click()`)
	searchStart := time.Now()
	p.search("case 09999")
	p.waitForRows(9999)
	t.Logf("search (with its 120 ms debounce): %v", time.Since(searchStart))
	// Its details are compressed in a report this large, with those of the
	// cases before it: the case opens once they are inflated.
	require.Nil(t, jsEval[any](p, `document.getElementById('case-9999')`), "no block of its own")
	require.Equal(t, "application/gzip", jsEval[string](p, `document.getElementById('data').type`))
	openStart := time.Now()
	jsEval[chromedp.Void](p, `document.querySelector('#cases tr[data-id="9999"]').click()`)
	p.waitFor(`document.querySelectorAll('#detail .msg').length > 0`)
	t.Logf("open a case: %v", time.Since(openStart))
	assert.Equal(t, len(d.Cases[9999].Record.Conversation), jsEval[int](p, `document.querySelectorAll('#detail .msg').length`))
	assert.Equal(t, d.Cases[9999].Record.Name, jsEval[string](p, `document.querySelector('#detail h2').textContent`))
	conv := d.Cases[9999].Record.Conversation
	assert.Contains(t, jsEval[string](p, `document.querySelector('#detail .chat').textContent`), conv[len(conv)-1].Content, "the inflated conversation")
	p.assertClean()
}

// TestLazyRenderingInBrowser opens a 10,000-case report, compressed, read
// as mcpeval report reads a run (rundata.LoadLean), whose
// table renders only the rows near its view: a link still opens a case deep
// in it, filtering, searching and sorting reach rows it never rendered, and
// that case's hostile texts show as text in its row and its view. A browser
// that cannot decompress the report says so.
func TestLazyRenderingInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	if testing.Short() {
		t.Skip("opens a 10,000-case report")
	}
	chromiumPath(t)
	recs := syntheticRecords(10000, 2000)
	rec := &recs[9876]
	rec.Name = "deep " + rundatatest.Payloads[0]
	rec.Category = "Category " + rundatatest.Payloads[2]
	rec.Status, rec.Response, rec.Reason = eval.Fail, "answer "+rundatatest.Payloads[1], "reason "+rundatatest.Payloads[3]
	rec.Conversation[len(rec.Conversation)-1].Content = rec.Response
	rec.ToolCalls[0].Result = "result " + rundatatest.Payloads[4]
	rec.Conversation[3].Content = rec.ToolCalls[0].Result
	// Read as mcpeval report reads a run: each case's view shows its
	// record's line as results.jsonl holds it.
	dir := t.TempDir()
	rundatatest.WriteRecords(t, dir, recs...)
	d, err := rundata.LoadLean(dir, nil)
	require.NoError(t, err)
	require.NotNil(t, d.Cases[0].Raw)
	require.Greater(t, dataSize(d), CompressAbove, "a report large enough to be compressed")
	path := filepath.Join(t.TempDir(), "report.html")
	writeFile(t, path, d)
	id := caseIndex(t, d, rec.Name)
	last := caseIndex(t, d, "case 09999")

	p := openBrowser(t)
	p.cases = len(d.Groups)
	t.Run("a link opens a case deep in the report", func(t *testing.T) {
		p.t = t
		p.openAt(path, CaseAnchor(rec.Name, ""))
		p.waitFor(`!document.getElementById('detail').hidden && document.querySelector('#detail .chat') !== null`)
		assert.Equal(t, rec.Name, jsEval[string](p, `document.querySelector('#detail h2').textContent`))
		chat := jsEval[string](p, `document.querySelector('#detail .chat').textContent`)
		assert.Contains(t, chat, rec.Response, "the final answer, as text")
		assert.Contains(t, chat, rec.ToolCalls[0].Result, "the tool's result, as text")
		assertFirstRows(t, p)
		assert.NotContains(t, rowIDs(p), id)
		p.assertClean()
		p.do(chromedp.KeyEvent("\u001b")) // Escape
		p.waitFor(`document.getElementById('detail').hidden`)
	})

	t.Run("filtering reaches a row never rendered", func(t *testing.T) {
		p.t = t
		category := -1
		for i, c := range d.Categories {
			if c.Name == rec.Category {
				category = i
			}
		}
		require.GreaterOrEqual(t, category, 0)
		p.selectCategory(category)
		p.waitForRows(id)
		row := jsEval[string](p, fmt.Sprintf(`document.querySelector('#cases tr[data-id="%d"]').textContent`, id))
		for _, text := range []string{rec.Name, rec.Category, rec.Response, rec.Reason} {
			assert.Contains(t, row, text, "shown as text")
		}
		assert.Contains(t, jsEval[string](p, `[...document.querySelectorAll('#category option')].map(o => o.text).join()`), rec.Category)
		p.clickUntil(fmt.Sprintf(`#cases tr[data-id="%d"]`, id), `document.querySelector('#detail .chat') !== null`)
		assert.Contains(t, jsEval[string](p, `document.querySelector('#detail .chat').textContent`), rec.Response)
		p.click(`#close`)
		p.waitFor(`document.getElementById('detail').hidden`)
		p.assertClean()
		p.selectCategory(-1)
		p.waitFor(`document.getElementById('shown').textContent === 'Showing 200 of 10,000'`)
	})

	t.Run("searching reaches a row never rendered", func(t *testing.T) {
		p.t = t
		p.search("window.__xss=4")
		p.waitForRows(id)
		p.search("question 9999: which")
		p.waitForRows(last)
		p.search("")
		p.waitFor(`document.getElementById('shown').textContent === 'Showing 200 of 10,000'`)
	})

	t.Run("sorting reaches rows never rendered", func(t *testing.T) {
		p.t = t
		p.click(`#cases th[data-key="name"]`)
		p.waitFor(`document.querySelector('#cases th[data-key="name"]').getAttribute('aria-sort') === 'ascending'`)
		assert.Equal(t, caseIndex(t, d, "case 00000"), rowIDs(p)[0])
		p.click(`#cases th[data-key="name"]`)
		p.waitFor(`document.querySelector('#cases th[data-key="name"]').getAttribute('aria-sort') === 'descending'`)
		ids := rowIDs(p)
		assertFirstRows(t, p)
		assert.Equal(t, []int{id, last}, ids[:2], "the last names first: the deep case, then case 09999")
		// Scrolling the table renders the rest of its page, in order.
		p.scrollTableUntil(200)
		ids = rowIDs(p)
		assert.Equal(t, caseIndex(t, d, "case 09800"), ids[199], "09876 is the deep case's number")
		// The case view steps through the sorted cases, rendered or not.
		p.clickUntil(fmt.Sprintf(`#cases tr[data-id="%d"]`, ids[199]), `!document.getElementById('detail').hidden`)
		p.do(chromedp.KeyEvent(kb.ArrowRight))
		p.waitFor(`document.querySelector('#detail h2')?.textContent === 'case 09799'`)
		p.assertClean()
	})

	t.Run("without DecompressionStream the page says why it shows nothing", func(t *testing.T) {
		q := openBrowser(t)
		require.NoError(t, chromedp.Do(q.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
				Source: `delete window.DecompressionStream;`,
			})
			return err
		})))
		abs, err := filepath.Abs(path)
		require.NoError(t, err)
		q.navigate(abs)
		q.waitFor(`document.querySelector('#app .failed') !== null`)
		assert.Contains(t, jsEval[string](q, `document.getElementById('app').textContent`),
			"This report is compressed, and this browser cannot decompress it")
		assert.Zero(t, jsEval[int](q, `document.querySelectorAll('#cases').length`))
		q.assertClean()
	})
}

// commas formats n as the page does, with thousands separators.
func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func writeFile(t *testing.T, path string, d *rundata.Data) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, Write(f, d))
	require.NoError(t, f.Close())
}

// openReport writes d's report and opens it in the shared browser.
func openReport(t *testing.T, d *rundata.Data) *browserPage {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	writeFile(t, path, d)
	p := openBrowser(t)
	p.cases = len(d.Cases)
	p.open(path)
	return p
}

// caseIndex returns the position of the named case in the report's data.
func caseIndex(t *testing.T, d *rundata.Data, name string) int {
	t.Helper()
	for i, c := range d.Cases {
		if c.Name == name {
			return i
		}
	}
	t.Fatalf("no case %q", name)
	return -1
}

// TestModelsInBrowser opens the report of a run of two models: the
// leaderboard sorted by pass rate, the two charts, the pairwise test and
// the matrix of cases by models, whose cells open a case.
func TestModelsInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	chromiumPath(t)
	dir := t.TempDir()
	var recs []eval.Record
	judge := eval.Usage{TotalTokens: 20, CostUSD: 0.0005, Requests: 1}
	for i := range 6 {
		name := fmt.Sprintf("case <b>%d</b>", i)
		for _, model := range []string{"model/<script>window.__xss=9</script>", "good-model", "free-model", "late-model"} {
			status := eval.Pass
			if model != "good-model" && i < 3 {
				status = eval.Fail
			}
			usage := eval.Usage{TotalTokens: 120, CostUSD: 0.0015, Requests: 2}
			if model == "free-model" {
				usage = eval.Usage{TotalTokens: 120, CostUSD: 0.0005, Requests: 2, Unpriced: 1} // only the judge's request had a price
			}
			if model == "late-model" {
				status, usage = eval.NotRun, eval.Usage{} // the budget was spent first
			}
			rec := eval.Record{Name: name, Category: "Genes", Test: "TestGenes/case_" + fmt.Sprint(i) + "/" + model,
				Model: model, Status: status, Seconds: float64(i), Usage: usage, JudgeModel: "judge-model"}
			if status != eval.NotRun {
				rec.JudgeUsage = &judge
			}
			recs = append(recs, rec)
		}
	}
	rundatatest.WriteRecords(t, dir, recs...)
	d, err := rundata.Load(dir, nil)
	require.NoError(t, err)
	require.Len(t, d.Models, 4)
	path := filepath.Join(t.TempDir(), "report.html")
	writeFile(t, path, d)
	p := openBrowser(t)
	p.cases = len(d.Groups)
	p.open(path)
	p.screenshot("models", "#models")

	assert.Equal(t, []string{"good-model", "model/<script>window.__xss=9</script>", "free-model", "late-model"},
		jsEval[[]string](p, `[...document.querySelectorAll('#leaderboard tbody tr')].map(tr => tr.dataset.model)`), "sorted by pass rate, a model without runs last")
	rows := jsEval[[]string](p, `[...document.querySelectorAll('#leaderboard tbody tr')].map(tr => tr.textContent)`)
	assert.Contains(t, rows[0], "100.0%")
	assert.Contains(t, rows[0], "$0.0060", "the model's own cost: the judge's is apart")
	assert.Contains(t, rows[0], "$0.0010", "per pass")
	assert.Contains(t, rows[2], "unpriced", "no price: unpriced, not $0")
	assert.NotContains(t, rows[2], "$0.0000")
	assert.Contains(t, rows[3], "no run (6 not run)")
	assert.Equal(t, "Judge judge-model: $0.0090 for 18 requests, counted once here and not in the models' costs.",
		jsEval[string](p, `document.getElementById('judge-cost').textContent`))
	assert.Contains(t, jsEval[string](p, `document.querySelector('.meta').textContent`), "Judge cost$0.0090 for 18 requests of judge-model")
	assert.Equal(t, 3, jsEval[int](p, `document.querySelectorAll('#rate-chart rect').length`), "the models that ran")
	assert.Equal(t, 2, jsEval[int](p, `document.querySelectorAll('#cost-chart circle').length`), "the priced models")
	assert.Contains(t, jsEval[string](p, `document.querySelector('#cost-chart').parentNode.textContent`), "unpriced, not shown: free-model")
	assert.Contains(t, jsEval[string](p, `document.querySelector('#model-pairs tbody').textContent`), "0.250", "McNemar p of 3 to 0")
	p.click(`#matrix summary`)
	p.waitFor(`document.querySelectorAll('#matrix tbody tr').length === 6`)
	assert.Contains(t, jsEval[string](p, `document.querySelector('#model-pairs tbody').textContent`), "free-model vs good-model")
	p.clickUntil(`#matrix tbody tr td.clickable`, `!document.getElementById('detail').hidden`)
	assert.Contains(t, jsEval[string](p, `document.querySelector('#detail h2').textContent`), "case <b>")
	p.assertClean()
}

// hiddenChars matches, in JavaScript, the characters the report must never
// show raw: control characters but tab and line breaks, and bidirectional
// formatting characters.
const hiddenChars = `/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/`

// TestHiddenCharactersShownInBrowser opens a report whose model answers,
// reasons, case names, categories and tool arguments hold terminal control
// sequences, NUL, backspaces and bidirectional overrides: every one of them
// shows as a marked escape, none acts on the text around it.
func TestHiddenCharactersShownInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	chromiumPath(t)
	recs := syntheticRecords(3, 2000)
	const answer = "answer \x1b[2J\x1b]0;pwned\x07 nul\x00 back\b\b\bspace \u009b31m"
	rec := &recs[1]
	rec.Name = "hidden \u202egnp.exe"
	rec.Category = "Category \u2067isolate"
	rec.Status, rec.Response, rec.Reason = eval.Fail, answer, "reason \u202edesrever"
	rec.Conversation[len(rec.Conversation)-1].Content = answer
	rec.ToolCalls[0].Arguments = `{"gene_symbol":"G1\u202e"}`
	rec.Conversation[2].ToolCalls[0].Function.Arguments = rec.ToolCalls[0].Arguments
	rec.Model = "model \x1b]0;pwned\x07"
	d := rundata.FromRecords(recs)
	p := openReport(t, d)
	id := caseIndex(t, d, rec.Name)
	noneRaw := func(where string) {
		t.Helper()
		assert.False(t, jsEval[bool](p, hiddenChars+`.test(`+where+`)`), "a hidden character shows raw in %s", where)
	}

	noneRaw(`document.getElementById('app').textContent`)
	noneRaw(`document.title`)
	noneRaw(`[...document.querySelectorAll('#category option')].map(o => o.text).join()`)
	row := jsEval[string](p, fmt.Sprintf(`document.querySelector('#cases tr[data-id="%d"]').textContent`, id))
	assert.Contains(t, row, `hidden \u202egnp.exe`)
	assert.Contains(t, row, `reason \u202edesrever`)
	assert.Contains(t, jsEval[string](p, `[...document.querySelectorAll('#category option')].map(o => o.text).join()`), `Category \u2067isolate`)
	marks := jsEval[[]map[string]string](p, fmt.Sprintf(`[...document.querySelectorAll('#cases tr[data-id="%d"] .ctl')]
		.map(m => ({text: m.textContent, title: m.title}))`, id))
	require.NotEmpty(t, marks, "the escapes are marked")
	assert.Contains(t, marks, map[string]string{"text": `\u202e`, "title": "U+202E: a bidirectional formatting character, shown escaped"})

	p.clickUntil(fmt.Sprintf(`#cases tr[data-id="%d"]`, id), `!document.getElementById('detail').hidden`)
	noneRaw(`document.getElementById('detail').textContent`)
	chat := jsEval[string](p, `document.querySelector('#detail .chat').textContent`)
	assert.Contains(t, chat, `answer \x1b[2J\x1b]0;pwned\x07 nul\x00 back\x08\x08\x08space \x9b31m`)
	assert.Contains(t, jsEval[string](p, `document.querySelector('#detail .chat .ctl[title^="U+001B"]').textContent`), `\x1b`)
	p.click(`#detail .tab[data-tab="tools"]`)
	assert.Contains(t, jsEval[string](p, `document.querySelector('#detail .pane[data-tab="tools"]').textContent`), `"G1\u202e"`)
	p.assertClean()
}

// Notices show as notices, apart from the run problems.
func TestNoticesInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	d := syntheticData(3, 0)
	d.Notices = []string{"categories without a test function of their own run as TestOtherCategories/<category>: Gene Magic",
		"TestOtherCategories says:\nharness.go:9: a note"}
	d.Problems = []string{"TestSetup failed.\nthe fixture is missing"}
	path := filepath.Join(t.TempDir(), "report.html")
	writeFile(t, path, d)
	p := openBrowser(t)
	p.cases = len(d.Groups)
	p.open(path)
	assert.Equal(t, "Notices (2)", jsEval[string](p, `document.querySelector('#notices h2').textContent`))
	assert.Equal(t, []string{"categories without a test function of their own run as TestOtherCategories/<category>: Gene Magic", "TestOtherCategories says:"},
		jsEval[[]string](p, `[...document.querySelectorAll('#notices summary')].map(s => s.textContent)`))
	assert.Equal(t, "Run problems (1)", jsEval[string](p, `document.querySelector('#problems h2').textContent`))
	assert.NotContains(t, jsEval[string](p, `document.getElementById('problems').textContent`), "Gene Magic")
	assert.NotEqual(t, jsEval[string](p, `getComputedStyle(document.querySelector('#problems h2')).color`),
		jsEval[string](p, `getComputedStyle(document.querySelector('#notices h2')).color`), "a notice is not shown as a problem")
	p.assertClean()
}

// TestArmsInBrowser opens the report of a run of arms: the leaderboard
// names each arm's tools and their tokens, the pairs carry their adjusted
// p and uplift, and what the arms change is listed: the server over no
// server, then the tools left out, the costliest first.
func TestArmsInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	chromiumPath(t)
	dir := t.TempDir()
	arms := []struct {
		name   string
		passes int // of 10 cases
		info   eval.ArmInfo
	}{
		{"no-server", 0, eval.ArmInfo{Model: "m", NoServer: true}},
		{"server", 10, eval.ArmInfo{Model: "m", Baseline: true}},
		{"server-without-get_gene", 4, eval.ArmInfo{Model: "m", Base: "server", Hidden: "get_gene"}},
		{"server-without-<b>x</b>", 9, eval.ArmInfo{Model: "m", Base: "server", Hidden: "<b>x</b>"}},
		{"terse", 10, eval.ArmInfo{Model: "m"}},
	}
	var recs []eval.Record
	sum := eval.Summary{Model: "m"}
	for _, a := range arms {
		for i := range 10 {
			status := eval.Fail
			if i < a.passes {
				status = eval.Pass
			}
			recs = append(recs, eval.Record{Name: fmt.Sprintf("case %d", i), Category: "Genes", Model: "m", Arm: a.name,
				Test: fmt.Sprintf("TestGenes/case_%d/%s", i, a.name), Status: status, Usage: eval.Usage{TotalTokens: 10, Requests: 1}})
		}
		info := a.info
		sum.Models = append(sum.Models, eval.ModelResult{Model: a.name, Arm: &info, Tools: 35, ToolTokens: 4064})
	}
	rundatatest.WriteRecords(t, dir, recs...)
	data, err := json.Marshal(sum)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), data, 0o644))
	d, err := rundata.Load(dir, nil)
	require.NoError(t, err)
	require.Len(t, d.ArmEffects, 4)
	require.Len(t, d.ArmVerdicts, 4, "every arm but the baseline")
	path := filepath.Join(t.TempDir(), "report.html")
	writeFile(t, path, d)
	p := openBrowser(t)
	p.cases = len(d.Groups)
	p.open(path)
	p.screenshot("arms", "#models")

	assert.Equal(t, "Arms", jsEval[string](p, `document.querySelector('#models h2').textContent`))
	assert.Contains(t, jsEval[string](p, `document.querySelector('#leaderboard tbody tr').textContent`), "35 (4,064)", "tools and their tokens per request")
	effects := jsEval[[]string](p, `[...document.querySelectorAll('#arm-effects tbody tr')].map(tr => tr.textContent)`)
	require.Len(t, effects, 4)
	assert.Contains(t, effects[0], "server over no-server (no server)")
	assert.Contains(t, effects[0], "+100.0")
	assert.Contains(t, effects[2], "leaving get_gene out of server")
	assert.Contains(t, effects[2], "-60.0", "the costliest absence first")
	assert.Contains(t, effects[3], "leaving <b>x</b> out of server", "names are text, never markup")
	assert.Contains(t, effects[3], "-10.0")
	assert.Contains(t, jsEval[string](p, `document.querySelector('#arm-effects thead').textContent`), "interval adjusted like p")
	assert.Contains(t, jsEval[string](p, `document.querySelector('#model-pairs thead').textContent`), "Adjusted p")
	assert.Equal(t, "Arms", jsEval[string](p, `document.querySelector('#model-pairs thead th').textContent`))

	// Each arm's verdict against the baseline arm, one row each.
	verdicts := jsEval[map[string]string](p, `Object.fromEntries([...document.querySelectorAll('#arm-verdicts tbody tr')].map(tr => [tr.dataset.arm, tr.dataset.verdict]))`)
	assert.Equal(t, map[string]string{"no-server": "worse", "server-without-get_gene": "inconclusive", "server-without-<b>x</b>": "inconclusive", "terse": "inconclusive"}, verdicts)
	worse := jsEval[string](p, `document.querySelector('#arm-verdicts tbody tr[data-arm="no-server"]').textContent`)
	assert.Contains(t, worse, "10: case 0, case 1, case 2, case 3, case 4, and 5 more", "the cases it regressed")

	// The headline is each arm's own success rate, not their mix.
	assert.Zero(t, jsEval[int](p, `document.querySelectorAll('#rate').length`))
	rates := jsEval[[]string](p, `[...document.querySelectorAll('#variant-rates li')].map(li => li.textContent)`)
	require.Len(t, rates, 5)
	assert.Equal(t, "no-server: 0.0% (0 of 10 cases)", rates[0])
	assert.Equal(t, "server: 100.0% (10 of 10 cases)", rates[1])
	assert.Contains(t, jsEval[string](p, `document.querySelector('.top').textContent`), "Arms")
	p.assertClean()
}

// TestCaseLinkInBrowser opens report.html#<case name>: that case opens,
// whatever the table's order, with the judge's prompt and reply; opening
// another case gives the address its own name.
func TestCaseLinkInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	chromiumPath(t)
	dir := t.TempDir()
	records := []eval.Record{
		{Name: "Alpha", Category: "Genes", Status: eval.Pass, Question: "q1", Expected: "e1", Response: "r1", Verdict: "yes", Reason: "fine"},
		{Name: "Gene lookup of TP53 & friends", Category: "Genes", Status: eval.Fail, Question: "What is TP53's Entrez id?", Expected: "7157",
			Response: "It is 7158.", Verdict: "no", Reason: "the id is wrong",
			JudgePrompt: "Question: What is TP53's Entrez id?\nExpected answer: 7157\nAnswer to grade: It is 7158.",
			JudgeReply:  `submit_verdict({"verdict":"no","reason":"the id is wrong","answer_is_correct":false})`},
	}
	var lines []string
	for _, r := range records {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		lines = append(lines, string(b))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.RecordsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	d, err := rundata.Load(dir, nil)
	require.NoError(t, err)
	// Compared with a baseline, the flipped case says how and why.
	d.Flips = map[eval.CaseRun]string{{Name: "Gene lookup of TP53 & friends"}: "regression since r1, cause case: the case's expected answer changed: \"7158\", now \"7157\"\nalso surface: a tool it called changed: get_gene: description changed"}
	// The comparison beside the report: the same cases, all passing before.
	baseDir := t.TempDir()
	var baseLines []string
	for _, r := range records {
		r.Status, r.Verdict = eval.Pass, "yes"
		b, err := json.Marshal(r)
		require.NoError(t, err)
		baseLines = append(baseLines, string(b))
	}
	require.NoError(t, os.WriteFile(filepath.Join(baseDir, eval.RecordsFile), []byte(strings.Join(baseLines, "\n")+"\n"), 0o644))
	base, err := rundata.Load(baseDir, nil)
	require.NoError(t, err)
	cmp, err := baseline.Compare(base, d, 0.05)
	require.NoError(t, err)
	var page bytes.Buffer
	require.NoError(t, WriteComparison(&page, cmp))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "compare.html"), page.Bytes(), 0o644))
	d.Comparison = &rundata.ComparisonLink{Href: "./compare.html", Baseline: "r1", Causes: "1 flipped case by cause: 1 case"}
	path := filepath.Join(dir, "report.html")
	writeFile(t, path, d)

	p := openBrowser(t)
	p.cases = len(d.Cases)
	for _, fragment := range []string{"Gene%20lookup%20of%20TP53%20%26%20friends", "Gene lookup of TP53 & friends"} {
		p.openAt(path, fragment)
		p.waitFor(`!document.getElementById('detail').hidden`)
		assert.Contains(t, jsEval[string](p, `document.querySelector('#detail h2').textContent`), "Gene lookup of TP53 & friends", fragment)
		assert.Contains(t, jsEval[string](p, `document.getElementById('detail').textContent`), "Since the baselineregression since r1, cause case: the case's expected answer changed")
		// A further cause on a line of its own.
		assert.Contains(t, jsEval[string](p, `[...document.querySelectorAll('#detail .block')].find((b) => b.querySelector('h3').textContent === 'Since the baseline').innerText`),
			"now \"7157\"\nalso surface: a tool it called changed: get_gene: description changed")
		assert.Contains(t, jsEval[string](p, `document.querySelector('#detail #judge-prompt').textContent`), "Answer to grade: It is 7158.")
		assert.Contains(t, jsEval[string](p, `document.querySelector('#detail #judge-reply').textContent`), `"verdict":"no"`)
	}
	p.screenshot("case-link", "")
	p.click(`#close`)
	p.waitFor(`document.getElementById('detail').hidden`)
	p.click(fmt.Sprintf(`#cases tr[data-id="%d"]`, caseIndex(t, d, "Alpha")))
	p.waitFor(`location.hash === '#Alpha'`)
	assert.Nil(t, jsEval[any](p, `document.querySelector('#detail #judge-prompt')`), "a record without a judge prompt shows none")
	assert.NotContains(t, jsEval[string](p, `document.getElementById('detail').textContent`), "Since the baseline", "a case that did not flip says nothing of it")
	assert.Contains(t, jsEval[string](p, `document.getElementById('comparison').textContent`), "1 flipped case by cause: 1 case (baseline r1): the comparison")
	p.assertClean()

	// The flipped case's view links its row in the comparison.
	p.openAt(path, "Gene lookup of TP53 & friends")
	p.waitFor(`!document.getElementById('detail').hidden`)
	href := jsEval[string](p, `document.querySelector('#detail a.comparison-link').href`)
	assert.True(t, strings.HasPrefix(href, "file://"+filepath.ToSlash(dir)+"/compare.html#"), href)
	p.click(`#detail a.comparison-link`)
	// The click navigates: the page polled may go away under the poll.
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`location.pathname.endsWith('/compare.html') && document.querySelector(':target') !== null`,
			chromedp.WithPollingTimeout(20*time.Second)))
		cancel()
		if err == nil {
			break
		}
		navigating := strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "navigated or closed")
		if attempt == 5 || !navigating {
			require.NoError(t, err, "the comparison opens at the case's row")
			break
		}
	}
	assert.Equal(t, "TR", jsEval[string](p, `document.querySelector(':target').tagName`))
	assert.Contains(t, jsEval[string](p, `document.querySelector(':target').textContent`), "Gene lookup of TP53 & friends")
}

// A conversation's case view shows its turns: each with its status, the
// user's message, the reply, the tools it called and its checks; the turn
// that failed says why, and the turn never sent says so.
func TestTurnsInBrowser(t *testing.T) {
	chromiumPath(t)
	recs := syntheticRecords(3, 2000)
	rec := &recs[1]
	rec.Name, rec.Status, rec.Reason = "corrected transcript", eval.Fail, "turn 2 of 3: deterministic check failed: number 31.835 ± 0.0005: absent"
	rec.Turns = []eval.TurnResult{
		{Turn: 1, User: "What is the CADD phred score of NM_000546.6:c.181T>G?", Reply: "I could not find that variant.", ToolCalls: []int{0}, Status: eval.Pass, Reason: "nothing is expected of the reply at this turn"},
		{Turn: 2, User: "Sorry, the transcript is NM_007294.4.", Reply: "I could not find that.", Status: eval.Fail,
			Checks: []eval.CheckResult{{Check: "number 31.835 ± 0.0005", Detail: "absent"}}, Reason: "deterministic check failed: number 31.835 ± 0.0005: absent"},
		{Turn: 3, User: "How does ClinVar classify it?", Status: eval.NotRun},
	}
	d := rundata.FromRecords(recs)
	p := openReport(t, d)
	id := caseIndex(t, d, rec.Name)
	p.clickUntil(fmt.Sprintf(`#cases tr[data-id="%d"]`, id), `!document.getElementById('detail').hidden`)
	assert.Equal(t, "Turns (3)", jsEval[string](p, `document.querySelector('#detail #turns h3').textContent`))
	turns := jsEval[[]string](p, `[...document.querySelectorAll('#detail #turns li.turn')].map(li => li.className + ' | ' + li.textContent)`)
	require.Len(t, turns, 3)
	assert.Regexp(t, `^turn turn-pass \| .*turn 1 of 3.*What is the CADD phred score.*I could not find that variant\..*tools: `+regexp.QuoteMeta(recs[1].ToolCalls[0].Name), turns[0])
	assert.Regexp(t, `^turn turn-fail \| .*turn 2 of 3.*NM_007294\.4.*number 31\.835 ± 0\.0005.*deterministic check failed`, turns[1])
	assert.Regexp(t, `^turn turn-not_run \| .*turn 3 of 3.*How does ClinVar classify it\?not sent: an earlier turn ended the conversation$`, turns[2])
	p.assertClean()
}

// A simulated user's turns are marked so, and a fact it gave unasked is
// shown as a leak on its turn.
func TestSimulatedUserTurnsInBrowser(t *testing.T) {
	chromiumPath(t)
	recs := syntheticRecords(3, 2000)
	rec := &recs[1]
	rec.Name, rec.Status, rec.Reason = "gene at a position", eval.Pass, "the answer contains the expected information"
	rec.Turns = []eval.TurnResult{
		{Turn: 1, User: "Which gene is at chr17:7675088?", Reply: "I could not find that.", Status: eval.Pass, Reason: "nothing is expected of the reply at this turn"},
		{Turn: 2, User: "The coordinates are on GRCh38 (hg38).", Reply: "TP53.", Status: eval.Pass, Simulated: true, Leaks: []string{"The coordinates are on GRCh38 (hg38)."}},
	}
	d := rundata.FromRecords(recs)
	p := openReport(t, d)
	p.clickUntil(fmt.Sprintf(`#cases tr[data-id="%d"]`, caseIndex(t, d, rec.Name)), `!document.getElementById('detail').hidden`)
	users := jsEval[[]string](p, `[...document.querySelectorAll('#detail #turns li.turn .turn-user .who')].map(e => e.textContent)`)
	assert.Equal(t, []string{"user", "simulated user"}, users)
	leaks := jsEval[[]string](p, `[...document.querySelectorAll('#detail #turns li.turn .leak')].map(e => e.textContent)`)
	assert.Equal(t, []string{"leak: the simulated user gave The coordinates are on GRCh38 (hg38). before the agent asked for it"}, leaks)
	p.assertClean()
}

// The simulated users' requests are shown apart: in the header beside the
// judge's, and under the leaderboard, each model's cost leaving them out.
// A run without a simulated user shows neither line.
func TestUserCostInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	chromiumPath(t)
	judge := eval.Usage{TotalTokens: 20, CostUSD: 0.0005, Requests: 1}
	user := eval.Usage{TotalTokens: 30, CostUSD: 0.0020, Requests: 2}
	records := func(models []string, simulated bool) []eval.Record {
		var recs []eval.Record
		for i := range 3 {
			for _, model := range models {
				// The record's usage holds the judge's and the user's.
				usage := eval.Usage{TotalTokens: 170, CostUSD: 0.0035, Requests: 5}
				rec := eval.Record{Name: fmt.Sprintf("gene %d", i), Category: "Genes", Test: fmt.Sprintf("TestGenes/gene_%d/%s", i, model),
					Model: model, Status: eval.Pass, Seconds: 1, Usage: usage, JudgeModel: "judge-model", JudgeUsage: &judge}
				if simulated {
					rec.UserModel, rec.UserUsage = "user-<model>", &user
				} else {
					rec.Usage.CostUSD -= user.CostUSD
				}
				recs = append(recs, rec)
			}
		}
		return recs
	}
	open := func(recs []eval.Record) *browserPage {
		dir := t.TempDir()
		rundatatest.WriteRecords(t, dir, recs...)
		d, err := rundata.Load(dir, nil)
		require.NoError(t, err)
		path := filepath.Join(t.TempDir(), "report.html")
		writeFile(t, path, d)
		p := openBrowser(t)
		p.cases = len(d.Groups)
		p.open(path)
		return p
	}

	p := open(records([]string{"model-a", "model-b"}, true))
	meta := jsEval[string](p, `document.querySelector('.meta').textContent`)
	assert.Contains(t, meta, "Cost$0.0210", "the run's cost holds every request")
	assert.Contains(t, meta, "Judge cost$0.0030 for 6 requests of judge-model")
	assert.Contains(t, meta, "Simulated user cost$0.0120 for 12 requests of user-<model>, not in the models' costs")
	assert.Equal(t, "Simulated user user-<model>: $0.0120 for 12 requests, counted once here and not in the models' costs.",
		jsEval[string](p, `document.getElementById('user-cost').textContent`))
	rows := jsEval[[]string](p, `[...document.querySelectorAll('#leaderboard tbody tr')].map(tr => tr.textContent)`)
	require.Len(t, rows, 2)
	for _, row := range rows {
		assert.Contains(t, row, "$0.0030", "a model's own cost: 3 runs of $0.0035 less the judge's $0.0005 and the user's $0.0020")
	}
	p.assertClean()

	p = open(records([]string{"model-a"}, true))
	assert.Contains(t, jsEval[string](p, `document.querySelector('.meta').textContent`), "Simulated user cost$0.0060 for 6 requests of user-<model>")
	assert.NotContains(t, jsEval[string](p, `document.querySelector('.meta').textContent`), "not in the")

	p = open(records([]string{"model-a", "model-b"}, false))
	assert.NotContains(t, jsEval[string](p, `document.querySelector('.meta').textContent`), "Simulated user")
	assert.False(t, jsEval[bool](p, `!!document.getElementById('user-cost')`))
	assert.True(t, jsEval[bool](p, `!!document.getElementById('judge-cost')`))
}

// The reply to the input, graded by the case's first_reply, is shown as
// every other turn is: its checks, and why it failed.
func TestFirstReplyInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	chromiumPath(t)
	recs := syntheticRecords(3, 2000)
	rec := &recs[1]
	reason := `deterministic check failed: asks "build": the reply asks nothing: no sentence of it ends in "?"`
	rec.Name, rec.Status, rec.Reason = "gene, the build asked", eval.Fail, "turn 1 of 2: "+reason
	rec.Turns = []eval.TurnResult{
		{Turn: 1, User: "Which gene is at chr17:7675088?", Reply: "It is <b>TP53</b>.", Status: eval.Fail, Reason: reason,
			Checks: []eval.CheckResult{{Check: `asks "build"`, Detail: `the reply asks nothing: no sentence of it ends in "?"`}}},
		{Turn: 2, User: "GRCh38.", Status: eval.NotRun},
	}
	d := rundata.FromRecords(recs)
	p := openReport(t, d)
	p.clickUntil(fmt.Sprintf(`#cases tr[data-id="%d"]`, caseIndex(t, d, rec.Name)), `!document.getElementById('detail').hidden`)
	turns := jsEval[[]string](p, `[...document.querySelectorAll('#detail #turns li.turn')].map(li => li.className + ' | ' + li.textContent)`)
	require.Len(t, turns, 2)
	assert.Regexp(t, `^turn turn-fail \| .*turn 1 of 2.*Which gene is at chr17:7675088\?.*It is <b>TP53</b>\..*asks "build".*the reply asks nothing.*deterministic check failed`, turns[0])
	assert.Regexp(t, `^turn turn-not_run \| .*turn 2 of 2.*GRCh38\.not sent`, turns[1])
	assert.Equal(t, 0, jsEval[int](p, `document.querySelectorAll('#detail #turns b').length`), "the reply is text, not markup")
	p.assertClean()
}
