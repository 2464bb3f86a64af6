package stats

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Tally gathers the records of a run by case (and model) and returns each
// case's pass rate, pass@k and pass^k over its repeats that ran, each
// category's and the whole run's. A case's runs recorded as not run are
// counted apart (CaseResult.NotRun), never as runs of it; a case none of
// whose runs ran has no result. Cases come in category, file and line
// order.
func Tally(records []eval.Record) (overall eval.GroupResult, categories []eval.GroupResult, cases []eval.CaseResult) {
	byCase := map[eval.CaseRun][]int{} // indices into records
	var order []eval.CaseRun
	for i, r := range records {
		k := r.CaseRun().Series()
		if _, ok := byCase[k]; !ok {
			order = append(order, k)
		}
		byCase[k] = append(byCase[k], i)
	}
	for _, k := range order {
		if c := CaseResultOf(gather(records, byCase[k])); c.Runs > 0 {
			cases = append(cases, c)
		}
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

// CaseResultOf is the result of one case's runs, given in any order: its
// pass rate, pass@k, pass^k and flakiness over the runs that ran. The runs
// recorded as not run are counted in NotRun and nowhere else; with no run
// that ran, the result has no runs and a pass rate of 0.
func CaseResultOf(runs []eval.Record) eval.CaseResult {
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, func(a, b eval.Record) int { return cmp.Compare(a.Repeat, b.Repeat) })
	first := runs[0]
	c := eval.CaseResult{Name: first.Name, Category: first.Category, Model: first.ArmName(), File: first.File, Line: first.Line,
		Statuses: []eval.Status{}}
	for _, r := range runs {
		if r.Status == eval.NotRun {
			c.NotRun++
			continue
		}
		c.Runs++
		c.Statuses = append(c.Statuses, r.Status)
		if r.Status == eval.Pass {
			c.Passes++
		}
		c.CostUSD += r.Usage.CostUSD
	}
	c.PassAtK, c.PassHatK = []float64{}, []float64{}
	if c.Runs == 0 {
		return c
	}
	c.CostUSD /= float64(c.Runs)
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
	rates := 0.0
	for _, c := range cases {
		g.Runs += c.Runs
		g.Passes += c.Passes
		rates += c.PassRate
		if c.Flaky {
			g.Flaky++
		}
		maxRuns = max(maxRuns, c.Runs)
	}
	g.PassRate = rates / float64(len(cases)) // one division: every case passing is exactly 1
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
// with its 95% interval (the repeats of a case counted as correlated),
// pass@k and pass^k, tokens, its own cost (the judge's apart), latency and
// tool calls, and each two models on the cases both ran, with the exact
// McNemar test. Models come in the order given, then the others by name;
// every model given or recorded is there, with no runs when none of its
// runs started.
func Models(records []eval.Record, order []string) ([]eval.ModelResult, []eval.ModelPair) {
	byModel, notRun := map[string][]int{}, map[string]int{} // indices into records
	for i, r := range records {
		if r.Status == eval.NotRun {
			notRun[r.ArmName()]++
		} else {
			byModel[r.ArmName()] = append(byModel[r.ArmName()], i)
		}
	}
	var rest []string
	for _, m := range slices.Concat(slices.Collect(maps.Keys(byModel)), slices.Collect(maps.Keys(notRun))) {
		if !slices.Contains(order, m) && !slices.Contains(rest, m) {
			rest = append(rest, m)
		}
	}
	slices.Sort(rest)
	order = slices.Concat(order, rest)
	passed := map[string]map[string]bool{} // model -> case -> passed most runs
	var models []eval.ModelResult
	for _, name := range order {
		m, cases := modelResult(name, records, byModel[name])
		m.NotRun = notRun[name]
		passed[name] = map[string]bool{}
		for _, c := range cases {
			passed[name][c.Name] = 2*c.Passes > c.Runs
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
			pairs = append(pairs, p)
		}
	}
	adjustPairs(pairs)
	return models, pairs
}

// modelResult is how a model did over its runs, the records at the
// indices runs (none: a result with no runs), and its cases' results.
func modelResult(name string, records []eval.Record, runs []int) (eval.ModelResult, []eval.CaseResult) {
	m := eval.ModelResult{Model: name, Runs: len(runs), Low: 0, High: 1, PassAtK: []float64{}, PassHatK: []float64{}}
	if len(runs) == 0 {
		return m, nil
	}
	var seconds []float64
	tokens, calls := 0, 0
	byCase := map[string][]int{} // indices into records
	var names []string
	for _, i := range runs {
		r := &records[i]
		if r.Status == eval.Pass {
			m.Passes++
		}
		own := OwnUsage(*r)
		tokens += own.TotalTokens
		m.PromptTokens += own.PromptTokens
		m.CachedTokens += own.CachedTokens
		m.CostUSD += own.CostUSD
		m.Unpriced += own.Unpriced
		calls += len(r.ToolCalls)
		seconds = append(seconds, r.Seconds)
		if byCase[r.Name] == nil {
			names = append(names, r.Name)
		}
		byCase[r.Name] = append(byCase[r.Name], i)
	}
	cases := make([]eval.CaseResult, len(names))
	passes, ran := make([]int, len(names)), make([]int, len(names))
	for i, c := range names {
		cases[i] = CaseResultOf(gather(records, byCase[c]))
		passes[i], ran[i] = cases[i].Passes, cases[i].Runs
	}
	g := Group(cases)
	m.Cases, m.PassAtK, m.PassHatK = len(cases), g.PassAtK, g.PassHatK
	m.PassRate = float64(m.Passes) / float64(m.Runs)
	m.Low, m.High = ClusteredWilson(passes, ran, 1.96)
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
	return m, cases
}

// gather returns the records at the indices: the runs of a case, grouped
// by index so that a run of many cases does not hold a copy of every
// record per grouping.
func gather(records []eval.Record, indices []int) []eval.Record {
	out := make([]eval.Record, len(indices))
	for i, k := range indices {
		out[i] = records[k]
	}
	return out
}

// OwnUsage is a record's usage without the judge's part and the
// simulated user's: the evaluated model's own requests.
func OwnUsage(r eval.Record) eval.Usage {
	u := r.Usage
	for _, part := range []*eval.Usage{r.JudgeUsage, r.UserUsage} {
		if part == nil {
			continue
		}
		u.PromptTokens -= part.PromptTokens
		u.CompletionTokens -= part.CompletionTokens
		u.CachedTokens -= part.CachedTokens
		u.TotalTokens -= part.TotalTokens
		u.Requests -= part.Requests
		u.Retries -= part.Retries
		u.CostUSD -= part.CostUSD
		u.Unpriced -= part.Unpriced
	}
	return u
}

// User is what the simulated users' requests of this run cost over the
// records (not those of a cached result, made by an earlier run), nil
// when no record had one.
func User(records []eval.Record) *eval.UserCost {
	var u *eval.UserCost
	for _, r := range records {
		if r.UserUsage == nil || r.Status == eval.NotRun || r.Cached {
			continue
		}
		if u == nil {
			u = &eval.UserCost{Model: r.UserModel}
		}
		u.Requests += r.UserUsage.Requests
		u.Retries += r.UserUsage.Retries
		u.CostUSD += r.UserUsage.CostUSD
		u.Unpriced += r.UserUsage.Unpriced
	}
	return u
}

// Leaks names each turn of the records whose simulated user gave a fact
// unasked: "case name, turn N: fact" (with its repeat, "case name
// (repeat 2), turn N: fact", and arm when it has one).
func Leaks(records []eval.Record) []string {
	var out []string
	for _, r := range records {
		for _, t := range r.Turns {
			for _, f := range t.Leaks {
				out = append(out, fmt.Sprintf("%s, turn %d: %s", r.CaseRun(), t.Turn, f))
			}
		}
	}
	return out
}

// Judge is what the judge's requests of this run cost over the records
// (not those of a cached result, made by an earlier run, unless this run
// graded it again), nil when no record had a judge's requests.
func Judge(records []eval.Record) *eval.JudgeCost {
	var j *eval.JudgeCost
	for _, r := range records {
		if r.JudgeUsage == nil || r.Status == eval.NotRun || r.Cached && !r.Regraded {
			continue
		}
		if j == nil {
			j = &eval.JudgeCost{Model: r.JudgeModel}
		}
		j.Requests += r.JudgeUsage.Requests
		j.CostUSD += r.JudgeUsage.CostUSD
		j.Unpriced += r.JudgeUsage.Unpriced
	}
	return j
}

// ClusteredWilson is the Wilson score interval of a pass rate measured
// over cases that ran several times each (passes[i] of runs[i]): repeats
// of one case are correlated, so the runs count at their effective sample
// size, the number of independent runs that would give the same variance
// as the cluster-robust variance of the rate, Σ(passes_i − p·runs_i)² /
// (Σ runs_i)². Never more than the runs; with one run per case it is the
// plain Wilson interval. No runs: [0, 1].
func ClusteredWilson(passes, runs []int, z float64) (lo, hi float64) {
	total, passed := 0, 0
	for i := range runs {
		total += runs[i]
		passed += passes[i]
	}
	if total == 0 {
		return 0, 1
	}
	p := float64(passed) / float64(total)
	effective := float64(total)
	if p > 0 && p < 1 {
		spread := 0.0
		for i := range runs {
			d := float64(passes[i]) - p*float64(runs[i])
			spread += d * d
		}
		if spread > 0 {
			effective = math.Min(effective, p*(1-p)*float64(total)*float64(total)/spread)
		}
	}
	return wilson(p, effective, z)
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
// order given) with each one's overall pass rate, the case set and the
// most runs of a case.
func Summarize(sum *eval.Summary, records []eval.Record, models []string) {
	sum.Overall, sum.Categories, sum.Cases = Tally(records)
	sum.Models, sum.ModelPairs = Models(records, models)
	if len(sum.Models) > 1 {
		for _, m := range sum.Models {
			var own []eval.CaseResult
			for _, c := range sum.Cases {
				if c.Model == m.Model {
					own = append(own, c)
				}
			}
			g := Group(own)
			g.Name = m.Model
			sum.OverallByArm = append(sum.OverallByArm, g)
		}
	}
	sum.Judge = Judge(records)
	sum.User, sum.Leaks = User(records), Leaks(records)
	sum.CaseSet = CaseSet(sum.Cases)
	for _, c := range sum.Cases {
		sum.Repeats = max(sum.Repeats, c.Runs)
	}
}

// Alpha is the error rate of the comparisons of a run's arms: a pair
// or an arm's effect is called a difference when its p, adjusted over
// those compared with it, is below Alpha, and its interval is the
// matching adjusted one. It is the regression gate's default rate, and
// the rate of an arm's verdict against the baseline arm.
const Alpha = 0.05

// adjustPairs tests each pair and adjusts (Holm) over all of them: p,
// adjusted p and the uplift's interval (see HolmPaired).
func adjustPairs(pairs []eval.ModelPair) {
	in := make([]Paired, len(pairs))
	for i, p := range pairs {
		in[i] = Paired{OnlyA: p.OnlyA, OnlyB: p.OnlyB, Cases: p.Cases}
	}
	for i, a := range HolmPaired(in, Alpha) {
		p := &pairs[i]
		p.McNemarP, p.AdjustedP = a.P, a.AdjustedP
		p.Uplift, p.UpliftLow, p.UpliftHigh, p.Confidence = a.Diff, a.Low, a.High, a.Confidence
	}
}

// ArmEffects reads from the compared arms what they change (see
// eval.ArmEffect): each arm with servers against the arm without any
// (when there is one), and each leave-one-out arm against its base, the
// servers' uplifts first, then the tools whose absence cost the most.
// The effects are the hypotheses reported: each one's p is its McNemar p
// adjusted (Holm) over the effects listed, not over every pair of arms,
// and its interval is adjusted with it (see HolmPaired), so that it
// excludes 0 exactly when the adjusted p is below Alpha.
func ArmEffects(models []eval.ModelResult, pairs []eval.ModelPair) []eval.ArmEffect {
	effect := func(kind, from, to, hidden string) (eval.ArmEffect, bool) {
		for _, p := range pairs {
			e := eval.ArmEffect{Kind: kind, From: from, To: to, Hidden: hidden, Cases: p.Cases}
			switch {
			case p.A == from && p.B == to:
				e.OnlyFrom, e.OnlyTo = p.OnlyA, p.OnlyB
			case p.A == to && p.B == from:
				e.OnlyFrom, e.OnlyTo = p.OnlyB, p.OnlyA
			default:
				continue
			}
			return e, true
		}
		return eval.ArmEffect{}, false
	}
	var none string
	for _, m := range models {
		if m.Arm != nil && m.Arm.NoServer {
			none = m.Model
			break
		}
	}
	var effects []eval.ArmEffect
	for _, m := range models {
		switch {
		case m.Arm == nil:
		case m.Arm.Base != "":
			if e, ok := effect("leave_one_out", m.Arm.Base, m.Model, m.Arm.Hidden); ok {
				effects = append(effects, e)
			}
		case none != "" && !m.Arm.NoServer:
			if e, ok := effect("servers", none, m.Model, ""); ok {
				effects = append(effects, e)
			}
		}
	}
	in := make([]Paired, len(effects))
	for i, e := range effects {
		in[i] = Paired{OnlyA: e.OnlyFrom, OnlyB: e.OnlyTo, Cases: e.Cases}
	}
	for i, a := range HolmPaired(in, Alpha) {
		e := &effects[i]
		e.Effect, e.Low, e.High, e.Confidence, e.AdjustedP = a.Diff, a.Low, a.High, a.Confidence, a.AdjustedP
	}
	// The servers' uplifts first, the largest first; then the tools left
	// out, the costliest first.
	servers := func(e eval.ArmEffect) int {
		if e.Kind == "servers" {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(effects, func(a, b eval.ArmEffect) int {
		if c := cmp.Compare(servers(a), servers(b)); c != 0 {
			return c
		}
		if a.Kind == "servers" {
			return cmp.Compare(b.Effect, a.Effect)
		}
		return cmp.Compare(a.Effect, b.Effect)
	})
	return effects
}
