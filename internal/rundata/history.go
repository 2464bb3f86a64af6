package rundata

import (
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/runs"
)

// maxHistory bounds the runs a History holds.
const maxHistory = 50

// History returns the pass rates of the kept runs under the output
// directory parent (the one holding runs/) that ran what run ran: the same
// case set, evaluated with the same models or arms (see evaluated). A
// model's history holds no reference run, nor a run of another model, and
// a reference run's only reference runs. Oldest first (by start time), the
// newest 50 at most; nil when the run names no case set or the runs cannot
// be listed.
func History(parent string, run eval.Summary) []HistoryPoint {
	if run.CaseSet == "" {
		return nil
	}
	list, err := runs.ListBrief(parent) // the cases of each run's summary are not charted
	if err != nil {
		return nil
	}
	what := evaluated(run)
	var points []HistoryPoint
	for _, r := range list {
		if s := r.Summary; s != nil && s.CaseSet == run.CaseSet && evaluated(*s) == what {
			points = append(points, HistoryPoint{RunID: r.ID, Started: s.Started, PassRate: s.Overall.PassRate, Cases: s.Overall.Cases})
		}
	}
	if len(points) > maxHistory {
		points = points[:maxHistory]
	}
	slices.Reverse(points)
	return points
}

// evaluated names what a run evaluated, for telling runs whose pass rates
// chart together: "reference" for a reference run (no model), else its
// models or arms (each arm with its model), as a set.
func evaluated(s eval.Summary) string {
	if s.Reference {
		return "reference"
	}
	var names []string
	for _, m := range s.Models {
		name := m.Model
		if m.Arm != nil {
			name += "\x01" + m.Arm.Model
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		names = []string{s.Model}
	}
	slices.Sort(names)
	return "model\x00" + strings.Join(names, "\x00")
}
