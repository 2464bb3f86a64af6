package rundata_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/rundata/rundatatest"
)

// lean is what LoadLean keeps of data that Load read: the records
// without the texts only a case's view shows, the header without the
// summary's cases.
func lean(d *rundata.Data) *rundata.Data {
	out := *d
	out.Run.Cases = nil
	out.Cases = make([]rundata.Case, len(d.Cases))
	for i, c := range d.Cases {
		if c.Record != nil {
			r := *c.Record
			r.Conversation = nil
			r.JudgeRaw, r.JudgePrompt, r.JudgeReply, r.ServerStderr = "", "", "", ""
			r.ToolCalls = slices.Clone(r.ToolCalls)
			for i := range r.ToolCalls {
				r.ToolCalls[i].Result = ""
			}
			if m := c.Record.Metrics; m != nil {
				r.Metrics = &eval.Metrics{Kind: m.Kind}
				r.Metrics.Correctness.Score = m.Correctness.Score
				if m.Quality != nil {
					r.Metrics.Quality = &eval.QualityMetric{Score: m.Quality.Score}
				}
				r.Metrics.Performance.Score = m.Performance.Score
				r.Metrics.PromptUnderstanding = eval.UnderstandingMetric{Score: m.PromptUnderstanding.Score, NotApplicable: m.PromptUnderstanding.NotApplicable}
				r.Metrics.RequirementCoverage = eval.CoverageMetric{Score: m.RequirementCoverage.Score, NotApplicable: m.RequirementCoverage.NotApplicable}
				r.Metrics.ErrorRecovery = eval.RecoveryMetric{RecoveryScore: m.ErrorRecovery.RecoveryScore, NotApplicable: m.ErrorRecovery.NotApplicable}
				r.Metrics.Overall.Score = m.Overall.Score
			}
			c.Record = &r
		}
		out.Cases[i] = c
	}
	return &out
}

// loadBoth loads the run in dir with Load and with LoadLean, and checks
// that each case of LoadLean holds its record's line whole, the record
// Load decoded; it returns what Load read, made lean, and what LoadLean
// read, without the lines, to compare.
func loadBoth(t *testing.T, dir string, stream string) (want, got *rundata.Data) {
	t.Helper()
	load := func(f func(string, []rundata.Stream) (*rundata.Data, error)) *rundata.Data {
		var streams []rundata.Stream
		if stream != "" {
			s, err := os.Open(stream)
			require.NoError(t, err)
			defer s.Close()
			streams = append(streams, rundata.Stream{Name: stream, R: s})
		}
		d, err := f(dir, streams)
		require.NoError(t, err)
		d.Generated = time.Time{}
		return d
	}
	whole, leanData := load(rundata.Load), load(rundata.LoadLean)
	records, err := os.ReadFile(filepath.Join(dir, eval.RecordsFile))
	require.NoError(t, err)
	require.Len(t, leanData.Cases, len(whole.Cases))
	for i, c := range leanData.Cases {
		assert.Nil(t, whole.Cases[i].Raw, "Load keeps no line")
		if c.Record == nil {
			assert.Nil(t, c.Raw, "%s has no record", c.Name)
			continue
		}
		require.NotNil(t, c.Raw, c.Name)
		assert.True(t, bytes.Contains(records, append(c.Raw, '\n')), "%s: its line whole", c.Name)
		var r eval.Record
		require.NoError(t, json.Unmarshal(c.Raw, &r))
		assert.Equal(t, *whole.Cases[i].Record, r, "%s: the line is the record Load read", c.Name)
		leanData.Cases[i].Raw = nil
	}
	return lean(whole), leanData
}

func TestLoadLeanFixtureRun(t *testing.T) {
	run := rundatatest.Fixture(t)
	want, got := loadBoth(t, run.OutDir, run.Stream)
	assert.Equal(t, want, got)
	assert.Equal(t, fixtureOutcomes, outcomes(got))
}

func TestLoadLeanKeepsWhatThePageAndJUnitShow(t *testing.T) {
	score := func(f float64) *float64 { return &f }
	started := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	recs := []eval.Record{{
		Name: "tool case", Category: "Genes", Test: "TestGenes/tool_case", File: "cases/genes.yaml", Line: 12,
		Kind: eval.KindTool, Status: eval.Fail, Repeat: 1, Question: "q", Expected: "e", Response: "r",
		Verdict: "no", Reason: "wrong", JudgeRaw: "raw reply", JudgePrompt: "prompt", JudgeReply: "reply",
		Judges:            []eval.JudgeVerdict{{Model: "j1", Verdict: "no", Reason: "x", Raw: "raw"}, {Model: "j2", Verdict: "yes"}},
		JudgeDisagreement: true, Checks: []eval.CheckResult{{Check: "contains", Passed: false, Detail: "d"}},
		ToolCalls: []eval.ToolCall{{ID: "c1", Name: "get_gene", Server: "s", Arguments: `{"a":1}`, Result: "result text", IsError: true,
			Refused: true, DurationMS: 3.5, ResultTokens: 9, ResultFingerprint: "ab", Elicitations: []eval.Elicitation{{Message: "m"}}}},
		Conversation: []eval.Message{{Role: "user", Content: "q"}, {Role: "tool", ToolCallID: "c1", Content: "result text",
			Extra: map[string]json.RawMessage{"k": json.RawMessage(`{"x":[1]}`)}}},
		Usage:      eval.Usage{TotalTokens: 10, Requests: 2, CostUSD: 0.5},
		JudgeUsage: &eval.Usage{Requests: 1}, UserUsage: &eval.Usage{Requests: 3},
		Seconds: 2, Model: "m", Arm: "a", JudgeModel: "j1,j2", UserModel: "u", StartedAt: started, ServerStderr: "panic",
		Metrics: &eval.Metrics{Kind: eval.KindTool,
			Correctness:         eval.CorrectnessMetric{Score: 0, ToolDetails: &eval.ToolCorrectnessDetails{}},
			Performance:         eval.PerformanceMetric{Score: 0.5, ToolDetails: &eval.ToolPerformanceDetails{Seconds: 2}},
			PromptUnderstanding: eval.UnderstandingMetric{NotApplicable: true},
			RequirementCoverage: eval.CoverageMetric{Score: 0.25, ToolDetails: &eval.ToolCoverageDetails{CalledTools: []string{"get_gene"}}},
			ErrorRecovery:       eval.RecoveryMetric{HasError: true, RecoveryScore: 0.3, RecoveryAttemptsCount: 1},
			Overall:             eval.OverallMetric{Score: 0.2, Weights: map[string]float64{"correctness": 1}, NotApplicable: []string{"quality"}}},
		Claims:   []eval.ClaimResult{{Claim: "c", Verdict: eval.ClaimPartial, Score: score(0.5)}},
		Coverage: score(0.5),
		Turns:    []eval.TurnResult{{Turn: 1, User: "u", Reply: "r", Status: eval.Fail, Leaks: []string{"the answer"}}},
		Grading:  3,
	}, {
		Name: "code case", Category: "Code", Test: "TestCode/code_case", Kind: eval.KindCode, Status: eval.Pass,
		Cached: true, Regraded: true, Reference: true, Facts: []eval.Fact{{Fact: "f", Status: eval.FactFound}},
		Metrics: &eval.Metrics{Kind: eval.KindCode, Quality: &eval.QualityMetric{Score: 0.75, Details: eval.QualityDetails{SyntaxValid: true}},
			Correctness:         eval.CorrectnessMetric{Score: 1, Details: &eval.CorrectnessDetails{}},
			PromptUnderstanding: eval.UnderstandingMetric{NotApplicable: true},
			RequirementCoverage: eval.CoverageMetric{NotApplicable: true},
			ErrorRecovery:       eval.RecoveryMetric{NotApplicable: true}, Overall: eval.OverallMetric{Score: 0.9}},
	}, {
		Name: "no metrics", Test: "TestCode/no_metrics", Status: eval.Error, Reason: "provider down",
	}}
	dir := t.TempDir()
	rundatatest.WriteRecords(t, dir, recs...)
	summary, err := json.Marshal(eval.Summary{Model: "m", Cases: []eval.CaseResult{{Name: "tool case"}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), summary, 0o644))

	want, got := loadBoth(t, dir, "")
	assert.Equal(t, want, got)
	require.NotNil(t, got.Run.Model)
	assert.Equal(t, "m", got.Run.Model, "the header is the summary's")
	assert.Nil(t, got.Run.Cases, "but for its cases")
	byName := map[string]rundata.Case{}
	for _, c := range got.Cases {
		byName[c.Name] = c
	}
	tool := byName["tool case"].Record
	assert.Empty(t, tool.Conversation)
	assert.Empty(t, tool.JudgePrompt+tool.JudgeReply+tool.JudgeRaw+tool.ServerStderr+tool.ToolCalls[0].Result)
	assert.Equal(t, `{"a":1}`, tool.ToolCalls[0].Arguments, "the table shows the arguments")
	assert.Equal(t, []string{"the answer"}, tool.Turns[0].Leaks)
	assert.Equal(t, map[string]float64{"overall": 0.2, "correctness": 0, "performance": 0.5, "coverage": 0.25, "recovery": 0.3},
		byName["tool case"].Scores)
	assert.Equal(t, map[string]float64{"overall": 0.9, "correctness": 1, "quality": 0.75, "performance": 0},
		byName["code case"].Scores)
	assert.Nil(t, byName["no metrics"].Scores)
}

func TestLoadLeanReadsLinesAsLoadDoes(t *testing.T) {
	tests := []struct {
		name string
		line string
		bad  bool // Load refuses it
		kept bool // but LoadLean keeps it
	}{
		{name: "names in another case", line: `{"NAME":"a","Test":"T/a","Status":"pass","Tool_Calls":[{"ID":"c","RESULT":"r"}]}`},
		{name: "a name given twice", line: `{"name":"a","test":"T/a","status":"fail","status":"pass","judge_prompt":"x","judge_prompt":"y"}`},
		{name: "invalid UTF-8", line: "{\"name\":\"a\xff\",\"test\":\"T/a\",\"status\":\"pass\",\"conversation\":[{\"role\":\"user\",\"content\":\"\xfe\"}]}"},
		{name: "null texts", line: `{"name":"a","test":"T/a","status":"pass","conversation":null,"judge_prompt":null,"metrics":null,"tool_calls":null}`},
		{name: "cut off", line: `{"name":"half`, bad: true},
		{name: "a conversation that is not a list", line: `{"name":"a","test":"T/a","status":"pass","conversation":"hello"}`, bad: true},
		{name: "a message that is not a message", line: `{"name":"a","test":"T/a","status":"pass","conversation":[1]}`, bad: true},
		{name: "a judge prompt that is not text", line: `{"name":"a","test":"T/a","status":"pass","judge_prompt":{"x":1}}`, bad: true},
		{name: "a tool result that is not text", line: `{"name":"a","test":"T/a","status":"pass","tool_calls":[{"id":"c","result":[1]}]}`, bad: true},
		{name: "a score that is not a number", line: `{"name":"a","test":"T/a","status":"pass","metrics":{"overall":{"overall_score":"high"}}}`, bad: true},
		{name: "metric details that are not details", line: `{"name":"a","test":"T/a","status":"pass","metrics":{"kind":"tool","correctness":{"details":7}}}`, bad: true},
		{name: "metric details of another shape", line: `{"name":"a","test":"T/a","status":"pass","metrics":{"kind":"tool","correctness":{"details":{"passed":"yes"}}}}`, bad: true, kept: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			good := `{"name":"b","test":"T/b","status":"pass"}`
			require.NoError(t, os.WriteFile(filepath.Join(dir, eval.RecordsFile), []byte(good+"\n"+tt.line+"\n"), 0o644))
			whole, err := rundata.Load(dir, nil)
			require.NoError(t, err)
			require.Equal(t, tt.bad, len(whole.Problems) > 0, "Load's problems: %q", whole.Problems)
			if tt.kept {
				d, err := rundata.LoadLean(dir, nil)
				require.NoError(t, err)
				assert.Empty(t, d.Problems)
				require.Len(t, d.Cases, 2)
				assert.Equal(t, tt.line, string(d.Cases[0].Raw))
				assert.Equal(t, eval.Pass, d.Cases[0].Status)
				return
			}
			want, got := loadBoth(t, dir, "")
			assert.Equal(t, want, got)
			if tt.bad {
				assert.Len(t, got.Cases, 1)
				assert.Contains(t, strings.Join(got.Problems, "\n"), "line 2 is not a record")
			}
		})
	}
}
