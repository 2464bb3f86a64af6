package grading

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Schema is what is known of the tables a question is about: their
// columns, the values of text columns with few distinct values (by
// column), and the dataset names. Any part may be empty.
type Schema struct {
	Columns  []string
	Values   map[string][]string
	Datasets []string
}

// Question is a question about a table, split into words with the words
// that name a column or a listed value marked. Keywords are matched on the
// other words, so a column called "total_sales" or "min_price" never reads
// as "sum" or "min".
type Question struct {
	toks []string // lower-case words and marks; columnMark or valueMark where a column or value is named
	orig []string // the words as written
	cols []string // cols[i] is the column toks[i] names, or the column of the value it names, or ""
	vals []string // vals[i] is the value toks[i] names, or ""
	// masked marks words that ask for nothing by themselves: definitions
	// ("where revenue is units times price"), sort orders ("from highest to
	// lowest") and lists of groups ("age group: under 30, 30 to 44").
	masked []bool
	// Known is true when the dataset's columns were given.
	Known bool
	// order is the sort order the question states: "asc", "desc" or "".
	order string
}

const (
	columnMark = "\x00column"
	valueMark  = "\x00value"
)

// questionWords splits text into words as written (letters, digits and
// underscores; a '.' between digits stays inside a number) and marks:
// , . ; : ? ! ( ) and %.
func questionWords(s string) []string { return splitWords(s, ",.;:?!()%") }

// ParseQuestion reads a question about tables with the given schema.
//
// A column is mentioned when its name, or its name with '_' read as a
// space, occurs as a phrase of whole words (the last word may be plural:
// "salaries", "names"), or when a word abbreviates it ("dept" for
// department: the column's first letter, then its letters in order). A
// listed value is mentioned when its words occur as written (case matters
// when the value has capitals: "Sales" the department is not "sales" the
// dataset), outside a dataset reference ("the sales dataset").
func ParseQuestion(text string, s Schema) Question {
	orig := questionWords(text)
	q := Question{Known: len(s.Columns) > 0}
	var columns, values []variant
	for _, c := range s.Columns {
		for _, form := range []string{c, strings.ReplaceAll(c, "_", " ")} {
			if w := Words(form); len(w) > 0 && !slices.ContainsFunc(columns, func(v variant) bool {
				return v.column == c && slices.Equal(v.words, w)
			}) {
				columns = append(columns, variant{column: c, words: w})
			}
		}
	}
	for _, c := range s.Columns {
		for _, v := range s.Values[c] {
			if w := questionWords(v); len(w) > 0 {
				values = append(values, variant{column: c, value: v, words: w})
			}
		}
	}
	byLength := func(a, b variant) int { return len(b.words) - len(a.words) }
	slices.SortStableFunc(columns, byLength)
	slices.SortStableFunc(values, byLength)

	lower := make([]string, len(orig))
	for i, w := range orig {
		lower[i] = strings.ToLower(w)
	}
	for i := 0; i < len(orig); {
		if v, n := matchVariant(columns, lower, i, true); n > 0 {
			q.add(columnMark, strings.Join(orig[i:i+n], " "), v.column, "")
			i += n
			continue
		}
		if v, n := matchValue(values, orig, lower, i); n > 0 && !datasetReference(lower, i+n, s.Datasets) {
			q.add(valueMark, strings.Join(orig[i:i+n], " "), v.column, v.value)
			i += n
			continue
		}
		if c := abbreviated(lower[i], s); c != "" {
			q.add(columnMark, orig[i], c, "")
			i++
			continue
		}
		q.add(lower[i], orig[i], "", "")
		i++
	}
	q.masked = make([]bool, len(q.toks))
	q.maskDefinitions()
	q.maskOrders()
	q.maskGroupLists()
	return q
}

func (q *Question) add(tok, orig, col, val string) {
	q.toks, q.orig, q.cols, q.vals = append(q.toks, tok), append(q.orig, orig), append(q.cols, col), append(q.vals, val)
}

// variant is one way a column or a listed value may be written.
type variant struct {
	column, value string
	words         []string
}

// matchVariant returns the first variant whose words occur at i (the last
// one possibly plural) and how many words it spans.
func matchVariant(list []variant, toks []string, i int, plural bool) (variant, int) {
	for _, v := range list {
		if MentionAt(toks, i, v.words, plural) {
			return v, len(v.words)
		}
	}
	return variant{}, 0
}

// matchValue matches listed values: exactly as written when the value has
// capitals, else in lower case.
func matchValue(list []variant, orig, lower []string, i int) (variant, int) {
	for _, v := range list {
		toks := orig
		if !hasUpper(v.words) {
			toks = lower
		}
		if i+len(v.words) <= len(toks) && slices.Equal(toks[i:i+len(v.words)], v.words) {
			return v, len(v.words)
		}
	}
	return variant{}, 0
}

func hasUpper(ws []string) bool {
	for _, w := range ws {
		if strings.ToLower(w) != w {
			return true
		}
	}
	return false
}

// datasetReference reports whether the words from i on continue a dataset
// reference: "(sales) dataset", "(sales) and employees datasets",
// "(sales).employee_id".
func datasetReference(toks []string, i int, datasets []string) bool {
	if i < len(toks) && toks[i] == "." && i+1 < len(toks) && IsWordRune([]rune(toks[i+1])[0]) {
		return true
	}
	for j := i; j < len(toks) && j < i+4; j++ {
		switch {
		case slices.Contains(datasetNouns, toks[j]):
			return true
		case toks[j] == "and" || toks[j] == "," || slices.Contains(datasets, toks[j]):
		default:
			return false
		}
	}
	return false
}

var datasetNouns = []string{"dataset", "datasets", "table", "tables", "file", "files", "csv", "data", "frame", "dataframe"}

// abbreviated returns the column a word abbreviates ("dept" for
// department, "mgr" for manager): a word of at least three letters,
// shorter than the column, starting with its first letter and spelling a
// subsequence of it; not a common word and not itself a name in the schema.
func abbreviated(w string, s Schema) string {
	if len([]rune(w)) < 3 || slices.Contains(commonWords, w) || slices.Contains(s.Datasets, w) ||
		!unicode.IsLetter([]rune(w)[0]) {
		return ""
	}
	for _, c := range s.Columns {
		lc := strings.ToLower(c)
		if lc == w || len(w) >= len(lc) || w[0] != lc[0] {
			continue
		}
		if isSubsequence(w, lc) {
			return c
		}
	}
	return ""
}

// commonWords are words that may spell a column's letters without meaning it.
var commonWords = []string{"the", "and", "are", "for", "each", "per", "all", "any", "how", "many", "much", "who",
	"what", "which", "with", "from", "that", "this", "their", "them", "than", "then", "was", "were", "has", "have",
	"had", "top", "sum", "avg", "mean", "max", "min", "count", "total", "list", "show", "give", "get", "find",
	"most", "less", "more", "made", "make", "paid", "pay", "day", "days", "year", "years", "name", "names"}

func isSubsequence(w, s string) bool {
	i := 0
	for j := 0; i < len(w) && j < len(s); j++ {
		if w[i] == s[j] {
			i++
		}
	}
	return i == len(w)
}

// MentionAt reports whether the phrase name occurs at toks[i]; with plural,
// its last word may carry a plural ending (s, es, y -> ies).
func MentionAt(toks []string, i int, name []string, plural bool) bool {
	if i+len(name) > len(toks) {
		return false
	}
	last := len(name) - 1
	for k, w := range name {
		t := toks[i+k]
		if t == w {
			continue
		}
		if !plural || k != last || !(t == w+"s" || t == w+"es" || strings.HasSuffix(w, "y") && t == w[:len(w)-1]+"ies") {
			return false
		}
	}
	return true
}

// Mentioned returns the columns the question names, in the given order: by
// name, or through one of their listed values ("based in Boston" names the
// city column).
func (q Question) Mentioned(columns []string) []string {
	out := []string{}
	for _, c := range columns {
		if slices.Contains(q.cols, c) {
			out = append(out, c)
		}
	}
	return out
}

// free reports whether the word at i asks something by itself (it is not
// masked).
func (q Question) free(i int) bool { return i < len(q.masked) && !q.masked[i] }

// FreeWords returns the question's words with the masked ones blanked: the
// lower-case words keywords are matched on, where a named column or listed
// value is a mark that matches no keyword.
func (q Question) FreeWords() []string {
	out := slices.Clone(q.toks)
	for i := range out {
		if !q.free(i) {
			out[i] = ""
		}
	}
	return out
}

// clauseEnd returns the index of the next clause mark at or after i.
func (q Question) clauseEnd(i int) int {
	for i < len(q.toks) && !isClauseMark(q.toks[i]) {
		i++
	}
	return i
}

func isClauseMark(t string) bool { return len(t) == 1 && strings.Contains(",.;:?!()", t) }

func isSentenceEnd(t string) bool { return t == "." || t == "?" || t == "!" || t == ";" }

// Words that make a clause a definition rather than a condition: "where
// revenue is units times unit_price".
var (
	definitionVerbs = []string{"is", "are", "equals", "means", "defined", "computed", "calculated"}
	arithmeticWords = []string{"times", "multiplied", "divided", "plus", "minus", "product", "ratio", "quotient"}
)

// maskDefinitions masks clauses that define a quantity by arithmetic.
func (q *Question) maskDefinitions() {
	for start := 0; start < len(q.toks); {
		end := q.clauseEnd(start)
		clause := q.toks[start:end]
		if HasWord(clause, arithmeticWords...) && HasWord(clause, definitionVerbs...) {
			for i := start; i < end; i++ {
				q.masked[i] = true
			}
		}
		start = end + 1
	}
}

// Words that rank high or low, for orders ("from highest to lowest") and
// for top/bottom N ("the 3 lowest-paid").
var (
	highWords = []string{"highest", "largest", "biggest", "greatest", "most", "top", "oldest", "latest",
		"newest", "longest", "best", "maximum", "max", "richest", "tallest", "heaviest"}
	lowWords = []string{"lowest", "smallest", "least", "fewest", "bottom", "youngest", "earliest", "shortest",
		"worst", "minimum", "min", "cheapest", "lightest"}
)

func rankWord(w string) string {
	switch {
	case slices.Contains(highWords, w):
		return "desc"
	case slices.Contains(lowWords, w):
		return "asc"
	}
	return ""
}

// maskOrders masks the phrases that state a sort order and records it:
// "from highest to lowest", "youngest to oldest", "highest first", "in
// descending order", "ascending".
func (q *Question) maskOrders() {
	mask := func(from, to int) {
		for i := from; i < to && i < len(q.masked); i++ {
			q.masked[i] = true
		}
	}
	for i := 0; i < len(q.toks); i++ {
		t := q.toks[i]
		switch {
		case t == "ascending" || t == "increasing":
			q.order = "asc"
			mask(i, i+1)
		case t == "descending" || t == "decreasing":
			q.order = "desc"
			mask(i, i+1)
		case t == "from" && i+3 < len(q.toks) && rankWord(q.toks[i+1]) != "" && q.toks[i+2] == "to" && rankWord(q.toks[i+3]) != "":
			q.order = rankWord(q.toks[i+1])
			mask(i, i+4)
			i += 3
		case rankWord(t) != "" && i+2 < len(q.toks) && q.toks[i+1] == "to" && rankWord(q.toks[i+2]) != "":
			q.order = rankWord(t)
			mask(i, i+3)
			i += 2
		case rankWord(t) != "" && i+1 < len(q.toks) && q.toks[i+1] == "first":
			q.order = rankWord(t)
			mask(i, i+2)
			i++
		}
	}
}

// groupNouns after a column make it a grouping of binned values ("age
// group"); a list after them names the bins, not filters.
var groupNouns = []string{"group", "groups", "bracket", "brackets", "band", "bands", "range", "ranges",
	"bucket", "buckets", "bin", "bins", "tier", "tiers", "class", "classes"}

// maskGroupLists masks the bins listed after "<column> group:" or
// "<column> group (...)": "for each age group: under 30, 30 to 44".
func (q *Question) maskGroupLists() {
	for i := 1; i+1 < len(q.toks); i++ {
		if q.toks[i-1] != columnMark || !slices.Contains(groupNouns, q.toks[i]) {
			continue
		}
		switch q.toks[i+1] {
		case ":":
			for j := i + 1; j < len(q.toks) && !isSentenceEnd(q.toks[j]); j++ {
				q.masked[j] = true
			}
		case "(":
			for j := i + 1; j < len(q.toks) && q.toks[j] != ")"; j++ {
				q.masked[j] = true
			}
		}
	}
}

// Filter is a condition the question asks for.
type Filter struct {
	// Text is the condition's words as written ("more than 150000").
	Text string
	// Numbers are the numbers it compares with; each is matched by any of
	// its forms (90% is 90 or 0.9).
	Numbers [][]string
	// column and Values: a condition on listed values ("in Sales or
	// Marketing").
	column string
	Values []string
}

// Vague reports whether the condition says no number or value to compare
// with ("above average", "where ...").
func (f Filter) Vague() bool { return len(f.Numbers) == 0 && len(f.Values) == 0 }

// Keywords that ask for a filter. A comparator is a condition; with a
// number after it, the number says which ("more than 150000"). "over",
// "under", "after", "before" and "since" are conditions only before a
// number, so that "over time" is none. Introducers ("where", "whose")
// show that a filter is wanted without saying which. Negations ("not",
// "except") count only with a value or number after them. "and" and "or"
// add nothing: each condition they join is counted through its own words.
var (
	comparators = Phrases("greater than", "more than", "less than", "fewer than", "higher than",
		"lower than", "larger than", "smaller than", "older than", "younger than", "longer than",
		"shorter than", "greater than or equal to", "less than or equal to", "at least", "at most",
		"above", "below", "exceeds", "exceeding", "exceed", "equal to", "equals", "between", "no more than",
		"no less than", "up to")
	numberComparators = Phrases("over", "under", "after", "before", "since", "not", "except", "excluding",
		"other than", "from")
	filterIntroducers = Phrases("where", "whose", "filter", "filtered", "filtering", "which have", "that have")
	// laterWords after a number make it a bound: "2020 or later", "45 and over".
	laterWords = []string{"later", "after", "more", "over", "above", "older", "newer", "onward", "onwards",
		"on", "less", "under", "below", "younger", "earlier", "before", "fewer"}
)

// Filters returns the conditions the question asks for.
func (q Question) Filters() []Filter {
	var out []Filter
	for i := 0; i < len(q.toks); {
		if !q.free(i) {
			i++
			continue
		}
		if q.toks[i] == valueMark {
			f, next := q.valueFilter(i)
			out = append(out, f)
			i = next
			continue
		}
		if l := phraseAtWords(q.toks, i, comparators); l > 0 {
			nums, next := q.numbersAfter(i+l, q.toks[i] == "between")
			switch {
			case len(nums) > 0:
				out = append(out, Filter{Text: q.span(i, next), Numbers: nums})
				i = next
			case next < len(q.toks) && q.toks[next] == valueMark:
				i = next // the value makes the condition
			default:
				out = append(out, Filter{Text: q.span(i, i+l)})
				i += l
			}
			continue
		}
		if l := phraseAtWords(q.toks, i, numberComparators); l > 0 {
			nums, next := q.numbersAfter(i+l, false)
			if len(nums) > 0 && (q.toks[i] != "from" || next < len(q.toks) && slices.Contains(laterWords, q.toks[next])) {
				if q.toks[i] == "from" {
					next++
				}
				out = append(out, Filter{Text: q.span(i, next), Numbers: nums})
				i = next
				continue
			}
			i += l
			continue
		}
		if (q.toks[i] == "in" || q.toks[i] == "during") && i+1 < len(q.toks) && isYear(q.toks[i+1]) {
			out = append(out, Filter{Text: q.span(i, i+2), Numbers: [][]string{{q.toks[i+1]}}})
			i += 2
			continue
		}
		if isCount(q.toks[i]) && i+2 < len(q.toks) && (q.toks[i+1] == "or" || q.toks[i+1] == "and") &&
			slices.Contains(laterWords, q.toks[i+2]) {
			out = append(out, Filter{Text: q.span(i, i+3), Numbers: [][]string{numberForms(q.toks[i], false)}})
			i += 3
			continue
		}
		i++
	}
	if len(out) == 0 {
		for i := range q.toks {
			if l := phraseAtWords(q.toks, i, filterIntroducers); l > 0 && q.free(i) {
				return []Filter{{Text: q.span(i, i+l)}}
			}
		}
	}
	return out
}

// isYear reports whether a word is a year: "in 2023" asks for a filter.
func isYear(w string) bool {
	n, err := strconv.Atoi(w)
	return err == nil && len(w) == 4 && n >= 1000 && n < 3000
}

// valueFilter reads the condition a value mention starts: values of one
// column joined by "or", "and", "either", "nor" or commas ("Sales or
// Marketing").
func (q Question) valueFilter(i int) (Filter, int) {
	f := Filter{column: q.cols[i], Values: []string{q.vals[i]}}
	start, j := i, i+1
	for {
		k := j
		for k < len(q.toks) && slices.Contains([]string{"or", "and", ",", "either", "nor"}, q.toks[k]) {
			k++
		}
		if k == j || k >= len(q.toks) || q.toks[k] != valueMark || q.cols[k] != f.column {
			break
		}
		f.Values = append(f.Values, q.vals[k])
		j = k + 1
	}
	f.Text = q.span(start, j)
	return f, j
}

// numbersAfter reads the numbers right after i ("150000", "90 %", "$ 5",
// "the 30"); with pair, two joined by "and" ("between 30 and 40").
func (q Question) numbersAfter(i int, pair bool) ([][]string, int) {
	var out [][]string
	for i < len(q.toks) && slices.Contains([]string{"the", "a", "an", "$"}, q.toks[i]) {
		i++
	}
	for i < len(q.toks) && isCount(q.toks[i]) {
		percent := i+1 < len(q.toks) && (q.toks[i+1] == "%" || q.toks[i+1] == "percent")
		out = append(out, numberForms(q.toks[i], percent))
		i++
		if percent {
			i++
		}
		if !pair || len(out) == 2 || i+1 >= len(q.toks) || q.toks[i] != "and" || !isCount(q.toks[i+1]) {
			break
		}
		i++
	}
	return out, i
}

// numberForms returns the canonical forms of a number word; a percentage
// is also its fraction (90% is 90 or 0.9).
func numberForms(w string, percent bool) []string {
	n, ok := CanonicalNumber(w)
	if !ok {
		if k := slices.Index(spelledNumbers, w); k >= 0 {
			n = spelledValues[k]
		} else {
			return nil
		}
	}
	forms := []string{n}
	if percent {
		var f float64
		fmt.Sscan(n, &f)
		if frac, ok := CanonicalNumber(fmt.Sprint(f / 100)); ok {
			forms = append(forms, frac)
		}
	}
	return forms
}

func (q Question) span(from, to int) string {
	return strings.Join(q.orig[from:min(to, len(q.orig))], " ")
}

// Group-by cues and the words around them.
var (
	groupCues = Phrases("group by", "grouped by", "groupby", "by", "per", "for each", "for every",
		"in each", "in every", "each", "every", "across")
	// sortWords before "by" in its clause make it a sort key: "sort them by
	// salary"; so do words like "divided".
	sortWords         = []string{"sort", "sorted", "sorting", "order", "ordered", "ordering", "rank", "ranked", "ranking", "arrange", "arranged"}
	notGroupingBefore = []string{"divided", "multiplied", "increased", "decreased", "followed", "caused", "measured"}
	// rankingWords before "by" in the same clause make it a ranking key:
	// "the top employees by salary"; so do countedRanks followed by a number
	// ("the first 5 rows by date"), but not alone ("the highest salary by
	// department" groups).
	rankingWords = []string{"top", "bottom", "rank", "ranked", "ranking"}
	countedRanks = []string{"first", "last", "largest", "smallest", "highest", "lowest", "biggest", "greatest"}
	groupFillers = []string{"the", "a", "an", "each", "every", "their", "its"}
	// groupStops end a group-by item when no columns are known.
	groupStops = []string{"and", "or", "where", "with", "whose", "for", "in", "of", "from", "to",
		"on", "that", "which", "sorted", "sort", "order", "ordered", "top", "bottom", "then",
		"having", "descending", "ascending", "is", "are", "was", "were", "than", "show", "using",
		"as", "only", "by", "per", "each", "every"}
	groupSeparators = []string{",", "and"}
)

// GroupItems returns what the question asks to group by: the columns that
// follow a group-by cue ("by department and gender", "for each region"), or,
// when no columns are known, the words that follow it (up to three per item).
// After "and" or a comma only a column follows directly: in "by department
// and the total sales" the total is no grouping.
func (q Question) GroupItems() []string {
	var items []string
	for i := 0; i < len(q.toks); i++ {
		l := phraseAtWords(q.toks, i, groupCues)
		if l == 0 || !q.free(i) || q.toks[i] == "by" && q.ranksBy(i) {
			continue
		}
		j := i + l
		for j < len(q.toks) && slices.Contains(groupFillers, q.toks[j]) {
			j++
		}
		for {
			item, next := q.itemAt(j)
			if item == "" {
				break
			}
			if !slices.Contains(items, item) {
				items = append(items, item)
			}
			j = next
			if j < len(q.toks) && slices.Contains(groupSeparators, q.toks[j]) {
				j++
				continue
			}
			break
		}
		i = j - 1
	}
	return items
}

// ranksBy reports whether the "by" at i is no grouping: a sort word comes
// before it in its clause ("sort them by salary"), a word like "divided"
// right before it, or a ranking word earlier in its clause ("the top 5
// employees by salary").
func (q Question) ranksBy(i int) bool {
	if i > 0 && slices.Contains(notGroupingBefore, q.toks[i-1]) {
		return true
	}
	for j := i - 1; j >= 0 && !isClauseMark(q.toks[j]); j-- {
		if slices.Contains(sortWords, q.toks[j]) || slices.Contains(rankingWords, q.toks[j]) ||
			slices.Contains(countedRanks, q.toks[j]) && j+1 < len(q.toks) && isCount(q.toks[j+1]) {
			return true
		}
	}
	return false
}

// itemAt reads one group-by item starting at j; it returns "" when there is
// none.
func (q Question) itemAt(j int) (item string, next int) {
	if j >= len(q.toks) {
		return "", j
	}
	if q.toks[j] == columnMark {
		return q.cols[j], j + 1
	}
	if q.Known {
		return "", j
	}
	var w []string
	for j < len(q.toks) && len(w) < 3 && isPlainWord(q.toks[j]) && !slices.Contains(groupStops, q.toks[j]) {
		w = append(w, q.toks[j])
		j++
	}
	return strings.Join(w, " "), j
}

func isPlainWord(t string) bool {
	if t == columnMark || t == valueMark || t == "" || isCount(t) {
		return false
	}
	return IsWordRune([]rune(t)[0])
}

var (
	spelledNumbers = []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "fifteen", "twenty", "fifty", "hundred"}
	spelledValues  = []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "15", "20", "50", "100"}
)

// isCount reports whether a word is a number ("5", "ten").
func isCount(t string) bool {
	_, ok := CanonicalNumber(t)
	return ok || slices.Contains(spelledNumbers, t)
}

// countValue returns the number a count word stands for, or 0.
func countValue(t string) int {
	forms := numberForms(t, false)
	if len(forms) == 0 {
		return 0
	}
	var n int
	if _, err := fmt.Sscan(forms[0], &n); err != nil || fmt.Sprint(n) != forms[0] {
		return 0
	}
	return n
}

// Ranking is a request for the top or bottom N rows, or the first N.
type Ranking struct {
	Kind string // "top", "bottom" or "first"
	N    int    // 0 when the number is not a plain integer
}

// Rankings returns the top/bottom/first N requests: a rank word before a
// number ("top 5", "largest ten", "first 10", "bottom 4"), or a number
// followed in its clause by a rank word ("which 4 employees are the
// youngest", "the 3 lowest-paid", "3 employees brought in the most").
func (q Question) Rankings() []Ranking {
	var out []Ranking
	add := func(kind, count string) {
		r := Ranking{Kind: kind, N: countValue(count)}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	for i, t := range q.toks {
		if !q.free(i) {
			continue
		}
		if i+1 < len(q.toks) && isCount(q.toks[i+1]) {
			switch {
			case t == "first":
				add("first", q.toks[i+1])
				continue
			case t == "last":
				add("bottom", q.toks[i+1])
				continue
			case rankWord(t) == "desc":
				add("top", q.toks[i+1])
				continue
			case rankWord(t) == "asc":
				add("bottom", q.toks[i+1])
				continue
			}
		}
		if isCount(t) && (i == 0 || rankWord(q.toks[i-1]) == "" && q.toks[i-1] != "first" && q.toks[i-1] != "last") {
			for j := i + 1; j < len(q.toks) && j <= i+6 && !isClauseMark(q.toks[j]); j++ {
				switch rankWord(q.toks[j]) {
				case "desc":
					add("top", t)
				case "asc":
					add("bottom", t)
				default:
					continue
				}
				break
			}
		}
	}
	return out
}

// Sort is the ordering a question asks for.
type Sort struct {
	// Order is "asc", "desc" or "" (not said).
	Order string
	// Keys are the columns to sort by, when the question names them.
	Keys []string
}

var sortCues = Phrases("sort", "sorted", "sorting", "order by", "ordered", "ascending", "descending",
	"rank", "ranked", "ranking", "arrange", "arranged")

// Sorting returns the ordering the question asks for, or nil: a sort cue,
// a stated order, or a top/bottom N.
func (q Question) Sorting() *Sort {
	s := &Sort{Order: q.order}
	asked := q.order != ""
	for i := range q.toks {
		if l := phraseAtWords(q.toks, i, sortCues); l > 0 {
			asked = true
			s.Keys = appendNew(s.Keys, q.keysAfterBy(i+l)...)
		}
		if slices.Contains(rankingWords, q.toks[i]) || rankWord(q.toks[i]) != "" && i+1 < len(q.toks) && isCount(q.toks[i+1]) {
			s.Keys = appendNew(s.Keys, q.keysAfterBy(i+1)...)
		}
	}
	for _, r := range q.Rankings() {
		switch r.Kind {
		case "top":
			asked = true
			if s.Order == "" {
				s.Order = "desc"
			}
		case "bottom":
			asked = true
			if s.Order == "" {
				s.Order = "asc"
			}
		}
	}
	if !asked {
		return nil
	}
	return s
}

// keysAfterBy returns the columns after the next "by" in the clause from
// i: "sorted by budget", "top 5 employees by salary".
func (q Question) keysAfterBy(i int) []string {
	for j := i; j < len(q.toks) && !isClauseMark(q.toks[j]); j++ {
		if q.toks[j] != "by" {
			continue
		}
		var keys []string
		for k := j + 1; k < len(q.toks); k++ {
			switch {
			case q.toks[k] == columnMark:
				keys = append(keys, q.cols[k])
			case slices.Contains(groupFillers, q.toks[k]) || q.toks[k] == "and" || q.toks[k] == ",":
				continue
			}
			if q.toks[k] != columnMark {
				break
			}
		}
		return keys
	}
	return nil
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		if !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

// joinCues ask for a join.
var joinCues = Phrases("join", "joined", "joining", "merge", "merged", "merging", "combine", "combined",
	"combining", "match", "matches", "matched", "matching")

// Joins returns how many joins the question asks for and the key columns
// it names: "join ... on department", "sales.employee_id matches
// employees.id".
func (q Question) Joins() (int, []string) {
	n := 0
	var keys []string
	for i := 0; i < len(q.toks); i++ {
		l := phraseAtWords(q.toks, i, joinCues)
		if l == 0 || !q.free(i) {
			continue
		}
		n++
		if strings.HasPrefix(q.toks[i], "match") {
			if c := q.columnNear(i, -1); c != "" {
				keys = appendNew(keys, c)
			}
			if c := q.columnNear(i+l-1, 1); c != "" {
				keys = appendNew(keys, c)
			}
			continue
		}
		for j := i + l; j < len(q.toks) && !isSentenceEnd(q.toks[j]); j++ {
			if q.toks[j] == "on" {
				k := j + 1
				for k < len(q.toks) && slices.Contains(groupFillers, q.toks[k]) && q.toks[k] != "each" && q.toks[k] != "every" {
					k++
				}
				if k < len(q.toks) && q.toks[k] == columnMark {
					keys = appendNew(keys, q.cols[k])
				}
				break
			}
		}
	}
	return n, keys
}

// columnNear returns the column named within three words of i, looking in
// direction dir (-1 before, 1 after), past dataset names and dots.
func (q Question) columnNear(i, dir int) string {
	for j, steps := i+dir, 0; j >= 0 && j < len(q.toks) && steps < 3; j, steps = j+dir, steps+1 {
		if q.toks[j] == columnMark {
			return q.cols[j]
		}
		if q.toks[j] != "." && q.toks[j] != "(" && q.toks[j] != ")" && !isPlainWord(q.toks[j]) {
			return ""
		}
	}
	return ""
}
