package eval

import "time"

// Summary describes a whole run; the suite writes it as summary.json and the
// report shows it in its header.
type Summary struct {
	// RunID names the run's directory (see package runs).
	RunID    string    `json:"run_id,omitempty"`
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
	// CaseFiles is the case file or directory the run loaded.
	CaseFiles string `json:"case_files"`
	GitCommit string `json:"git_commit,omitempty"`
	// Reference is true for an offline reference run (no model evaluated).
	Reference bool `json:"reference,omitempty"`
	// Replay is set for a run whose tool calls were answered from an
	// earlier run's recorded results (-replay-tools); Rejudged for a run
	// that graded an earlier run's answers again (mcpeval rejudge).
	Replay   *ReplayInfo   `json:"replay,omitempty"`
	Rejudged *RejudgedInfo `json:"rejudged,omitempty"`

	Total      int `json:"total"`
	Passed     int `json:"passed"`
	Failed     int `json:"failed"`
	Errors     int `json:"errors"`
	TokenLimit int `json:"token_limit"`
	// Cut counts the runs whose reply the provider cut off (see Cut).
	Cut    int `json:"cut"`
	Cached int `json:"cached"`
	// Skipped counts the runs of cases the run could not evaluate and said
	// why (a reference run skips a case without a reference trajectory, a
	// run without pandas a code case).
	Skipped int `json:"skipped,omitempty"`
	// NotRun counts the loaded cases (once per model) that did not run and
	// were not skipped: not selected, not finished, or not started for the
	// budget.
	NotRun int `json:"not_run"`
	// Stopped says why the run stopped before its cases were done (a
	// provider that cannot be reached, a rejected key, -failfast); empty
	// when it ran to the end.
	Stopped string `json:"stopped,omitempty"`
	// JudgeDisagreements counts the cases whose judges did not all agree.
	JudgeDisagreements int `json:"judge_disagreements,omitempty"`
	// Undecided counts the runs the judge could not decide (see
	// Undecided): neither passed nor failed.
	Undecided int `json:"undecided"`
	// Verdicts says what decided the verdicts: VerdictsByJudge, or
	// VerdictsByChecks when no judge ran (a reference run, -judge-model
	// none); ChecksCalibration then says how far the checks can be
	// trusted.
	Verdicts          string             `json:"verdicts,omitempty"`
	ChecksCalibration *ChecksCalibration `json:"checks_calibration,omitempty"`
	// ServerRestarts counts MCP server restarts after a crash or hang.
	ServerRestarts int `json:"server_restarts"`
	// Usage counts this run's requests, their tokens and retries: cached
	// cases add none.
	Usage Usage `json:"usage"`
	// Tools is the tool surface the run saw, its coverage and each tool's
	// health.
	Tools *ToolSummary `json:"tools,omitempty"`

	// MinPassRate and MinRunPassRate are the run's pass-rate gates (0:
	// none).
	MinPassRate    float64 `json:"min_pass_rate,omitempty"`
	MinRunPassRate float64 `json:"min_run_pass_rate,omitempty"`
	// CaseSet identifies the set of cases that ran (a hash of their
	// names): runs of the same case set can be charted and compared.
	CaseSet string `json:"case_set,omitempty"`
	// Repeats is the most runs any case had (go test -count=N).
	Repeats int `json:"repeats"`
	// Overall, Categories and Cases are the pass rates, pass@k and pass^k
	// of the run, of each category and of each case over its repeats.
	Overall    GroupResult   `json:"overall"`
	Categories []GroupResult `json:"categories"`
	// OverallByArm is Overall for each model or arm compared (Name
	// names it), in their order, when the run compared several: the
	// headline of each, since Overall mixes them.
	OverallByArm []GroupResult `json:"overall_by_arm,omitempty"`
	Cases        []CaseResult  `json:"cases"`

	// CostUSD is what this run's requests cost (cached cases spent
	// nothing now); SavedUSD is what the cached cases cost when they ran.
	// Usage.Unpriced counts the requests whose cost is unknown.
	CostUSD  float64 `json:"cost_usd"`
	SavedUSD float64 `json:"saved_usd"`
	// BudgetUSD is the run's budget (0: none).
	BudgetUSD float64 `json:"budget_usd,omitempty"`
	// Prices names the price table that costed the requests whose provider
	// reported no cost: its file, or the suite's bundled list.
	Prices string `json:"prices,omitempty"`
	// Models compares the models the run evaluated, ModelPairs each two
	// of them on the cases both ran.
	Models []ModelResult `json:"models"`
	// Arms is Models when the arms are those of an arms file (the
	// one word for them; models holds the same list until the next
	// release).
	Arms       []ModelResult `json:"arms,omitempty"`
	ModelPairs []ModelPair   `json:"model_pairs,omitempty"`
	// ArmEffects are what the arms change (see ArmEffect): each arm with
	// servers against the arm without, each leave-one-out arm against its
	// base, the largest effect first.
	ArmEffects []ArmEffect `json:"arm_effects,omitempty"`
	// ArmVerdicts are each arm's verdict against the baseline arm the
	// arms file names (none without one).
	ArmVerdicts []ArmVerdict `json:"arm_verdicts,omitempty"`
	// Judge is what the judge's requests cost (cached runs included), nil
	// when no judge ran; the models' costs leave it out.
	Judge *JudgeCost `json:"judge_cost,omitempty"`

	// Shard is set for one shard of a split run, Merged for a run merged
	// from its shards (see shard.go).
	Shard  *Shard  `json:"shard,omitempty"`
	Merged *Merged `json:"merged,omitempty"`
}

// ModelResult is how one model, or one arm (-arms), did over its runs of
// the cases. Every model or arm the run was asked to evaluate has one,
// with no runs when none started.
type ModelResult struct {
	// Model names the model, or the arm (Arm then says what it is).
	Model string `json:"model"`
	// Arm describes an arm of an arms file; nil for a model.
	Arm *ArmInfo `json:"arm,omitempty"`
	// Tools counts the tool definitions every request offered, and
	// ToolTokens their tokens in the model's encoding: what the tool
	// surface costs on every request.
	Tools      int `json:"tools"`
	ToolTokens int `json:"tool_tokens"`
	Cases      int `json:"cases"`
	Runs       int `json:"runs"`
	Passes     int `json:"passes"`
	// NotRun counts the model's case runs recorded as not run: the budget
	// was spent, or no shard of a split run ran them.
	NotRun int `json:"not_run,omitempty"`
	// PassRate is Passes/Runs (0 without runs); Low and High bound it with
	// a 95% Wilson score interval at the runs' effective sample size, the
	// repeats of one case counting as correlated (see
	// stats.ClusteredWilson); [0, 1] without runs.
	PassRate float64 `json:"pass_rate"`
	Low      float64 `json:"pass_rate_low"`
	High     float64 `json:"pass_rate_high"`
	// PassAtK and PassHatK are the means over the model's cases of their
	// pass@k and pass^k, for k = 1..the most runs of a case (see
	// GroupResult).
	PassAtK  []float64 `json:"pass_at_k"`
	PassHatK []float64 `json:"pass_hat_k"`
	// MeanTokens is the mean of the runs' total tokens.
	MeanTokens float64 `json:"mean_tokens"`
	// PromptTokens and CachedTokens add up the runs' prompt tokens and
	// those the provider's prompt cache served; CacheHitRate is their
	// ratio (0 without prompt tokens).
	PromptTokens int     `json:"prompt_tokens"`
	CachedTokens int     `json:"cached_tokens"`
	CacheHitRate float64 `json:"cache_hit_rate"`
	// CostUSD is what the model's own requests cost (cached runs included:
	// their cost when they ran; the judge's requests are the judge's, see
	// Summary.Judge); Unpriced counts its requests of unknown cost, so a
	// CostUSD of 0 with Unpriced > 0 is unknown, not free. CostPerPass is
	// CostUSD per passed run (0 without a pass).
	CostUSD     float64 `json:"cost_usd"`
	Unpriced    int     `json:"unpriced_requests,omitempty"`
	CostPerPass float64 `json:"cost_per_pass"`
	// LatencyP50 and LatencyP95 are percentiles of the runs' seconds.
	LatencyP50 float64 `json:"latency_p50"`
	LatencyP95 float64 `json:"latency_p95"`
	// ToolCallsPerRun is the mean number of tool calls of a run.
	ToolCallsPerRun float64 `json:"tool_calls_per_run"`
}

// ArmEffect is what going from one arm to another did to the pass rate,
// on the cases both ran (see ModelPair): the uplift of the servers over
// the arm without any (Kind "servers"), or the loss of leaving a tool out
// (Kind "leave_one_out", Hidden names it; Effect is then negative when the
// tool helped).
type ArmEffect struct {
	Kind   string `json:"kind"`
	From   string `json:"from"`
	To     string `json:"to"`
	Hidden string `json:"hidden,omitempty"`
	Cases  int    `json:"cases"`
	// OnlyFrom and OnlyTo count the cases only From, or only To, passed.
	OnlyFrom int `json:"only_from"`
	OnlyTo   int `json:"only_to"`
	// Effect is To's pass rate less From's, and AdjustedP the pair's
	// McNemar p adjusted (Holm) over the run's arm effects. Low and High
	// bound the effect with an interval adjusted the same way, of
	// confidence Confidence (0.95 for one effect, more in a family): it
	// excludes 0 exactly when AdjustedP is below 0.05 (see
	// stats.HolmPaired).
	Effect     float64 `json:"effect"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Confidence float64 `json:"confidence"`
	AdjustedP  float64 `json:"adjusted_p"`
}

// ArmInfo is what an arm gives the model (see ModelResult).
type ArmInfo struct {
	Model string `json:"model"`
	// NoServer is true for an arm without any MCP server: the model
	// answers from what it knows.
	NoServer bool `json:"no_server,omitempty"`
	// Base and Hidden are set on an arm that leaves one tool (or group)
	// out of the arm Base.
	Base   string `json:"base,omitempty"`
	Hidden string `json:"hidden,omitempty"`
	// Baseline is true for the arm the arms file names its baseline:
	// every other arm gets a verdict against it (see ArmVerdict).
	Baseline bool `json:"baseline,omitempty"`
}

// ArmVerdict is an arm's verdict against the baseline arm, on the cases
// both ran (a case counts as passed when most of its runs passed).
type ArmVerdict struct {
	Arm      string `json:"arm"`
	Baseline string `json:"baseline"`
	// Verdict is VerdictBetter or VerdictWorse when the arm's change in
	// pass rate is significant at Alpha (AdjustedP below it),
	// VerdictInconclusive otherwise.
	Verdict string `json:"verdict"`
	Cases   int    `json:"cases"`
	// Improved lists the cases the arm passed and the baseline did not,
	// Regressed those the baseline passed and the arm did not.
	Improved  []string `json:"improved"`
	Regressed []string `json:"regressed"`
	// P is the exact McNemar test of Improved against Regressed;
	// AdjustedP is it adjusted (Holm) over the run's verdicts.
	P         float64 `json:"mcnemar_p"`
	AdjustedP float64 `json:"adjusted_p"`
	Alpha     float64 `json:"alpha"`
	// Effect is the arm's pass rate less the baseline's on those cases;
	// Low and High bound it, adjusted like AdjustedP, at Confidence.
	Effect     float64 `json:"effect"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Confidence float64 `json:"confidence"`
	// ToolTokensChange is the change in the tokens of the tool
	// definitions every request carries.
	ToolTokensChange int `json:"tool_tokens_change"`
	// CostPerPass and BaselineCostPerPass are the arm's and the baseline's
	// cost per passed run; CostPerPassChange is their difference, nil
	// when either is unknown (no pass, or requests without a price).
	CostPerPass         float64  `json:"cost_per_pass"`
	BaselineCostPerPass float64  `json:"baseline_cost_per_pass"`
	CostPerPassChange   *float64 `json:"cost_per_pass_change"`
}

// The verdicts of an arm against the baseline arm.
const (
	VerdictBetter       = "better"
	VerdictWorse        = "worse"
	VerdictInconclusive = "inconclusive"
)

// JudgeCost is what the judge's requests cost over a run's cases, apart
// from the evaluated models'.
type JudgeCost struct {
	Model    string  `json:"model"`
	Requests int     `json:"requests"`
	CostUSD  float64 `json:"cost_usd"`
	// Unpriced counts the judge's requests of unknown cost.
	Unpriced int `json:"unpriced_requests,omitempty"`
}

// ModelPair compares two models on the cases both ran: a case counts for
// the model that passed it (most of its runs) when the other did not.
// McNemarP is the exact McNemar test of those counts.
type ModelPair struct {
	A        string  `json:"a"`
	B        string  `json:"b"`
	Cases    int     `json:"cases"`
	OnlyA    int     `json:"only_a"`
	OnlyB    int     `json:"only_b"`
	McNemarP float64 `json:"mcnemar_p"`
	// AdjustedP is McNemarP corrected for the number of pairs compared
	// (Holm): a pair whose AdjustedP is below 0.05 differs, with at most a
	// 5% chance that any of the run's pairs is called different wrongly.
	AdjustedP float64 `json:"adjusted_p"`
	// Uplift is B's pass rate less A's on the cases both ran
	// ((OnlyB-OnlyA)/Cases); UpliftLow and UpliftHigh bound it with an
	// interval adjusted over the pairs like AdjustedP, of confidence
	// Confidence (0.95 for one pair, more with several): it excludes 0
	// exactly when AdjustedP is below 0.05 (see stats.HolmPaired).
	Uplift     float64 `json:"uplift"`
	UpliftLow  float64 `json:"uplift_low"`
	UpliftHigh float64 `json:"uplift_high"`
	Confidence float64 `json:"confidence"`
}

// CaseResult is how one case did over its runs: once, or go test -count=N
// times.
type CaseResult struct {
	Name     string `json:"name"`
	Category string `json:"category"`
	Model    string `json:"model,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Runs     int    `json:"runs"`
	Passes   int    `json:"passes"`
	// Statuses are the outcomes of the runs, by repeat.
	Statuses []Status `json:"statuses"`
	PassRate float64  `json:"pass_rate"`
	// PassAtK and PassHatK are the unbiased estimates of pass@k (some of k
	// runs passes) and pass^k (all k runs pass) for k = 1..Runs, at index
	// k-1.
	PassAtK  []float64 `json:"pass_at_k"`
	PassHatK []float64 `json:"pass_hat_k"`
	// Flaky is true when some runs passed and some did not.
	Flaky bool `json:"flaky,omitempty"`
	// CostUSD is the mean cost of a run of the case.
	CostUSD float64 `json:"cost_usd"`
}

// GroupResult aggregates cases: a category's, a model's or the whole
// run's. Its rates are the means over its cases; a case counts towards
// pass@k and pass^k only when it ran at least k times.
type GroupResult struct {
	Name     string    `json:"name,omitempty"`
	Cases    int       `json:"cases"`
	Runs     int       `json:"runs"`
	Passes   int       `json:"passes"`
	PassRate float64   `json:"pass_rate"`
	PassAtK  []float64 `json:"pass_at_k"`
	PassHatK []float64 `json:"pass_hat_k"`
	Flaky    int       `json:"flaky"`
}

// Count adds one record's outcome to the summary's counters.
func (s *Summary) Count(r Record) {
	if r.Status == NotRun {
		return // no outcome: NotRun counts it
	}
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
	case Cut:
		s.Cut++
	case Undecided:
		s.Undecided++
	}
	if r.JudgeDisagreement {
		s.JudgeDisagreements++
	}
	if r.Cached {
		s.Cached++ // its tokens and retries were spent by an earlier run
		saved := r.Usage.CostUSD
		if j := r.JudgeUsage; r.Regraded && j != nil { // but the judges of its grading again by this one
			s.Usage.Add(*j)
			s.CostUSD += j.CostUSD
			saved -= j.CostUSD
		}
		s.SavedUSD += saved
		return
	}
	s.Usage.Add(r.Usage)
	s.CostUSD += r.Usage.CostUSD
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
