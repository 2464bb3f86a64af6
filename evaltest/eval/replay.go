package eval

// ReplayInfo says where a replaying run's tool results came from (see
// Summary.Replay).
type ReplayInfo struct {
	// Source is the id of the run whose recordings answered the calls,
	// SourceDir its directory.
	Source    string `json:"source"`
	SourceDir string `json:"source_dir"`
	// Unmatched is what a call no recording matched got: "error" (the
	// model was told) or "live" (the server answered).
	Unmatched string `json:"unmatched"`
	// Recorded, Live and UnmatchedCalls count the calls of the run's
	// records by where their results came from (see ToolCall.Replay).
	Recorded       int `json:"recorded"`
	Live           int `json:"live"`
	UnmatchedCalls int `json:"unmatched_calls"`
	// Lost counts the source run's recorded calls that cannot answer a
	// call: their result was cut in its record and is not in the
	// recordings store.
	Lost int `json:"lost,omitempty"`
}

// RejudgedInfo says which run a re-judged run graded again (see
// Summary.Rejudged).
type RejudgedInfo struct {
	// Source is the id of the run whose answers were graded again,
	// SourceDir its directory.
	Source    string `json:"source"`
	SourceDir string `json:"source_dir"`
	// Regraded counts the runs of cases whose answers were graded again
	// with the current checks and judges; Kept those taken over as they
	// were (no answer to grade: an error, a limit, a cut reply, no final
	// answer) or whose case is gone (Gone names them); Changed the
	// regraded runs whose status changed.
	Regraded int      `json:"regraded"`
	Kept     int      `json:"kept"`
	Changed  int      `json:"changed"`
	Gone     []string `json:"gone,omitempty"`
}
