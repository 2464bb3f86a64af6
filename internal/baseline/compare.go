// Package baseline compares a run with an earlier one, its baseline, case
// by case (matched by name and model): what changed, the cause of each
// flipped case from the evidence the two runs recorded (see Attribution),
// and the regression gate's decision. It writes the comparison for a
// terminal (WriteText) and as compare.json (Comparison.JSON); the page,
// compare.html, is internal/htmlreport's.
package baseline

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/stats"
	"github.com/mcpeval/mcpeval/internal/tooldiff"
)

// Comparison is a run compared with a baseline run, case by case.
type Comparison struct {
	Base, Current eval.Summary
	// Alpha is the regression gate's level: how often it fails on two runs
	// of an unchanged model, at most (see stats.RegressionGate).
	Alpha float64
	// Cases holds every case of either run, regressions first.
	Cases []CaseDiff
	// Categories holds the pass rate of each category in both runs.
	Categories []CategoryDelta
	// Regressed and Fixed count the paired cases that passed (most of
	// their runs) in the baseline and fail now, and the other way round.
	Regressed, Fixed int
	// Gate is the regression gate's decision over the paired cases: the
	// run-level test and the counts of cases tested and flagged; each
	// case's verdict is on its CaseDiff.
	Gate stats.GateResult
	// Significant is true when the gate fails: the run is significantly
	// worse as a whole, or some case is flagged.
	Significant bool
	// Tools is how the tool surface changed since the baseline; nil when
	// it did not, or a run did not record it.
	Tools *eval.ToolChanges
	// GateCauses, when set, limits the gate to the flips of these causes
	// (see eval.Causes()): the others are reported and do not count.
	GateCauses []string
}

// The changes of a case between two runs.
const (
	Regression = "regression"
	Fix        = "fix"
	NewCase    = "new"
	Removed    = "removed"
	Unchanged  = "unchanged"
)

// CaseDiff is one case in both runs.
type CaseDiff struct {
	Name, Category, Model string
	// Base and Current are the case's outcome in each run; nil where it
	// did not run.
	Base, Current *CaseOutcome
	// Change is Regression, Fix, NewCase, Removed or Unchanged.
	Change string
	// ToolsChanged is true when the case called other tools, or in
	// another order.
	ToolsChanged bool
	// P is the one-sided Fisher exact test that the case passes less often
	// now, AdjustedP the same after the correction for the cases tested
	// (1 when the case was not tested: its counts could not show a
	// significant drop); Significant is true when the gate flags the case.
	P, AdjustedP float64
	Tested       bool
	Significant  bool
	// ToolChanges are the changes of the tool surface among the tools the
	// case called in either run, which may explain a change of outcome:
	// "get_gene: input schema changed".
	ToolChanges []string
	// Attribution is why a regression or fix flipped; nil for the others.
	Attribution *Attribution
}

// CaseOutcome is how a case did in one run.
type CaseOutcome struct {
	Runs, Passes int
	Rate         float64
	// Passed is true when most of its runs passed.
	Passed bool
	Status eval.Status
	// Tools are the names of the tools its shown run called, in order.
	Tools []string
	// Answer and Reason are its shown run's answer and why it has its
	// status (cut to a few hundred characters).
	Answer, Reason string
	// records are its runs' records, the shown run's first.
	records []*eval.Record
}

// shown is the record of the run the outcome shows; nil for none.
func (o *CaseOutcome) shown() *eval.Record {
	if o == nil || len(o.records) == 0 {
		return nil
	}
	return o.records[0]
}

// CategoryDelta is a category's pass rate (the mean of its cases') in the
// baseline and now.
type CategoryDelta struct {
	Name          string
	Base, Current float64
	BaseCases     int
	CurrentCases  int
}

// Compare compares the run cur with the baseline base, attributes each
// flipped case to a cause and applies the regression gate at level alpha,
// to the flips of gateCauses alone when given. Cases are matched by name
// and model. Runs that share no case are not comparable: that is an error.
func Compare(base, cur *rundata.Data, alpha float64, gateCauses ...string) (*Comparison, error) {
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("significance level %v: must be between 0 and 1", alpha)
	}
	type key = eval.CaseRun // a case with a model, over its repeats
	outcomes := func(d *rundata.Data) (map[key]*CaseOutcome, map[key]rundata.Group) {
		out, groups := map[key]*CaseOutcome{}, map[key]rundata.Group{}
		for _, g := range d.Groups {
			k := key{Name: g.Name, Model: g.Model}
			out[k] = outcomeOf(g, d.Cases)
			groups[k] = g
		}
		return out, groups
	}
	bo, bg := outcomes(base)
	co, cg := outcomes(cur)
	shared := 0
	for k := range co {
		if bo[k] != nil {
			shared++
		}
	}
	if shared == 0 {
		return nil, fmt.Errorf("the runs share no case (the baseline ran %d, this run %d): compare runs of the same case files", len(bo), len(co))
	}

	c := &Comparison{Base: base.Run, Current: cur.Run, Alpha: alpha, Tools: toolChanges(base.Run, cur.Run), GateCauses: gateCauses}
	keys := map[key]bool{}
	for k := range bo {
		keys[k] = true
	}
	for k := range co {
		keys[k] = true
	}
	for k := range keys {
		d := CaseDiff{Name: k.Name, Model: k.Model, Base: bo[k], Current: co[k], P: 1, AdjustedP: 1}
		if g, ok := cg[k]; ok {
			d.Category = g.Category
		} else {
			d.Category = bg[k].Category
		}
		switch {
		case d.Base == nil:
			d.Change = NewCase
		case d.Current == nil:
			d.Change = Removed
		default:
			d.ToolsChanged = !slices.Equal(d.Base.Tools, d.Current.Tools)
			switch {
			case d.Base.Passed && !d.Current.Passed:
				d.Change = Regression
				c.Regressed++
			case !d.Base.Passed && d.Current.Passed:
				d.Change = Fix
				c.Fixed++
			default:
				d.Change = Unchanged
			}
		}
		if d.Change != Unchanged {
			d.ToolChanges = tooldiff.Explain(c.Tools, calledTools(d))
		}
		if d.Change == Regression || d.Change == Fix {
			d.Attribution = attribute(d, d.ToolChanges)
		}
		c.Cases = append(c.Cases, d)
	}
	order := map[string]int{Regression: 0, Fix: 1, NewCase: 2, Removed: 3, Unchanged: 4}
	slices.SortFunc(c.Cases, func(a, b CaseDiff) int {
		return cmp.Or(cmp.Compare(order[a.Change], order[b.Change]), strings.Compare(a.Category, b.Category),
			strings.Compare(a.Name, b.Name), strings.Compare(a.Model, b.Model))
	})
	c.applyGate()
	c.Categories = categoryDeltas(c.Cases)
	return c, nil
}

// applyGate runs the regression gate over the cases both runs ran and
// marks each case's verdict.
func (c *Comparison) applyGate() {
	for i := range c.Cases {
		d := &c.Cases[i]
		d.P, d.AdjustedP, d.Tested, d.Significant = 1, 1, false, false
	}
	var paired []int
	var counts []stats.CaseCounts
	for i, d := range c.Cases {
		if d.Base != nil && d.Current != nil && c.gated(d) {
			paired = append(paired, i)
			counts = append(counts, stats.CaseCounts{BaseRuns: d.Base.Runs, BasePasses: d.Base.Passes, Runs: d.Current.Runs, Passes: d.Current.Passes})
		}
	}
	c.Gate = stats.RegressionGate(counts, c.Alpha)
	for j, i := range paired {
		v, d := c.Gate.Cases[j], &c.Cases[i]
		d.P, d.AdjustedP, d.Tested, d.Significant = v.P, v.AdjustedP, v.Tested, v.Flagged
	}
	c.Gate.Cases = nil // on the cases
	c.Significant = c.Gate.Significant
}

// gated reports whether the gate weighs a case: every case, unless the
// gate is limited to causes and the case flipped for another.
func (c *Comparison) gated(d CaseDiff) bool {
	return len(c.GateCauses) == 0 || d.Attribution == nil || slices.Contains(c.GateCauses, d.Attribution.Cause)
}

// Flagged returns the cases the gate flagged.
func (c *Comparison) Flagged() []CaseDiff {
	var out []CaseDiff
	for _, d := range c.Cases {
		if d.Significant {
			out = append(out, d)
		}
	}
	return out
}

// toolChanges compares the tool surfaces the two runs recorded; nil when
// one did not record it or they are the same.
func toolChanges(base, cur eval.Summary) *eval.ToolChanges {
	if base.Tools == nil || cur.Tools == nil || base.Tools.Hash == cur.Tools.Hash {
		return nil
	}
	ch := tooldiff.Compare(base.Tools, cur.Tools)
	ch.Since = base.RunID
	return &ch
}

// calledTools are the names of the tools a case called in either run.
func calledTools(d CaseDiff) []string {
	var names []string
	for _, o := range []*CaseOutcome{d.Base, d.Current} {
		if o != nil {
			names = append(names, o.Tools...)
		}
	}
	return names
}

// outcomeOf is a group's outcome in its run.
func outcomeOf(g rundata.Group, cases []rundata.Case) *CaseOutcome {
	o := &CaseOutcome{Passes: g.Passes, Status: g.Status, Tools: []string{}}
	for _, i := range g.Runs {
		if rundata.Ran(cases[i].Status) {
			o.Runs++
		}
	}
	o.Rate = g.Rate(cases)
	o.Passed = o.Runs > 0 && 2*o.Passes > o.Runs
	// The shown run's record first, then the other runs'.
	if r := cases[g.Shown].Record; r != nil {
		o.records = append(o.records, r)
	}
	for _, i := range g.Runs {
		if r := cases[i].Record; r != nil && i != g.Shown {
			o.records = append(o.records, r)
		}
	}
	if r := cases[g.Shown].Record; r != nil {
		for _, tc := range r.ToolCalls {
			o.Tools = append(o.Tools, tc.Name)
		}
		o.Answer, o.Reason = prose.Shorten(r.Response, 600), prose.Shorten(r.Reason, 600)
	}
	return o
}

// categoryDeltas are the mean pass rates of each category's cases in both
// runs.
func categoryDeltas(diffs []CaseDiff) []CategoryDelta {
	index := map[string]int{}
	var out []CategoryDelta
	for _, d := range diffs {
		i, ok := index[d.Category]
		if !ok {
			i = len(out)
			index[d.Category] = i
			out = append(out, CategoryDelta{Name: d.Category})
		}
		cd := &out[i]
		if d.Base != nil {
			cd.Base += d.Base.Rate
			cd.BaseCases++
		}
		if d.Current != nil {
			cd.Current += d.Current.Rate
			cd.CurrentCases++
		}
	}
	for i := range out {
		if out[i].BaseCases > 0 {
			out[i].Base /= float64(out[i].BaseCases)
		}
		if out[i].CurrentCases > 0 {
			out[i].Current /= float64(out[i].CurrentCases)
		}
	}
	slices.SortFunc(out, func(a, b CategoryDelta) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Count returns how many cases had the given change.
func (c *Comparison) Count(change string) int {
	n := 0
	for _, d := range c.Cases {
		if d.Change == change {
			n++
		}
	}
	return n
}

// ToolsChanged returns how many cases that ran in both called other tools.
func (c *Comparison) ToolsChanged() int {
	n := 0
	for _, d := range c.Cases {
		if d.ToolsChanged {
			n++
		}
	}
	return n
}
