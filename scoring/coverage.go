package scoring

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/internal/eval"
)

// Sub-weights of requirement coverage for code cases (the guide's).
const (
	filterWeight  = 0.3
	groupByWeight = 0.3
	sortingWeight = 0.2
	joinWeight    = 0.2
)

var (
	sortCues  = phrases("sort", "sorted", "sorting", "order by", "ordered", "ascending", "descending", "rank", "ranked", "ranking", "top", "bottom")
	sortWords = []string{"sort_values", "sort_index", "sorted", "sort", "nlargest", "nsmallest", "rank", "idxmax", "idxmin"}
	joinCues  = phrases("join", "joined", "joining", "merge", "merged", "merging", "combine", "combined", "combining", "match", "matched", "matching")
	joinNames = []string{"merge", "join", "concat"}
)

// codeCoverage scores whether code covers every requirement of a question about
// a table with the given columns (columns may be nil; group-by items are then
// read as plain words). Each part is the share of what was asked that the
// code does; a part not asked for is fully covered:
//
//   - filter conditions (0.3): comparisons in the code (==, >, .isin(),
//     .between(), comparisons inside .query(), ...) / conditions asked for;
//   - group-by columns (0.3): asked group-by columns found in .groupby(...)
//     or .pivot_table(...) / asked group-by columns;
//   - sorting (0.2): 1 if asked and the code sorts (sort_values, nlargest,
//     idxmax, ...), else 0;
//   - join conditions (0.2): merge/join/concat calls / joins asked for.
func codeCoverage(questionText string, columns []string, code string) eval.CoverageMetric {
	q := parseQuestion(questionText, columns)
	src := lexPython(code)
	d := &eval.CoverageDetails{MissingRequirements: []string{}}
	missing := func(format string, args ...any) {
		d.MissingRequirements = append(d.MissingRequirements, fmt.Sprintf(format, args...))
	}

	asked, found := q.filterConditions(), filterOperations(src)
	d.FilterConditionsCoverage = share(found, asked)
	if found < asked {
		missing("Filter conditions missing: %d asked, %d in code", asked, found)
	}

	items := q.groupItems()
	grouped := groupedColumns(src, q.known)
	var absent []string
	for _, item := range items {
		if !slices.ContainsFunc(grouped, func(g string) bool { return sameGroupItem(item, g, q.known) }) {
			absent = append(absent, item)
		}
	}
	d.GroupbyColumnsCoverage = share(len(items)-len(absent), len(items))
	if len(absent) > 0 {
		missing("Group-by columns missing: %s", strings.Join(absent, ", "))
	}

	d.SortingCoverage = 1
	if hasPhrase(q.toks, sortCues) || q.hasBeforeCount("largest", "smallest", "highest", "lowest") {
		if !hasWord(src.names(), sortWords...) {
			d.SortingCoverage = 0
			missing("Sorting missing")
		}
	}

	asked, found = countPhrases(q.toks, joinCues), countNames(src, joinNames...)
	d.JoinConditionsCoverage = share(found, asked)
	if found < asked {
		missing("Join/merge operation missing")
	}

	return eval.CoverageMetric{
		Score: unit(filterWeight*d.FilterConditionsCoverage + groupByWeight*d.GroupbyColumnsCoverage +
			sortingWeight*d.SortingCoverage + joinWeight*d.JoinConditionsCoverage),
		Details: d,
	}
}

// filterOperations counts the filter conditions in code: comparison
// operators, .isin()/.str.contains()/.isna()-style tests, .between() as two,
// and the comparisons inside .query() strings (at least one per query).
func filterOperations(src pySource) int {
	n := 0
	for _, t := range src.tokens {
		switch {
		case t.kind == pyOp && isComparison(t.text):
			n++
		case t.kind == pyName && t.text == "between":
			n += 2
		case t.kind == pyName && slices.Contains([]string{"isin", "contains", "startswith", "endswith",
			"isna", "notna", "isnull", "notnull"}, t.text):
			n++
		}
	}
	for _, expr := range src.callArgs("query") {
		inner := 0
		for _, t := range lexPython(expr).tokens {
			if t.kind == pyOp && isComparison(t.text) {
				inner++
			}
		}
		n += max(inner, 1)
	}
	return n
}

func isComparison(op string) bool {
	return slices.Contains([]string{"==", "!=", ">=", "<=", ">", "<"}, op)
}

func countNames(src pySource, names ...string) int {
	n := 0
	for _, name := range src.names() {
		if slices.Contains(names, name) {
			n++
		}
	}
	return n
}

// groupedColumns returns the string literals given to groupby, pivot_table
// and crosstab calls; without known columns they are normalised to words.
func groupedColumns(src pySource, known bool) []string {
	cols := src.callArgs("groupby", "pivot_table", "crosstab")
	if !known {
		for i, c := range cols {
			cols[i] = strings.Join(words(strings.ReplaceAll(c, "_", " ")), " ")
		}
	}
	return cols
}

// sameGroupItem reports whether a group-by item from the question is the
// grouped column g. With known columns both are exact column names; else
// they are word phrases and one may extend the other ("department name"
// matches "department"), allowing a plural "s".
func sameGroupItem(item, g string, known bool) bool {
	if known {
		return item == g
	}
	a, b := strings.Fields(item), strings.Fields(g)
	if len(a) > len(b) {
		a, b = b, a
	}
	for i := 0; i+len(a) <= len(b); i++ {
		if mentionAt(b, i, a) || mentionAt(a, 0, b[i:i+len(a)]) {
			return true
		}
	}
	return false
}
