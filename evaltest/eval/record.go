package eval

import (
	"encoding/json"
	"fmt"
	"time"
)

// Status is the outcome of one case.
type Status string

// The outcomes of a case (Statuses lists them).
const (
	// Pass: every deterministic check held and the judge (if any) said yes.
	Pass Status = "pass"
	// Fail: a check failed or the judge said no (or gave no clear verdict).
	Fail Status = "fail"
	// TokenLimit: a tool result or the judge prompt exceeded the token
	// limit, or a request exceeded the model's context window (the
	// provider refused it as too long, or cut its prompt to fit: Ollama's
	// num_ctx).
	TokenLimit Status = "token_limit"
	// Error: the provider, a server or the harness failed (timeouts included).
	Error Status = "error"
	// NotRun: the case did not run (the budget was spent, the run stopped)
	// or did not finish (an interrupt cancelled it).
	NotRun Status = "not_run"
	// Cut: the provider stopped the model's reply before its end (its
	// output token limit, finish_reason "length", or its content filter);
	// a cut reply is never graded.
	Cut Status = "cut"
	// Undecided: the judge could not decide (its reply was unclear twice,
	// or the judges who decided are no majority); neither the model's pass
	// nor its failure.
	Undecided Status = "undecided"
)

// Record is everything known about one evaluated case.
type Record struct {
	// Name is the case's name.
	Name string `json:"name"`
	// Category is the case's category.
	Category string `json:"category"`
	// Test is the go test name of the case's subtest (TestCategory/Case).
	Test string `json:"test,omitempty"`
	// File is the path of the case's file, as the run loaded it.
	File string `json:"file,omitempty"`
	// Line is the line of the case in File.
	Line int `json:"line,omitempty"`
	// Kind is the case's kind, KindTool or KindCode.
	Kind Kind `json:"kind,omitempty"`
	// Status is the case run's outcome; Reason says why.
	Status Status `json:"status"`
	// Cached is true when the record was reused from the cache instead of run.
	Cached bool `json:"cached"`
	// Regraded is true for a cached result this run graded again (its
	// grading was of another version): its judges' usage is this run's.
	Regraded bool `json:"regraded,omitempty"`
	// Reference is true when the answer came from the reference agent.
	Reference bool `json:"reference,omitempty"`
	// Repeat numbers the runs of one case within a go test -count=N run,
	// from 0.
	Repeat int `json:"repeat,omitempty"`
	// TraceID is the ID of the case run's OpenTelemetry trace, in hex,
	// when the run exported traces (EVAL_TRACES); "" otherwise. A record
	// served from the cache gets the trace of the run that served it.
	TraceID string `json:"trace_id,omitempty"`

	// Question is the case's question (its input).
	Question string `json:"question"`
	// Expected is the case's expected answer; "" for a case graded by
	// claims (see Claims).
	Expected string `json:"expected"`
	// Response is the answer graded: the model's final message, the final
	// code's result in a code case, the expected answer in a reference run;
	// "" when there was none.
	Response string `json:"response"`
	// ResponseBytes is the full size of an answer that was cut to
	// MaxStoredText (see Record.Limit); 0 when it was stored whole.
	ResponseBytes int `json:"response_bytes,omitempty"`

	// Verdict is "yes" or "no" from the judge (with several judges, their
	// combined verdict), or "" when no judge ran or it could not decide.
	Verdict string `json:"verdict,omitempty"`
	// Reason explains the status: the judge's reason, the failed check,
	// the token-limit message or the error.
	Reason string `json:"reason"`
	// JudgeRaw is the judge's unparsed reply, kept when it was unclear
	// (both replies when it was asked again).
	JudgeRaw string `json:"judge_raw,omitempty"`
	// JudgePrompt is what the judge was asked about this answer: the
	// question, the expected answer and the answer graded (after the
	// judge's system prompt, the same for every case, which summary.json
	// names by its hash).
	JudgePrompt string `json:"judge_prompt,omitempty"`
	// JudgeReply is the judge's reply as text; with several judges each
	// one's is in Judges. "" when no judge was asked.
	JudgeReply string `json:"judge_reply,omitempty"`
	// Judges holds each judge's own verdict and reason, in the order the
	// judge models were configured.
	Judges []JudgeVerdict `json:"judges,omitempty"`
	// JudgeDisagreement is true when the judges did not all give the same
	// verdict (an undecided judge counts as a verdict of its own).
	JudgeDisagreement bool `json:"judge_disagreement,omitempty"`
	// Checks are the outcomes of the case's deterministic checks (the
	// answer checks, then the tool expectations); nil when the answer was
	// not graded.
	Checks []CheckResult `json:"checks,omitempty"`

	// ToolCalls are the tool calls the model made (a reference run: the
	// reference calls), in order.
	ToolCalls []ToolCall `json:"tool_calls"`
	// Conversation is every message of the case run in OpenAI's shape: the
	// system prompt (none in a reference run), the question, the model's
	// turns and the tool results.
	Conversation []Message `json:"conversation"`
	// Usage counts the tokens, requests and cost of every model request of
	// the case run, the judges' included.
	Usage Usage `json:"usage"`
	// JudgeUsage is the judge's part of Usage, nil when no judge was asked.
	JudgeUsage *Usage `json:"judge_usage,omitempty"`
	// UserUsage is the simulated user's part of Usage (see User): the
	// requests of the model that played the user; nil when none was made
	// (no simulated user, or its messages replayed or played offline).
	UserUsage *Usage `json:"user_usage,omitempty"`
	// Seconds is the wall time of the case (agent, tools and judge).
	Seconds float64 `json:"seconds"`

	// Model is the evaluated model; "" in a reference run that names none.
	Model string `json:"model,omitempty"`
	// Arm names the arm of the run (see -arms): a version of what the
	// model was given (servers, tools, descriptions, system prompt); ""
	// without an arms file (a -models run's arms are its models: see
	// ArmName).
	Arm string `json:"arm,omitempty"`
	// JudgeModel names the judge model, or the judge models separated by
	// commas.
	JudgeModel string `json:"judge_model,omitempty"`
	// UserModel names the model that played the case's simulated user;
	// "" for a case without one, and when its messages were replayed or
	// played offline.
	UserModel string `json:"user_model,omitempty"`
	// StartedAt is when the case run started, in UTC; a cached record
	// keeps the time of the run that stored it.
	StartedAt time.Time `json:"started_at"`
	// ServerStderr holds the tail of the MCP server's stderr when a server
	// fault made this case an error.
	ServerStderr string `json:"server_stderr,omitempty"`
	// Metrics are the case's six metrics; nil for an error, an undecided
	// case or one not run, which say nothing of the model.
	Metrics *Metrics `json:"metrics,omitempty"`
	// Facts, in a reference run, are the facts of the expected answer and
	// whether the reference trajectory's results hold them.
	Facts []Fact `json:"facts,omitempty"`
	// Grading is the version of the grading rules that decided the record
	// (grading.Version); 0 in a record written before versions were kept.
	Grading int `json:"grading,omitempty"`
	// Claims are the verdicts on each claim of a case graded by claims,
	// in the case's order.
	Claims []ClaimResult `json:"claims,omitempty"`
	// Coverage is the claims' mean score, in [0, 1]; nil while a claim is
	// undecided, and for a case without claims.
	Coverage *float64 `json:"coverage,omitempty"`
	// Turns are the turns of a case with turns, each with the agent's
	// reply and how it was graded, those never sent included (Response is
	// the last reply given; Checks those that decided the record).
	Turns []TurnResult `json:"turns,omitempty"`
}

// ClaimResult is what the checks and the judges said of one claim.
type ClaimResult struct {
	// Claim is the claim's text.
	Claim string `json:"claim"`
	// Verdict is ClaimFulfilled, ClaimPartial, ClaimNot or ClaimUndecided.
	Verdict string `json:"verdict"`
	// Score is the verdict's score (1, 0.5, 0); nil when undecided.
	Score *float64 `json:"score,omitempty"`
	// Reason says why the claim got its verdict.
	Reason string `json:"reason,omitempty"`
	// Checks are the outcomes of the claim's own checks.
	Checks []CheckResult `json:"checks,omitempty"`
	// Judges holds each judge's verdict on the claim; nil when no judge
	// was asked.
	Judges []ClaimJudge `json:"judges,omitempty"`
}

// ClaimLines describes each claim's verdict on a line: "claim 2 partial:
// <claim> (<why>)".
func ClaimLines(claims []ClaimResult) []string {
	lines := make([]string, len(claims))
	for i, c := range claims {
		lines[i] = fmt.Sprintf("claim %d %s: %s", i+1, c.Verdict, c.Claim)
		if c.Reason != "" {
			lines[i] += " (" + c.Reason + ")"
		}
	}
	return lines
}

// ClaimJudge is one judge's verdict on one claim.
type ClaimJudge struct {
	// Model is the judge's model.
	Model string `json:"model"`
	// Verdict is ClaimFulfilled, ClaimPartial, ClaimNot, or ClaimUndecided
	// when the judge's reply decided nothing clear.
	Verdict string `json:"verdict"`
	// Reason is the judge's reason for the verdict.
	Reason string `json:"reason,omitempty"`
}

// The verdicts on a claim.
const (
	ClaimFulfilled = "fulfilled"
	ClaimPartial   = "partial"
	ClaimNot       = "not"
	ClaimUndecided = "undecided"
)

// Fact is a value, name or date a reference answer states, and whether the
// reference trajectory's tool results hold it.
type Fact struct {
	// Fact is the value, name or date, as the answer states it.
	Fact string `json:"fact"`
	// Status is FactFound, FactComputed or FactMissing.
	Status string `json:"status"`
	// How says how a computed fact follows from the results.
	How string `json:"how,omitempty"`
}

// The statuses of a Fact.
const (
	FactFound    = "found"
	FactComputed = "computed"
	FactMissing  = "missing"
)

// JudgeVerdict is one judge's decision on one answer.
type JudgeVerdict struct {
	// Model is the judge's model.
	Model string `json:"model"`
	// Verdict is "yes" or "no", or "" when the reply held no usable
	// verdict (Raw keeps it) or the request failed (Error says why).
	Verdict string `json:"verdict"`
	// Reason is the judge's reason, or why its reply was unclear; "" when
	// the request failed.
	Reason string `json:"reason"`
	// Raw is the judge's unparsed reply, kept when a reply was unclear
	// (both replies when it was asked again).
	Raw string `json:"raw,omitempty"`
	// Reply is the judge's reply as text, whatever it said.
	Reply string `json:"reply,omitempty"`
	// Error says why the judge's request failed; "" when it was answered.
	Error string `json:"error,omitempty"`
}

// CheckResult is the outcome of one deterministic check: passed, failed,
// or undecided (not passed, and not sure to have failed: the judge
// decides). Detail says why it did not pass.
type CheckResult struct {
	// Check describes the check ("must_call get_gene", "number 8.103 ± 0.005").
	Check string `json:"check"`
	// Passed is true when the check held.
	Passed bool `json:"passed"`
	// Undecided is true when the check neither held nor surely failed.
	Undecided bool `json:"undecided,omitempty"`
	// Detail says why the check did not pass; "" when it passed.
	Detail string `json:"detail,omitempty"`
}

// ToolCall is one tool call the model made and what the server returned.
type ToolCall struct {
	// ID is the call's id in the conversation (MessageToolCall.ID);
	// "ref_1", "ref_2", ... in a reference run.
	ID string `json:"id"`
	// Name is the tool's name on its server. The model may have called it
	// under another name (see mcpconn.Tool): the conversation holds that one.
	Name string `json:"name"`
	// Server is the server's short name (its name in the servers file,
	// else its serverInfo name); "" for a call of a tool no server offers.
	Server    string `json:"server,omitempty"`
	Arguments string `json:"arguments"` // raw JSON as the model sent it
	// Result is the result's text as the model was shown it; for a call
	// that got no result, a JSON object {"error": "..."} saying why.
	Result string `json:"result"`
	// IsError is true when the result is an error: the tool flagged it
	// (isError), the server refused the call, or the call did not run.
	IsError bool `json:"is_error"`
	// ArgumentsBytes is the full size of arguments that were cut (see
	// Record.Limit); 0 when stored whole.
	ArgumentsBytes int `json:"arguments_bytes,omitempty"`
	// ResultBytes is the full size of a result that was cut; 0 when
	// stored whole.
	ResultBytes int `json:"result_bytes,omitempty"`
	// NotRun marks a call that never reached a server: an unknown tool,
	// arguments that are not JSON, or one call too many in one reply. It counts
	// as an attempt for must_not_call and max_calls, but satisfies neither
	// must_call nor args.
	NotRun bool `json:"not_run,omitempty"`
	// Refused marks a call the server answered with an error instead of a
	// result: a protocol error (such as invalid parameters), a timeout or
	// a crash. IsError is set too.
	Refused bool `json:"refused,omitempty"`
	// ExpectedError marks a failed call (an error result, a refusal) the
	// case asked for: a reference call marked expect_error of the same tool
	// with matching arguments (see grading.ExpectedError). Tool health
	// counts it apart.
	ExpectedError bool `json:"expected_error,omitempty"`
	// DurationMS is the time the call took, in milliseconds, as the suite
	// measured it (transport and server included).
	DurationMS float64 `json:"duration_ms"`
	// ResultTokens is the size of the result in tokens (cl100k_base, the
	// token limit's encoding), counted once when it arrived, before any cut.
	ResultTokens int `json:"result_tokens,omitempty"`
	// Execution is what a code-running tool reported about the code it ran
	// (see CodeExecutionMeta); nil for other tools.
	Execution *CodeExecution `json:"execution,omitempty"`
	// ResultFingerprint names the result as the server gave it, whole and
	// without the run's secrets: the hex SHA-256 of its text, under which
	// package recordings keeps it. "" for a call that got no result from
	// a server (NotRun, Refused).
	ResultFingerprint string `json:"result_fingerprint,omitempty"`
	// Replay says where the result came from in a run that replays an
	// earlier run's recorded results (-replay-tools): ReplayRecorded,
	// ReplayLive or ReplayUnmatched; "" in a live run.
	Replay string `json:"replay,omitempty"`
	// Elicitations are the server's requests for input from the user
	// during the call, each with the reply it got, in order.
	Elicitations []Elicitation `json:"elicitations,omitempty"`
	// OutputError says how the result's structuredContent breaks the
	// tool's output schema, with the path that failed; "" when it holds
	// or the tool declares none.
	OutputError string `json:"output_error,omitempty"`
	// Unchecked names the schema the call's value was too costly to check
	// against ("output schema"): a hostile schema's, which would make the
	// check take for ever. The call is kept; "" when checked.
	Unchecked string `json:"unchecked,omitempty"`
	// Task is the task the call ran as, for a tool that requires tasks.
	Task *TaskRun `json:"task,omitempty"`
	// Links are the resource links the result returned.
	Links []ResourceLink `json:"links,omitempty"`
	// Resource is the URI a call of the suite's ReadResourceTool read.
	Resource string `json:"resource,omitempty"`
	// Stderr holds the last lines a stdio server wrote to its stderr up to
	// the end of a call that failed; "" for other calls.
	Stderr string `json:"stderr,omitempty"`
}

// Is reports whether a case's name for a tool names this call's: the
// tool's name on its server, or server/tool with the server's short name
// (for a name two servers offer).
func (c ToolCall) Is(name string) bool {
	return name == c.Name || c.Server != "" && name == c.Server+"/"+c.Name
}

// Where a replaying run's tool results came from (ToolCall.Replay).
const (
	// ReplayRecorded: the recording of a call with the same server, tool
	// and arguments answered it.
	ReplayRecorded = "recorded"
	// ReplayLive: no recording matched and the server answered (with
	// -replay-unmatched live).
	ReplayLive = "live"
	// ReplayUnmatched: no recording matched and the model was told so.
	ReplayUnmatched = "unmatched"
)

// Message is one chat message in OpenAI's shape.
type Message struct {
	// Role is "system", "user", "assistant" or "tool".
	Role string `json:"role"`
	// Content is the message's text; "" for an assistant message that
	// only calls tools.
	Content string `json:"content"`
	// Name is, in a tool message, the tool's name as the model called it.
	Name string `json:"name,omitempty"`
	// ToolCallID is, in a tool message, the id of the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// ToolCalls are, in an assistant message, the tool calls it makes.
	ToolCalls []MessageToolCall `json:"tool_calls,omitempty"`
	// ContentBytes is the full size of a content that was cut (see
	// Record.Limit); 0 when stored whole.
	ContentBytes int `json:"content_bytes,omitempty"`
	// Extra holds the fields the provider attached to an assistant
	// message that the suite does not read itself (reasoning_content,
	// reasoning_details, a content given as a list of parts, ...), as the
	// provider sent them; they go back to it with the message on the next
	// turn.
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// MessageToolCall is a tool call inside an assistant message.
type MessageToolCall struct {
	// ID is the call's id, which the tool message answering it names.
	ID string `json:"id"`
	// Type is "function".
	Type string `json:"type"`
	// Function is the tool the model called and its arguments.
	Function FunctionCall `json:"function"`
	// ProviderID is the id the provider gave the call when the suite
	// replaced it with an id of its own (ID): the provider gave none, an
	// empty one, or one already used in the conversation.
	ProviderID string `json:"provider_id,omitempty"`
	// Extra holds the fields the provider attached to the call that the
	// suite does not read itself (Gemini's extra_content with its thought
	// signature, ...), sent back with the call as they came.
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// FunctionCall names a function and its JSON arguments.
type FunctionCall struct {
	// Name is the name of the function the model called.
	Name string `json:"name"`
	// Arguments is the arguments' JSON text, as the model wrote it.
	Arguments string `json:"arguments"`
	// ArgumentsBytes is the full size of arguments that were cut (see
	// Record.Limit); 0 when stored whole.
	ArgumentsBytes int `json:"arguments_bytes,omitempty"`
}

// Usage counts tokens over every model request of a case (agent and judge).
type Usage struct {
	// PromptTokens counts the tokens the requests sent, as the provider
	// reported them (see Estimated).
	PromptTokens int `json:"prompt_tokens"`
	// CompletionTokens counts the tokens of the replies.
	CompletionTokens int `json:"completion_tokens"`
	// CachedTokens counts the prompt tokens the provider served from its
	// prompt cache, where it reported them; 0 otherwise.
	CachedTokens int `json:"cached_tokens"`
	// TotalTokens is the provider's total, or prompt plus completion
	// tokens where it gave none.
	TotalTokens int `json:"total_tokens"`
	// Requests counts the model requests (chat completions) made.
	Requests int `json:"requests"`
	// Retries counts the attempts of those requests that were retried
	// (throttling, transient failures).
	Retries int `json:"retries,omitempty"`
	// Estimated is true when some request reported no usage and its tokens
	// were counted locally with tiktoken.
	Estimated bool `json:"estimated,omitempty"`
	// CostUSD is what the requests cost in US dollars: the provider's own
	// figure where it reported one, else the tokens at the model's price
	// (prices.yaml).
	CostUSD float64 `json:"cost_usd"`
	// Unpriced counts the requests with neither (JSON
	// "unpriced_requests"): their cost is unknown, not zero.
	Unpriced int `json:"unpriced_requests,omitempty"`
}

// Add adds u2 to u.
func (u *Usage) Add(u2 Usage) {
	u.PromptTokens += u2.PromptTokens
	u.CompletionTokens += u2.CompletionTokens
	u.CachedTokens += u2.CachedTokens
	u.TotalTokens += u2.TotalTokens
	u.Requests += u2.Requests
	u.Retries += u2.Retries
	u.Estimated = u.Estimated || u2.Estimated
	u.CostUSD += u2.CostUSD
	u.Unpriced += u2.Unpriced
}

// Tool is a tool an MCP server offers, as the model is offered it.
type Tool struct {
	// Name is the tool's name.
	Name string `json:"name"`
	// Description is the tool's description; "" when it has none.
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON Schema of the arguments
	// Output is the JSON Schema of the tool's structuredContent, when the
	// tool declares one; the model is not sent it.
	Output json.RawMessage `json:"output_schema,omitempty"`
}

// Attempt is one execution of a code case's code through run_pandas: the
// first execution or a recovery attempt with fixed code.
type Attempt struct {
	// Code is the pandas code run; "" when the call's arguments could not
	// be read.
	Code string
	// Dataset is the dataset argument of run_pandas ("a,b" for several).
	Dataset string
	// Output is the result text, or the error text (with its exception
	// type, "KeyError: 'age'") when Failed.
	Output string
	// Failed is true when the execution's result is an error.
	Failed bool
	// Seconds is the duration of the tool call.
	Seconds float64
	// Execution is what the server reported about the run: the code's own
	// execution time and the reading of its syntax tree. Nil when the
	// server reported nothing.
	Execution *CodeExecution
}

// CaseRun names one run of a case: the case (by its name, unique among a
// run's cases), the model it ran with, its arm (see Record.Arm), and its
// repeat, from 0 (go test -count=N runs every case N times). Records,
// cache lookups, shards, the merge of shards, the statistics and the
// report all name a run of a case by it.
type CaseRun struct {
	// Name is the case's name.
	Name string `json:"name"`
	// Model is the evaluated model (see Record.Model).
	Model string `json:"model,omitempty"`
	// Arm is the arm's name (see Record.Arm); "" without an arms file.
	Arm string `json:"arm,omitempty"`
	// Repeat is the repeat, from 0.
	Repeat int `json:"repeat,omitempty"`
}

// ArmName names what the run evaluated: its arm, else its model. Runs of
// a case are compared arm by arm.
func (r CaseRun) ArmName() string {
	if r.Arm != "" {
		return r.Arm
	}
	return r.Model
}

// Series names every run of the case with the model, whatever its repeat.
func (r CaseRun) Series() CaseRun { r.Repeat = 0; return r }

// String names the run for messages: the case in quotes, with its arm
// and repeat when it has them.
func (r CaseRun) String() string {
	s := fmt.Sprintf("%q", r.Name)
	if v := r.ArmName(); v != "" {
		s += " with " + v
	}
	if r.Repeat > 0 {
		s += fmt.Sprintf(" (repeat %d)", r.Repeat)
	}
	return s
}

// CaseRun names the run of the case the record holds.
func (r Record) CaseRun() CaseRun {
	return CaseRun{Name: r.Name, Model: r.Model, Arm: r.Arm, Repeat: r.Repeat}
}

// ArmName names what the record's run evaluated (see CaseRun.ArmName).
func (r Record) ArmName() string { return r.CaseRun().ArmName() }
