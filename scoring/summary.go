package scoring

// Entry is the metrics of one evaluated case, as appended to metrics.json.
type Entry struct {
	Case     string  `json:"case"`
	Category string  `json:"category"`
	Kind     string  `json:"kind"`
	Model    string  `json:"model"`
	Metrics  Metrics `json:"metrics"`
}

// Summary aggregates entries, as written to metrics_summary.json (under a
// "summary" key, like the guide's file).
type Summary struct {
	Entries                   int     `json:"entries"`
	AverageUnderstandingScore float64 `json:"average_understanding_score"`
	AverageCoverageScore      float64 `json:"average_coverage_score"`
	AverageRecoveryScore      float64 `json:"average_recovery_score"`
	AverageOverallScore       float64 `json:"average_overall_score"`
	// ErrorsEncountered counts entries whose first execution (code) or some
	// tool call (tool) failed.
	ErrorsEncountered     int `json:"errors_encountered"`
	TotalRecoveryAttempts int `json:"total_recovery_attempts"`
	// SuccessfulRecoveries counts entries with an error that recovered.
	SuccessfulRecoveries int `json:"successful_recoveries"`
	// RecoverySuccessRate is SuccessfulRecoveries / ErrorsEncountered (0
	// without errors).
	RecoverySuccessRate float64 `json:"recovery_success_rate"`
	// AverageScores holds every metric's average over the entries where it
	// applies; a metric that applies nowhere is absent.
	AverageScores map[string]float64 `json:"average_scores"`
	ByCategory    map[string]Group   `json:"by_category"`
	ByKind        map[string]Group   `json:"by_kind"`
	ByModel       map[string]Group   `json:"by_model"`
}

// Group aggregates the entries of one category, kind or model.
type Group struct {
	Entries             int                `json:"entries"`
	AverageOverallScore float64            `json:"average_overall_score"`
	AverageScores       map[string]float64 `json:"average_scores"`
}

// Summarize aggregates the metrics of many cases. Averages of
// understanding and coverage skip entries where they do not apply.
func Summarize(entries []Entry) Summary {
	s := Summary{Entries: len(entries), ByCategory: map[string]Group{}, ByKind: map[string]Group{},
		ByModel: map[string]Group{}}
	all := newAverager()
	categories, kinds, models := map[string]*averager{}, map[string]*averager{}, map[string]*averager{}
	for _, e := range entries {
		all.add(e.Metrics)
		for _, g := range []struct {
			groups map[string]*averager
			key    string
		}{{categories, e.Category}, {kinds, e.Kind}, {models, e.Model}} {
			if g.groups[g.key] == nil {
				g.groups[g.key] = newAverager()
			}
			g.groups[g.key].add(e.Metrics)
		}
		r := e.Metrics.ErrorRecovery
		s.TotalRecoveryAttempts += r.RecoveryAttemptsCount
		if r.HasError {
			s.ErrorsEncountered++
			if r.RecoverySuccess {
				s.SuccessfulRecoveries++
			}
		}
	}
	s.AverageScores = all.averages()
	s.AverageUnderstandingScore = s.AverageScores[MetricUnderstanding]
	s.AverageCoverageScore = s.AverageScores[MetricCoverage]
	s.AverageRecoveryScore = s.AverageScores[MetricRecovery]
	s.AverageOverallScore = all.overall()
	if s.ErrorsEncountered > 0 {
		s.RecoverySuccessRate = unit(float64(s.SuccessfulRecoveries) / float64(s.ErrorsEncountered))
	}
	for key, a := range categories {
		s.ByCategory[key] = a.group()
	}
	for key, a := range kinds {
		s.ByKind[key] = a.group()
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

func (a *averager) add(m Metrics) {
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

func (a *averager) group() Group {
	return Group{Entries: a.entries, AverageOverallScore: a.overall(), AverageScores: a.averages()}
}
