package scoring

import (
	"slices"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
)

// Sub-weights of prompt understanding for code cases (the guide's).
const (
	columnExtractionWeight = 0.4
	nlParsingWeight        = 0.3
	statisticalWeight      = 0.3
)

// intent is something a question can ask for and code can do.
type intent struct {
	name  string
	asked func(grading.Question) bool
	done  func(code, grading.Question) bool
}

func askedPhrase(list ...string) func(grading.Question) bool {
	p := grading.Phrases(list...)
	return func(q grading.Question) bool { return grading.HasPhrase(q.FreeWords(), p) }
}

func doesAny(ops ...string) func(code, grading.Question) bool {
	return func(c code, _ grading.Question) bool { return c.does(ops...) }
}

// statisticalOperations are the guide's six operations. A maximum is also
// taken by keeping the top rows of a descending sort, a minimum by keeping
// the bottom ones.
var statisticalOperations = []intent{
	{name: "mean", asked: askedPhrase("mean", "average", "averages", "avg"),
		done: doesAny("mean", "average")},
	{name: "sum", asked: askedPhrase("sum", "sums", "total", "totals", "summed", "add up"),
		done: doesAny("sum", "cumsum")},
	{name: "max", asked: askedPhrase("max", "maximum", "highest", "largest", "greatest", "biggest", "most"),
		done: func(c code, _ grading.Question) bool {
			return c.does("max", "idxmax", "nlargest", "cummax") || c.ranks("desc", 0)
		}},
	{name: "min", asked: askedPhrase("min", "minimum", "lowest", "smallest", "fewest"),
		done: func(c code, _ grading.Question) bool {
			return c.does("min", "idxmin", "nsmallest", "cummin") || c.ranks("asc", 0)
		}},
	{name: "count", asked: askedPhrase("count", "counts", "how many", "number of", "frequency", "frequencies"),
		done: doesAny("count", "size", "len", "value_counts", "nunique", "shape")},
	{name: "groupby", asked: func(q grading.Question) bool {
		return len(q.GroupItems()) > 0 || grading.HasWord(q.FreeWords(), "group", "grouped", "groupby", "grouping")
	}, done: func(c code, _ grading.Question) bool { return len(c.GroupBys) > 0 }},
}

// rankingIntent asks for the top, bottom or first N rows; it is carried out
// when the code keeps that many rows in that order (see code.ranks).
func rankingIntent(name, kind string) intent {
	return intent{name: name,
		asked: func(q grading.Question) bool {
			return slices.ContainsFunc(q.Rankings(), func(r grading.Ranking) bool { return r.Kind == kind })
		},
		done: func(c code, q grading.Question) bool {
			for _, r := range q.Rankings() {
				if r.Kind != kind {
					continue
				}
				ok := false
				switch kind {
				case "top":
					ok = c.ranks("desc", r.N)
				case "bottom":
					ok = c.ranks("asc", r.N)
				case "first":
					ok = c.keeps(r.N, false)
				}
				if !ok {
					return false
				}
			}
			return true
		}}
}

// nlPatterns are the guide's natural-language phrasings.
var nlPatterns = []intent{
	rankingIntent("top_n", "top"),
	rankingIntent("first_n", "first"),
	rankingIntent("bottom_n", "bottom"),
	{name: "filtering", asked: func(q grading.Question) bool { return len(q.Filters()) > 0 },
		done: func(c code, _ grading.Question) bool { return len(c.Filters) > 0 }},
	{name: "visualization", asked: askedPhrase("plot", "plots", "chart", "charts", "graph",
		"visualize", "visualise", "visualization", "visualisation", "histogram", "scatter", "pie", "draw"),
		done: doesAny("plot", "plt", "sns", "hist", "bar", "barh", "scatter", "pie", "figure",
			"subplots", "histplot", "barplot", "boxplot", "lineplot", "scatterplot", "heatmap", "countplot")},
}

// codeUnderstanding scores how well code answers the intent of a question
// about tables with the given schema (a number in [0, 1]), from the reading
// of the code's syntax tree (facts; nil makes the metric not applicable):
//
//   - column extraction (0.4): 0.4 × mentioned columns the code uses /
//     mentioned columns; 0.2 when the question names no column but the code
//     uses some (it cannot be checked); 0.4 when neither names a column.
//   - natural-language parsing (0.3): 0.3 × phrasings carried out /
//     phrasings asked for: top N (the code keeps N rows of a descending
//     order: nlargest, or a sort and head), first N rows, bottom N,
//     filtering, visualization.
//   - statistical understanding (0.3): 0.3 × operations performed /
//     operations asked for (mean, sum, max, min, count, group by).
//
// A part that the question does not ask for scores its full weight. Words
// that state a sort order ("from highest to lowest") ask for no maximum or
// minimum; a definition ("where revenue is units times unit_price") asks
// for nothing.
func codeUnderstanding(questionText string, s grading.Schema, facts *eval.CodeFacts) eval.UnderstandingMetric {
	if facts == nil {
		return eval.UnderstandingMetric{NotApplicable: true}
	}
	q := grading.ParseQuestion(questionText, s)
	c := code{*facts}
	d := &eval.UnderstandingDetails{
		ExtractedColumns: c.usedColumns(s.Columns),
		MentionedColumns: q.Mentioned(s.Columns),
	}
	d.ColumnExtractionScore = columnExtraction(d.MentionedColumns, d.ExtractedColumns)
	d.RequestedPatterns, d.NLPatterns = intents(nlPatterns, q, c)
	d.NLParsingScore = unit(nlParsingWeight * share(len(d.NLPatterns), len(d.RequestedPatterns)))
	d.RequestedOperations, d.StatisticalOperations = intents(statisticalOperations, q, c)
	d.StatisticalUnderstandingScore = unit(statisticalWeight *
		share(len(d.StatisticalOperations), len(d.RequestedOperations)))
	return eval.UnderstandingMetric{
		Score:   unit(d.ColumnExtractionScore + d.NLParsingScore + d.StatisticalUnderstandingScore),
		Details: d,
	}
}

func columnExtraction(mentioned, used []string) float64 {
	switch {
	case len(mentioned) > 0:
		matched := 0
		for _, c := range mentioned {
			if slices.Contains(used, c) {
				matched++
			}
		}
		return unit(columnExtractionWeight * share(matched, len(mentioned)))
	case len(used) > 0:
		return columnExtractionWeight / 2
	default:
		return columnExtractionWeight
	}
}

// intents returns the names of the intents the question asks for and of
// those the code carries out.
func intents(list []intent, q grading.Question, c code) (asked, done []string) {
	asked, done = []string{}, []string{}
	for _, in := range list {
		if in.asked(q) {
			asked = append(asked, in.name)
			if in.done(c, q) {
				done = append(done, in.name)
			}
		}
	}
	return asked, done
}
