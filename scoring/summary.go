package scoring

import "github.com/mcpeval/mcpeval/internal/eval"

// Summarize aggregates the metrics of many cases. Averages of
// understanding and coverage skip entries where they do not apply.
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
	s.AverageScores = all.averages()
	s.AverageUnderstandingScore = s.AverageScores[eval.MetricUnderstanding]
	s.AverageCoverageScore = s.AverageScores[eval.MetricCoverage]
	s.AverageRecoveryScore = s.AverageScores[eval.MetricRecovery]
	s.AverageOverallScore = all.overall()
	if s.TotalRecoveryAttempts > 0 {
		s.RecoverySuccessRate = unit(float64(s.SuccessfulRecoveries) / float64(s.TotalRecoveryAttempts))
	}
	if s.ErrorsEncountered > 0 {
		s.ErrorRecoveryRate = unit(float64(s.RecoveredErrors) / float64(s.ErrorsEncountered))
	}
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

func (a *averager) overall() float64 {
	if a.entries == 0 {
		return 0
	}
	return unit(a.overallTotal / float64(a.entries))
}

func (a *averager) group() eval.MetricsGroup {
	return eval.MetricsGroup{Entries: a.entries, AverageOverallScore: a.overall(), AverageScores: a.averages()}
}
