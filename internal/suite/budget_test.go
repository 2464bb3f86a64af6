package suite

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/settings"
)

func budgetSuite(limit float64, models ...string) *Suite {
	return &Suite{Settings: settings.Settings{BudgetUSD: limit, Models: models},
		budget: budget{paid: map[string]int{}, paidUSD: map[string]float64{}, estimated: map[string]float64{}, refused: map[string]int{}}}
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
	assert.InDelta(t, 0.05, s.budget.pending, 1e-12, "both models' runs are held")
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
	assert.InDelta(t, 0, s.budget.pending, 1e-12)
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
	assert.Zero(t, s.budget.pending)
	assert.Empty(t, s.budgetStop())
}
