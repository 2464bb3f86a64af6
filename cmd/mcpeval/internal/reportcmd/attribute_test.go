package reportcmd

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/report"
)

// The re-runs on the baseline's tool results weigh a flip's cause, and say
// how sure they are when they disagree.
func TestWeigh(t *testing.T) {
	for _, tc := range []struct {
		name           string
		cause          string
		runs, asBase   int
		wantCause      string
		wantSure       float64
		wantWhyMention string
	}{
		{"the model followed the data", eval.CauseModel, 3, 3, eval.CauseData, 1, "the data moved and the model followed"},
		{"the data, mostly", eval.CauseData, 3, 2, eval.CauseData, 2.0 / 3, ""},
		{"the model changed on the same data", eval.CauseData, 4, 1, eval.CauseModel, 0.75, "the model changed on the same data"},
		{"the surface's flip is the model's", eval.CauseSurface, 2, 0, eval.CauseModel, 1, "the model changed on the same data"},
		{"the model, confirmed", eval.CauseModel, 5, 0, eval.CauseModel, 1, ""},
		{"a tie keeps the cause", eval.CauseData, 2, 1, eval.CauseData, 0.5, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &report.Attribution{Cause: tc.cause, Why: "evidence"}
			weigh(a, &report.ReplayCheck{Run: "r", Runs: tc.runs, AsBaseline: tc.asBase})
			assert.Equal(t, tc.wantCause, a.Cause)
			require.NotNil(t, a.Replay)
			assert.InDelta(t, tc.wantSure, a.Replay.Sure, 1e-9)
			assert.Contains(t, a.Why, tc.wantWhyMention)
		})
	}
}
