package stats

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"math"
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
		if r.Status == eval.NotRun {
			continue // no outcome
		}
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
		c.CostUSD += r.Usage.CostUSD / float64(len(runs))
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

// Models compares the models of a run's records: each model's pass rate
// with its 95% Wilson interval, tokens, cost, latency and tool calls, and
// each two models on the cases both ran, with the exact McNemar test.
// Models come in the order given, then the others by name.
func Models(records []eval.Record, order []string) ([]eval.ModelResult, []eval.ModelPair) {
	byModel := map[string][]eval.Record{}
	for _, r := range records {
		if r.Status != eval.NotRun {
			byModel[r.Model] = append(byModel[r.Model], r)
		}
	}
	var rest []string
	for m := range byModel {
		if !slices.Contains(order, m) {
			rest = append(rest, m)
		}
	}
	slices.Sort(rest)
	order = slices.DeleteFunc(slices.Concat(order, rest), func(m string) bool { return byModel[m] == nil })
	passed := map[string]map[string]bool{} // model -> case -> passed most runs
	var models []eval.ModelResult
	for _, name := range order {
		runs := byModel[name]
		m := eval.ModelResult{Model: name, Runs: len(runs)}
		var seconds []float64
		tokens, calls := 0, 0
		byCase := map[string][]eval.Record{}
		for _, r := range runs {
			if r.Status == eval.Pass {
				m.Passes++
			}
			tokens += r.Usage.TotalTokens
			m.PromptTokens += r.Usage.PromptTokens
			m.CachedTokens += r.Usage.CachedTokens
			calls += len(r.ToolCalls)
			m.CostUSD += r.Usage.CostUSD
			m.Unpriced += r.Usage.Unpriced
			seconds = append(seconds, r.Seconds)
			byCase[r.Name] = append(byCase[r.Name], r)
		}
		m.Cases = len(byCase)
		m.PassRate = float64(m.Passes) / float64(m.Runs)
		m.Low, m.High = Wilson(m.Passes, m.Runs, 1.96)
		m.MeanTokens = float64(tokens) / float64(m.Runs)
		if m.PromptTokens > 0 {
			m.CacheHitRate = float64(m.CachedTokens) / float64(m.PromptTokens)
		}
		m.ToolCallsPerRun = float64(calls) / float64(m.Runs)
		if m.Passes > 0 {
			m.CostPerPass = m.CostUSD / float64(m.Passes)
		}
		slices.Sort(seconds)
		m.LatencyP50, m.LatencyP95 = percentile(seconds, 0.5), percentile(seconds, 0.95)
		passed[name] = map[string]bool{}
		for c, rs := range byCase {
			passed[name][c] = 2*CaseResultOf(rs).Passes > len(rs)
		}
		models = append(models, m)
	}
	var pairs []eval.ModelPair
	for i, a := range order {
		for _, b := range order[i+1:] {
			p := eval.ModelPair{A: a, B: b}
			for c, pa := range passed[a] {
				pb, ok := passed[b][c]
				if !ok {
					continue
				}
				p.Cases++
				switch {
				case pa && !pb:
					p.OnlyA++
				case pb && !pa:
					p.OnlyB++
				}
			}
			p.McNemarP = McNemar(p.OnlyA, p.OnlyB)
			pairs = append(pairs, p)
		}
	}
	return models, pairs
}

// percentile is the q-th percentile of sorted values (nearest rank), 0
// for none.
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// Summarize fills a run summary's results from its records: the pass
// rates of the run, its categories and cases, the models compared (in the
// order given), the case set and the most runs of a case.
func Summarize(sum *eval.Summary, records []eval.Record, models []string) {
	sum.Overall, sum.Categories, sum.Cases = Tally(records)
	sum.Models, sum.ModelPairs = Models(records, models)
	sum.CaseSet = CaseSet(sum.Cases)
	for _, c := range sum.Cases {
		sum.Repeats = max(sum.Repeats, c.Runs)
	}
}
