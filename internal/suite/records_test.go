package suite

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// fullRecord returns a record with every field a cached run sets, and many
// it keeps, filled in.
func fullRecord() eval.Record {
	coverage := 0.75
	return eval.Record{
		Name: "stored name", Category: "Stored", Test: "TestStored/stored_name", File: "/old/cases.yaml", Line: 3,
		Kind: eval.KindTool, Status: eval.Pass, Question: "What is <TP53>?", Expected: "7157 & more",
		Response: "It is 7157.", Verdict: "yes", Reason: "matches", JudgePrompt: "grade \"this\"", JudgeReply: "yes",
		Judges:       []eval.JudgeVerdict{{Model: "j", Verdict: "yes", Reason: "ok"}},
		Checks:       []eval.CheckResult{{Check: `contains "7157"`, Passed: true}},
		ToolCalls:    []eval.ToolCall{{ID: "1", Name: "get", Arguments: `{"a":1}`, Result: "7157", DurationMS: 2.5, ResultTokens: 3}},
		Conversation: []eval.Message{{Role: "user", Content: "What is <TP53>?"}, {Role: "assistant", Content: "It is 7157."}},
		Usage:        eval.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12, Requests: 2},
		JudgeUsage:   &eval.Usage{TotalTokens: 4, Requests: 1},
		Seconds:      1.25, Model: "m", Arm: "arm-a", JudgeModel: "j", StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Metrics: &eval.Metrics{Kind: eval.KindTool}, Grading: 3, Coverage: &coverage,
		Claims: []eval.ClaimResult{{Claim: "c", Verdict: eval.ClaimFulfilled}},
	}
}

// The line of a cached record written from its stored JSON is the line
// of the record itself: this run's identity fields, the stored record's
// others.
func TestCachedLineIsTheRecordsLine(t *testing.T) {
	stored := fullRecord()
	storedJSON, err := json.Marshal(stored)
	require.NoError(t, err)
	tests := map[string]func(*eval.Record){
		"as stored": func(*eval.Record) {},
		"this run's identity": func(r *eval.Record) {
			r.Name, r.Category, r.Test, r.File, r.Line = "new \"name\"", "New", "TestNew/new", "/new/cases.yaml", 9
			r.Repeat, r.Cached, r.TraceID = 2, true, "4bf92f3577b34da6a3ce929d0e0e4736"
		},
	}
	for name, change := range tests {
		t.Run(name, func(t *testing.T) {
			rec := stored
			change(&rec)
			var want bytes.Buffer
			require.NoError(t, json.NewEncoder(&want).Encode(rec))
			var got bytes.Buffer
			require.True(t, cachedLine(&got, rec, storedJSON))
			assert.Equal(t, want.String(), got.String())
		})
	}
	var buf bytes.Buffer
	assert.False(t, cachedLine(&buf, stored, []byte(`{"name":"x"}`)), "no question field")
}

// The fields of a record before its question are those cachedLine takes
// from this run's record: a field added there must be added to it too.
func TestCachedLineTakesEveryFieldBeforeTheQuestion(t *testing.T) {
	var before []string
	record := reflect.TypeFor[eval.Record]()
	for i := range record.NumField() {
		name, _, _ := strings.Cut(record.Field(i).Tag.Get("json"), ",")
		if name == "question" {
			break
		}
		before = append(before, name)
	}
	assert.Equal(t, []string{"name", "category", "test", "file", "line", "kind", "status", "cached", "regraded", "reference", "repeat", "trace_id"}, before)
}
