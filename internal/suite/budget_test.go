package suite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/prices"
	"github.com/mcpeval/mcpeval/internal/replay"
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

// A case never run is estimated at what its conversation asks for: the
// agent answers every message of the user (the input and each turn, or as
// many as a simulated user may send), the judge grades the final answer
// and each turn with an expected reply, and a simulated user's model, at
// its own price, writes each message after the input. A replay asks the
// user's model nothing.
func TestEstimateCountsConversations(t *testing.T) {
	dir := t.TempDir()
	pricesFile := filepath.Join(dir, "prices.yaml")
	require.NoError(t, os.WriteFile(pricesFile, []byte(`- {model: agent, input: 1, output: 10, checked: "2026-11-29"}
- {model: judge, input: 2, output: 20, checked: "2026-11-29"}
- {model: user, input: 100, output: 1000, checked: "2026-11-29"}
`), 0o600))
	table, err := prices.Load(pricesFile)
	require.NoError(t, err)
	const (
		agentUSD = (8000*1 + 800*10) / 1e6 // estimateAgent at agent's price
		judgeUSD = (1500*2 + 100*20) / 1e6
		userUSD  = (1500*100 + 100*1000) / 1e6
	)
	single := eval.Case{Name: "single", Input: "q", Expected: "a"}
	scriptedTurns := eval.Case{Name: "turns", Input: "q", Expected: "a", Turns: []eval.Turn{
		{User: "second", ReplyExpect: eval.ReplyExpect{Expected: "Which one?"}}, {User: "third"}}}
	simulatedUser := eval.Case{Name: "user", Input: "q", Expected: "a",
		User: &eval.User{Instructions: "i", MaxTurns: 4}}
	firstReply := &eval.ReplyExpect{Expected: "Which build?", Asks: eval.Spellings{"build"}}
	scriptedFirst, simulatedFirst := scriptedTurns, simulatedUser
	scriptedFirst.FirstReply, simulatedFirst.FirstReply = firstReply, firstReply
	defaultTurns := eval.Case{Name: "user default", Input: "q", Expected: "a", User: &eval.User{Instructions: "i"}}

	tests := []struct {
		name   string
		c      eval.Case
		replay bool
		want   float64
	}{
		{"one question", single, false, agentUSD + judgeUSD},
		{"three scripted turns, one with an expected reply", scriptedTurns, false, 3*agentUSD + 2*judgeUSD},
		{"a simulated user of max_turns 4", simulatedUser, false, 4*agentUSD + judgeUSD + 3*userUSD},
		{"a simulated user of the default max_turns", defaultTurns, false, eval.DefaultMaxTurns*agentUSD + judgeUSD + (eval.DefaultMaxTurns-1)*userUSD},
		{"three scripted turns, the first reply expected too", scriptedFirst, false, 3*agentUSD + 3*judgeUSD},
		{"a simulated user, the first reply expected", simulatedFirst, false, 4*agentUSD + 2*judgeUSD + 3*userUSD},
		{"a replay gives the user's recorded messages", simulatedUser, true, 4*agentUSD + judgeUSD},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := budgetSuite(1, "agent")
			s.Settings.Force, s.Settings.Out, s.Settings.Judge, s.Settings.UserModel = true, dir, "judge", "user"
			s.prices, s.arms = table, []*arm{{label: "agent", model: "agent"}}
			if tt.replay {
				s.replay = &replay.Source{}
			}
			usd, err := s.Estimate([]eval.Case{tt.c}, 2)
			require.NoError(t, err)
			assert.InDelta(t, 2*tt.want, usd, 1e-9, "two repeats")
		})
	}

	s := budgetSuite(1, "agent")
	s.Settings.Force, s.Settings.Out, s.Settings.UserModel = true, dir, "unpriced"
	s.prices, s.arms = table, []*arm{{label: "agent", model: "agent"}}
	_, err = s.Estimate([]eval.Case{simulatedUser}, 1)
	require.ErrorContains(t, err, `cannot estimate the simulated user's cost of case "user"`)
	assert.ErrorContains(t, err, "no price for the user model unpriced (EVAL_USER_MODEL)")
}
