package suite

import (
	"fmt"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/replay"
)

// replayInfo says where a replaying run's tool results came from, counting
// the calls of its records that ran now (a cached case made none); nil for
// a live run.
func (s *Run) replayInfo(records []eval.Record) *eval.ReplayInfo {
	if s.replay == nil {
		return nil
	}
	info := &eval.ReplayInfo{Source: s.replay.ID, SourceDir: s.replay.Dir, Unmatched: s.Settings.ReplayUnmatched, Lost: s.replay.Lost}
	if s.liveDown {
		info.Unmatched = replay.UnmatchedError // the live servers did not start
	}
	for _, r := range records {
		if r.Cached {
			continue
		}
		for _, c := range r.ToolCalls {
			switch c.Replay {
			case eval.ReplayRecorded:
				info.Recorded++
			case eval.ReplayLive:
				info.Live++
			case eval.ReplayUnmatched:
				info.UnmatchedCalls++
			}
		}
	}
	return info
}

// replayLine is the closing line of a replaying run: whose recordings
// answered its tool calls, and what became of the calls none matched.
func replayLine(r *eval.ReplayInfo) string {
	unmatched := fmt.Sprintf("%d matched no recording (the model was told)", r.UnmatchedCalls)
	if r.Unmatched == "live" {
		unmatched = fmt.Sprintf("%d matched no recording and went to the live servers", r.Live)
	}
	answered := ", no server answered them"
	if r.Live > 0 {
		answered = ""
	}
	line := fmt.Sprintf("mcpeval: REPLAY: the tool results are those recorded by run %s%s: %s answered from its recordings, %s",
		escapeHidden(r.Source), answered, prose.Plural(r.Recorded, "calls"), unmatched)
	if r.Lost > 0 {
		line += fmt.Sprintf("; %d of its recorded calls could not answer any (their arguments, or their results, were cut in the records, and the results are not in the recordings store)", r.Lost)
	}
	return line
}
