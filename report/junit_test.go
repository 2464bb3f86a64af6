package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
)

// A JUnit file as gotestsum writes it.
const gotestsumJUnit = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="2" errors="0" time="0.057000">
	<testsuite tests="3" failures="2" time="0.057000" name="github.com/x/evaltest" timestamp="2026-11-22T00:40:00Z">
		<properties>
			<property name="go.version" value="go1.26.8 linux/amd64"></property>
		</properties>
		<testcase classname="github.com/x/evaltest" name="TestGenes/Wrong" time="0.010000">
			<properties>
				<property name="eval.status" value="fail"></property>
			</properties>
			<failure message="Failed" type="">=== RUN   TestGenes/Wrong&#xA;    eval_test.go:86: fail (judge: no): the answer names &lt;BRCA1&gt;&#xA;</failure>
		</testcase>
		<testcase classname="github.com/x/evaltest" name="TestGenes" time="0.000000">
			<failure message="Failed" type="">--- FAIL: TestGenes (0.00s)&#xA;</failure>
		</testcase>
		<testcase classname="github.com/x/evaltest" name="TestGenes/Right" time="0.020000"></testcase>
		<testcase classname="github.com/x/evaltest" name="TestOther" time="0.000000">
			<skipped message="no cases"></skipped>
		</testcase>
	</testsuite>
</testsuites>
`

func TestAnnotateJUnit(t *testing.T) {
	d := &Data{Cases: []Case{
		{Test: "TestGenes/Wrong", Status: eval.Fail, Reason: "the answer names\n<BRCA1>, not NUTM2G", Record: &eval.Record{Verdict: "no"}},
		{Test: "TestGenes/Right", Status: eval.Pass, Reason: "fine"},
	}}
	var out bytes.Buffer
	require.NoError(t, AnnotateJUnit(strings.NewReader(gotestsumJUnit), &out, d))

	var doc junitSuites
	require.NoError(t, xml.Unmarshal(out.Bytes(), &doc))
	require.Len(t, doc.Suites, 1)
	cases := doc.Suites[0].Cases
	require.Len(t, cases, 4)

	wrong := cases[0]
	require.NotNil(t, wrong.Failure)
	assert.Equal(t, "fail (judge: no): the answer names <BRCA1>, not NUTM2G", wrong.Failure.Message)
	assert.Equal(t, "fail", wrong.Failure.Type)
	assert.Contains(t, wrong.Failure.Contents, "eval_test.go:86", "the test output is kept")
	require.NotNil(t, wrong.Properties)
	assert.Equal(t, "eval.status", wrong.Properties.Props[0].Name)

	assert.Equal(t, "Failed", cases[1].Failure.Message, "a category test is not an eval case: left alone")
	assert.Nil(t, cases[2].Failure)
	require.NotNil(t, cases[3].Skipped)
	assert.Equal(t, "no cases", cases[3].Skipped.Message)

	assert.Contains(t, out.String(), `name="github.com/x/evaltest"`, "suite attributes survive")
	assert.Contains(t, out.String(), `go.version`)
	assert.Contains(t, out.String(), `&lt;BRCA1&gt;`, "text stays escaped")
}

func TestAnnotateJUnitRepeats(t *testing.T) {
	// go test -count=3: the first and third runs failed. gotestsum lists
	// the failed test cases first, in the order they ran.
	junit := `<testsuites><testsuite name="p">
		<testcase classname="p" name="TestGenes/Flaky" time="1"><failure message="Failed">first</failure></testcase>
		<testcase classname="p" name="TestGenes/Flaky" time="3"><failure message="Failed">third</failure></testcase>
		<testcase classname="p" name="TestGenes/Flaky" time="2"></testcase>
	</testsuite></testsuites>`
	run := func(repeat int, status eval.Status, action, reason string) Case {
		return Case{Test: "TestGenes/Flaky", Repeat: repeat, Status: status, Reason: reason, Event: TestOutcome{Action: action}}
	}
	d := &Data{Cases: []Case{
		run(0, eval.Fail, "fail", "first run wrong"),
		run(1, eval.Pass, "pass", "second run right"),
		run(2, eval.Error, "fail", "third run broke"),
	}}
	var out bytes.Buffer
	require.NoError(t, AnnotateJUnit(strings.NewReader(junit), &out, d))
	var doc junitSuites
	require.NoError(t, xml.Unmarshal(out.Bytes(), &doc))
	cases := doc.Suites[0].Cases
	require.Len(t, cases, 3)
	assert.Equal(t, "fail: first run wrong", cases[0].Failure.Message)
	assert.Equal(t, "error: third run broke", cases[1].Failure.Message)
	assert.Nil(t, cases[2].Failure)
}

func TestAnnotateJUnitRejectsGarbage(t *testing.T) {
	err := AnnotateJUnit(strings.NewReader("not xml"), &bytes.Buffer{}, &Data{})
	require.ErrorContains(t, err, "read JUnit XML")
}

func TestOnlyRoutineLines(t *testing.T) {
	for text, want := range map[string]bool{
		"FAIL\nFAIL\tgithub.com/x/evaltest\t0.05s":                                                 true,
		"mcpeval: model m: 2 cases: 1 passed, 1 failed\nmcpeval: records: out/results.jsonl\nFAIL": true,
		"mcpeval: error: MCP server failed to start, no case was run\nFAIL":                        false,
		"panic: test timed out after 10s":                                                          false,
		"warning: cache file moved aside":                                                          false,
	} {
		assert.Equal(t, want, onlyRoutineLines(text), text)
	}
}
