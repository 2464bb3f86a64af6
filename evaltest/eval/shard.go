package eval

// Shard describes the part of a split run that one process ran
// (summary.json "shard"): which shard it was, how case runs were assigned,
// and every case run the whole run selected, so that a merge of the shards
// can tell what is missing.
type Shard struct {
	// Index is the shard, from 1, of Count.
	Index int `json:"index"`
	// Count is the number of shards the run is split into.
	Count int `json:"count"`
	// Balance is how case runs were assigned: "hash" or "history".
	Balance string `json:"balance"`
	// Plan fingerprints the assignment: every shard of one run has the same.
	Plan string `json:"plan"`
	// Config holds the settings every shard of a run must share.
	Config ShardConfig `json:"config"`
	// Runs lists every case run the whole run selected, with its shard.
	Runs []ShardRun `json:"runs"`
	// Group tells the runs that shards belong to apart: the CI run that
	// started them, else a digest of the cache they all started from;
	// shards of one run have the same, a shard of an earlier run another
	// (empty when there is nothing to tell them by).
	Group string `json:"group,omitempty"`
}

// ShardConfig is what decides the outcomes of a split run's case runs
// besides the cases: shards that differ in it are not parts of one run.
type ShardConfig struct {
	// Models names what the cases run with: the models, or the arms.
	Models []string `json:"models"`
	// Judge is the judge setting (its model or models); "" when no judge runs.
	Judge    string `json:"judge,omitempty"`
	Provider string `json:"provider,omitempty"` // base URL, never a key
	// Reference is true for the offline reference run.
	Reference bool `json:"reference,omitempty"`
	// Repeats is the number of repeats of every case (go test -count).
	Repeats int `json:"repeats"`
	// Settings is a hash of the other settings in the cache key: the
	// system prompt, the turn and token limits, the recovery budget, the
	// judge prompt and the servers' tools.
	Settings string `json:"settings"`
	// Cases is a hash of the selected case runs (Shard.Runs without their
	// shards).
	Cases string `json:"cases"`
	// GitCommit is the commit of the suite, when known.
	GitCommit string `json:"git_commit,omitempty"`
}

// ShardRun is one case run of a split run: a case with one model in one
// repeat, and the shard that runs it.
type ShardRun struct {
	CaseRun
	// Category is the case's category.
	Category string `json:"category"`
	// File is the case file relative to the configured case path.
	File string `json:"file"`
	// Line is the line of the case in File.
	Line int `json:"line,omitempty"`
	// Test is the go test name of the case run's subtest.
	Test string `json:"test"`
	// Shard is the shard that runs it, from 1.
	Shard int `json:"shard"`
}

// Merged describes a run merged from the run directories of its shards
// (summary.json "merged").
type Merged struct {
	// Count is the number of shards the run was split into.
	Count int `json:"count"`
	// Shards are the shards merged, by index.
	Shards []MergedShard `json:"shards"`
	// Missing are the case runs no merged shard reported: they are
	// recorded as NotRun.
	Missing []ShardRun `json:"missing,omitempty"`
}

// MergedShard is one merged shard.
type MergedShard struct {
	// Index is the shard, from 1.
	Index int `json:"index"`
	// RunID is the shard's run id; "" for a shard without a summary.
	RunID string `json:"run_id,omitempty"`
	// Dir is the shard's run directory, as given to the merge.
	Dir string `json:"dir"`
	// Records is how many case runs it reported.
	Records int `json:"records"`
	// Finished is false for a shard without a summary (killed or still
	// running): its records are merged, the case runs it did not report
	// are missing.
	Finished bool `json:"finished"`
}
