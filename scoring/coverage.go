package scoring

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
)

// Sub-weights of requirement coverage for code cases (the guide's).
const (
	filterWeight  = 0.3
	groupByWeight = 0.3
	sortingWeight = 0.2
	joinWeight    = 0.2
)

// codeCoverage scores whether code covers every requirement of a question
// about tables with the given schema, from the reading of the code's syntax
// tree (facts; nil makes the metric not applicable). Each part is the share
// of what was asked that the code does; a part not asked for is fully
// covered:
//
//   - filter conditions (0.3): the conditions asked for that the code's
//     filters carry out. A condition with a number ("more than 150000",
//     "before 2015", "90%") needs a filter comparing with that number; one
//     with listed values ("in Sales or Marketing") a filter on those values;
//     one without either ("above average", "where ...") any filter not
//     counted for another condition.
//   - group-by columns (0.3): the asked group-by columns among the columns
//     the code groups by (groupby, pivot_table, crosstab, value_counts; a key
//     made from a column, such as pd.cut(df['age']), counts as that column).
//   - sorting (0.2): that the code sorts, in the asked order, by the asked
//     key columns (each a requirement of its own).
//   - join conditions (0.2): the joins asked for (merge, join, concat) and
//     the join keys the question names.
//
// MissingRequirements says what is missing; Requirements lists what the
// question was read to ask.
func codeCoverage(questionText string, s grading.Schema, facts *eval.CodeFacts) eval.CoverageMetric {
	if facts == nil {
		return eval.CoverageMetric{NotApplicable: true}
	}
	q := grading.ParseQuestion(questionText, s)
	c := code{*facts}
	d := &eval.CoverageDetails{MissingRequirements: []string{}, Requirements: []string{}}
	asks := func(format string, args ...any) {
		d.Requirements = append(d.Requirements, fmt.Sprintf(format, args...))
	}
	missing := func(format string, args ...any) {
		d.MissingRequirements = append(d.MissingRequirements, fmt.Sprintf(format, args...))
	}

	d.FilterConditionsCoverage = filterCoverage(q.Filters(), c, asks, missing)

	items := q.GroupItems()
	keys := c.groupKeys()
	var absent []string
	for _, item := range items {
		asks("group by: %s", item)
		if !slices.ContainsFunc(keys, func(k string) bool { return sameGroupItem(item, k, q.Known) }) {
			absent = append(absent, item)
		}
	}
	d.GroupbyColumnsCoverage = share(len(items)-len(absent), len(items))
	if len(absent) > 0 {
		missing("Group-by columns missing: %s", strings.Join(absent, ", "))
	}

	d.SortingCoverage = sortCoverage(q, c, asks, missing)

	joins, joinKeys := q.Joins()
	met := min(len(c.Joins), joins)
	if joins > 0 {
		asks("join: %d", joins)
	}
	if met < joins {
		missing("Join/merge operation missing")
	}
	for _, k := range joinKeys {
		asks("join on: %s", k)
		if len(c.Joins) > 0 && c.joinsOn(k) {
			met++
		} else {
			missing("Join key missing: %s", k)
		}
	}
	d.JoinConditionsCoverage = share(met, joins+len(joinKeys))

	return eval.CoverageMetric{
		Score: unit(filterWeight*d.FilterConditionsCoverage + groupByWeight*d.GroupbyColumnsCoverage +
			sortingWeight*d.SortingCoverage + joinWeight*d.JoinConditionsCoverage),
		Details: d,
	}
}

// filterCoverage is the share of the asked conditions the code carries out.
func filterCoverage(asked []grading.Filter, c code, asks, missing func(string, ...any)) float64 {
	matched, vague := 0, 0
	for _, f := range asked {
		asks("filter: %s", f.Text)
		switch {
		case f.Vague():
			vague++
		case c.matchesFilter(f):
			matched++
		default:
			missing("Filter missing: %s", f.Text)
		}
	}
	spare := max(len(c.Filters)-matched, 0)
	if vague > spare {
		missing("Filter conditions missing: %d asked without a value, %d other filters in the code", vague, spare)
	}
	return share(matched+min(vague, spare), len(asked))
}

// sortCoverage is the share of the asked sorting requirements met: that the
// code sorts, its order, its keys.
func sortCoverage(q grading.Question, c code, asks, missing func(string, ...any)) float64 {
	s := q.Sorting()
	if s == nil {
		return 1
	}
	wanted, met := 1, 0
	asks("sort")
	if len(c.Sorts) > 0 {
		met++
	} else {
		missing("Sorting missing")
	}
	if s.Order != "" {
		wanted++
		asks("sort order: %s", orderName(s.Order))
		if c.sorts(s.Order) {
			met++
		} else if len(c.Sorts) > 0 {
			missing("Sort order: %s asked, the code sorts the other way", orderName(s.Order))
		}
	}
	for _, k := range s.Keys {
		wanted++
		asks("sort by: %s", k)
		if len(c.Sorts) > 0 && c.sortsBy(k) {
			met++
		} else if len(c.Sorts) > 0 {
			missing("Sort key missing: %s", k)
		}
	}
	return share(met, wanted)
}

func orderName(order string) string {
	if order == "asc" {
		return "ascending"
	}
	return "descending"
}

// sameGroupItem reports whether a group-by item from the question is the
// grouped column g. With known columns both are column names; else they
// are word phrases and one may extend the other ("department name" matches
// "department"), allowing a plural "s".
func sameGroupItem(item, g string, known bool) bool {
	if known {
		return sameColumn(item, g)
	}
	a, b := strings.Fields(item), grading.Words(strings.ReplaceAll(g, "_", " "))
	if len(a) > len(b) {
		a, b = b, a
	}
	for i := 0; i+len(a) <= len(b); i++ {
		if grading.MentionAt(b, i, a, true) || grading.MentionAt(a, 0, b[i:i+len(a)], true) {
			return true
		}
	}
	return false
}
