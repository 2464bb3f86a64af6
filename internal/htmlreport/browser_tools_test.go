package htmlreport

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/rundata/rundatatest"
)

// toolsViewCases call two tools of the bundled server: get_gene_by_symbol
// without its taxon_id (once with the unknown symbol the case expects to
// fail), get_gene_by_position without its build.
const toolsViewCases = `
- case:
    name: "NUTM2G symbol"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of NUTM2G?"
    expected: "441457"
    checks: {contains: ["441457"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NOTAGENE}, expect_error: true}
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
- case:
    name: "BRCA2 by position"
    category: "Gene and Variant Utilities"
    input: "Which gene is at chr13:32906729?"
    expected: "BRCA2"
    checks: {contains: ["BRCA2"]}
    reference:
      - {tool: get_gene_by_position, args: {chromosome: "13", position: 32906729}}
`

// The tools view of a real run: each server's parameter coverage and
// definition tokens beside its tool coverage, each tool's parameters
// passed (with the ones never passed named), its definition tokens, and
// sorting by parameter coverage. REPORT_SCREENSHOTS=DIR saves it as
// tools-parameters.png.
func TestToolsViewInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	d, path, summary := realRunReport(t, toolsViewCases)
	srv := summary.Tools.Servers[0]
	stats := map[string]eval.ToolStats{}
	for _, st := range srv.Stats {
		stats[st.Name] = st
	}

	p := openBrowser(t)
	p.cases = len(d.Groups)
	p.open(path)

	line := jsEval[string](p, `document.getElementById('param-coverage').textContent`)
	assert.Equal(t, fmt.Sprintf("Parameters: %d of %d passed (%.1f%%)", srv.ParametersPassed, srv.Parameters, srv.ParameterCoverage), line)
	assert.Equal(t, 3, srv.ParametersPassed, "gene_symbol, chromosome, position")
	assert.Equal(t, fmt.Sprintf("Definitions: %s tokens (%s) with every request", commas(srv.DefinitionTokens), summary.Tools.Encoding),
		jsEval[string](p, `document.querySelector('#tools .surface-facts .def-line').textContent`))
	assert.Equal(t, "MCP "+srv.Protocol, jsEval[string](p, `document.querySelector('#tools .surface-facts .tag.protocol').textContent`))

	row := `#tool-stats tr[data-tool="get_gene_by_position"]`
	cell := func(key string) string {
		return jsEval[string](p, `document.querySelector('`+row+` td[data-key="`+key+`"]').textContent`)
	}
	assert.Equal(t, "2 of 3", cell("params"))
	assert.Equal(t, "Never passed: build", jsEval[string](p, `document.querySelector('`+row+` .param-cov').title`))
	assert.Equal(t, "67%", jsEval[string](p, `document.querySelector('`+row+` .param-fill').style.width`))
	assert.Equal(t, commas(stats["get_gene_by_position"].DefinitionTokens), cell("definition_tokens"))
	params := jsEval[[]string](p, `[...document.querySelectorAll('`+row+` .params code')].map(c => c.className + ' ' + c.textContent + ': ' + c.title)`)
	assert.Equal(t, []string{"never build: never passed", "passed chromosome*: required; passed by 1 call", "passed position*: required; passed by 1 call"}, params)

	// The error the case asked for is no error of the tool.
	symbol := `#tool-stats tr[data-tool="get_gene_by_symbol"] td[data-key="error_rate"]`
	assert.Equal(t, 1, stats["get_gene_by_symbol"].ExpectedErrors)
	assert.Equal(t, "0.0%1 expected", jsEval[string](p, `document.querySelector('`+symbol+`').textContent`))
	assert.Empty(t, jsEval[string](p, `document.querySelector('`+symbol+` span').className`), "not marked as failing")

	p.click(`#more-tools`)
	p.click(`#tool-stats th[data-key="params"]`)
	order := jsEval[[]string](p, `[...document.querySelectorAll('#tool-stats tbody tr')].slice(0, 2).map(r => r.dataset.tool)`)
	assert.Equal(t, []string{"get_gene_by_position", "get_gene_by_symbol"}, order, "the best covered first: 2 of 3, then 1 of 2")
	jsEval[chromedp.Void](p, `document.querySelector('.tools-wrap').scrollLeft = 0`) // the click scrolled it
	p.screenshot("tools-parameters", "#tools")
	p.assertClean()
}

// A tool call's elicitation round trips, output schema problem, task and
// stderr show in the case's tool calls.
func TestElicitationsInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	chromiumPath(t)
	dir := t.TempDir()
	rec := eval.Record{Name: "ask <b>me</b>", Category: "Everything", Status: eval.Pass, Test: "TestEverything/ask",
		ToolCalls: []eval.ToolCall{{
			ID: "c1", Name: "trigger-elicitation-request", Arguments: `{}`, Result: "User provided the requested information",
			Elicitations: []eval.Elicitation{
				{Message: "Please provide <b>inputs</b>", Fields: []string{"name", "email"}, Action: eval.ElicitAccept,
					Content: map[string]any{"name": "Ada Lovelace"}, Scripted: true},
				{Message: "And your pet?", Fields: []string{"pet"}, Action: eval.ElicitDecline},
			},
			OutputError: "structuredContent does not match the output schema: at /temperature: got string, want number",
			Task:        &eval.TaskRun{ID: "t-1", Status: "completed", Polls: 3},
			Stderr:      "waiting for client to provide roots",
		}}}
	rundatatest.WriteRecords(t, dir, rec)
	data, err := json.Marshal(eval.Summary{Model: "m"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), data, 0o644))
	d, err := rundata.Load(dir, nil)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "report.html")
	writeFile(t, path, d)
	p := openBrowser(t)
	p.cases = len(d.Groups)
	p.open(path)
	p.clickUntil(`#cases tr[data-id="0"]`, `!document.getElementById('detail').hidden`)
	p.click(`#detail .tab[data-tab="tools"]`)
	pane := `#detail .pane[data-tab="tools"]`
	rounds := jsEval[[]string](p, `[...document.querySelectorAll('`+pane+` .elicit')].map(e => e.className + ': ' + e.textContent)`)
	assert.Equal(t, []string{
		`elicit: Server askedPlease provide <b>inputs</b>Fields: name, emailReplyaccept {"name":"Ada Lovelace"}`,
		`elicit unscripted: Server askedAnd your pet?Fields: petReplydeclinenot scripted: declined`,
	}, rounds, "the server's text is text")
	notes := jsEval[[]string](p, `[...document.querySelectorAll('`+pane+` .call-note')].map(e => e.textContent)`)
	assert.Equal(t, []string{
		"Output schema: structuredContent does not match the output schema: at /temperature: got string, want number",
		"Ran as task t-1: completed after 3 polls",
	}, notes)
	assert.Contains(t, jsEval[string](p, `document.querySelector('`+pane+`').textContent`), "Server stderrwaiting for client to provide roots")
	p.screenshot("elicitations", "")
	p.assertClean()
}
