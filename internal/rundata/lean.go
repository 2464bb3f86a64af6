package rundata

import (
	"encoding/json"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// LoadLean is Load for the report's page and its JUnit file, which read
// less of each record than a comparison with a baseline does. Each case's
// Record holds what the table, the totals, the header and the JUnit file
// show, without the texts only a case's own view shows: the conversation,
// the tool calls' results, the judge's prompt and replies, the server's
// stderr and the metrics' details (their scores are kept). The case's
// Raw holds its record's line of results.jsonl whole, for that view.
//
// Decoding records is most of a report's work: LoadLean decodes with the
// prototype of encoding/json/v2, skipping what it leaves out, in a
// quarter of the time. It accepts the lines Load accepts, and refuses
// those Load refuses, with Load's problem, but one kind: a line whose
// metric details, which it skips, hold a value of the wrong type inside
// (an object where a number should be); the table needs nothing of them.
func LoadLean(outDir string, streams []Stream) (*Data, error) {
	return load(outDir, streams, true)
}

// leanOptions decode a record as encoding/json does: names matched
// without regard to case, a name given twice taking the last value,
// invalid UTF-8 accepted.
var leanOptions = jsonv2.JoinOptions(
	jsonv2.MatchCaseInsensitiveNames(true),
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
)

// leanRecord is a record as LoadLean decodes it: its fields are the
// record's, those shadowed here skipped or decoded leaner.
type leanRecord struct {
	eval.Record
	JudgeRaw     skippedString  `json:"judge_raw"`
	JudgePrompt  skippedString  `json:"judge_prompt"`
	JudgeReply   skippedString  `json:"judge_reply"`
	ServerStderr skippedString  `json:"server_stderr"`
	Conversation skippedObjects `json:"conversation"`
	ToolCalls    []leanToolCall `json:"tool_calls"`
	Metrics      *leanMetrics   `json:"metrics"`
}

// leanSummary is summary.json as LoadLean decodes it, without its cases.
type leanSummary struct {
	eval.Summary
	Cases skippedArray `json:"cases"`
}

// leanToolCall is a tool call, its result skipped.
type leanToolCall struct {
	eval.ToolCall
	Result skippedString `json:"result"`
}

// leanMetrics are the metrics' scores, which the table shows.
type leanMetrics struct {
	Kind        eval.Kind `json:"kind"`
	Correctness struct {
		Score float64 `json:"correctness_score"`
		leanDetails
	} `json:"correctness"`
	Quality *struct {
		Score float64 `json:"quality_score"`
		leanDetails
	} `json:"quality"`
	Performance struct {
		Score float64 `json:"performance_score"`
		leanDetails
	} `json:"performance"`
	Understanding struct {
		Score         float64 `json:"understanding_score"`
		NotApplicable bool    `json:"not_applicable"`
		leanDetails
	} `json:"prompt_understanding"`
	Coverage struct {
		Score         float64 `json:"coverage_score"`
		NotApplicable bool    `json:"not_applicable"`
		leanDetails
	} `json:"requirement_coverage"`
	Recovery struct {
		Score         float64 `json:"recovery_score"`
		NotApplicable bool    `json:"not_applicable"`
	} `json:"error_recovery"`
	Overall struct {
		Score float64 `json:"overall_score"`
	} `json:"overall"`
}

// leanDetails are a metric's details (under "tool_details" in earlier
// versions), skipped.
type leanDetails struct {
	Details     skippedObject `json:"details"`
	ToolDetails skippedObject `json:"tool_details"`
}

// skippedString is a string (or null) read and left out.
type skippedString struct{}

// UnmarshalJSONFrom skips the string, and fails on any other value.
func (*skippedString) UnmarshalJSONFrom(dec *jsontext.Decoder) error { return skip(dec, '"') }

// skippedArray is an array (or null) read and left out.
type skippedArray struct{}

// UnmarshalJSONFrom skips the array, and fails on any other value.
func (*skippedArray) UnmarshalJSONFrom(dec *jsontext.Decoder) error { return skip(dec, '[') }

// skippedObject is an object (or null) read and left out.
type skippedObject struct{}

// UnmarshalJSONFrom skips the object, and fails on any other value.
func (*skippedObject) UnmarshalJSONFrom(dec *jsontext.Decoder) error { return skip(dec, '{') }

// skippedObjects is an array of objects (or null) read and left out.
type skippedObjects struct{}

// UnmarshalJSONFrom skips the array, and fails on any other value or
// an element that is not an object.
func (*skippedObjects) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() == 'n' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != ']' {
		if err := skip(dec, '{'); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// skip skips the next value, of the kind want or null.
func skip(dec *jsontext.Decoder, want jsontext.Kind) error {
	if k := dec.PeekKind(); k != want && k != 'n' {
		return fmt.Errorf("want %v, not %v", want, k)
	}
	return dec.SkipValue()
}

// decodeLeanSummary decodes summary.json as LoadLean keeps it; what the
// lean decoding refuses is decoded whole, as Load would.
func decodeLeanSummary(b []byte, s *eval.Summary) error {
	var l leanSummary
	if err := jsonv2.Unmarshal(b, &l, leanOptions); err != nil {
		return json.Unmarshal(b, s)
	}
	*s = l.Summary
	return nil
}

// decodeLean decodes the record line as LoadLean keeps it. A line the
// lean decoding refuses is decoded whole, as Load would: it fails with
// Load's error.
func decodeLean(line []byte) (eval.Record, error) {
	var l leanRecord
	if err := jsonv2.Unmarshal(line, &l, leanOptions); err != nil {
		var rec eval.Record
		err := json.Unmarshal(line, &rec)
		return rec, err
	}
	rec := l.Record
	if l.ToolCalls != nil {
		rec.ToolCalls = make([]eval.ToolCall, 0, len(l.ToolCalls))
		for _, tc := range l.ToolCalls {
			rec.ToolCalls = append(rec.ToolCalls, tc.ToolCall)
		}
	}
	if m := l.Metrics; m != nil {
		rec.Metrics = &eval.Metrics{Kind: m.Kind}
		rec.Metrics.Correctness.Score = m.Correctness.Score
		if m.Quality != nil {
			rec.Metrics.Quality = &eval.QualityMetric{Score: m.Quality.Score}
		}
		rec.Metrics.Performance.Score = m.Performance.Score
		rec.Metrics.PromptUnderstanding.Score = m.Understanding.Score
		rec.Metrics.PromptUnderstanding.NotApplicable = m.Understanding.NotApplicable
		rec.Metrics.RequirementCoverage.Score = m.Coverage.Score
		rec.Metrics.RequirementCoverage.NotApplicable = m.Coverage.NotApplicable
		rec.Metrics.ErrorRecovery.RecoveryScore = m.Recovery.Score
		rec.Metrics.ErrorRecovery.NotApplicable = m.Recovery.NotApplicable
		rec.Metrics.Overall.Score = m.Overall.Score
	}
	return rec, nil
}
