// Package result defines the record of one evaluated case and the summary of a
// run. Records are what the suite appends to results.jsonl, what the cache
// stores and what the report renders; they are plain JSON.
package result

import "time"

// Status is the outcome of one case.
type Status string

// The four outcomes of a case.
const (
	// Pass: every deterministic check held and the judge (if any) said yes.
	Pass Status = "pass"
	// Fail: a check failed or the judge said no (or gave no clear verdict).
	Fail Status = "fail"
	// TokenLimit: a tool result or the judge prompt exceeded the token limit.
	TokenLimit Status = "token_limit"
	// Error: the provider, a server or the harness failed (timeouts included).
	Error Status = "error"
)

// Record is everything known about one evaluated case.
type Record struct {
	Name     string `json:"name"`
	Category string `json:"category"`
	// Test is the go test name of the case's subtest (TestCategory/Case).
	Test   string `json:"test,omitempty"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Kind   string `json:"kind,omitempty"` // "tool" (default) or "code"
	Status Status `json:"status"`
	// Cached is true when the record was reused from the cache instead of run.
	Cached bool `json:"cached"`
	// Reference is true when the answer came from the reference agent.
	Reference bool `json:"reference,omitempty"`
	// Repeat numbers the runs of one case within a go test -count=N run,
	// from 0.
	Repeat int `json:"repeat,omitempty"`

	Question string `json:"question"`
	Expected string `json:"expected"`
	Response string `json:"response"`

	// Verdict is "yes" or "no" from the judge, or "" when no judge ran.
	Verdict string `json:"verdict,omitempty"`
	// Reason explains the status: the judge's reason, the failed check,
	// the token-limit message or the error.
	Reason string `json:"reason"`
	// JudgeRaw is the judge's unparsed reply, kept when it was not usable.
	JudgeRaw string        `json:"judge_raw,omitempty"`
	Checks   []CheckResult `json:"checks,omitempty"`

	ToolCalls    []ToolCall `json:"tool_calls"`
	Conversation []Message  `json:"conversation"`
	Usage        Usage      `json:"usage"`
	// Seconds is the wall time of the case (agent, tools and judge).
	Seconds float64 `json:"seconds"`

	Model      string    `json:"model,omitempty"`
	JudgeModel string    `json:"judge_model,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	// Retries counts provider requests that were retried for this case.
	Retries int `json:"retries,omitempty"`
	// ServerStderr holds the tail of the MCP server's stderr when a server
	// fault made this case an error.
	ServerStderr string `json:"server_stderr,omitempty"`
	// Metrics holds the scoring metrics of the case, when computed.
	Metrics map[string]any `json:"metrics,omitempty"`
}

// CheckResult is the outcome of one deterministic check.
type CheckResult struct {
	Check  string `json:"check"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail,omitempty"`
}

// ToolCall is one tool call the model made and what the server returned.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // raw JSON as the model sent it
	Result    string `json:"result"`
	IsError   bool   `json:"is_error"`
	// NotRun marks a call that never reached a server: an unknown tool,
	// arguments that are not JSON, or one call too many in a turn.
	NotRun bool `json:"not_run,omitempty"`
	// DurationMS is the time the server took, in milliseconds.
	DurationMS float64 `json:"duration_ms"`
}

// Message is one chat message in OpenAI's shape.
type Message struct {
	Role       string            `json:"role"`
	Content    string            `json:"content"`
	Name       string            `json:"name,omitempty"`
	ToolCallID string            `json:"tool_call_id,omitempty"`
	ToolCalls  []MessageToolCall `json:"tool_calls,omitempty"`
}

// MessageToolCall is a tool call inside an assistant message.
type MessageToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names a function and its JSON arguments.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Usage counts tokens over every model request of a case (agent and judge).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	CachedTokens     int `json:"cached_tokens"`
	TotalTokens      int `json:"total_tokens"`
	Requests         int `json:"requests"`
	// Estimated is true when some request reported no usage and its tokens
	// were counted locally with tiktoken.
	Estimated bool `json:"estimated,omitempty"`
}

// Add adds u2 to u.
func (u *Usage) Add(u2 Usage) {
	u.PromptTokens += u2.PromptTokens
	u.CompletionTokens += u2.CompletionTokens
	u.CachedTokens += u2.CachedTokens
	u.TotalTokens += u2.TotalTokens
	u.Requests += u2.Requests
	u.Estimated = u.Estimated || u2.Estimated
}

// Summary describes a whole run; the suite writes it as summary.json.
type Summary struct {
	Started    time.Time `json:"started"`
	Finished   time.Time `json:"finished"`
	Seconds    float64   `json:"seconds"`
	Model      string    `json:"model"`
	JudgeModel string    `json:"judge_model"`
	Provider   string    `json:"provider"` // base URL, never a key
	Servers    []string  `json:"servers"`
	Cases      string    `json:"cases"` // case source path
	GitCommit  string    `json:"git_commit,omitempty"`
	// Reference is true for an offline reference run (no model evaluated).
	Reference bool `json:"reference,omitempty"`

	Total      int `json:"total"`
	Passed     int `json:"passed"`
	Failed     int `json:"failed"`
	Errors     int `json:"errors"`
	TokenLimit int `json:"token_limit"`
	Cached     int `json:"cached"`
	// NotRun counts loaded cases that were not selected or did not finish.
	NotRun int `json:"not_run"`
	// Retries and Usage count this run's requests: cached cases add none.
	Retries int `json:"retries"`
	// ServerRestarts counts MCP server restarts after a crash or hang.
	ServerRestarts int   `json:"server_restarts"`
	Usage          Usage `json:"usage"`
}

// Count adds one record's outcome to the summary's counters.
func (s *Summary) Count(r Record) {
	s.Total++
	switch r.Status {
	case Pass:
		s.Passed++
	case Fail:
		s.Failed++
	case TokenLimit:
		s.TokenLimit++
	case Error:
		s.Errors++
	}
	if r.Cached {
		s.Cached++ // its tokens and retries were spent by an earlier run
		return
	}
	s.Retries += r.Retries
	s.Usage.Add(r.Usage)
}

// File names written in the output directory.
const (
	RecordsFile        = "results.jsonl"
	SummaryFile        = "summary.json"
	MetricsFile        = "metrics.json"
	MetricsSummaryFile = "metrics_summary.json"
	ReportFile         = "report.html"
)
