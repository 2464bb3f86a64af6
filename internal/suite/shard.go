package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"

	"github.com/mcpeval/mcpeval/cache"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
)

// ExpectedSeconds returns how long a case run is expected to take in this
// run, from what the cache remembers under this run's settings: the
// seconds of its last run when it will run again (it failed, or -force
// runs everything). A case run the cache will serve, or one it knows
// nothing of, has no expectation (ok false).
func (s *Run) ExpectedSeconds(c eval.Case, run eval.CaseRun) (seconds float64, ok bool) {
	if s.Settings.Reference {
		return 0, false
	}
	key, err := s.key(c, s.armOf(run.ArmName()), run.Repeat)
	if err != nil {
		return 0, false
	}
	if s.cache.Has(key) {
		if !s.Settings.Force {
			return 0, false
		}
		rec, ok := s.cache.Get(key)
		return rec.Seconds, ok
	}
	return s.cache.Removed(key)
}

// ShardInfo returns the settings every shard of a split run must share
// for repeats runs of each case (Cases is left to the caller), and what
// tells the run this shard belongs to from the runs of other shards (see
// eval.Shard.Group).
func (s *Run) ShardInfo(repeats int) (config eval.ShardConfig, group string) {
	st := s.Settings
	c := eval.ShardConfig{Models: s.Arms(), Provider: s.redactor.String(st.BaseURL), Reference: st.Reference,
		Repeats: repeats, GitCommit: s.commit()}
	decisive := struct {
		SystemPrompt  string   `json:"system_prompt"`
		MaxIterations int      `json:"max_iterations"`
		MaxTokens     int      `json:"max_tokens"`
		MaxRecovery   int      `json:"max_recovery"`
		JudgePrompt   string   `json:"judge_prompt,omitempty"`
		ToolsHash     string   `json:"tools_hash"`
		Arms          []string `json:"arms,omitempty"`
	}{st.SystemPrompt, st.MaxIterations, st.MaxTokens, st.MaxRecovery, "", s.toolHash, nil}
	for _, a := range s.arms {
		if a.name != "" {
			decisive.Arms = append(decisive.Arms, a.name+"\x00"+a.model+"\x00"+a.hash+"\x00"+a.systemPrompt)
		}
	}
	if st.JudgeEnabled() {
		c.Judge, decisive.JudgePrompt = st.Judge, grading.JudgePrompt
	}
	data, _ := json.Marshal(decisive) // strings and numbers always encode
	sum := sha256.Sum256(data)
	c.Settings = hex.EncodeToString(sum[:8])
	return c, s.shardGroup
}

// ciRunVars name, for the CI systems that set one, the variable that is the
// same in every job of one run (a matrix's, a pipeline's) and differs from
// run to run; a job run again keeps it.
var ciRunVars = []string{"GITHUB_RUN_ID", "CI_PIPELINE_ID", "BUILDKITE_BUILD_ID", "CIRCLE_WORKFLOW_ID"}

// shardGroup is the group of a shard (see eval.Shard.Group): the CI run
// that started it, else a digest of the cache file and journal at cachePath
// as the shard starts from them, else "".
func shardGroup(getenv func(string) string, cachePath string) string {
	for _, name := range ciRunVars {
		if v := getenv(name); v != "" {
			return name + " " + v
		}
	}
	h := sha256.New()
	found := false
	for _, path := range cache.Files(cachePath) {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		found = true
		io.WriteString(h, path[len(cachePath):]+"\x00")
		io.Copy(h, f)
		f.Close()
	}
	if !found {
		return ""
	}
	return "cache " + hex.EncodeToString(h.Sum(nil))[:16]
}
