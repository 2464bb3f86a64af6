package rundata

import (
	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Group is one case over its runs: once, or go test -count=N times. It is a
// row of the report and a testcase of the JUnit file.
type Group struct {
	Name     string
	Category string
	Model    string
	// Runs are the indices of the case's runs in Data.Cases, by repeat:
	// those that ran and those that did not.
	Runs   []int
	Passes int
	// NotRun counts the runs recorded as not run (eval.NotRun): no runs
	// of the case, left out of its status, rate and flakiness.
	NotRun int
	// Status is the worst outcome of the runs that ran: an error, then a
	// token limit, a fail, an undecided, a pass; when none ran, not run or
	// skipped.
	Status eval.Status
	// Flaky is true when some runs passed and some did not.
	Flaky bool
	// Shown is the run whose texts the row shows: the last run with the
	// group's status (the first such run, when none of them ran).
	Shown int
}

// Rate is the share of the runs that passed, skipped runs aside.
func (g Group) Rate(cases []Case) float64 {
	n := g.Ran(cases)
	if n == 0 {
		return 0
	}
	return float64(g.Passes) / float64(n)
}

// Ran counts the runs that ran: neither skipped nor not run.
func (g Group) Ran(cases []Case) int {
	n := 0
	for _, i := range g.Runs {
		if Ran(cases[i].Status) {
			n++
		}
	}
	return n
}

// severity orders statuses from the worst.
var severity = map[eval.Status]int{eval.Error: 0, eval.TokenLimit: 1, eval.Cut: 1, eval.Fail: 2, eval.Undecided: 3, eval.NotRun: 4, Skip: 4, eval.Pass: 5}

func worse(a, b eval.Status) bool {
	sa, ok := severity[a]
	if !ok {
		sa = -1
	}
	sb, ok := severity[b]
	if !ok {
		sb = -1
	}
	return sa < sb
}

// group gathers the sorted cases into one group per case and model, in
// the cases' order.
func group(cases []Case) []Group {
	index := map[eval.CaseRun]int{}
	var groups []Group
	for i, c := range cases {
		k := eval.CaseRun{Name: c.Name, Model: c.Arm}
		if c.Record != nil {
			k.Model = c.Record.ArmName()
		}
		gi, ok := index[k]
		if !ok {
			gi = len(groups)
			index[k] = gi
			groups = append(groups, Group{Name: c.Name, Category: c.Category, Model: k.Model, Status: c.Status, Shown: i})
		}
		g := &groups[gi]
		g.Runs = append(g.Runs, i)
		switch {
		case c.Status == eval.Pass:
			g.Passes++
		case c.Status == eval.NotRun:
			g.NotRun++
		}
		// A run that ran decides over one that did not, whatever its
		// outcome: a case that passed its one run and was not run four
		// times passed.
		if Ran(c.Status) && (!Ran(g.Status) || !worse(g.Status, c.Status)) ||
			!Ran(c.Status) && !Ran(g.Status) && worse(c.Status, g.Status) {
			g.Status, g.Shown = c.Status, i
		}
	}
	for i := range groups {
		g := &groups[i]
		g.Flaky = g.Passes > 0 && g.Passes < g.Ran(cases)
	}
	return groups
}
