package suite

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/settings"
)

func budgetSuite(limit float64, models ...string) *Run {
	return &Run{Settings: settings.Settings{BudgetUSD: limit, Models: models},
		budget: budget{held: map[string]int{}, paid: map[string]int{}, paidUSD: map[string]float64{}, estimated: map[string]float64{}, refused: map[string]int{}}}
}

// A case run's models are admitted or refused together, and what the
// admitted runs are expected to cost counts before they finish: a cheap
// model finishing first does not let the run start more cases than the
// budget holds.
func TestBudgetAdmitsCaseRunsWhole(t *testing.T) {
	s := budgetSuite(0.095, "expensive", "cheap")
	s.budget.estimated = map[string]float64{"expensive": 0.04, "cheap": 0.01}

	first := newCaseGroup("expensive", "cheap")
	_, ok := s.admit(first, "cheap")
	require.True(t, ok)
	assert.InDelta(t, 0.05, s.budget.pending(), 1e-12, "both models' runs are under way")
	s.leave(first, "cheap", 0.01, true)

	second := newCaseGroup("expensive", "cheap")
	_, ok = s.admit(second, "cheap")
	require.True(t, ok, "$0.01 spent, $0.04 under way: below $0.095")
	s.leave(second, "cheap", 0.01, true)

	third := newCaseGroup("expensive", "cheap")
	spent, ok := s.admit(third, "cheap")
	assert.False(t, ok, "$0.02 spent and $0.08 held for the expensive runs: the budget is reached")
	assert.InDelta(t, 0.02, spent, 1e-12)
	_, ok = s.admit(third, "expensive")
	assert.False(t, ok, "its partner is refused with it")

	_, ok = s.admit(first, "expensive")
	assert.True(t, ok, "a case run admitted stays admitted for every model")
	s.leave(first, "expensive", 0.05, true)
	s.leave(second, "expensive", 0, false) // it did not run after all: its hold is released
	assert.InDelta(t, 0, s.budget.pending(), 1e-12)
	assert.InDelta(t, 0.07, s.budget.spent, 1e-12)
	assert.InDelta(t, 0.05, s.budget.expectedCost("expensive"), 1e-12, "a model's paid runs set what it is expected to cost")

	assert.Equal(t, "the budget of $0.0950 was reached: $0.0700 spent, 2 case runs (cheap 1, expensive 1) not started", s.budgetStop())
}

func TestBudgetOff(t *testing.T) {
	s := budgetSuite(0, "m")
	g := newCaseGroup("m")
	for range 3 {
		_, ok := s.admit(g, "m")
		assert.True(t, ok)
	}
	assert.Zero(t, s.budget.pending())
	assert.Empty(t, s.budgetStop())
}

// The runs under way are valued at what their model's runs cost so far, as
// it stands: an estimate far below the real cost is corrected by the first
// run paid, for the runs already admitted too; a model none of whose runs
// is paid yet is valued at no less than the paid runs' mean (the estimate
// missed what they cost), and at its own mean once one is paid.
func TestBudgetValuesRunsUnderWayAnew(t *testing.T) {
	s := budgetSuite(0.10, "a", "b")
	s.budget.estimated = map[string]float64{"a": 0.001, "b": 0.001}
	first, second := newCaseGroup("a", "b"), newCaseGroup("a", "b")
	for _, g := range []*caseGroup{first, second} {
		_, ok := s.admit(g, "a")
		require.True(t, ok)
	}
	assert.InDelta(t, 0.004, s.budget.pending(), 1e-12)
	s.leave(first, "a", 0.04, true)
	assert.InDelta(t, 0.04+0.04+0.04, s.budget.pending(), 1e-12, "a's second run at a's $0.04, b's two at the paid mean, not b's estimate")
	_, ok := s.admit(newCaseGroup("a", "b"), "b")
	assert.False(t, ok, "$0.04 spent and $0.12 under way")
	s.leave(first, "b", 0.002, true)
	assert.InDelta(t, 0.04+0.002, s.budget.pending(), 1e-12, "b's second run at b's own $0.002")
	third := newCaseGroup("a", "b")
	_, ok = s.admit(third, "b")
	assert.True(t, ok, "$0.042 spent and $0.042 under way")
	_, ok = s.admit(newCaseGroup("a", "b"), "b")
	assert.False(t, ok, "$0.042 spent and $0.084 under way")
}
