package htmlreport

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/rundata/rundatatest"
)

func TestMain(m *testing.M) {
	m.Run()
	stopBrowser()
	rundatatest.RemoveFixture()
}

func writeString(t *testing.T, d *rundata.Data) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, Write(&b, d))
	return b.String()
}

// jsonBlock returns the content of the JSON script block with this id.
func jsonBlock(t *testing.T, page, id string) string {
	t.Helper()
	open := `<script type="application/json" id="` + id + `">`
	i := strings.Index(page, open)
	require.GreaterOrEqual(t, i, 0, "no block %s", id)
	rest := page[i+len(open):]
	return rest[:strings.Index(rest, "</script>")]
}

func TestWriteKeepsDataInert(t *testing.T) {
	run := rundatatest.Fixture(t)
	d := rundatatest.Load(t, run.OutDir, run.Stream)
	page := writeString(t, d)

	for _, p := range rundatatest.Payloads {
		assert.NotContains(t, page, p, "payload written raw")
	}
	assert.NotContains(t, page, "\u2028", "U+2028 written raw")
	// Only the page's own tags open or close script blocks: one per JSON
	// block and the app script.
	blocks := 1 + len(d.Cases) + 1
	assert.Equal(t, blocks, strings.Count(strings.ToLower(page), "<script"))
	assert.Equal(t, blocks, strings.Count(strings.ToLower(page), "</script"))
	assert.NotContains(t, page, "<!--", "no data opens an HTML comment")

	// The embedded JSON gives the texts back exactly.
	var o overview
	require.NoError(t, json.Unmarshal([]byte(jsonBlock(t, page, "data")), &o))
	require.Len(t, o.Cases, len(d.Cases))
	for i, c := range d.Cases {
		assert.Equal(t, c.Name, o.Cases[i].Name)
		assert.Equal(t, c.Reason, o.Cases[i].Reason)
		if c.Record != nil {
			assert.Equal(t, c.Record.Response, o.Cases[i].Response)
			var det detailJSON
			require.NoError(t, json.Unmarshal([]byte(jsonBlock(t, page, "case-"+strconv.Itoa(i))), &det))
			assert.True(t, det.FromRow, "the run its row shows")
			assert.Equal(t, c.Record.Conversation, det.restore(o.Cases[i]))
			assert.Equal(t, c.Record.Response, det.Record.Response)
			assert.Equal(t, c.Record.Question, det.Record.Question)
		}
	}
	assert.Equal(t, d.Run.Model, o.Run.Model)
	assert.Equal(t, d.Run.ServerRestarts, o.Run.ServerRestarts)
	assert.Equal(t, d.Totals.Tokens, o.Totals.Tokens)
}

// restore puts back the texts left out of a case's details, as the page
// does (row is the case's row), and returns the conversation.
func (d *detailJSON) restore(row rowJSON) []eval.Message {
	if d.FromRow {
		d.Record.Question, d.Record.Expected, d.Record.Response = row.Question, row.Expected, row.Response
	}
	results := map[string]string{}
	for _, tc := range d.Record.ToolCalls {
		results[tc.ID] = tc.Result
	}
	var out []eval.Message
	for _, m := range d.Record.Conversation {
		if m.ContentIsResult {
			m.Content = results[m.ToolCallID]
		}
		if m.ContentIsResponse {
			m.Content = d.Record.Response
		}
		out = append(out, m.Message)
	}
	return out
}

func TestWriteLeavesOutRepeatedToolResults(t *testing.T) {
	d := syntheticData(1, 4000)
	rec := d.Cases[0].Record
	// A tool message that differs from its call's result stays whole.
	rec.Conversation[5].Content = "something else"
	det, err := newDetail(&d.Cases[0], false)
	require.NoError(t, err)

	var flagged, response []int
	for i, m := range det.Record.Conversation {
		if m.ContentIsResult {
			flagged = append(flagged, i)
			assert.Empty(t, m.Content)
		}
		if m.ContentIsResponse {
			response = append(response, i)
			assert.Empty(t, m.Content)
		}
	}
	assert.Equal(t, []int{3}, flagged)
	assert.Equal(t, []int{6}, response, "the last message is the response")
	assert.Equal(t, rec.Conversation, det.restore(rowJSON{}))

	// The run its row shows leaves out the texts of its row.
	shown, err := newDetail(&d.Cases[0], true)
	require.NoError(t, err)
	assert.True(t, shown.FromRow)
	assert.Empty(t, shown.Record.Question+shown.Record.Expected+shown.Record.Response)
	row := newRow(0, d.Groups[0], d.Cases, d.MetricNames)
	assert.Equal(t, rec.Conversation, shown.restore(row))
	assert.Equal(t, rec.Response, shown.Record.Response)

	// Both calls returned the same text: it is in the page once per call,
	// not again for the tool message that repeats it.
	require.Equal(t, rec.ToolCalls[0].Result, rec.ToolCalls[1].Result)
	escaped, err := json.Marshal(rec.ToolCalls[0].Result)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(writeString(t, d), string(escaped)))
}

func TestWriteContentSecurityPolicy(t *testing.T) {
	d := syntheticData(3, 100)
	page := writeString(t, d)

	m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	require.NotNil(t, m, "CSP meta tag")
	csp := m[1]
	assert.True(t, strings.HasPrefix(csp, "default-src 'none';"), csp)
	assert.Contains(t, csp, "img-src data:;")
	assert.NotContains(t, csp, "unsafe-inline")
	assert.NotContains(t, csp, "unsafe-eval")

	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(page)
	require.NotNil(t, style)
	assert.Contains(t, csp, "style-src "+hash(style[1]))
	scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(page, -1)
	require.Len(t, scripts, 1, "one executable script")
	assert.Contains(t, csp, "script-src "+hash(scripts[0][1]))

	// Self-contained: nothing is loaded from anywhere. The one URL is the
	// SVG namespace, a name that is never fetched.
	own := strings.ReplaceAll(styleSheet+script+pageHead+pageTail, "'http://www.w3.org/2000/svg'", "")
	for _, s := range []string{"http://", "https://", "src=", "@import", "url("} {
		assert.NotContains(t, own, s)
	}
	// The app never turns strings into HTML.
	for _, s := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
		assert.NotContains(t, script, s)
	}
}

func TestWriteMetricColumnsOnlyWithMetrics(t *testing.T) {
	with := syntheticData(4, 100)
	without := syntheticData(4, 100)
	for i := range without.Cases {
		without.Cases[i].Record.Metrics = nil
	}
	without = rundata.FromRecords(records(without))

	tests := []struct {
		name string
		d    *rundata.Data
		keys []string
	}{
		{"with metrics", with, []string{"overall", "correctness", "performance", "understanding", "coverage", "recovery"}},
		{"without metrics", without, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o overview
			require.NoError(t, json.Unmarshal([]byte(jsonBlock(t, writeString(t, tt.d), "data")), &o))
			assert.Equal(t, tt.keys, o.MetricKeys)
			for i, c := range o.Cases {
				if len(tt.keys) == 0 {
					assert.Empty(t, c.Metrics)
					continue
				}
				// A row's scores are in the order of the keys.
				require.Len(t, c.Metrics, len(tt.keys))
				scores := tt.d.Cases[tt.d.Groups[i].Shown].Scores
				for j, k := range tt.keys {
					if v, ok := scores[k]; ok {
						require.NotNil(t, c.Metrics[j], "case %d: %s", i, k)
						assert.Equal(t, v, *c.Metrics[j], "case %d: %s", i, k)
					} else {
						assert.Nil(t, c.Metrics[j], "case %d: %s", i, k)
					}
				}
			}
		})
	}
}

func records(d *rundata.Data) []eval.Record {
	var out []eval.Record
	for _, c := range d.Cases {
		out = append(out, *c.Record)
	}
	return out
}

func TestWriteCutsLongToolArgumentsInRowsOnly(t *testing.T) {
	d := syntheticData(1, 100)
	long := `{"q":"` + strings.Repeat("é", 400) + `"}`
	d.Cases[0].Record.ToolCalls[0].Arguments = long
	page := writeString(t, d)

	var o overview
	require.NoError(t, json.Unmarshal([]byte(jsonBlock(t, page, "data")), &o))
	args := o.Cases[0].Tools[0].Args
	assert.LessOrEqual(t, len(args), maxRowArgs+len("…"))
	assert.True(t, strings.HasSuffix(args, "…"))
	assert.True(t, utf8.ValidString(args), "cut on a rune boundary")

	var det detailJSON
	require.NoError(t, json.Unmarshal([]byte(jsonBlock(t, page, "case-0")), &det))
	assert.Equal(t, long, det.Record.ToolCalls[0].Arguments, "the case view has them whole")
}

// A large report holds all its data compressed: the overview in one block,
// the cases' details in blocks of consecutive cases. It reads back as the
// plain one.
func TestWriteCompressesLargeReports(t *testing.T) {
	small := syntheticData(20, 1<<10)
	page := writeString(t, small)
	assert.True(t, strings.Contains(page, `<script type="application/json" id="data">`), "a small report stays plain")
	assert.True(t, strings.Contains(page, `<script type="application/json" id="case-0">`))
	assert.False(t, strings.Contains(page, `<script type="application/gzip"`), "no compressed block")

	d := syntheticData(1000, 20<<10)
	require.Greater(t, dataSize(d), CompressAbove)
	page = writeString(t, d)
	assert.False(t, strings.Contains(page, `type="application/json"`), "no plain block")
	blocks := regexp.MustCompile(`<script type="application/gzip" id="([a-z]+)-?(\d*)">([^<]*)</script>`).FindAllStringSubmatch(page, -1)
	require.Greater(t, len(blocks), 2)
	require.Equal(t, "data", blocks[0][1], "the overview comes first")
	var o overview
	require.NoError(t, json.Unmarshal(gunzipBase64(t, blocks[0][3]), &o))
	require.Len(t, o.Cases, len(d.Groups))
	for i, g := range d.Groups {
		assert.Equal(t, g.Name, o.Cases[i].Name)
	}
	assert.Nil(t, o.Run.Cases, "the rows say what the summary's cases would")

	// The blocks of details follow the app script, each named by its first
	// case, and hold every case in order.
	assert.Less(t, strings.Index(page, "<script>"), strings.Index(page, `id="cases-0"`))
	next := 0
	for _, b := range blocks[1:] {
		require.Equal(t, "cases", b[1])
		require.Equal(t, strconv.Itoa(next), b[2], "the blocks follow each other")
		var details []detailJSON
		require.NoError(t, json.Unmarshal(gunzipBase64(t, b[3]), &details))
		require.NotEmpty(t, details)
		for j, det := range details {
			assert.Equal(t, d.Cases[next+j].Record.Name, det.Record.Name)
		}
		if next <= 517 && 517 < next+len(details) {
			assert.Equal(t, d.Cases[517].Record.Conversation, details[517-next].restore(o.Cases[517]))
		}
		next += len(details)
	}
	assert.Equal(t, len(d.Cases), next, "every case's details")
	assert.Less(t, len(page), dataSize(d)/10, "compressed")
}

// gunzipBase64 decodes a compressed block's content.
func gunzipBase64(t *testing.T, text string) []byte {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(text)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	require.NoError(t, err)
	out, err := io.ReadAll(zr)
	require.NoError(t, err)
	return out
}

// In a comparison with a baseline, each flipped case's row carries its
// change and cause for the case view.
func TestWriteCarriesEachFlip(t *testing.T) {
	d := syntheticData(3, 100)
	g := d.Groups[1]
	d.Flips = map[eval.CaseRun]string{{Name: g.Name, Model: g.Model}: "regression since r1, cause case: the case's expected answer changed"}
	var o overview
	require.NoError(t, json.Unmarshal([]byte(jsonBlock(t, writeString(t, d), "data")), &o))
	flips := 0
	for _, c := range o.Cases {
		if c.Flip != "" {
			flips++
			assert.Equal(t, g.Name, c.Name)
			assert.Contains(t, c.Flip, "cause case")
		}
	}
	assert.Equal(t, 1, flips)
}

// A run read as mcpeval report reads it (rundata.LoadLean) has each case's
// record as results.jsonl holds it: a large report's details carry that
// line as it is, a small report's the record decoded whole from it, its
// repeated texts left out as ever.
func TestWriteDetailsOfRecordLines(t *testing.T) {
	for _, tt := range []struct {
		name       string
		n          int
		compressed bool
	}{{"plain", 20, false}, {"compressed", 150, true}} {
		t.Run(tt.name, func(t *testing.T) {
			recs := syntheticRecords(tt.n, 20<<10)
			dir := t.TempDir()
			rundatatest.WriteRecords(t, dir, recs...)
			file, err := os.ReadFile(filepath.Join(dir, eval.RecordsFile))
			require.NoError(t, err)
			lines := map[string]bool{}
			for _, l := range strings.Split(strings.TrimSpace(string(file)), "\n") {
				lines[l] = true
			}
			d, err := rundata.LoadLean(dir, nil)
			require.NoError(t, err)
			require.Equal(t, tt.compressed, dataSize(d) > CompressAbove)
			page := writeString(t, d)

			var details []json.RawMessage
			if tt.compressed {
				for _, b := range regexp.MustCompile(`<script type="application/gzip" id="cases-\d+">([^<]*)</script>`).FindAllStringSubmatch(page, -1) {
					var block []json.RawMessage
					require.NoError(t, json.Unmarshal(gunzipBase64(t, b[1]), &block))
					details = append(details, block...)
				}
			} else {
				for _, b := range regexp.MustCompile(`<script type="application/json" id="case-\d+">([^<]*)</script>`).FindAllStringSubmatch(page, -1) {
					details = append(details, json.RawMessage(b[1]))
				}
			}
			require.Len(t, details, len(d.Cases))
			byName := map[string]eval.Record{}
			for _, r := range recs {
				byName[r.Name] = r
			}
			rowOf := map[int]rowJSON{}
			for i, g := range d.Groups {
				rowOf[g.Shown] = newRow(i, g, d.Cases, d.MetricNames)
			}
			for i, raw := range details {
				var det struct {
					Record json.RawMessage `json:"record"`
					detailJSON
				}
				require.NoError(t, json.Unmarshal(raw, &det))
				if tt.compressed {
					assert.True(t, lines[string(det.Record)], "case %d: its record's line as it is", i)
					continue
				}
				var whole detailJSON
				require.NoError(t, json.Unmarshal(raw, &whole))
				rec := byName[d.Cases[i].Name]
				assert.Equal(t, rec.Conversation, whole.restore(rowOf[i]), "case %d: decoded whole", i)
				assert.Equal(t, rec.ToolCalls, whole.Record.ToolCalls)
			}
		})
	}
}
