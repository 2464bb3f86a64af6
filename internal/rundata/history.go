package rundata

import (
	"slices"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/runs"
)

// maxHistory bounds the runs a History holds.
const maxHistory = 50

// History returns the pass rates of the kept runs under the output
// directory parent (the one holding runs/) of the same case set as run,
// oldest first, the newest 50 at most; nil when the run names no case set
// or the runs cannot be listed.
func History(parent string, run eval.Summary) []HistoryPoint {
	if run.CaseSet == "" {
		return nil
	}
	list, err := runs.List(parent)
	if err != nil {
		return nil
	}
	var points []HistoryPoint
	for _, r := range list {
		if s := r.Summary; s != nil && s.CaseSet == run.CaseSet {
			points = append(points, HistoryPoint{RunID: r.ID, Started: s.Started, PassRate: s.Overall.PassRate, Cases: s.Overall.Cases})
		}
	}
	if len(points) > maxHistory {
		points = points[:maxHistory]
	}
	slices.Reverse(points)
	return points
}
