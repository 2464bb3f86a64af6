package rundata

import (
	"slices"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// overall names the overall score among the metric columns and tiles.
const overall = "overall"

// metricLabels are the names shown for the metrics.
var metricLabels = map[string]string{
	overall:                  "Overall",
	eval.MetricCorrectness:   "Correctness",
	eval.MetricQuality:       "Quality",
	eval.MetricPerformance:   "Performance",
	eval.MetricUnderstanding: "Understanding",
	eval.MetricCoverage:      "Coverage",
	eval.MetricRecovery:      "Recovery",
}

// MetricLabel is the name shown for a metric column ("Coverage"); "" for
// a name that is no metric.
func MetricLabel(name string) string { return metricLabels[name] }

// caseScores returns a case's applicable scores by metric name, with the
// overall score; nil without metrics.
func caseScores(m *eval.Metrics) map[string]float64 {
	if m == nil {
		return nil
	}
	scores := m.Scores()
	scores[overall] = m.Overall.Score
	return scores
}

// metricColumns fills each case's scores and returns the metric columns:
// "overall", then every metric some case has, in the guide's order.
func metricColumns(cases []Case) []string {
	seen := map[string]bool{}
	for i := range cases {
		if r := cases[i].Record; r != nil {
			cases[i].Scores = caseScores(r.Metrics)
			for name := range cases[i].Scores {
				seen[name] = true
			}
		}
	}
	if len(seen) == 0 {
		return nil
	}
	columns := []string{overall}
	for _, name := range eval.MetricNames() {
		if seen[name] {
			columns = append(columns, name)
		}
	}
	return columns
}

// metricTiles are the tiles of a metrics summary: the overall score and
// every metric's average where it applied somewhere, each with the cases
// it is over, then the counts and the recovery success rate, which means
// nothing without recovery attempts.
func metricTiles(s eval.MetricsSummary) []Metric {
	tiles := []Metric{valueTile(overall, Score, s.AverageOverallScore, s.Entries)}
	for _, name := range eval.MetricNames() {
		if v, ok := s.AverageScores[name]; ok {
			tiles = append(tiles, Metric{Name: name, Kind: Score, Value: v, Entries: s.AverageEntries[name]})
		}
	}
	for i := range tiles {
		tiles[i].Label = metricLabels[tiles[i].Name]
	}
	counts := []Metric{
		{Name: "entries", Label: "Cases scored", Kind: Count, Value: float64(s.Entries)},
		{Name: "errors_encountered", Label: "Errors encountered", Kind: Count, Value: float64(s.ErrorsEncountered)},
		{Name: "total_recovery_attempts", Label: "Recovery attempts", Kind: Count, Value: float64(s.TotalRecoveryAttempts)},
		{Name: "successful_recoveries", Label: "Successful recoveries", Kind: Count, Value: float64(s.SuccessfulRecoveries)},
	}
	rate := valueTile("recovery_success_rate", Rate, s.RecoverySuccessRate, s.TotalRecoveryAttempts)
	rate.Label = "Recovery success rate"
	return slices.Concat(tiles, counts, []Metric{rate})
}

// valueTile is the tile of a value that may not apply (nil), taken over
// entries.
func valueTile(name string, kind MetricKind, v *float64, entries int) Metric {
	m := Metric{Name: name, Kind: kind, Entries: entries, NotApplicable: v == nil}
	if v != nil {
		m.Value = *v
	}
	return m
}
