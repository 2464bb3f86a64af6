package report

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/mcpeval/mcpeval/internal/eval"
)

var (
	//go:embed assets/report.css
	styleSheet string
	//go:embed assets/report.js
	script string
)

// Write writes the report as one self-contained HTML page.
//
// The overview (header, totals, table rows) goes into the JSON block
// id="data", followed by the app script, which renders the page while the
// browser still parses the rest: one JSON block id="case-N" per case with
// its full record and test output, parsed only when the case is opened.
// JSON is written with HTML escaping, so no data can close a script block.
func Write(w io.Writer, d *Data) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, pageHead, contentSecurityPolicy(), styleSheet)

	bw.WriteString(`<script type="application/json" id="data">`)
	if err := json.NewEncoder(bw).Encode(newOverview(d)); err != nil {
		return fmt.Errorf("write report data: %w", err)
	}
	bw.WriteString("</script>\n<script>")
	bw.WriteString(script)
	bw.WriteString("</script>\n")

	enc := json.NewEncoder(bw)
	for i := range d.Cases {
		fmt.Fprintf(bw, `<script type="application/json" id="case-%d">`, i)
		if err := enc.Encode(newDetail(&d.Cases[i])); err != nil {
			return fmt.Errorf("write case %q: %w", d.Cases[i].Name, err)
		}
		bw.WriteString("</script>\n")
	}

	bw.WriteString(pageTail)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// contentSecurityPolicy allows exactly the page's own inline style and
// script, images from data: URLs only, and nothing else: no network, no
// other scripts, no inline handlers, no HTML strings turned into DOM.
func contentSecurityPolicy() string {
	return "default-src 'none'; " +
		"style-src '" + cspHash(styleSheet) + "'; " +
		"script-src '" + cspHash(script) + "'; " +
		"img-src data:; base-uri 'none'; form-action 'none'; " +
		"require-trusted-types-for 'script'; trusted-types 'none'"
}

func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// The page around the data. The style and script sit in their blocks byte
// for byte as hashed.
const pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="%s">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Evaluation report</title>
<link rel="icon" href="data:,">
<style>%s</style>
</head>
<body>
<noscript><p class="noscript">This report needs JavaScript to show its data.</p></noscript>
<div id="app" aria-busy="true"><p class="loading">Loading report…</p></div>
`

const pageTail = `</body>
</html>
`

// overview is the JSON of the data block.
type overview struct {
	Generated      time.Time        `json:"generated"`
	Run            eval.Summary     `json:"run"`
	Totals         Totals           `json:"totals"`
	Categories     []CategoryTotals `json:"categories"`
	MetricKeys     []string         `json:"metric_keys"`
	MetricLabels   []string         `json:"metric_labels"`
	MetricsSummary []Metric         `json:"metrics_summary"`
	Problems       []string         `json:"problems"`
	Notices        []string         `json:"notices"`
	Cases          []rowJSON        `json:"cases"`
	History        []HistoryPoint   `json:"history"`
	// Repeats is the most runs a case had.
	Repeats int `json:"repeats"`
}

// rowJSON is one case as the table shows it; long tool arguments are cut.
type rowJSON struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	Category string `json:"category"`
	Model    string `json:"model,omitempty"`
	Test     string `json:"test"`
	// Runs are the ids of the case's runs (their case-N blocks), by
	// repeat; Shown is the run whose texts the row shows, Marks the runs'
	// outcomes when there is more than one.
	Runs            []int              `json:"runs"`
	Shown           int                `json:"shown"`
	Marks           []eval.Status      `json:"marks,omitempty"`
	Passes          int                `json:"passes"`
	Rate            float64            `json:"rate"`
	Flaky           bool               `json:"flaky,omitempty"`
	Status          eval.Status        `json:"status"`
	Cached          bool               `json:"cached"`
	NoRecord        bool               `json:"no_record"`
	Verdict         string             `json:"verdict"`
	Reason          string             `json:"reason"`
	Question        string             `json:"question"`
	Expected        string             `json:"expected"`
	Response        string             `json:"response"`
	Tools           []toolJSON         `json:"tools"`
	Tokens          int                `json:"tokens"`
	TokensEstimated bool               `json:"tokens_estimated"`
	Seconds         float64            `json:"seconds"`
	Metrics         map[string]float64 `json:"metrics,omitempty"`
}

type toolJSON struct {
	Name    string `json:"name"`
	Args    string `json:"args"`
	IsError bool   `json:"is_error"`
	NotRun  bool   `json:"not_run,omitempty"`
}

// maxRowArgs bounds a tool call's arguments in the table; the case view
// shows them whole.
const maxRowArgs = 300

func newOverview(d *Data) overview {
	o := overview{
		Generated: d.Generated, Run: d.Run, Totals: d.Totals,
		Categories:     append([]CategoryTotals{}, d.Categories...),
		MetricKeys:     append([]string{}, d.MetricNames...),
		MetricsSummary: append([]Metric{}, d.MetricsSummary...),
		Problems:       append([]string{}, d.Problems...),
		Notices:        append([]string{}, d.Notices...),
		Cases:          make([]rowJSON, len(d.Groups)),
		History:        append([]HistoryPoint{}, d.History...),
	}
	for _, name := range d.MetricNames {
		o.MetricLabels = append(o.MetricLabels, metricLabels[name])
	}
	models := map[string]bool{}
	for _, g := range d.Groups {
		models[g.Model] = true
	}
	for i, g := range d.Groups {
		o.Cases[i] = newRow(i, g, d.Cases)
		if len(models) < 2 {
			o.Cases[i].Model = "" // one model: the header names it
		}
		o.Repeats = max(o.Repeats, len(g.Runs))
	}
	return o
}

// newRow is the row of a group: its runs' outcomes and the texts of the
// run it shows.
func newRow(id int, g Group, cases []Case) rowJSON {
	c := &cases[g.Shown]
	row := rowJSON{
		ID: id, Name: g.Name, Category: g.Category, Model: g.Model, Test: c.Test, Runs: g.Runs, Shown: g.Shown,
		Passes: g.Passes, Rate: g.Rate(cases), Flaky: g.Flaky, Status: g.Status,
		NoRecord: c.Record == nil, Reason: c.Reason, Seconds: c.Seconds, Metrics: c.Scores,
		Tools: []toolJSON{},
	}
	if len(g.Runs) > 1 {
		for _, i := range g.Runs {
			row.Marks = append(row.Marks, cases[i].Status)
		}
	}
	if r := c.Record; r != nil {
		row.Cached = r.Cached
		row.Verdict = r.Verdict
		row.Question = r.Question
		row.Expected = r.Expected
		row.Response = r.Response
		row.Tokens = r.Usage.TotalTokens
		row.TokensEstimated = r.Usage.Estimated
		for _, tc := range r.ToolCalls {
			row.Tools = append(row.Tools, toolJSON{Name: tc.Name, Args: cut(tc.Arguments, maxRowArgs), IsError: tc.IsError, NotRun: tc.NotRun})
		}
	}
	return row
}

// cut shortens s to at most n bytes on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// detailJSON is what the case view needs beyond the row.
type detailJSON struct {
	Package    string            `json:"package"`
	Record     *recordJSON       `json:"record"`
	Action     string            `json:"action"`
	Unfinished bool              `json:"unfinished"`
	Elapsed    float64           `json:"elapsed"`
	Output     string            `json:"output"`
	Attrs      map[string]string `json:"attrs,omitempty"`
}

// recordJSON is a record whose tool messages leave out a content that is
// the same as their tool call's result; the page puts it back. Tool results
// are most of a conversation, so this halves the size of most reports.
type recordJSON struct {
	eval.Record
	Conversation []messageJSON `json:"conversation"`
}

type messageJSON struct {
	eval.Message
	// ContentIsResult: the content is the result of the tool call
	// ToolCallID in the record's tool_calls.
	ContentIsResult bool `json:"content_is_result,omitempty"`
}

func newDetail(c *Case) detailJSON {
	d := detailJSON{
		Package: c.Package, Action: c.Event.Action, Unfinished: c.Event.Unfinished,
		Elapsed: c.Event.Elapsed, Output: c.Event.Output, Attrs: c.Event.Attrs,
	}
	if c.Record == nil {
		return d
	}
	results := make(map[string]string, len(c.Record.ToolCalls))
	for _, tc := range c.Record.ToolCalls {
		results[tc.ID] = tc.Result
	}
	d.Record = &recordJSON{Record: *c.Record, Conversation: make([]messageJSON, len(c.Record.Conversation))}
	for i, m := range c.Record.Conversation {
		r, ok := results[m.ToolCallID]
		if m.Role == "tool" && ok && r == m.Content && r != "" {
			m.Content = ""
			d.Record.Conversation[i] = messageJSON{Message: m, ContentIsResult: true}
			continue
		}
		d.Record.Conversation[i] = messageJSON{Message: m}
	}
	return d
}
