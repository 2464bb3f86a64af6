package htmlreport

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/calibrate"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/rundata/rundatatest"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// judgedCases are answered by the stub agent from their reference calls.
const judgedCases = `
- case:
    name: "NUTM2G symbol"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of NUTM2G?"
    expected: "441457"
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
- case:
    name: "CFTR symbol"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of CFTR?"
    expected: "1080"
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: CFTR}}
`

// judgedLabels are four labelled answers, two to accept and two to reject.
const judgedLabels = `
- {question: "Entrez id of NUTM2G?", expected: "441457", answer: "441457", verdict: "yes", why: "same"}
- {question: "Entrez id of NUTM2G?", expected: "441457", answer: "NUTM2G is gene 441457.", verdict: "yes", why: "same"}
- {question: "Entrez id of NUTM2G?", expected: "441457", answer: "441475", verdict: "no", why: "digits swapped"}
- {question: "Entrez id of NUTM2G?", expected: "441457", answer: "I cannot look that up.", verdict: "no", why: "refusal"}
`

// TestSeveralJudgesInBrowser runs the suite with three judges on a stub
// whose second judge rejects every answer: the majority decides, each
// judge's verdict is in the record, and the report marks every case as
// split, counts them, and shows the judges' calibration beside the
// verdicts: weak when calibrated on these judges (the majority accepts
// everything, a kappa of 0), and missing without calibration.json.
func TestSeveralJudgesInBrowser(t *testing.T) {
	t.Parallel() // a tab of its own in the shared browser
	if testing.Short() {
		t.Skip("builds and runs the suite")
	}
	chromiumPath(t)
	cases, err := evalcase.Parse("cases.yaml", []byte(judgedCases))
	require.NoError(t, err)
	stub := llmstub.Start(llmstub.RejectingJudges(llmstub.Replay(cases), "judge-b"), llmstub.Options{})
	defer stub.Close()
	const judges = "judge-a,judge-b,judge-c"
	outDir, stream := runSuiteWith(t, judgedCases, "OPENAI_BASE_URL="+stub.BaseURL(), "EVAL_MODEL=stub-model",
		"OPENAI_API_KEY=sk-test-judges-123456", "EVAL_JUDGE_MODEL="+judges)

	summary, err := runs.ReadSummary(outDir)
	require.NoError(t, err)
	assert.Equal(t, 2, summary.Passed, "two of three judges accept: the majority decides")
	assert.Equal(t, 2, summary.JudgeDisagreements, "counted per run")
	assert.Equal(t, judges, summary.JudgeModel)
	assert.Equal(t, settings.JudgeMajority, summary.JudgeMode)
	recs, err := runs.ReadRecords(filepath.Join(outDir, eval.RecordsFile)) // every line a record
	require.NoError(t, err)
	require.Len(t, recs, 2)
	for _, r := range recs {
		assert.Equal(t, eval.Pass, r.Status, r.Reason)
		assert.Equal(t, "yes", r.Verdict)
		assert.True(t, r.JudgeDisagreement)
		require.Len(t, r.Judges, 3)
		assert.Equal(t, []string{"yes", "no", "yes"}, []string{r.Judges[0].Verdict, r.Judges[1].Verdict, r.Judges[2].Verdict})
		assert.Equal(t, "judge-b", r.Judges[1].Model)
		assert.Equal(t, "the answer does not match the expected answer", r.Judges[1].Reason)
		assert.Contains(t, r.Reason, "2 of 3 judges said yes (majority decides)")
	}

	// Calibrate the same judges on four labelled answers, with the stub.
	labelDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(labelDir, "ids.labels.yaml"), []byte(judgedLabels), 0o644))
	root := moduleRoot(t)
	st := settings.Settings{Root: root, Cases: filepath.Join(root, "cases"), Labels: labelDir, Cache: filepath.Join(labelDir, "cache.json"),
		BaseURL: stub.BaseURL(), Model: "stub-model", Judge: judges, JudgeMode: settings.JudgeMajority, Concurrency: 2,
		RequestTimeout: 10 * time.Second, RetryWait: time.Millisecond, RetryMaxWait: time.Millisecond, MaxRetries: 1}
	in, err := calibrate.Load(st)
	require.NoError(t, err)
	cal, err := calibrate.Run(context.Background(), st, in, io.Discard)
	require.NoError(t, err)
	_, err = calibrate.Write(outDir, cal)
	require.NoError(t, err)

	d := rundatatest.Load(t, outDir, stream)
	require.Equal(t, rundata.TrustWeak, d.Trust.Level, d.Trust.Message)
	assert.Equal(t, 2, d.Totals.Split)
	path := filepath.Join(t.TempDir(), "report.html")
	writeFile(t, path, d)
	p := openBrowser(t)
	p.cases = len(d.Cases)
	p.open(path)
	p.screenshot("several-judges", "")

	t.Run("calibration beside the verdicts", func(t *testing.T) {
		p.t = t
		assert.Equal(t, "weak", jsEval[string](p, `document.getElementById('trust').dataset.level`))
		msg := jsEval[string](p, `document.querySelector('#trust .trust-message').textContent`)
		assert.Contains(t, msg, "The judge judge-a,judge-b,judge-c (majority) has a kappa of 0.00, below 0.8")
		assert.Contains(t, msg, "Do not trust its verdicts alone.")
		facts := jsEval[map[string]string](p, `Object.fromEntries([...document.querySelectorAll('#trust [data-fact]')].map(d => [d.dataset.fact, d.querySelector('dd').textContent]))`)
		assert.Equal(t, "0.00", facts["kappa"])
		assert.Equal(t, "50.0%", facts["agreement"])
		assert.Equal(t, "4", facts["items"])
		assert.Equal(t, "4", facts["disagreements"], "the judges split on every labelled answer")
		assert.Equal(t, []string{"yes (accept)200", "no (reject)200"}, jsEval[[]string](p,
			`[...document.querySelectorAll('#trust .confusion tbody tr')].map(r => r.textContent)`))
		// The panel comes right after the run's verdict counts.
		assert.Equal(t, "trust", jsEval[string](p, `document.querySelector('.summary').nextElementSibling.id`))
	})

	t.Run("disagreement per case and per run", func(t *testing.T) {
		p.t = t
		assert.Equal(t, "2", jsEval[string](p, `document.querySelector('[data-count="split"] .n').textContent`))
		p.click(`.chip[data-status="split"]`)
		assert.Len(t, rowIDs(p), 2)
		reason := jsEval[string](p, `document.querySelector('#cases tbody td[data-key="reason"]').textContent`)
		assert.True(t, strings.HasPrefix(reason, "yesyesnoyesjudges split2 of 3 judges said yes"), reason)
		assert.Equal(t, []string{"judge-a: yes", "judge-b: no", "judge-c: yes"}, jsEval[[]string](p,
			`[...document.querySelectorAll('#cases tbody tr:first-child .jv')].map(j => j.title)`))
		p.clickUntil(`#cases tbody tr:first-child`, `!document.getElementById('detail').hidden`)
		assert.Equal(t, "Judges (split)", jsEval[string](p, `document.querySelector('#judges h3').textContent`))
		lines := jsEval[[]string](p, `[...document.querySelectorAll('#judges li')].map(li => li.textContent)`)
		require.Len(t, lines, 3)
		assert.True(t, strings.HasPrefix(lines[1], "judge-bnothe answer does not match the expected answer"), lines[1])
		// Each judge's own reply is kept and shown under its verdict.
		replies := jsEval[[]string](p, `[...document.querySelectorAll('#judges li pre')].map(pre => pre.textContent)`)
		require.Len(t, replies, 3)
		assert.Contains(t, replies[1], `"verdict":"no"`)
		p.screenshot("several-judges-case", "")
		p.assertClean()
	})

	// Without calibration.json the report says the judge is not calibrated.
	require.NoError(t, os.Remove(filepath.Join(outDir, eval.CalibrationFile)))
	d = rundatatest.Load(t, outDir, stream)
	require.Equal(t, rundata.TrustNone, d.Trust.Level)
	path = filepath.Join(t.TempDir(), "uncalibrated.html")
	writeFile(t, path, d)
	p = openBrowser(t)
	p.cases = len(d.Cases)
	p.open(path)
	assert.Equal(t, "Judge not calibrated", jsEval[string](p, `document.querySelector('#trust h2').textContent`))
	assert.Contains(t, jsEval[string](p, `document.querySelector('#trust .trust-message').textContent`),
		fmt.Sprintf("The judge %s (majority) has no calibration", judges))
	assert.Equal(t, 0, jsEval[int](p, `document.querySelectorAll('#trust .confusion').length`))
	p.assertClean()
}
