package suite

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/runs"
)

// budget is a run's spend against its budget (-budget-usd). A case starts
// while the spend, with what the runs under way are expected to cost, is
// below the budget; a case run with several models side by side (a
// caseGroup) is admitted or refused whole, so that whatever the budget
// cuts, the models stay compared on the same runs.
type budget struct {
	mu    sync.Mutex
	spent float64 // US dollars the finished runs cost
	// held counts the runs admitted and not finished, by model: they are
	// expected to cost their model's expectedCost, as it stands.
	held map[string]int
	// paid and paidUSD count the finished runs by model and what they
	// cost; estimated is each model's cost per run as Estimate put it,
	// used until a run of the model is paid.
	paid      map[string]int
	paidUSD   map[string]float64
	estimated map[string]float64
	// refused counts the runs not started for the budget, by model.
	refused map[string]int
}

// A caseGroup is one run of a case with the models that run it side by
// side (one model for Run); the budget decides on it once, for all of
// them.
type caseGroup struct {
	models            []string
	decided, admitted bool
	// held marks the models whose run the budget holds until it finishes;
	// done those whose run is over (or never started).
	held, done map[string]bool
}

func newCaseGroup(models ...string) *caseGroup {
	return &caseGroup{models: models, held: map[string]bool{}, done: map[string]bool{}}
}

// admit decides whether a model's run of a case group may start under the
// budget, and gives what was spent. The first of the group's models to ask
// decides for all: the group starts while the spend, with what the runs
// under way are expected to cost, is below the budget, and then each of
// its models' runs counts as under way until it finishes. What a run is
// expected to cost is its model's mean so far, so the runs under way are
// valued anew as runs finish.
func (s *Run) admit(g *caseGroup, model string) (spent float64, ok bool) {
	b := &s.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	limit := s.Settings.BudgetUSD
	if limit <= 0 {
		return b.spent, true
	}
	if !g.decided {
		g.decided = true
		g.admitted = b.spent+b.pending() < limit
		for _, m := range g.models {
			if g.admitted && !g.done[m] {
				g.held[m] = true
				b.held[m]++
			}
		}
	}
	if !g.admitted {
		b.refused[model]++
	}
	return b.spent, g.admitted
}

// leave ends a model's run of a case group: usd is what it cost when it
// ran (paid), and what the budget held for it is released.
func (s *Run) leave(g *caseGroup, model string, usd float64, paid bool) {
	b := &s.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	g.done[model] = true
	if g.held[model] {
		b.held[model]--
		delete(g.held, model)
	}
	if paid {
		b.spent += usd
		b.paid[model]++
		b.paidUSD[model] += usd
	}
}

// pending is what the runs admitted and not finished are expected to cost.
func (b *budget) pending() float64 {
	usd := 0.0
	for model, n := range b.held {
		usd += float64(n) * b.expectedCost(model)
	}
	return usd
}

// expectedCost is what a run with the model is expected to cost: the mean
// of its paid runs; before any is paid, Estimate's figure for it or, when
// more, the mean of every paid run. The runs of other models are the only
// evidence of what the price table missed (a provider's own price, the
// judge's requests), so a model whose runs all wait behind them is not
// valued at a figure the paid runs have already proved too low.
func (b *budget) expectedCost(model string) float64 {
	if n := b.paid[model]; n > 0 {
		return b.paidUSD[model] / float64(n)
	}
	usd := b.estimated[model]
	n := 0
	for _, k := range b.paid {
		n += k
	}
	if n > 0 {
		usd = max(usd, b.spent/float64(n))
	}
	return usd
}

// budgetStop says how the budget stopped the run: what was spent and the
// runs it did not start (by model, with several); "" when it started every
// run.
func (s *Run) budgetStop() string {
	b := &s.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	total := 0
	var byModel []string
	for _, model := range slices.Sorted(maps.Keys(b.refused)) {
		total += b.refused[model]
		byModel = append(byModel, fmt.Sprintf("%s %d", model, b.refused[model]))
	}
	if total == 0 {
		return ""
	}
	what := fmt.Sprintf("%d case runs", total)
	if len(s.Settings.Models) > 1 {
		what += " (" + strings.Join(byModel, ", ") + ")"
	}
	return fmt.Sprintf("the budget of $%.4f was reached: $%.4f spent, %s not started", s.Settings.BudgetUSD, b.spent, what)
}

// The usage a case never run before is estimated at: an agent's requests
// at each message of the user, with a judge the judge's request on each
// reply graded against an expected one, and a simulated user's request for
// each of its messages.
var (
	estimateAgent = eval.Usage{PromptTokens: 8000, CompletionTokens: 800, Requests: 3}
	estimateJudge = eval.Usage{PromptTokens: 1500, CompletionTokens: 100, Requests: 1}
	estimateUser  = eval.Usage{PromptTokens: 1500, CompletionTokens: 100, Requests: 1}
)

// estimateRequests returns how many times a run of c is expected to pay
// estimateAgent, estimateJudge and estimateUser: the agent answers each of
// the user's messages (its input and its turns, or as many as its
// simulated user may send: max_turns), the judges grade the final answer
// and each earlier reply given an expected one (the first reply's, a
// turn's), and a simulated user played by a model writes each of its
// messages after the input (at most max_turns - 1; a replay gives the
// recorded ones, asking no model).
func estimateRequests(c eval.Case, replay bool) (agent, judged, user int) {
	agent, judged = 1+len(c.Turns), 1
	for k := range len(c.Turns) {
		if r, ok := c.ReplyAt(k); ok && r.Graded() {
			judged++
		}
	}
	if c.User != nil {
		agent = c.User.Turns()
		if c.FirstReply != nil && c.FirstReply.Graded() {
			judged++
		}
		if !replay {
			user = c.User.Turns() - 1
		}
	}
	return agent, judged, user
}

// Estimate returns what running the cases repeats times with every model
// is expected to cost, before any request: nothing for a run the cache
// holds, the case's mean cost in the newest kept run that ran it with the
// model, else the default usage (estimateAgent and, with a judge,
// estimateJudge) at the models' prices. A model needed at its price that
// has none is an error naming it and the price table. Each model's mean
// over its runs to pay is what the budget expects its runs to cost until
// one is paid.
func (s *Run) Estimate(cases []eval.Case, repeats int) (usd float64, err error) {
	st := s.Settings
	// A case's cost in earlier runs, by its case and variant (the model,
	// or the arm: CaseResult.Model).
	history := map[eval.CaseRun]float64{}
	if kept, _ := runs.List(st.Out); kept != nil {
		for i := len(kept) - 1; i >= 0; i-- { // oldest first: newer runs win
			if sum := kept[i].Summary; sum != nil {
				for _, c := range sum.Cases {
					history[eval.CaseRun{Name: c.Name, Model: c.Model}] = c.CostUSD
				}
			}
		}
	}
	byModel, paying := map[string]float64{}, map[string]int{}
	for _, c := range cases {
		for _, a := range s.arms {
			for r := range repeats {
				if !st.Force {
					if s.isCached(c, a, r, a.hash) {
						continue
					}
				}
				cost, err := s.estimateRun(c, a, history)
				if err != nil {
					return 0, err
				}
				usd += cost
				byModel[a.label] += cost
				paying[a.label]++
			}
		}
	}
	s.budget.mu.Lock()
	defer s.budget.mu.Unlock()
	for model, n := range paying {
		s.budget.estimated[model] = byModel[model] / float64(n)
	}
	return usd, nil
}

// estimateRun is what one run of the case with the model is expected to
// cost (see Estimate).
func (s *Run) estimateRun(c eval.Case, a *arm, history map[eval.CaseRun]float64) (float64, error) {
	st := s.Settings
	if h, ok := history[eval.CaseRun{Name: c.Name, Model: a.label}]; ok {
		return h, nil
	}
	agents, judged, users := estimateRequests(c, s.replay != nil)
	model := a.model
	usd, ok := s.prices.Cost(model, scaled(estimateAgent, agents))
	if !ok {
		return 0, fmt.Errorf("cannot estimate the cost of case %q with model %s: it never ran and %s has no price for the model; add one to %s (USD per million input and output tokens)", c.Name, model, s.prices.Describe(), st.Prices)
	}
	for _, judge := range st.JudgeModels() {
		judgeUSD, ok := s.prices.Cost(judge, scaled(estimateJudge, judged))
		if !ok {
			return 0, fmt.Errorf("cannot estimate the judge's cost: %s has no price for the judge model %s; add one to %s", s.prices.Describe(), judge, st.Prices)
		}
		usd += judgeUSD
	}
	if users > 0 {
		userUSD, ok := s.prices.Cost(st.UserModel, scaled(estimateUser, users))
		if !ok {
			return 0, fmt.Errorf("cannot estimate the simulated user's cost of case %q: %s has no price for the user model %s (EVAL_USER_MODEL); add one to %s", c.Name, s.prices.Describe(), st.UserModel, st.Prices)
		}
		usd += userUSD
	}
	return usd, nil
}

// scaled returns u n times over.
func scaled(u eval.Usage, n int) eval.Usage {
	var out eval.Usage
	for range n {
		out.Add(u)
	}
	return out
}
