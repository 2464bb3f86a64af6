package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/rundata/rundatatest"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/report"
)

func TestMain(m *testing.M) {
	m.Run()
	rundatatest.RemoveFixture()
}

// fixtureCases are the cases of a full run of the fixture suite, by
// category: the ones with records and the ones known only from the test
// stream (harness_crash failed before it wrote one; needs_key was skipped).
var fixtureCases = map[string]string{
	"NUTM2G OMIM entries":    "Gene and Variant Utilities",
	"BRCA1 <b>injection</b>": "Gene and Variant Utilities",
	"huge result":            "Gene and Variant Utilities",
	"harness_crash":          "Gene and Variant Utilities",
	"PubMed search":          "Literature",
	"provider down":          "Literature",
	"slow server":            "Literature",
	"needs_key":              "Literature",
}

// pageCases are the cases the report's page shows: the rows of its data
// block, name to category.
func pageCases(t *testing.T, page string) map[string]string {
	t.Helper()
	const open = `<script type="application/json" id="data">`
	i := strings.Index(page, open)
	require.GreaterOrEqual(t, i, 0, "the page has its data block")
	block := page[i+len(open):]
	block = block[:strings.Index(block, "</script>")]
	var data struct {
		Cases []struct {
			Name     string `json:"name"`
			Category string `json:"category"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal([]byte(block), &data))
	out := map[string]string{}
	for _, c := range data.Cases {
		out[c.Name] = c.Category
	}
	return out
}

// The report of a real run, from its go test -json stream and its
// directory, shows every case: those with records and those only the
// stream knows.
func TestReadWritesTheReportOfARun(t *testing.T) {
	run := rundatatest.Fixture(t)
	stream, err := os.Open(run.Stream)
	require.NoError(t, err)
	defer stream.Close()
	r, err := report.Read(run.OutDir, stream)
	require.NoError(t, err)

	var page bytes.Buffer
	require.NoError(t, r.WriteHTML(&page))
	assert.True(t, strings.HasPrefix(page.String(), "<!DOCTYPE html>"))
	assert.Contains(t, page.String(), `<meta http-equiv="Content-Security-Policy"`)
	assert.Equal(t, fixtureCases, pageCases(t, page.String()))
	for _, payload := range rundatatest.Payloads {
		assert.NotContains(t, page.String(), payload, "the run's texts are data, never markup")
	}

	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	var junit bytes.Buffer
	require.NoError(t, r.WriteJUnit(&junit, ""))
	require.NoError(t, xml.Unmarshal(junit.Bytes(), &doc))
	got := map[string]string{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			name, _, _ := strings.Cut(c.Name, " [") // a testcase names its model: "case [model]"
			got[name] = s.Name
		}
	}
	assert.Equal(t, fixtureCases, got, "the JUnit file has a testcase per case, in its category's testsuite")
}

// Without a stream the report shows the records; a stream's lines that
// are not test events are a problem the page names, with the stream.
func TestReadRecordsAloneAndProblems(t *testing.T) {
	run := rundatatest.Fixture(t)
	r, err := report.Read(run.OutDir)
	require.NoError(t, err)
	var page bytes.Buffer
	require.NoError(t, r.WriteHTML(&page))
	cases := pageCases(t, page.String())
	assert.Len(t, cases, len(fixtureCases)-2, "the cases without a record are known from the stream alone")
	assert.NotContains(t, cases, "harness_crash")

	stream, err := os.Open(run.Stream)
	require.NoError(t, err)
	defer stream.Close()
	r, err = report.Read(run.OutDir, io.MultiReader(strings.NewReader("build exploded\n"), stream))
	require.NoError(t, err)
	page.Reset()
	require.NoError(t, r.WriteHTML(&page))
	assert.Contains(t, page.String(), "go test -json stream 1: build exploded")
	assert.Equal(t, fixtureCases, pageCases(t, page.String()))
}

// A run kept among others charts the pass rates of the runs of its case
// set, oldest first; the link to the newest run reads the run it names.
func TestReadChartsTheHistoryOfItsCaseSet(t *testing.T) {
	parent := t.TempDir()
	var dir string
	for i, id := range []string{"20261101T000000Z-aaaaaa", "20261102T000000Z-bbbbbb", "20261102T120000Z-cccccc"} {
		dir = filepath.Join(parent, runs.Dir, id)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		rundatatest.WriteRecords(t, dir, eval.Record{Name: "c", Category: "k", Test: "TestK/c", Status: eval.Pass})
		summary := eval.Summary{RunID: id, CaseSet: "set-a", Overall: eval.GroupResult{Cases: 1, PassRate: float64(i) / 2}}
		if i == 1 {
			summary.CaseSet = "set-b" // another case set
		}
		b, err := json.Marshal(summary)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), b, 0o644))
	}
	require.NoError(t, runs.MarkLatest(parent, dir))

	r, err := report.Read(filepath.Join(parent, runs.Latest))
	require.NoError(t, err)
	var page bytes.Buffer
	require.NoError(t, r.WriteHTML(&page))
	assert.Contains(t, page.String(), `"history":[{"run_id":"20261101T000000Z-aaaaaa"`)
	assert.Contains(t, page.String(), `{"run_id":"20261102T120000Z-cccccc"`)
	assert.NotContains(t, page.String(), "20261102T000000Z-bbbbbb")
}

// A run directory with nothing to report is an error, not an empty page.
func TestReadNothingToReport(t *testing.T) {
	_, err := report.Read(filepath.Join(t.TempDir(), "no-run"))
	assert.ErrorContains(t, err, "nothing to report")
}
