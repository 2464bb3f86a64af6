package scoring

import "github.com/mcpeval/mcpeval/evaltest/eval"

// Summarize aggregates the metrics of many cases. Each average is taken
// over the entries where its metric applies, with their number; over none
// it is absent (null).
func Summarize(entries []eval.MetricsEntry) eval.MetricsSummary {
	s := eval.MetricsSummary{Entries: len(entries), ByCategory: map[string]eval.MetricsGroup{}, ByKind: map[eval.Kind]eval.MetricsGroup{},
		ByModel: map[string]eval.MetricsGroup{}}
	all := newAverager()
	categories, kinds, models := map[string]*averager{}, map[string]*averager{}, map[string]*averager{}
	for _, e := range entries {
		all.add(e.Metrics)
		for _, g := range []struct {
			groups map[string]*averager
			key    string
		}{{categories, e.Category}, {kinds, string(e.Kind)}, {models, e.Model}} {
			if g.groups[g.key] == nil {
				g.groups[g.key] = newAverager()
			}
			g.groups[g.key].add(e.Metrics)
		}
		r := e.Metrics.ErrorRecovery
		if r.HasError {
			s.ErrorsEncountered++
			s.TotalRecoveryAttempts += r.RecoveryAttemptsCount
			s.SuccessfulRecoveries += min(r.SuccessfulRecoveries, r.RecoveryAttemptsCount)
			if r.RecoverySuccess {
				s.RecoveredErrors++
			}
		}
	}
	s.AverageScores, s.AverageEntries = all.averages(), all.counts
	s.AverageUnderstandingScore, s.UnderstandingEntries = all.average(eval.MetricUnderstanding)
	s.AverageCoverageScore, s.CoverageEntries = all.average(eval.MetricCoverage)
	s.AverageRecoveryScore, s.RecoveryEntries = all.average(eval.MetricRecovery)
	s.AverageOverallScore = all.overall()
	s.RecoverySuccessRate = ratio(s.SuccessfulRecoveries, s.TotalRecoveryAttempts)
	s.ErrorRecoveryRate = ratio(s.RecoveredErrors, s.ErrorsEncountered)
	for key, a := range categories {
		s.ByCategory[key] = a.group()
	}
	for key, a := range kinds {
		s.ByKind[eval.Kind(key)] = a.group()
	}
	for key, a := range models {
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
