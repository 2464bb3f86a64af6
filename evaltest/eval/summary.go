package eval

import "time"

// Summary describes a whole run; the suite writes it as summary.json and the
// report shows it in its header.
type Summary struct {
	// RunID names the run's directory (see package runs).
	RunID string `json:"run_id,omitempty"`
	// Started is when the run started, in UTC.
	Started time.Time `json:"started,omitzero"`
	// Finished is when its summary was made, in UTC.
	Finished time.Time `json:"finished,omitzero"`
	// Seconds is the run's wall time, Started to Finished.
	Seconds float64 `json:"seconds"`
	// Model is the run's main model: the first of -models that the run
	// evaluated (an arm -run leaves out is not evaluated); "" in a
	// reference run without one.
	Model string `json:"model"`
	// JudgeModel names the judge model, or the judge models separated by
	// commas; "" when no judge runs.
	JudgeModel string `json:"judge_model"`
	// JudgeMode says how several judges decide ("majority" or
	// "unanimous"); "" with one judge or none.
	JudgeMode string `json:"judge_mode,omitempty"`
	// JudgePromptHash identifies the judge's instructions ("sha256:...").
	JudgePromptHash string `json:"judge_prompt_hash,omitempty"`
	Provider        string `json:"provider"` // base URL, never a key or password
	// Servers are the MCP servers, as the run names them (see
	// ServerTools.Server).
	Servers []string `json:"servers"`
	// CaseFiles is the case file or directory the run loaded.
	CaseFiles string `json:"case_files"`
	// GitCommit is the short commit of the module's checkout; "" outside git.
	GitCommit string `json:"git_commit,omitempty"`
	// Reference is true for an offline reference run (no model evaluated).
	Reference bool `json:"reference,omitempty"`
	// Replay is set for a run whose tool calls were answered from an
	// earlier run's recorded results (-replay-tools).
	Replay *ReplayInfo `json:"replay,omitempty"`
	// Rejudged is set for a run that graded an earlier run's answers
	// again (mcpeval rejudge).
	Rejudged *RejudgedInfo `json:"rejudged,omitempty"`
	// TraceURL is the template of a link to a case run's trace
	// (EVAL_TRACE_URL), {trace_id} standing for Record.TraceID, when the
	// run exported traces; "" otherwise.
	TraceURL string `json:"trace_url,omitempty"`

	// Total counts the case runs with an outcome (every status but not_run).
	Total int `json:"total"`
	// Passed counts the case runs that passed.
	Passed int `json:"passed"`
	// Failed counts the case runs that failed.
	Failed int `json:"failed"`
	// Errors counts the case runs with status error.
	Errors int `json:"errors"`
	// TokenLimit counts the case runs with status token_limit.
	TokenLimit int `json:"token_limit"`
	// Cut counts the runs whose reply the provider cut off (see Cut).
	Cut int `json:"cut"`
	// Cached counts the case runs served from the result cache (also
	// counted by their status).
	Cached int `json:"cached"`
	// Skipped counts the runs of cases the run could not evaluate and said
	// why (a reference run skips a case without a reference trajectory, a
	// run without pandas a code case).
	Skipped int `json:"skipped,omitempty"`
	// NotRun counts the selected case runs (each case with each arm -run
	// selects, in each repeat) that did not run and were not skipped: not
	// finished, or not started (the budget spent, the run stopped). They
	// are no runs of their cases: Total, the pass rates and Cases leave
	// them out (CaseResult.NotRun counts a case's).
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
	Verdicts string `json:"verdicts,omitempty"`
	// ChecksCalibration measures the checks on the labelled answers to the
	// run's cases; nil when a judge decided.
	ChecksCalibration *ChecksCalibration `json:"checks_calibration,omitempty"`
	// ServerRestarts counts MCP server restarts after a crash or hang.
	ServerRestarts int `json:"server_restarts"`
	// Usage counts this run's requests, their tokens and retries: cached
	// cases add none.
	Usage Usage `json:"usage"`
	// Tools is the tool surface the run saw, its coverage and each tool's
	// health.
	Tools *ToolSummary `json:"tools,omitempty"`

	// MinPassRate is the run's gate on each case's pass rate over its
	// repeats (-min-pass-rate; 0: none).
	MinPassRate float64 `json:"min_pass_rate,omitempty"`
	// MinRunPassRate is the run's gate on its overall pass rate
	// (-min-run-pass-rate; 0: none).
	MinRunPassRate float64 `json:"min_run_pass_rate,omitempty"`
	// CaseSet identifies the set of cases that ran (a hash of their
	// names): runs of the same case set can be charted and compared.
	CaseSet string `json:"case_set,omitempty"`
	// Repeats is the repeats the run was asked for (go test -count=N), or
	// the most runs any case had when more; a case's runs that did not
	// run are no runs of it (see CaseResult.NotRun).
	Repeats int `json:"repeats"`
	// Overall is the pass rate, pass@k and pass^k of the whole run.
	Overall GroupResult `json:"overall"`
	// Categories are those of each category, by category name.
	Categories []GroupResult `json:"categories"`
	// OverallByArm is Overall for each model or arm compared (Name
	// names it), in their order, when the run compared several: the
	// headline of each, since Overall mixes them.
	OverallByArm []GroupResult `json:"overall_by_arm,omitempty"`
	// Cases are each case's results over its repeats (one per case and
	// arm), in category, file and line order.
	Cases []CaseResult `json:"cases"`

	// CostUSD is what this run's requests cost (cached cases spent
	// nothing now). Usage.Unpriced counts the requests whose cost is unknown.
	CostUSD float64 `json:"cost_usd"`
	// SavedUSD is what the cached cases cost when they ran.
	SavedUSD float64 `json:"saved_usd"`
	// BudgetUSD is the run's budget (0: none).
	BudgetUSD float64 `json:"budget_usd,omitempty"`
	// Prices names the price table that costed the requests whose provider
	// reported no cost: its file, or the suite's bundled list.
	Prices string `json:"prices,omitempty"`
	// Models compares the models (or arms) the run evaluated.
	Models []ModelResult `json:"models"`
	// Arms is Models when the arms are those of an arms file (the
	// one word for them; models holds the same list until the next
	// release).
	Arms []ModelResult `json:"arms,omitempty"`
	// ModelPairs compares each two of Models on the cases both ran.
	ModelPairs []ModelPair `json:"model_pairs,omitempty"`
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
	// User is what the simulated users' requests cost (see User), nil when
	// no case had a model play its user; the models' costs leave it out.
	User *UserCost `json:"user_cost,omitempty"`
	// Leaks names the turns whose simulated user gave a fact unasked
	// (see UserFact), "case name, turn N: fact", in the records' order.
	Leaks []string `json:"leaks,omitempty"`

	// Shard is set for one shard of a split run.
	Shard *Shard `json:"shard,omitempty"`
	// Merged is set for a run merged from its shards.
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
	// Tools counts the tool definitions every request offered.
	Tools int `json:"tools"`
	// ToolTokens counts their tokens in the model's encoding: what the
	// tool surface costs on every request.
	ToolTokens int `json:"tool_tokens"`
	// Cases counts the cases it ran (each once, whatever its repeats).
	Cases int `json:"cases"`
	// Runs counts its case runs with an outcome (not_run aside).
	Runs int `json:"runs"`
	// Passes counts those that passed.
	Passes int `json:"passes"`
	// NotRun counts the model's case runs that did not run (see
	// Summary.NotRun): the budget was spent, the run stopped, or no shard
	// of a split run ran them.
	NotRun int `json:"not_run,omitempty"`
	// PassRate is Passes/Runs (0 without runs); Low and High bound it with
	// a 95% Wilson score interval at the runs' effective sample size, the
	// repeats of one case counting as correlated (see
	// stats.ClusteredWilson); [0, 1] without runs.
	PassRate float64 `json:"pass_rate"`
	// Low is the interval's lower bound (JSON "pass_rate_low").
	Low float64 `json:"pass_rate_low"`
	// High is the interval's upper bound (JSON "pass_rate_high").
	High float64 `json:"pass_rate_high"`
	// PassAtK is the mean over the model's cases of their pass@k, for k =
	// 1..the most runs of a case, at index k-1 (see GroupResult).
	PassAtK []float64 `json:"pass_at_k"`
	// PassHatK is the mean of their pass^k, alike.
	PassHatK []float64 `json:"pass_hat_k"`
	// MeanTokens is the mean of the runs' total tokens.
	MeanTokens float64 `json:"mean_tokens"`
	// PromptTokens adds up the prompt tokens of the model's own requests.
	PromptTokens int `json:"prompt_tokens"`
	// CachedTokens adds up those the provider's prompt cache served.
	CachedTokens int `json:"cached_tokens"`
	// CacheHitRate is CachedTokens / PromptTokens (0 without prompt tokens).
	CacheHitRate float64 `json:"cache_hit_rate"`
	// CostUSD is what the model's own requests cost (cached runs included:
	// their cost when they ran; the judge's requests are the judge's, see
	// Summary.Judge).
	CostUSD float64 `json:"cost_usd"`
	// Unpriced counts its requests of unknown cost, so a CostUSD of 0 with
	// Unpriced > 0 is unknown, not free.
	Unpriced int `json:"unpriced_requests,omitempty"`
	// CostPerPass is CostUSD per passed run (0 without a pass).
	CostPerPass float64 `json:"cost_per_pass"`
	// LatencyP50 is the median of the runs' seconds (nearest rank).
	LatencyP50 float64 `json:"latency_p50"`
	// LatencyP95 is the 95th percentile of the runs' seconds (nearest rank).
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
	// Kind is "servers" or "leave_one_out".
	Kind string `json:"kind"`
	// From names the arm compared against: the arm without servers, or
	// the leave-one-out arm's base.
	From string `json:"from"`
	// To names the arm whose effect it is.
	To string `json:"to"`
	// Hidden names the tool or group a leave-one-out arm leaves out.
	Hidden string `json:"hidden,omitempty"`
	// Cases counts the cases both arms ran.
	Cases int `json:"cases"`
	// OnlyFrom counts the cases only From passed.
	OnlyFrom int `json:"only_from"`
	// OnlyTo counts the cases only To passed.
	OnlyTo int `json:"only_to"`
	// Effect is To's pass rate less From's on the cases both ran.
	Effect float64 `json:"effect"`
	// Low and High bound Effect with an interval adjusted like AdjustedP:
	// it excludes 0 exactly when AdjustedP is below 0.05 (see stats.HolmPaired).
	Low float64 `json:"low"`
	// High is the interval's upper bound.
	High float64 `json:"high"`
	// Confidence is the interval's confidence: 0.95 for one effect, more
	// in a family.
	Confidence float64 `json:"confidence"`
	// AdjustedP is the pair's McNemar p adjusted (Holm) over the run's
	// arm effects.
	AdjustedP float64 `json:"adjusted_p"`
}

// ArmInfo is what an arm gives the model (see ModelResult).
type ArmInfo struct {
	// Model is the model the arm evaluates.
	Model string `json:"model"`
	// NoServer is true for an arm without any MCP server: the model
	// answers from what it knows.
	NoServer bool `json:"no_server,omitempty"`
	// Base and Hidden are set on an arm that leaves one tool (or group)
	// out of the arm Base.
	Base string `json:"base,omitempty"`
	// Hidden names the tool or group such an arm leaves out.
	Hidden string `json:"hidden,omitempty"`
	// Baseline is true for the arm the arms file names its baseline:
	// every other arm gets a verdict against it (see ArmVerdict).
	Baseline bool `json:"baseline,omitempty"`
}

// ArmVerdict is an arm's verdict against the baseline arm, on the cases
// both ran (a case counts as passed when most of its runs passed).
type ArmVerdict struct {
	// Arm names the arm judged.
	Arm string `json:"arm"`
	// Baseline names the baseline arm.
	Baseline string `json:"baseline"`
	// Verdict is VerdictBetter or VerdictWorse when the arm's change in
	// pass rate is significant at Alpha (AdjustedP below it),
	// VerdictInconclusive otherwise.
	Verdict string `json:"verdict"`
	// Cases counts the cases both arms ran.
	Cases int `json:"cases"`
	// Improved lists the cases the arm passed and the baseline did not,
	// by name.
	Improved []string `json:"improved"`
	// Regressed lists those the baseline passed and the arm did not.
	Regressed []string `json:"regressed"`
	// P is the exact McNemar test of Improved against Regressed (JSON
	// "mcnemar_p").
	P float64 `json:"mcnemar_p"`
	// AdjustedP is P adjusted (Holm) over the run's verdicts.
	AdjustedP float64 `json:"adjusted_p"`
	// Alpha is the significance level the verdict is taken at (0.05).
	Alpha float64 `json:"alpha"`
	// Effect is the arm's pass rate less the baseline's on those cases.
	Effect float64 `json:"effect"`
	// Low and High bound Effect, adjusted like AdjustedP, at Confidence.
	Low float64 `json:"low"`
	// High is the interval's upper bound.
	High float64 `json:"high"`
	// Confidence is the interval's confidence level.
	Confidence float64 `json:"confidence"`
	// ToolTokensChange is the change in the tokens of the tool
	// definitions every request carries.
	ToolTokensChange int `json:"tool_tokens_change"`
	// CostPerPass is the arm's cost per passed run, in US dollars.
	CostPerPass float64 `json:"cost_per_pass"`
	// BaselineCostPerPass is the baseline's.
	BaselineCostPerPass float64 `json:"baseline_cost_per_pass"`
	// CostPerPassChange is CostPerPass less BaselineCostPerPass; nil when
	// either is unknown (no pass, or requests without a price).
	CostPerPassChange *float64 `json:"cost_per_pass_change"`
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
	// Model names the judge model or models, as Record.JudgeModel does.
	Model string `json:"model"`
	// Requests counts the judge's requests this run made.
	Requests int `json:"requests"`
	// CostUSD is what they cost, in US dollars.
	CostUSD float64 `json:"cost_usd"`
	// Unpriced counts the judge's requests of unknown cost.
	Unpriced int `json:"unpriced_requests,omitempty"`
}

// UserCost is what the simulated users' requests cost over a run's
// cases, apart from the evaluated models' and the judges'.
type UserCost struct {
	// Model names the model that played the users.
	Model string `json:"model"`
	// Requests counts the simulated users' requests this run made.
	Requests int `json:"requests"`
	// Retries counts the attempts of those requests that were retried,
	// and of those that failed.
	Retries int `json:"retries,omitempty"`
	// CostUSD is what they cost, in US dollars.
	CostUSD float64 `json:"cost_usd"`
	// Unpriced counts those of unknown cost.
	Unpriced int `json:"unpriced_requests,omitempty"`
}

// ModelPair compares two models on the cases both ran: a case counts for
// the model that passed it (most of its runs) when the other did not.
// McNemarP is the exact McNemar test of those counts.
type ModelPair struct {
	// A names the first model (or arm), in the order of Summary.Models.
	A string `json:"a"`
	// B names the second.
	B string `json:"b"`
	// Cases counts the cases both ran.
	Cases int `json:"cases"`
	// OnlyA counts the cases A passed and B did not.
	OnlyA int `json:"only_a"`
	// OnlyB counts the cases B passed and A did not.
	OnlyB int `json:"only_b"`
	// McNemarP is the exact McNemar test of OnlyA against OnlyB.
	McNemarP float64 `json:"mcnemar_p"`
	// AdjustedP is McNemarP corrected for the number of pairs compared
	// (Holm): a pair whose AdjustedP is below 0.05 differs, with at most a
	// 5% chance that any of the run's pairs is called different wrongly.
	AdjustedP float64 `json:"adjusted_p"`
	// Uplift is B's pass rate less A's on the cases both ran
	// ((OnlyB-OnlyA)/Cases).
	Uplift float64 `json:"uplift"`
	// UpliftLow and UpliftHigh bound Uplift with an interval adjusted over
	// the pairs like AdjustedP: it excludes 0 exactly when AdjustedP is
	// below 0.05 (see stats.HolmPaired).
	UpliftLow float64 `json:"uplift_low"`
	// UpliftHigh is the interval's upper bound.
	UpliftHigh float64 `json:"uplift_high"`
	// Confidence is the interval's confidence: 0.95 for one pair, more
	// with several.
	Confidence float64 `json:"confidence"`
}

// CaseResult is how one case did over its runs: once, or go test -count=N
// times.
type CaseResult struct {
	// Name is the case's name.
	Name string `json:"name"`
	// Category is the case's category.
	Category string `json:"category"`
	// Model names what the runs evaluated: the arm, else the model
	// (Record.ArmName); "" in a reference run without a model.
	Model string `json:"model,omitempty"`
	// File is the case's file, as its records name it.
	File string `json:"file,omitempty"`
	// Line is the line of the case in File.
	Line int `json:"line,omitempty"`
	// Runs counts the case's runs with an outcome (not_run aside): the
	// runs its pass rate, pass@k, pass^k and flakiness are taken over.
	Runs int `json:"runs"`
	// Passes counts those that passed.
	Passes int `json:"passes"`
	// NotRun counts the case's runs (of its repeats, with its arm) that
	// did not run: not started (the run stopped, the budget was spent) or
	// not finished. They are no runs of the case.
	NotRun int `json:"not_run,omitempty"`
	// Statuses are the outcomes of the runs that ran, by repeat.
	Statuses []Status `json:"statuses"`
	// PassRate is Passes / Runs.
	PassRate float64 `json:"pass_rate"`
	// PassAtK is the unbiased estimate of pass@k (some of k runs passes)
	// for k = 1..Runs, at index k-1.
	PassAtK []float64 `json:"pass_at_k"`
	// PassHatK is that of pass^k (all k runs pass), alike.
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
	// Name names the category, or the model or arm; "" for the whole run.
	Name string `json:"name,omitempty"`
	// Cases counts its case results (a case once per arm).
	Cases int `json:"cases"`
	// Runs adds up the cases' runs.
	Runs int `json:"runs"`
	// Passes adds up their passes.
	Passes int `json:"passes"`
	// PassRate is the mean of the cases' pass rates (not Passes / Runs).
	PassRate float64 `json:"pass_rate"`
	// PassAtK is the mean pass@k of the cases that ran at least k times,
	// at index k-1.
	PassAtK []float64 `json:"pass_at_k"`
	// PassHatK is the mean pass^k, alike.
	PassHatK []float64 `json:"pass_hat_k"`
	// Flaky counts the flaky cases.
	Flaky int `json:"flaky"`
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
