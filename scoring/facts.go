package scoring

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
)

// code is what the reading of code's syntax tree (eval.CodeFacts) says,
// with the questions the metrics ask of it.
type code struct {
	eval.CodeFacts
}

// does reports whether the code calls one of the operations (or names it as
// an aggregation).
func (c code) does(ops ...string) bool {
	if slices.ContainsFunc(c.Operations, func(op string) bool { return slices.Contains(ops, op) }) {
		return true
	}
	return slices.ContainsFunc(c.Aggregations, func(a eval.CodeAggregation) bool { return slices.Contains(ops, a.Func) })
}

// usedColumns returns the dataset columns the code uses, in dataset order.
func (c code) usedColumns(columns []string) []string {
	out := []string{}
	for _, col := range columns {
		if slices.ContainsFunc(c.Columns, func(u string) bool { return sameColumn(u, col) }) {
			out = append(out, col)
		}
	}
	return out
}

func sameColumn(a, b string) bool { return strings.EqualFold(a, b) }

// sorts reports whether the code orders rows in the given direction
// ("asc", "desc", or "" for either); an order it cannot read counts.
func (c code) sorts(order string) bool {
	return slices.ContainsFunc(c.Sorts, func(s eval.CodeSort) bool { return sortOrder(s, order) })
}

func sortOrder(s eval.CodeSort, order string) bool {
	return order == "" || s.Ascending == nil || *s.Ascending == (order == "asc")
}

// sortsBy reports whether some sort has the key column, or a key it cannot
// read (a sort of values, not of named columns).
func (c code) sortsBy(key string) bool {
	return slices.ContainsFunc(c.Sorts, func(s eval.CodeSort) bool {
		return len(s.Keys) == 0 || slices.ContainsFunc(s.Keys, func(k string) bool { return sameColumn(k, key) })
	})
}

// keeps reports whether the code keeps n rows from the start (head,
// iloc[:n], [:n]) or, with fromEnd, from the end (tail); n 0 means any.
func (c code) keeps(n int, fromEnd bool) bool {
	return slices.ContainsFunc(c.Limits, func(l eval.CodeLimit) bool {
		return (l.Method == "tail") == fromEnd && (n == 0 || l.N == n)
	})
}

// ranks reports whether the code keeps the top (desc) or bottom (asc) n
// rows: nlargest/nsmallest(n), a sort in that order and head(n), a sort the
// other way and tail(n), or for n = 1 idxmax/idxmin. n 0 means any number.
func (c code) ranks(order string, n int) bool {
	direct, extreme := "nsmallest", "idxmin"
	if order == "desc" {
		direct, extreme = "nlargest", "idxmax"
	}
	if slices.ContainsFunc(c.Sorts, func(s eval.CodeSort) bool { return s.Method == direct && (n == 0 || s.N == n) }) {
		return true
	}
	if n == 1 && c.does(extreme) {
		return true
	}
	other := map[string]string{"asc": "desc", "desc": "asc"}[order]
	return slices.ContainsFunc(c.Sorts, func(s eval.CodeSort) bool {
		return s.Method != "nlargest" && s.Method != "nsmallest" && sortOrder(s, order)
	}) && c.keeps(n, false) ||
		slices.ContainsFunc(c.Sorts, func(s eval.CodeSort) bool {
			return s.Method != "nlargest" && s.Method != "nsmallest" && sortOrder(s, other)
		}) && c.keeps(n, true)
}

// groupKeys returns every column the code groups by.
func (c code) groupKeys() []string {
	var keys []string
	for _, g := range c.GroupBys {
		keys = appendNew(keys, g.Keys...)
	}
	return keys
}

// appendNew appends to list the items it does not hold yet.
func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		if !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

// filterValues returns the literal values the code's filters compare with.
func (c code) filterValues() []string {
	var out []string
	for _, f := range c.Filters {
		out = append(out, f.Values...)
	}
	return out
}

// matchesFilter reports whether the code carries out a specific asked
// condition: every number it names among the values the code's filters
// compare with (a date "2015-01-01" holds the year 2015), or every listed
// value (a str.contains pattern matches a value it is part of).
func (c code) matchesFilter(f grading.Filter) bool {
	values := c.filterValues()
	for _, forms := range f.Numbers {
		if !slices.ContainsFunc(values, func(v string) bool { return numberMatches(v, forms) }) {
			return false
		}
	}
	for _, want := range f.Values {
		found := slices.ContainsFunc(c.Filters, func(cf eval.CodeFilter) bool {
			return slices.ContainsFunc(cf.Values, func(v string) bool {
				return strings.EqualFold(v, want) || isPatternOp(cf.Op) && v != "" &&
					strings.Contains(strings.ToLower(want), strings.ToLower(v))
			})
		})
		if !found {
			return false
		}
	}
	return true
}

func isPatternOp(op string) bool {
	return op == "contains" || op == "startswith" || op == "endswith" || op == "match"
}

// numberMatches reports whether a literal of the code is one of the forms
// of an asked number.
func numberMatches(literal string, forms []string) bool {
	n, ok := grading.CanonicalNumber(literal)
	if !ok {
		// A date or timestamp string holds a year: "2015-01-01" is 2015.
		year, _, found := strings.Cut(literal, "-")
		if !found || len(year) != 4 {
			return false
		}
		n = year
	}
	for _, f := range forms {
		if n == f || closeNumbers(n, f) {
			return true
		}
	}
	return false
}

func closeNumbers(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y))
}

// joinsOn reports whether some join has the key column, or uses the
// default keys (the common columns).
func (c code) joinsOn(key string) bool {
	return slices.ContainsFunc(c.Joins, func(j eval.CodeJoin) bool {
		return len(j.Keys) == 0 || slices.ContainsFunc(j.Keys, func(k string) bool { return sameColumn(k, key) })
	})
}
