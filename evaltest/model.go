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
	"slices"
)

// The case format (what a case file holds) and the record model (what a
// run writes).
type (
	// Case is one evaluation case: its question, expected answer and
	// optional checks, tool expectations, reference trajectory, budget and
	// the user's replies to the servers' requests for input (elicitation).
	Case = eval.Case
	// Kind says how a case is answered: KindTool or KindCode.
	Kind = eval.Kind
	// Record is everything known about one run of a case, one line of
	// results.jsonl. Its fields, with their JSON names:
	//
	//	Name, Category string        name, category: the case's
	//	Test string                  test: the go test name of its subtest (TestCategory/Case)
	//	File string, Line int        file, line: where the case is
	//	Kind Kind                    kind: "tool" or "code"
	//	Status Status                status: pass, fail, error, token_limit, cut, undecided, not_run
	//	Cached bool                  cached: reused from the result cache, not run now
	//	Regraded bool                regraded: cached, and graded again by this run's rules
	//	Reference bool               reference: the answer came from the reference agent
	//	Model string, Repeat int     model, repeat: the run of the case (see CaseRun)
	//	Arm string                   arm: the arm of the run (-arms), "" without arms
	//	Question, Expected string    question, expected: from the case file
	//	Response string              response: the model's final answer
	//	ResponseBytes int            response_bytes: the answer's full size when it was stored cut
	//	Verdict string               verdict: "yes" or "no" from the judge, "" without one
	//	Reason string                reason: why the status (the judge's reason, the failed check, the error)
	//	JudgeRaw string              judge_raw: the judge's reply when it was unclear
	//	JudgePrompt string           judge_prompt: what the judge was asked (question, expected answer, answer)
	//	JudgeReply string            judge_reply: the judge's reply as text
	//	Judges []JudgeVerdict        judges: each judge's own verdict and reason
	//	JudgeDisagreement bool       judge_disagreement: the judges did not all agree
	//	Checks []CheckResult         checks: each deterministic check and its outcome
	//	ToolCalls []ToolCall         tool_calls: every tool call, its arguments and its result
	//	Conversation []Message       conversation: the messages, in OpenAI's shape, as sent
	//	Usage Usage                  usage: tokens, requests, retries and cost of the agent and judge
	//	JudgeUsage *Usage            judge_usage: the judge's part of usage
	//	Seconds float64              seconds: the run's wall time
	//	JudgeModel string            judge_model: the judge model(s)
	//	StartedAt time.Time          started_at: when the run started
	//	ServerStderr string          server_stderr: the server's stderr when it failed the case
	//	Metrics *Metrics             metrics: the six metrics; nil for an error
	//	Grading int                  grading: the version of the grading rules that decided it
	//	Claims []ClaimResult         claims: each claim's verdict, score, reason, checks and judges
	//	Coverage *float64            coverage: the claims' mean score; nil while one is undecided
	//	Facts []Fact                 facts: in a reference run, the expected answer's facts and whether the results hold them
	Record = eval.Record
	// CaseRun names one run of a case: Name, Model and Repeat (from 0,
	// of go test -count=N). Record.CaseRun returns a record's.
	CaseRun = eval.CaseRun
	// Status is a case's outcome, one of Statuses: Pass, Fail, Undecided,
	// TokenLimit, Error, Cut or NotRun. Its Meaning says what it means.
	Status = eval.Status
	// ToolCall is one tool call of a record, with its result. Its fields,
	// with their JSON names:
	//
	//	ID string                    id: the call's id in the conversation
	//	Name, Server string          name, server: the tool's own name and its server's short name
	//	Arguments string             arguments: the JSON arguments the model sent
	//	Result string                result: what the server returned
	//	IsError bool                 is_error: the result is an error
	//	ArgumentsBytes, ResultBytes  arguments_bytes, result_bytes: full sizes of texts stored cut
	//	NotRun bool                  not_run: the call never reached a server
	//	Refused bool                 refused: the server answered with an error instead of a result
	//	ExpectedError bool           expected_error: a failure the case asked for (expect_error)
	//	DurationMS float64           duration_ms: the call's time
	//	ResultTokens int             result_tokens: the result's size in tokens (cl100k_base)
	//	Execution *CodeExecution     execution: what a code-running tool reported
	//	ResultFingerprint string     result_fingerprint: the SHA-256 of the whole result, kept in the recordings
	//	Replay string                replay: in a replay, where the result came from (recorded, live, unmatched)
	//	Elicitations []Elicitation   elicitations: the server's requests for the user's input, each with its reply
	//	OutputError string           output_error: how structuredContent breaks the tool's output schema
	//	Unchecked string             unchecked: the schema the call was too costly to check against ("output schema")
	//	Task *TaskRun                task: the task the call ran as (id, status, polls)
	//	Links []ResourceLink         links: the resource links the result returned
	//	Resource string              resource: the URI a read_resource_link call read
	//	Stderr string                stderr: a stdio server's last stderr lines when the call failed
	ToolCall = eval.ToolCall
	// Elicitation is one request of a server for the user's input during a
	// call (message, mode, url, fields) and the reply it got (action,
	// content), scripted by the case or not (then declined).
	Elicitation = eval.Elicitation
	// TaskRun is how a call that ran as a task went.
	TaskRun = eval.TaskRun
	// ResourceLink is a resource link a tool result returned.
	ResourceLink = eval.ResourceLink
	// JudgeVerdict is one judge's verdict and reason in a record.
	JudgeVerdict = eval.JudgeVerdict
	// Claim is a statement a case's answer must make (claims:), with
	// optional checks of its own.
	Claim = eval.Claim
	// ClaimResult is what the checks and the judges said of one claim:
	// fulfilled, partial, not or undecided, with its score.
	ClaimResult = eval.ClaimResult
	// ClaimJudge is one judge's verdict on one claim.
	ClaimJudge = eval.ClaimJudge
	// Fact is a fact of a reference answer and whether the reference
	// trajectory's results hold it: found, computed or missing.
	Fact = eval.Fact
	// CheckResult is one deterministic check's outcome: passed, failed or
	// undecided.
	CheckResult = eval.CheckResult
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
	KindTool = eval.KindTool
	KindCode = eval.KindCode
	// Pass: every check held and the judge said yes.
	Pass = eval.Pass
	// Fail: a check failed, the judge said no, the answer was empty, or
	// the model ran out of turns.
	Fail = eval.Fail
	// Undecided: the checks were not sure and no judge ran, or the judge
	// could not decide; neither a pass nor a failure of the model.
	Undecided = eval.Undecided
	// TokenLimit: a tool result or the judge prompt exceeded the token
	// limit, or a request did not fit the model's context window.
	TokenLimit = eval.TokenLimit
	// Error: the provider, a server or the harness failed.
	Error = eval.Error
	// Cut: the provider cut the model's reply off; it is not graded.
	Cut = eval.Cut
	// NotRun: the case did not run, or an interrupt cancelled it.
	NotRun = eval.NotRun
)

// Statuses returns every Status, in the order the docs and the report
// list them.
func Statuses() []Status { return slices.Clone(eval.Statuses) }

// LoadCases loads the cases of a case file, or of every *.yaml and *.yml
// file below a directory. Decoding is strict: every problem is an error
// naming the file and line.
func LoadCases(path string) ([]Case, error) { return evalcase.LoadPath(path) }
