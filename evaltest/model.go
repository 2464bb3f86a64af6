// Package evaltest runs evaluation cases as go test subtests: every YAML
// case is a parallel subtest of its category's test function.
//
// A module of its own (mcpeval init writes one) declares a Suite and wires
// it to go test in a few lines (see the example): TestMain calls Main, one
// function per category calls Run, TestOtherCategories calls RunOther.
// This package's own tests are mcpeval's suite, the same way:
//
//	go test ./evaltest                      # every case
//	go test ./evaltest -run Gene -force     # categories containing "Gene", ignoring the cache
//	go test ./evaltest -args -h             # every setting, with its environment variable
//
// It is also the API a user's own code needs: the case format and the
// record model below are what case files hold and what a run writes to
// results.jsonl, summary.json and the metrics files. The logic lives in
// internal packages; this package wires it to go test.
package evaltest

import (
	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
)

// The case format (what a case file holds) and the record model (what a
// run writes).
type (
	// Case is one evaluation case: its question, expected answer and
	// optional checks, tool expectations, reference trajectory and budget.
	Case = eval.Case
	// Kind says how a case is answered: KindTool or KindCode.
	Kind = eval.Kind
	// Record is everything known about one evaluated case, one line of
	// results.jsonl.
	Record = eval.Record
	// Status is a case's outcome: Pass, Fail, TokenLimit, Error or
	// Undecided.
	Status = eval.Status
	// ToolCall is one tool call of a record, with its result.
	ToolCall = eval.ToolCall
	// JudgeVerdict is one judge's verdict and reason in a record.
	JudgeVerdict = eval.JudgeVerdict
	// Metrics are a record's six metrics and overall score.
	Metrics = eval.Metrics
	// Summary describes a run: summary.json.
	Summary = eval.Summary
	// MetricsEntry is one element of metrics.json.
	MetricsEntry = eval.MetricsEntry
	// MetricsSummary aggregates a run's metrics: metrics_summary.json.
	MetricsSummary = eval.MetricsSummary
	// Label is a labelled answer, one item of a *.labels.yaml file.
	Label = eval.Label
	// Calibration is calibration.json, written by make calibrate.
	Calibration = eval.Calibration
)

// The kinds and outcomes of a case.
const (
	KindTool   = eval.KindTool
	KindCode   = eval.KindCode
	Pass       = eval.Pass
	Fail       = eval.Fail
	TokenLimit = eval.TokenLimit
	Error      = eval.Error
	// Undecided: the judge could not decide (an unclear reply, twice).
	Undecided = eval.Undecided
)

// LoadCases loads the cases of a case file, or of every *.yaml and *.yml
// file below a directory. Decoding is strict: every problem is an error
// naming the file and line.
func LoadCases(path string) ([]Case, error) { return evalcase.LoadPath(path) }
