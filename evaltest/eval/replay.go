package eval

// ReplayInfo says where a replaying run's tool results came from (see
// Summary.Replay).
type ReplayInfo struct {
	// Source is the id of the run whose recordings answered the calls.
	Source string `json:"source"`
	// SourceDir is that run's directory.
	SourceDir string `json:"source_dir"`
	// Unmatched is what a call no recording matched got: "error" (the
	// model was told) or "live" (the server answered).
	Unmatched string `json:"unmatched"`
	// Recorded counts the calls of the run's records (cached ones aside)
	// that a recording answered (see ToolCall.Replay).
	Recorded int `json:"recorded"`
	// Live counts those no recording matched that the server answered.
	Live int `json:"live"`
	// UnmatchedCalls counts those no recording matched that no server
	// answered (the model was told so).
	UnmatchedCalls int `json:"unmatched_calls"`
	// Lost counts the source run's recorded calls that cannot answer a
	// call: their result was cut in its record and is not in the
	// recordings store.
	Lost int `json:"lost,omitempty"`
}

// RejudgedInfo says which run a re-judged run graded again (see
// Summary.Rejudged).
type RejudgedInfo struct {
	// Source is the id of the run whose answers were graded again.
	Source string `json:"source"`
	// SourceDir is that run's directory, as given to rejudge.
	SourceDir string `json:"source_dir"`
	// Regraded counts the runs of cases whose answers were graded again
	// with the current checks and judges.
	Regraded int `json:"regraded"`
	// Kept counts those taken over as they were: no answer to grade (an
	// error, a limit, a cut reply, no final answer), or a case gone.
	Kept int `json:"kept"`
	// Changed counts the regraded runs whose status changed.
	Changed int `json:"changed"`
	// Gone names the cases of the source run that are no longer loaded.
	Gone []string `json:"gone,omitempty"`
}
