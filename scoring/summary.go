package scoring

import (
	"maps"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Summarize aggregates the metrics of many cases. Each average is taken
// over the entries where its metric applies, with their number; over none
// it is absent (null).
func Summarize(entries []eval.MetricsEntry) eval.MetricsSummary {
	z := NewSummarizer()
	for _, e := range entries {
		z.Add(e)
	}
	return z.Summary()
}

// A Summarizer aggregates metrics entries as they come, keeping sums and
// counts, not the entries: Add of each entry in turn, then Summary, is
// Summarize of them all.
type Summarizer struct {
	entries, errors, attempts, successes, recovered int
	all                                             *averager
	categories, kinds, models                       map[string]*averager
}

// NewSummarizer returns a Summarizer of no entries.
func NewSummarizer() *Summarizer {
	return &Summarizer{all: newAverager(), categories: map[string]*averager{}, kinds: map[string]*averager{}, models: map[string]*averager{}}
}

// Add counts an entry.
func (z *Summarizer) Add(e eval.MetricsEntry) {
	z.entries++
	z.all.add(e.Metrics)
	for _, g := range []struct {
		groups map[string]*averager
		key    string
	}{{z.categories, e.Category}, {z.kinds, string(e.Kind)}, {z.models, e.Model}} {
		if g.groups[g.key] == nil {
			g.groups[g.key] = newAverager()
		}
		g.groups[g.key].add(e.Metrics)
	}
	r := e.Metrics.ErrorRecovery
	if r.HasError {
		z.errors++
		z.attempts += r.RecoveryAttemptsCount
		z.successes += min(r.SuccessfulRecoveries, r.RecoveryAttemptsCount)
		if r.RecoverySuccess {
			z.recovered++
		}
	}
}

// Summary returns the summary of the entries added so far.
func (z *Summarizer) Summary() eval.MetricsSummary {
	s := eval.MetricsSummary{Entries: z.entries, ByCategory: map[string]eval.MetricsGroup{}, ByKind: map[eval.Kind]eval.MetricsGroup{},
		ByModel: map[string]eval.MetricsGroup{}, ErrorsEncountered: z.errors, TotalRecoveryAttempts: z.attempts,
		SuccessfulRecoveries: z.successes, RecoveredErrors: z.recovered}
	all := z.all
	s.AverageScores, s.AverageEntries = all.averages(), maps.Clone(all.counts)
	s.AverageUnderstandingScore, s.UnderstandingEntries = all.average(eval.MetricUnderstanding)
	s.AverageCoverageScore, s.CoverageEntries = all.average(eval.MetricCoverage)
	s.AverageRecoveryScore, s.RecoveryEntries = all.average(eval.MetricRecovery)
	s.AverageOverallScore = all.overall()
	s.RecoverySuccessRate = ratio(s.SuccessfulRecoveries, s.TotalRecoveryAttempts)
	s.ErrorRecoveryRate = ratio(s.RecoveredErrors, s.ErrorsEncountered)
	for key, a := range z.categories {
		s.ByCategory[key] = a.group()
	}
	for key, a := range z.kinds {
		s.ByKind[eval.Kind(key)] = a.group()
	}
	for key, a := range z.models {
		s.ByModel[key] = a.group()
	}
	return s
}

// averager sums metric scores over the entries where each applies.
type averager struct {
	entries      int
	overallTotal float64
	totals       map[string]float64
	counts       map[string]int
}

func newAverager() *averager {
	return &averager{totals: map[string]float64{}, counts: map[string]int{}}
}

func (a *averager) add(m eval.Metrics) {
	a.entries++
	a.overallTotal += m.Overall.Score
	for name, score := range m.Scores() {
		a.totals[name] += score
		a.counts[name]++
	}
}

func (a *averager) averages() map[string]float64 {
	out := map[string]float64{}
	for name, n := range a.counts {
		out[name] = unit(a.totals[name] / float64(n))
	}
	return out
}

// average is a metric's average and the entries it is over; nil over
// none.
func (a *averager) average(name string) (*float64, int) {
	n := a.counts[name]
	if n == 0 {
		return nil, 0
	}
	v := unit(a.totals[name] / float64(n))
	return &v, n
}

// overall is the average overall score, nil without entries.
func (a *averager) overall() *float64 {
	if a.entries == 0 {
		return nil
	}
	v := unit(a.overallTotal / float64(a.entries))
	return &v
}

func (a *averager) group() eval.MetricsGroup {
	return eval.MetricsGroup{Entries: a.entries, AverageOverallScore: a.overall(), AverageScores: a.averages(), AverageEntries: a.counts}
}

// ratio is part/whole in [0, 1], nil when whole is 0.
func ratio(part, whole int) *float64 {
	if whole == 0 {
		return nil
	}
	v := unit(float64(part) / float64(whole))
	return &v
}
