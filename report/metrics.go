package report

import (
	"encoding/json"
	"math"
	"regexp"
	"sort"
	"strings"
)

// MetricLabel is the name shown for a metric: the last part of its key
// path without "_score" (the part before for a bare "score"), or a
// friendlier name for the summary's counts, capitalized with spaces:
// "requirement_coverage.coverage_score" is "Coverage", "errors_encountered"
// is "Errors encountered".
func MetricLabel(key string) string {
	name := scoreName(key)
	if friendly, ok := friendlyNames[name]; ok {
		return friendly
	}
	name = strings.ReplaceAll(name, "_", " ")
	if name == "" {
		return key
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// friendlyNames label the summary values whose key says little on its own.
var friendlyNames = map[string]string{
	"entries":                 "Cases scored",
	"total_entries":           "Cases scored",
	"total_recovery_attempts": "Recovery attempts",
}

// scoreName is the last part of a key path without "_score", or the part
// before a bare "score".
func scoreName(key string) string {
	parts := strings.Split(key, ".")
	last := parts[len(parts)-1]
	if last == "score" && len(parts) > 1 {
		last = parts[len(parts)-2]
	}
	return strings.TrimSuffix(last, "_score")
}

// scoreBefore orders score keys: "overall" first, then by label.
func scoreBefore(a, b string) bool {
	oa, ob := scoreName(a) == "overall", scoreName(b) == "overall"
	if oa != ob {
		return oa
	}
	la, lb := MetricLabel(a), MetricLabel(b)
	if la != lb {
		return la < lb
	}
	return a < b
}

// averageScore matches the summary's flat averages, "average_coverage_score".
var averageScore = regexp.MustCompile(`^average_(.+)_score$`)

// summarizeMetrics turns a decoded metrics_summary.json into the values the
// report shows, each once. The summary may give a score twice, as
// "average_coverage_score" and as "average_scores.coverage": both are the
// score "coverage". Scores come first ("overall" first, then by label),
// then the other values by label: rates (names ending in "_rate") and
// counts.
func summarizeMetrics(summary any) []Metric {
	var scores, others []Metric
	seen := map[string]bool{}
	for _, m := range trimCommonRoot(numericLeaves(summary, isSummaryKey)) {
		parts := strings.Split(m.Name, ".")
		last := parts[len(parts)-1]
		parent := ""
		if len(parts) > 1 {
			parent = parts[len(parts)-2]
		}
		switch {
		case parent == "average_scores" || parent == "averages":
			m.Name, m.Kind = strings.TrimSuffix(last, "_score"), Score
		case averageScore.MatchString(last):
			m.Name, m.Kind = averageScore.FindStringSubmatch(last)[1], Score
		case last == "overall" || last == "score" || strings.HasSuffix(last, "_score"):
			m.Name, m.Kind = scoreName(m.Name), Score
		case strings.HasSuffix(last, "_rate"):
			m.Kind = Rate
		default:
			m.Kind = Count
		}
		if seen[m.Name] {
			continue
		}
		seen[m.Name] = true
		m.Label = MetricLabel(m.Name)
		if m.Kind == Score {
			scores = append(scores, m)
		} else {
			others = append(others, m)
		}
	}
	for i, m := range others {
		if of, ok := shareOf[m.Name]; ok && m.Kind == Rate {
			for _, n := range others {
				if n.Name == of && n.Value == 0 {
					others[i].NotApplicable = true
				}
			}
		}
	}
	sort.SliceStable(scores, func(i, j int) bool { return scoreBefore(scores[i].Name, scores[j].Name) })
	sort.SliceStable(others, func(i, j int) bool { return others[i].Label < others[j].Label })
	return append(scores, others...)
}

// shareOf names, for a rate of the summary, the count it is a share of:
// when that count is 0 the rate means nothing.
var shareOf = map[string]string{"recovery_success_rate": "errors_encountered"}

// isScoreKey tells which metric values are scores worth a column: those
// named overall, score or *_score, outside detail and breakdown maps.
func isScoreKey(path string) bool {
	if !isSummaryKey(path) {
		return false
	}
	last := path[strings.LastIndex(path, ".")+1:]
	return last == "overall" || last == "score" || strings.HasSuffix(last, "_score")
}

// isSummaryKey leaves out values inside detail maps (tool_details, ...) and
// breakdowns (by_category, ...), which would drown the headline numbers.
func isSummaryKey(path string) bool {
	for _, part := range strings.Split(path, ".") {
		if strings.Contains(part, "details") || strings.HasPrefix(part, "by_") {
			return false
		}
	}
	return true
}

// collectMetrics fills each case's numeric scores and returns their names,
// "overall" first, then by label.
func collectMetrics(cases []Case) []string {
	seen := map[string]bool{}
	for i := range cases {
		r := cases[i].Record
		if r == nil || len(r.Metrics) == 0 {
			continue
		}
		leaves := numericLeaves(r.Metrics, isScoreKey)
		if len(leaves) == 0 {
			continue
		}
		cases[i].Metrics = make(map[string]float64, len(leaves))
		for _, m := range leaves {
			cases[i].Metrics[m.Name] = m.Value
			seen[m.Name] = true
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return scoreBefore(keys[i], keys[j]) })
	return keys
}

// numericLeaves flattens the numbers in a decoded JSON value into dotted
// names, keeping those whose name passes keep and leaving out objects that
// say "not_applicable": true. Values are in encounter order of sorted keys.
func numericLeaves(v any, keep func(string) bool) []Metric {
	var out []Metric
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if x["not_applicable"] == true {
				return // a metric that does not apply scores nothing, not 0
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				name := k
				if prefix != "" {
					name = prefix + "." + k
				}
				walk(name, x[k])
			}
		case float64:
			if prefix != "" && keep(prefix) && !math.IsNaN(x) && !math.IsInf(x, 0) {
				out = append(out, Metric{Name: prefix, Value: x})
			}
		case int:
			if prefix != "" && keep(prefix) {
				out = append(out, Metric{Name: prefix, Value: float64(x)})
			}
		case json.Number:
			if f, err := x.Float64(); err == nil && prefix != "" && keep(prefix) {
				out = append(out, Metric{Name: prefix, Value: f})
			}
		}
	}
	walk("", v)
	return out
}

// trimCommonRoot drops a first name part that all metrics share, such as
// the "summary." of {"summary": {...}}.
func trimCommonRoot(ms []Metric) []Metric {
	if len(ms) == 0 {
		return ms
	}
	root, _, ok := strings.Cut(ms[0].Name, ".")
	if !ok {
		return ms
	}
	for _, m := range ms {
		if !strings.HasPrefix(m.Name, root+".") {
			return ms
		}
	}
	for i := range ms {
		ms[i].Name = strings.TrimPrefix(ms[i].Name, root+".")
	}
	return ms
}
