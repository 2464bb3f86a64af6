package evalcase

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

func TestParseLabels(t *testing.T) {
	labels, err := ParseLabels("x.labels.yaml", []byte(`
- case: "gene"
  answer: "NUTM2G"
  verdict: " YES "
  why: "same gene"
  kind: paraphrase
- question: "q?"
  expected: "e"
  answer: "a"
  verdict: no
  why: "w"
`))
	require.NoError(t, err)
	require.Len(t, labels, 2)
	assert.Equal(t, eval.Label{Case: "gene", Answer: "NUTM2G", Verdict: "yes", Why: "same gene", Kind: "paraphrase",
		Provenance: eval.BesideTheChecks, File: "x.labels.yaml", Line: 2}, labels[0], "a list declares nothing: beside the checks")
	assert.Equal(t, "no", labels[1].Verdict)
	assert.Equal(t, 7, labels[1].Line)
}

// A label file may declare where its labels come from; a blind one must
// name its author and commit, and its set and whether it is spent reach
// every label.
func TestParseLabelsProvenance(t *testing.T) {
	labels, err := ParseLabels("b.labels.yaml", []byte(`
provenance: blind
author: "a reviewer"
commit: c14a7a2
set: blind-9
spent: "fixed at abc"
labels:
  - case: "gene"
    answer: "NUTM2G"
    verdict: yes
    why: "same gene"
  - case: "gene"
    answer: "BRCA1"
    verdict: no
    why: "another gene"
    set: own
`))
	require.NoError(t, err)
	require.Len(t, labels, 2)
	assert.Equal(t, eval.Label{Case: "gene", Answer: "NUTM2G", Verdict: "yes", Why: "same gene", Set: "blind-9",
		Provenance: eval.Blind, Author: "a reviewer", Commit: "c14a7a2", Spent: "fixed at abc", File: "b.labels.yaml", Line: 8}, labels[0])
	assert.Equal(t, "own", labels[1].Set, "a label's own set wins")
	assert.Equal(t, 12, labels[1].Line)

	for _, tt := range []struct{ name, content, want string }{
		{"blind without author", "provenance: blind\ncommit: x\nlabels:\n  - {case: g, answer: a, verdict: yes, why: w}\n", "b.labels.yaml:2: blind labels must say who wrote them"},
		{"unknown provenance", "provenance: guessed\nlabels:\n  - {case: g, answer: a, verdict: yes, why: w}\n", `b.labels.yaml:2: provenance "guessed"`},
		{"no provenance", "labels:\n  - {case: g, answer: a, verdict: yes, why: w}\n", "b.labels.yaml:2: a label file written as a map must declare its provenance"},
		{"no labels", "provenance: beside-the-checks\n", "b.labels.yaml:2: expected labels: with a list"},
		{"unknown key", "provenance: blind\nauthor: a\ncommit: c\nwriter: b\nlabels:\n  - {case: g, answer: a, verdict: yes, why: w}\n", "b.labels.yaml:5"},
		{"a label without why", "provenance: beside-the-checks\nlabels:\n  - {case: g, answer: a, verdict: yes}\n", "b.labels.yaml:4: label: missing required field(s): why"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseLabels("b.labels.yaml", []byte("\n"+tt.content))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestParseLabelsErrors(t *testing.T) {
	tests := map[string]struct{ yaml, err string }{
		"empty":                {"", "x.labels.yaml:1: empty label file"},
		"not a list":           {"answer: a\n", "x.labels.yaml:1: expected a list of labelled answers, found a map"},
		"unknown field":        {"- answer: a\n  verdict: yes\n  why: w\n  case: c\n  label: yes\n", `x.labels.yaml:5: unknown field "label" in label`},
		"bad verdict":          {"- {case: c, answer: a, verdict: maybe, why: w}\n", `x.labels.yaml:1: label: verdict must be "yes" or "no", not "maybe"`},
		"missing fields":       {"- {case: c, verdict: yes}\n", "x.labels.yaml:1: label: missing required field(s): answer, why"},
		"no case, no question": {"- {answer: a, verdict: yes, why: w}\n", "missing required field(s): question (or case), expected (or case)"},
		"YAML error":           {"- answer: [\n", "x.labels.yaml:"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := ParseLabels("x.labels.yaml", []byte(tt.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestLinkLabels(t *testing.T) {
	cases := []eval.Case{{Name: "gene", Input: "Which gene?", Expected: "NUTM2G", File: "c.yaml", Line: 3}}
	labels := []eval.Label{
		{Case: "gene", Answer: "a", File: "l.yaml", Line: 1},
		{Case: "gene", Question: " Which gene? ", Expected: "NUTM2G", Answer: "a", File: "l.yaml", Line: 2},
		{Case: "other", Question: "q", Expected: "e", Answer: "a", File: "l.yaml", Line: 3},
		{Question: "q", Expected: "e", Answer: "a", File: "l.yaml", Line: 4},
	}
	links, warnings, err := LinkLabels(labels, cases)
	require.NoError(t, err)
	assert.Empty(t, warnings)
	assert.Equal(t, []*eval.Case{&cases[0], &cases[0], nil, nil}, links)
	assert.Equal(t, "Which gene?", labels[0].Question, "a label takes its case's question")
	assert.Equal(t, "NUTM2G", labels[0].Expected)

	stale := []eval.Label{{Case: "gene", Question: "Which protein?", Expected: "NUTM2G", Answer: "a", File: "l.yaml", Line: 9}}
	links, warnings, err = LinkLabels(stale, cases)
	require.NoError(t, err, "a label of another version of the case still measures the judge")
	assert.Equal(t, []*eval.Case{nil}, links)
	assert.Equal(t, []string{`l.yaml:9: the label's question differs from that of case "gene" (c.yaml:3): it is measured on the judge only; update the label or the case`}, warnings)
	_, _, err = LinkLabels([]eval.Label{{Case: "missing", Answer: "a", File: "l.yaml", Line: 5}}, cases)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `l.yaml:5: label names case "missing", which is not loaded`)
	_, _, err = LinkLabels([]eval.Label{{Case: "gene", Expected: "BRCA1", Answer: "a", File: "l.yaml", Line: 6}}, cases)
	require.Error(t, err, "a stale label without a question of its own cannot stand alone")
}

// Label files sit beside case files without being loaded as cases.
func TestLabelFilesBesideCases(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	write("genes.yaml", "- case: {name: a, input: q, expected: e}\n")
	write("genes.labels.yaml", "- {case: a, answer: x, verdict: no, why: w}\n")
	write("sub/more.labels.yml", "- {case: a, answer: e, verdict: yes, why: w}\n")
	cases, err := LoadPath(dir)
	require.NoError(t, err)
	assert.Len(t, cases, 1, "label files are not case files")

	files, err := LabelsBeside(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "genes.labels.yaml"), filepath.Join(dir, "sub", "more.labels.yml")}, files)
	files, err = LabelsBeside(filepath.Join(dir, "genes.yaml"))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "genes.labels.yaml")}, files)
	files, err = LabelFiles(filepath.Join(dir, "missing"))
	require.NoError(t, err)
	assert.Empty(t, files)
	labels, err := LoadLabels(files)
	require.NoError(t, err)
	assert.Empty(t, labels)
}
