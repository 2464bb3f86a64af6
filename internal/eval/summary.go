package eval

import "time"

// Summary describes a whole run; the suite writes it as summary.json and the
// report shows it in its header.
type Summary struct {
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
	Seconds  float64   `json:"seconds"`
	Model    string    `json:"model"`
	// JudgeModel names the judge model, or the judge models separated by
	// commas; JudgeMode says how several judges decide ("majority" or
	// "unanimous"); JudgePromptHash identifies the judge's instructions.
	JudgeModel      string   `json:"judge_model"`
	JudgeMode       string   `json:"judge_mode,omitempty"`
	JudgePromptHash string   `json:"judge_prompt_hash,omitempty"`
	Provider        string   `json:"provider"` // base URL, never a key or password
	Servers         []string `json:"servers"`
	Cases           string   `json:"cases"` // case source path
	GitCommit       string   `json:"git_commit,omitempty"`
	// Reference is true for an offline reference run (no model evaluated).
	Reference bool `json:"reference,omitempty"`

	Total      int `json:"total"`
	Passed     int `json:"passed"`
	Failed     int `json:"failed"`
	Errors     int `json:"errors"`
	TokenLimit int `json:"token_limit"`
	Cached     int `json:"cached"`
	// Skipped counts the runs of cases the run could not evaluate and said
	// why (a reference run skips a case without a reference trajectory).
	Skipped int `json:"skipped,omitempty"`
	// NotRun counts loaded cases that were not selected, not skipped, or
	// did not finish.
	NotRun int `json:"not_run"`
	// JudgeDisagreements counts the cases whose judges did not all agree.
	JudgeDisagreements int `json:"judge_disagreements,omitempty"`
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
	if r.JudgeDisagreement {
		s.JudgeDisagreements++
	}
	if r.Cached {
		s.Cached++ // its tokens and retries were spent by an earlier run
		return
	}
	s.Retries += r.Retries
	s.Usage.Add(r.Usage)
}

// File names written in a run's output directory.
const (
	RecordsFile        = "results.jsonl"
	SummaryFile        = "summary.json"
	MetricsFile        = "metrics.json"
	MetricsSummaryFile = "metrics_summary.json"
	CalibrationFile    = "calibration.json"
	ReportFile         = "report.html"
)
