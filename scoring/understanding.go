package scoring

import (
	"slices"

	"github.com/mcpeval/mcpeval/internal/eval"
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
	asked func(question) bool
	// done lists code words (names and string contents) that carry it out;
	// doneBy, when set, decides instead.
	done   []string
	doneBy func(pySource) bool
}

func (in intent) isDone(src pySource) bool {
	if in.doneBy != nil {
		return in.doneBy(src)
	}
	return hasWord(src.words(), in.done...)
}

func askedPhrase(list ...string) func(question) bool {
	p := phrases(list...)
	return func(q question) bool { return hasPhrase(q.toks, p) }
}

// statisticalOperations are the guide's six operations.
var statisticalOperations = []intent{
	{name: "mean", asked: askedPhrase("mean", "average", "averages", "avg"),
		done: []string{"mean", "average"}},
	{name: "sum", asked: askedPhrase("sum", "sums", "total", "totals", "summed", "add up"),
		done: []string{"sum", "cumsum"}},
	{name: "max", asked: askedPhrase("max", "maximum", "highest", "largest", "greatest", "biggest"),
		done: []string{"max", "idxmax", "nlargest", "cummax"}},
	{name: "min", asked: askedPhrase("min", "minimum", "lowest", "smallest", "fewest"),
		done: []string{"min", "idxmin", "nsmallest", "cummin"}},
	{name: "count", asked: askedPhrase("count", "counts", "how many", "number of", "frequency", "frequencies"),
		done: []string{"count", "size", "len", "value_counts", "nunique", "shape"}},
	{name: "groupby", asked: func(q question) bool {
		return len(q.groupItems()) > 0 || hasWord(q.toks, "group", "grouped", "groupby", "grouping")
	}, done: []string{"groupby", "pivot_table", "crosstab", "resample"}},
}

// nlPatterns are the guide's natural-language phrasings.
var nlPatterns = []intent{
	{name: "top_n", asked: func(q question) bool {
		return q.hasBeforeCount("top", "largest", "highest", "biggest", "greatest")
	}, done: []string{"nlargest", "head", "sort_values"}},
	{name: "first_n", asked: func(q question) bool { return q.hasBeforeCount("first") },
		done: []string{"head", "iloc"}},
	{name: "bottom_n", asked: func(q question) bool {
		return q.hasBeforeCount("bottom", "smallest", "lowest", "last")
	}, done: []string{"nsmallest", "tail", "sort_values"}},
	{name: "filtering", asked: func(q question) bool { return q.filterConditions() > 0 },
		doneBy: func(src pySource) bool { return filterOperations(src) > 0 }},
	{name: "visualization", asked: askedPhrase("plot", "plots", "chart", "charts", "graph",
		"visualize", "visualise", "visualization", "visualisation", "histogram", "scatter", "pie", "draw"),
		done: []string{"plot", "plt", "sns", "hist", "bar", "barh", "scatter", "pie", "figure",
			"subplots", "histplot", "barplot", "boxplot", "lineplot", "scatterplot"}},
}

// codeUnderstanding scores how well code answers the intent of a question about a
// table with the given columns (a number in [0, 1]):
//
//   - column extraction (0.4): 0.4 × mentioned columns the code uses / mentioned
//     columns; 0.2 when the question names no column but the code uses some
//     (it cannot be checked); 0.4 when neither names a column.
//   - natural-language parsing (0.3): 0.3 × phrasings carried out / phrasings
//     asked for (top N, first N rows, bottom N, filtering, visualization).
//   - statistical understanding (0.3): 0.3 × operations performed / operations
//     asked for (mean, sum, max, min, count, group by).
//
// A part that the question does not ask for scores its full weight.
func codeUnderstanding(questionText string, columns []string, code string) eval.UnderstandingMetric {
	q := parseQuestion(questionText, columns)
	src := lexPython(code)
	d := &eval.UnderstandingDetails{
		ExtractedColumns: usedColumns(src, columns),
		MentionedColumns: q.mentioned(columns),
	}
	d.ColumnExtractionScore = columnExtraction(d.MentionedColumns, d.ExtractedColumns)
	d.RequestedPatterns, d.NLPatterns = intents(nlPatterns, q, src)
	d.NLParsingScore = unit(nlParsingWeight * share(len(d.NLPatterns), len(d.RequestedPatterns)))
	d.RequestedOperations, d.StatisticalOperations = intents(statisticalOperations, q, src)
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
func intents(list []intent, q question, src pySource) (asked, done []string) {
	asked, done = []string{}, []string{}
	for _, in := range list {
		if in.asked(q) {
			asked = append(asked, in.name)
			if in.isDone(src) {
				done = append(done, in.name)
			}
		}
	}
	return asked, done
}

// usedColumns returns the dataset columns the code uses, in the given order:
// those written as string literals (df['x'], df[['x', 'y']], groupby('x'),
// sort_values(by='x'), ...) or as attributes (df.x, when not a method call).
func usedColumns(src pySource, columns []string) []string {
	seen := map[string]bool{}
	for i, t := range src.tokens {
		switch {
		case t.kind == pyString:
			seen[t.text] = true
		case t.kind == pyName && i > 0 && src.tokens[i-1].text == "." &&
			(i+1 >= len(src.tokens) || src.tokens[i+1].text != "("):
			seen[t.text] = true
		}
	}
	out := []string{}
	for _, c := range columns {
		if seen[c] {
			out = append(out, c)
		}
	}
	return out
}
