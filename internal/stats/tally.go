package stats

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/internal/eval"
)

// Tally gathers the records of a run by case (and model) and returns each
// case's pass rate, pass@k and pass^k over its repeats, each category's
// and the whole run's. Cases come in category, file and line order.
func Tally(records []eval.Record) (overall eval.GroupResult, categories []eval.GroupResult, cases []eval.CaseResult) {
	type key struct{ name, model string }
	byCase := map[key][]eval.Record{}
	var order []key
	for _, r := range records {
		k := key{r.Name, r.Model}
		if _, ok := byCase[k]; !ok {
			order = append(order, k)
		}
		byCase[k] = append(byCase[k], r)
	}
	for _, k := range order {
		cases = append(cases, CaseResultOf(byCase[k]))
	}
	slices.SortStableFunc(cases, func(a, b eval.CaseResult) int {
		return cmp.Or(strings.Compare(a.Category, b.Category), strings.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line), strings.Compare(a.Name, b.Name), strings.Compare(a.Model, b.Model))
	})
	byCategory := map[string][]eval.CaseResult{}
	var names []string
	for _, c := range cases {
		if _, ok := byCategory[c.Category]; !ok {
			names = append(names, c.Category)
		}
		byCategory[c.Category] = append(byCategory[c.Category], c)
	}
	for _, name := range names {
		g := Group(byCategory[name])
		g.Name = name
		categories = append(categories, g)
	}
	return Group(cases), categories, cases
}

// CaseResultOf is the result of one case's runs, given in any order.
func CaseResultOf(runs []eval.Record) eval.CaseResult {
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, func(a, b eval.Record) int { return cmp.Compare(a.Repeat, b.Repeat) })
	first := runs[0]
	c := eval.CaseResult{Name: first.Name, Category: first.Category, Model: first.Model, File: first.File, Line: first.Line,
		Runs: len(runs), Statuses: make([]eval.Status, len(runs))}
	for i, r := range runs {
		c.Statuses[i] = r.Status
		if r.Status == eval.Pass {
			c.Passes++
		}
	}
	c.PassRate = float64(c.Passes) / float64(c.Runs)
	for k := 1; k <= c.Runs; k++ {
		c.PassAtK = append(c.PassAtK, PassAtK(c.Runs, c.Passes, k))
		c.PassHatK = append(c.PassHatK, PassHatK(c.Runs, c.Passes, k))
	}
	c.Flaky = c.Passes > 0 && c.Passes < c.Runs
	return c
}

// Group aggregates case results: the means of their pass rates, and of
// pass@k and pass^k over the cases that ran at least k times.
func Group(cases []eval.CaseResult) eval.GroupResult {
	g := eval.GroupResult{Cases: len(cases), PassAtK: []float64{}, PassHatK: []float64{}}
	if len(cases) == 0 {
		return g
	}
	maxRuns := 0
	for _, c := range cases {
		g.Runs += c.Runs
		g.Passes += c.Passes
		g.PassRate += c.PassRate / float64(len(cases))
		if c.Flaky {
			g.Flaky++
		}
		maxRuns = max(maxRuns, c.Runs)
	}
	for k := 1; k <= maxRuns; k++ {
		var at, hat float64
		n := 0
		for _, c := range cases {
			if c.Runs >= k {
				at += c.PassAtK[k-1]
				hat += c.PassHatK[k-1]
				n++
			}
		}
		g.PassAtK = append(g.PassAtK, at/float64(n))
		g.PassHatK = append(g.PassHatK, hat/float64(n))
	}
	return g
}

// CaseSet identifies the set of cases that ran, by their names: runs of the
// same case set can be charted and compared case by case.
func CaseSet(cases []eval.CaseResult) string {
	names := make([]string, 0, len(cases))
	for _, c := range cases {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	sum := sha256.Sum256([]byte(strings.Join(names, "\x00")))
	return hex.EncodeToString(sum[:8])
}
