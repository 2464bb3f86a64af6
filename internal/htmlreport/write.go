// Package htmlreport writes a run's two pages, each one self-contained HTML
// file: the report of its cases, report.html (Write, from a rundata.Data),
// and its comparison with a baseline, compare.html (WriteComparison, from
// a baseline.Comparison), whose rows report.html's cases link to
// (CaseAnchor).
//
// The report embeds all data as JSON in non-executed script blocks (a large
// report's gzip-compressed) and renders it with DOM text nodes only, the
// rows of its table as it scrolls to them; the comparison is html/template
// output with no script. A strict Content-Security-Policy with hashes of
// each page's inline style and script allows nothing else to run or load.
package htmlreport

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/stats"
)

var (
	//go:embed assets/report.css
	styleSheet string
	//go:embed assets/report.js
	script string
)

// Write writes the report as one self-contained HTML page.
//
// The overview (header, totals, table rows) goes into the block id="data",
// followed by the app script, which renders the page from it while the
// browser still parses the rest: the cases' details, read only when a case
// is opened. JSON is written with HTML escaping, so no data can close a
// script block.
//
// A browser reads a large file slowly (about 50–80 MB/s from file://), so
// when the report's data would be large (CompressAbove) the page holds all
// of it compressed: the overview gzip-compressed and base64-encoded in a
// block of type application/gzip, and the details in blocks of the same
// kind, each the JSON array of the details of a run of consecutive cases
// (its id, "cases-N", names the first). The page inflates the overview
// with the browser's DecompressionStream and a block when one of its cases
// is opened. Smaller reports stay plain JSON, one block id="case-N" per
// case, which a person (or grep) can read in the file.
func Write(w io.Writer, d *rundata.Data) error {
	if dataSize(d) > CompressAbove {
		return writeCompressed(w, d)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, pageHead, contentSecurityPolicy(), styleSheet)

	bw.WriteString(`<script type="application/json" id="data">`)
	if err := json.NewEncoder(bw).Encode(newOverview(d)); err != nil {
		return fmt.Errorf("write report data: %w", err)
	}
	bw.WriteString("</script>\n<script>")
	bw.WriteString(script)
	bw.WriteString("</script>\n")

	shown := shownRuns(d)
	chunks := make([]chunk, len(d.Cases))
	for i := range chunks {
		chunks[i] = chunk{i, i + 1}
	}
	err := encodeChunks(d, chunks, func(c chunk) ([]byte, error) {
		var buf bytes.Buffer
		fmt.Fprintf(&buf, `<script type="application/json" id="case-%d">`, c.first)
		detail, err := newDetail(&d.Cases[c.first], shown[c.first])
		if err == nil {
			err = json.NewEncoder(&buf).Encode(detail)
		}
		buf.WriteString("</script>\n")
		return buf.Bytes(), err
	}, func(b []byte) { bw.Write(b) })
	if err != nil {
		return err
	}
	bw.WriteString(pageTail)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// CompressAbove is the estimated size of the report's data (its table
// rows and its cases' details) above which the page holds it compressed.
// Below it the data is plain JSON.
const CompressAbove = 8 << 20

// dataSize estimates the size of the report's data from its texts.
func dataSize(d *rundata.Data) int {
	n := 0
	for i := range d.Cases {
		n += caseSize(&d.Cases[i])
	}
	return 2 * n // the rows repeat the shown runs' main texts
}

// caseSize estimates the size of a case's details from its texts.
func caseSize(c *rundata.Case) int {
	n := 300 + len(c.Event.Output)
	if c.Raw != nil {
		return n + len(c.Raw)
	}
	if r := c.Record; r != nil {
		n += len(r.Question) + len(r.Expected) + len(r.Response) + len(r.Reason) + len(r.JudgePrompt) + len(r.JudgeReply) + len(r.JudgeRaw) + len(r.ServerStderr)
		for _, tc := range r.ToolCalls {
			n += len(tc.Arguments) + len(tc.Result) + 80
		}
		for _, m := range r.Conversation {
			n += len(m.Content) + 40
		}
	}
	return n
}

// chunkBytes is about how much of the cases' details a compressed block
// holds (before compression), and chunkCases the most cases it holds:
// opening a case inflates its whole block, and consecutive cases, much
// alike, compress better together than each alone.
const (
	chunkBytes = 256 << 10
	chunkCases = 256
)

// chunk is the cases [first, end).
type chunk struct{ first, end int }

// chunksOf splits the cases into runs of about chunkBytes of details.
func chunksOf(d *rundata.Data) []chunk {
	var out []chunk
	first, size := 0, 0
	for i := range d.Cases {
		size += caseSize(&d.Cases[i])
		if size >= chunkBytes || i+1-first == chunkCases || i == len(d.Cases)-1 {
			out = append(out, chunk{first, i + 1})
			first, size = i+1, 0
		}
	}
	return out
}

// shownRuns tells the cases that are the runs their rows show.
func shownRuns(d *rundata.Data) []bool {
	shown := make([]bool, len(d.Cases))
	for _, g := range d.Groups {
		shown[g.Shown] = true
	}
	return shown
}

// writeCompressed writes the page whose data is compressed (see Write).
func writeCompressed(w io.Writer, d *rundata.Data) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, pageHead, contentSecurityPolicy(), styleSheet)
	// The blocks of details are encoded on the other cores while the
	// overview is.
	chunks, shown := chunksOf(d), shownRuns(d)
	blocks := make(chan []byte, 1)
	done := make(chan error, 1)
	go func() {
		done <- encodeChunks(d, chunks, func(c chunk) ([]byte, error) {
			return compressedBlock("cases-"+strconv.Itoa(c.first), detailsLevel, func(w io.Writer) error {
				return writeDetails(w, d.Cases[c.first:c.end], shown[c.first:c.end])
			})
		}, func(b []byte) { blocks <- b })
		close(blocks)
	}()
	overview, err := compressedBlock("data", overviewLevel, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(newOverview(d))
	})
	if err != nil {
		for range blocks { // let the encoders finish
		}
		<-done
		return fmt.Errorf("write report data: %w", err)
	}
	bw.Write(overview)
	bw.WriteString("<script>")
	bw.WriteString(script)
	bw.WriteString("</script>\n")
	for b := range blocks {
		bw.Write(b)
	}
	if err := <-done; err != nil {
		return err
	}
	bw.WriteString(pageTail)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// compressors are gzip writers to reuse: a new one allocates a large
// state, too much to make one per block. Level 3 is about as fast as
// BestSpeed on a report's data, which repeats much from case to case, and
// makes it a third smaller; the cases' details, records as results.jsonl
// holds them, are compressed with gzip's default level, which finds more
// of what a record repeats of the one before: 40% smaller than level 3
// in twice its time, less for the browser to read and parse.
var compressors = [2]sync.Pool{{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, 3)
	return zw
}}, {New: func() any {
	return gzip.NewWriter(io.Discard)
}}}

// The compressors of an overview and of a block of details.
const (
	overviewLevel = iota
	detailsLevel
)

// compressedBlock returns the script block id holding, gzip-compressed
// and base64-encoded, the JSON write writes. Base64 has no character that
// could close the block, so the JSON needs no HTML escaping.
func compressedBlock(id string, level int, write func(io.Writer) error) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`<script type="application/gzip" id="` + id + `">`)
	b64 := base64.NewEncoder(base64.StdEncoding, &buf)
	zw := compressors[level].Get().(*gzip.Writer)
	defer compressors[level].Put(zw)
	zw.Reset(b64)
	err := write(zw)
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = b64.Close()
	}
	buf.WriteString("</script>\n")
	return buf.Bytes(), err
}

// encodeChunks encodes each chunk's block on all cores and passes them to
// write in order. At most a window of blocks is ahead of the writer, so
// memory is bounded by the window, not by the report.
func encodeChunks(d *rundata.Data, chunks []chunk, encode func(chunk) ([]byte, error), write func([]byte)) error {
	type block struct {
		data []byte
		err  error
		done chan struct{}
	}
	jobs := make(chan int)
	blocks := make([]block, len(chunks))
	for i := range blocks {
		blocks[i].done = make(chan struct{})
	}
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range jobs {
				blocks[i].data, blocks[i].err = encode(chunks[i])
				close(blocks[i].done)
			}
		})
	}
	ahead := make(chan struct{}, 256)
	if len(chunks) < len(d.Cases) {
		ahead = make(chan struct{}, 4*runtime.GOMAXPROCS(0)) // blocks of many cases
	}
	go func() {
		for i := range blocks {
			ahead <- struct{}{}
			jobs <- i
		}
		close(jobs)
	}()
	var err error
	for i := range blocks {
		<-blocks[i].done
		if err == nil && blocks[i].err != nil {
			err = fmt.Errorf("write case %q: %w", d.Cases[chunks[i].first].Name, blocks[i].err)
		}
		if err == nil {
			write(blocks[i].data)
		}
		blocks[i].data = nil
		<-ahead
	}
	wg.Wait()
	return err
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
	Generated      time.Time                `json:"generated"`
	Run            eval.Summary             `json:"run"`
	Totals         rundata.Totals           `json:"totals"`
	Categories     []rundata.CategoryTotals `json:"categories"`
	MetricKeys     []string                 `json:"metric_keys"`
	MetricLabels   []string                 `json:"metric_labels"`
	MetricsSummary []rundata.Metric         `json:"metrics_summary"`
	Trust          rundata.Trust            `json:"trust"`
	Problems       []string                 `json:"problems"`
	Notices        []string                 `json:"notices"`
	Comparison     *rundata.ComparisonLink  `json:"comparison,omitempty"`
	Cases          []rowJSON                `json:"cases"`
	History        []rundata.HistoryPoint   `json:"history"`
	// Repeats is the most runs a case had.
	Repeats int `json:"repeats"`
	// Models and ModelPairs compare the models (empty with one).
	Models      []eval.ModelResult `json:"models"`
	ModelPairs  []eval.ModelPair   `json:"model_pairs"`
	ArmEffects  []eval.ArmEffect   `json:"arm_effects"`
	ArmVerdicts []eval.ArmVerdict  `json:"arm_verdicts"`
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
	Runs   []int         `json:"runs"`
	Shown  int           `json:"shown"`
	Marks  []eval.Status `json:"marks,omitempty"`
	Passes int           `json:"passes"`
	// Ran counts the runs that ran (neither not run nor skipped), which
	// Passes, Rate, pass@k and pass^k are taken over; NotRun counts those
	// recorded as not run.
	Ran    int     `json:"ran"`
	NotRun int     `json:"not_run,omitempty"`
	Rate   float64 `json:"rate"`
	// PassAtK and PassHatK are the case's pass@k and pass^k for k = 1 to
	// its runs, with repeats.
	PassAtK         []float64      `json:"pass_at_k,omitempty"`
	PassHatK        []float64      `json:"pass_hat_k,omitempty"`
	Flaky           bool           `json:"flaky,omitempty"`
	Status          eval.Status    `json:"status"`
	Cached          bool           `json:"cached,omitempty"`
	NoRecord        bool           `json:"no_record,omitempty"`
	Verdict         string         `json:"verdict"`
	Judges          []judgeRowJSON `json:"judges,omitempty"`
	Split           bool           `json:"split,omitempty"`
	Reason          string         `json:"reason"`
	Question        string         `json:"question"`
	Expected        string         `json:"expected"`
	Response        string         `json:"response"`
	Tools           []toolJSON     `json:"tools"`
	Tokens          int            `json:"tokens"`
	TokensEstimated bool           `json:"tokens_estimated,omitempty"`
	Seconds         float64        `json:"seconds"`
	// Metrics are the case's scores in the order of the overview's
	// metric_keys, null where it has none: each name is written once, not
	// once a row.
	Metrics []*float64 `json:"metrics,omitempty"`
	// Flip is, in a comparison with a baseline, how the case changed and
	// why (see rundata.Data.Flips).
	Flip string `json:"flip,omitempty"`
}

// judgeRowJSON is one judge's verdict as the table shows it, when several
// judged: "yes", "no", "" for an unusable reply.
type judgeRowJSON struct {
	Model   string `json:"model"`
	Verdict string `json:"verdict"`
	Failed  bool   `json:"failed,omitempty"`
}

type toolJSON struct {
	Name    string `json:"name"`
	Args    string `json:"args"`
	IsError bool   `json:"is_error,omitempty"`
	NotRun  bool   `json:"not_run,omitempty"`
}

// scoresIn returns scores in the order of names, nil for a name without
// one; nil when there are none.
func scoresIn(scores map[string]float64, names []string) []*float64 {
	if len(scores) == 0 {
		return nil
	}
	out := make([]*float64, len(names))
	for i, name := range names {
		if v, ok := scores[name]; ok {
			out[i] = &v
		}
	}
	return out
}

// maxRowArgs bounds a tool call's arguments in the table; the case view
// shows them whole.
const maxRowArgs = 300

func newOverview(d *rundata.Data) overview {
	o := overview{
		Generated: d.Generated, Run: d.Run, Totals: d.Totals,
		Categories:     append([]rundata.CategoryTotals{}, d.Categories...),
		MetricKeys:     append([]string{}, d.MetricNames...),
		MetricsSummary: append([]rundata.Metric{}, d.MetricsSummary...),
		Trust:          d.Trust,
		Problems:       append([]string{}, d.Problems...),
		Notices:        append([]string{}, d.Notices...),
		Comparison:     d.Comparison,
		Cases:          make([]rowJSON, len(d.Groups)),
		History:        append([]rundata.HistoryPoint{}, d.History...),
		Models:         append([]eval.ModelResult{}, d.Models...),
		ModelPairs:     append([]eval.ModelPair{}, d.ModelPairs...),
		ArmEffects:     append([]eval.ArmEffect{}, d.ArmEffects...),
		ArmVerdicts:    append([]eval.ArmVerdict{}, d.ArmVerdicts...),
	}
	// Each case's results over its repeats are the table's rows already.
	o.Run.Cases = nil
	for _, name := range d.MetricNames {
		o.MetricLabels = append(o.MetricLabels, rundata.MetricLabel(name))
	}
	models := map[string]bool{}
	for _, g := range d.Groups {
		models[g.Model] = true
	}
	for i, g := range d.Groups {
		o.Cases[i] = newRow(i, g, d.Cases, d.MetricNames)
		o.Cases[i].Flip = d.Flips[eval.CaseRun{Name: g.Name, Model: g.Model}]
		if len(models) < 2 {
			o.Cases[i].Model = "" // one model: the header names it
		}
		o.Repeats = max(o.Repeats, len(g.Runs))
	}
	return o
}

// newRow is the row of a group: its runs' outcomes and the texts of the
// run it shows, its scores in the order of metricNames.
func newRow(id int, g rundata.Group, cases []rundata.Case, metricNames []string) rowJSON {
	c := &cases[g.Shown]
	row := rowJSON{
		ID: id, Name: g.Name, Category: g.Category, Model: g.Model, Test: c.Test, Runs: g.Runs, Shown: g.Shown,
		Passes: g.Passes, Ran: g.Ran(cases), NotRun: g.NotRun, Rate: g.Rate(cases), Flaky: g.Flaky, Status: g.Status,
		NoRecord: c.Record == nil, Reason: c.Reason, Seconds: math.Round(c.Seconds*1000) / 1000, Metrics: scoresIn(c.Scores, metricNames),
		Tools: []toolJSON{},
	}
	if len(g.Runs) > 1 {
		for _, i := range g.Runs {
			row.Marks = append(row.Marks, cases[i].Status)
		}
		ran := g.Ran(cases)
		for k := 1; k <= ran; k++ {
			row.PassAtK = append(row.PassAtK, stats.PassAtK(ran, g.Passes, k))
			row.PassHatK = append(row.PassHatK, stats.PassHatK(ran, g.Passes, k))
		}
	}
	for _, i := range g.Runs {
		if r := cases[i].Record; r != nil && r.JudgeDisagreement {
			row.Split = true // in any run: the filter finds the case
		}
	}
	if r := c.Record; r != nil {
		row.Cached = r.Cached
		row.Verdict = r.Verdict
		if len(r.Judges) > 1 {
			for _, j := range r.Judges {
				row.Judges = append(row.Judges, judgeRowJSON{Model: j.Model, Verdict: j.Verdict, Failed: j.Error != ""})
			}
		}
		row.Question = r.Question
		row.Expected = r.Expected
		row.Response = r.Response
		row.Tokens = r.Usage.TotalTokens
		row.TokensEstimated = r.Usage.Estimated
		for _, tc := range r.ToolCalls {
			row.Tools = append(row.Tools, toolJSON{Name: tc.Name, Args: prose.Shorten(tc.Arguments, maxRowArgs), IsError: tc.IsError, NotRun: tc.NotRun})
		}
	}
	return row
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
	// FromRow: the record's question, expected answer and response are
	// left out ("") as the same as its row's, the run the row shows.
	FromRow bool `json:"from_row,omitempty"`
}

// recordJSON is a record whose texts that are the same as another's are
// left out (see detailJSON.FromRow and messageJSON); the page puts them
// back. A tool message is mostly the same as its call's result, and the
// last message the same as the response, so this halves the size of most
// reports.
type recordJSON struct {
	eval.Record
	Conversation []messageJSON `json:"conversation"`
}

type messageJSON struct {
	eval.Message
	// ContentIsResult: the content is the result of the tool call
	// ToolCallID in the record's tool_calls.
	ContentIsResult bool `json:"content_is_result,omitempty"`
	// ContentIsResponse: the content is the record's response.
	ContentIsResponse bool `json:"content_is_response,omitempty"`
}

// writeDetails writes the JSON array of the details of cases, each
// shown[i] when its row shows it. A case read with its record's line
// (rundata.LoadLean) has that line as its record, as it is: compressed
// with its neighbours, what it repeats of its row and of itself costs
// little.
func writeDetails(w io.Writer, cases []rundata.Case, shown []bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	buf.WriteByte('[')
	for i := range cases {
		if i > 0 {
			buf.WriteByte(',')
		}
		c := &cases[i]
		if c.Raw == nil {
			detail, err := newDetail(c, shown[i])
			if err != nil {
				return err
			}
			if err := enc.Encode(detail); err != nil {
				return err
			}
			continue
		}
		// {"record":<the line>, then the other fields.
		buf.WriteString(`{"record":`)
		buf.Write(c.Raw)
		buf.WriteByte(',')
		mark := buf.Len()
		if err := enc.Encode(newEvent(c)); err != nil {
			return err
		}
		rest := buf.Bytes()[mark:]
		copy(rest, rest[1:]) // the other fields' object without its "{" and its newline
		buf.Truncate(buf.Len() - 2)
		if buf.Len() >= 64<<10 {
			if _, err := w.Write(buf.Bytes()); err != nil {
				return err
			}
			buf.Reset()
		}
	}
	buf.WriteString("]\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// eventJSON is detailJSON but its record.
type eventJSON struct {
	Package    string            `json:"package"`
	Action     string            `json:"action"`
	Unfinished bool              `json:"unfinished"`
	Elapsed    float64           `json:"elapsed"`
	Output     string            `json:"output"`
	Attrs      map[string]string `json:"attrs,omitempty"`
}

func newEvent(c *rundata.Case) eventJSON {
	return eventJSON{
		Package: c.Package, Action: c.Event.Action, Unfinished: c.Event.Unfinished,
		Elapsed: c.Event.Elapsed, Output: c.Event.Output, Attrs: c.Event.Attrs,
	}
}

// newDetail is the details of c, whose row shows it when shown. A case
// read with its record's line has its record decoded whole from it.
func newDetail(c *rundata.Case, shown bool) (detailJSON, error) {
	e := newEvent(c)
	d := detailJSON{
		Package: e.Package, Action: e.Action, Unfinished: e.Unfinished,
		Elapsed: e.Elapsed, Output: e.Output, Attrs: e.Attrs,
	}
	record := c.Record
	if record == nil {
		return d, nil
	}
	if c.Raw != nil {
		record = new(eval.Record)
		if err := json.Unmarshal(c.Raw, record); err != nil {
			return d, fmt.Errorf("decode the record of %s: %w", c.Name, err)
		}
	}
	results := make(map[string]string, len(record.ToolCalls))
	for _, tc := range record.ToolCalls {
		results[tc.ID] = tc.Result
	}
	d.Record = &recordJSON{Record: *record, Conversation: make([]messageJSON, len(record.Conversation))}
	response := record.Response
	for i, m := range record.Conversation {
		r, ok := results[m.ToolCallID]
		switch {
		case m.Role == "tool" && ok && r == m.Content && r != "":
			m.Content = ""
			d.Record.Conversation[i] = messageJSON{Message: m, ContentIsResult: true}
		case m.Role == "assistant" && m.Content == response && response != "":
			m.Content = ""
			d.Record.Conversation[i] = messageJSON{Message: m, ContentIsResponse: true}
		default:
			d.Record.Conversation[i] = messageJSON{Message: m}
		}
	}
	if shown {
		d.FromRow = true
		d.Record.Question, d.Record.Expected, d.Record.Response = "", "", ""
	}
	return d, nil
}
