package scoring

import (
	"slices"
	"strings"
)

// question is a question about a table, split into words, with the words
// that name a column replaced by a single mark. Keywords are matched on the
// remaining words, so a column called "total_sales" or "min_price" never
// reads as "sum" or "min".
type question struct {
	toks []string // words; columnMark where a column is named
	cols []string // cols[i] is the column toks[i] names, or ""
	// known is true when the dataset's columns were given.
	known bool
}

const columnMark = "\x00column"

// parseQuestion splits text into words and marks column mentions. A column is
// mentioned when its name, or its name with '_' read as a space, occurs as a
// phrase of whole words; the last word may carry a plural "s" or "es".
func parseQuestion(text string, columns []string) question {
	type variant struct {
		column string
		words  []string
	}
	var variants []variant
	for _, c := range columns {
		for _, form := range []string{c, strings.ReplaceAll(c, "_", " ")} {
			if w := words(form); len(w) > 0 {
				variants = append(variants, variant{c, w})
			}
		}
	}
	slices.SortStableFunc(variants, func(a, b variant) int { return len(b.words) - len(a.words) })

	toks := words(text)
	q := question{known: len(columns) > 0}
	for i := 0; i < len(toks); {
		matched := false
		for _, v := range variants {
			if mentionAt(toks, i, v.words) {
				q.toks = append(q.toks, columnMark)
				q.cols = append(q.cols, v.column)
				i += len(v.words)
				matched = true
				break
			}
		}
		if !matched {
			q.toks = append(q.toks, toks[i])
			q.cols = append(q.cols, "")
			i++
		}
	}
	return q
}

func mentionAt(toks []string, i int, name []string) bool {
	if i+len(name) > len(toks) {
		return false
	}
	last := len(name) - 1
	for k, w := range name {
		t := toks[i+k]
		if t != w && !(k == last && (t == w+"s" || t == w+"es")) {
			return false
		}
	}
	return true
}

// mentioned returns the columns the question names, in the given order.
func (q question) mentioned(columns []string) []string {
	out := []string{}
	for _, c := range columns {
		if slices.Contains(q.cols, c) {
			out = append(out, c)
		}
	}
	return out
}

// Keywords that ask for a filter. Comparators each count as one condition
// ("between" as two, like the two comparisons it needs in code); "over",
// "under", "after", "before" and "since" count only before a number, so that
// "over time" is no filter. Introducers ("where", "only") show that a filter
// is wanted without saying how many conditions. The words "and" and "or" add
// nothing: each condition they join is counted through its own comparator.
var (
	comparators = phrases("greater than", "more than", "less than", "fewer than", "higher than",
		"lower than", "larger than", "smaller than", "older than", "younger than", "longer than",
		"shorter than", "greater than or equal to", "less than or equal to", "at least", "at most",
		"above", "below", "exceeds", "exceeding", "exceed", "equal to", "equals", "between",
		"excluding", "except", "not")
	numberComparators = phrases("over", "under", "after", "before", "since")
	filterIntroducers = phrases("where", "whose", "filter", "filtered", "filtering", "only",
		"which have", "that have")
)

// filterConditions counts the filter conditions the question asks for.
func (q question) filterConditions() int {
	n := 0
	for i := 0; i < len(q.toks); {
		if l := phraseAt(q.toks, i, comparators); l > 0 {
			n++
			if q.toks[i] == "between" {
				n++
			}
			i += l
			continue
		}
		if l := phraseAt(q.toks, i, numberComparators); l > 0 && i+l < len(q.toks) && isCount(q.toks[i+l]) {
			n++
			i += l
			continue
		}
		i++
	}
	if n == 0 && hasPhrase(q.toks, filterIntroducers) {
		n = 1
	}
	return n
}

// Group-by cues and the words around them.
var (
	groupCues = phrases("group by", "grouped by", "groupby", "by", "per", "for each", "for every",
		"in each", "in every", "each", "every", "across")
	// "sorted by x" or "divided by 2" is no grouping.
	notGroupingBefore = []string{"sort", "sorted", "sorting", "order", "ordered", "ascending", "descending", "rank", "ranked",
		"divided", "multiplied", "increased", "decreased", "followed", "caused", "measured"}
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

// groupItems returns what the question asks to group by: the columns that
// follow a group-by cue ("by department and gender", "for each region"), or,
// when no columns are known, the words that follow it (up to three per item).
// After "and" or a comma only a column follows directly: in "by department
// and the total sales" the total is no grouping.
func (q question) groupItems() []string {
	var items []string
	for i := 0; i < len(q.toks); i++ {
		l := phraseAt(q.toks, i, groupCues)
		if l == 0 || q.toks[i] == "by" && q.ranksBy(i) {
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

// ranksBy reports whether the "by" at i is no grouping: it follows a word
// like "sorted" or "divided", or a ranking word earlier in its clause.
func (q question) ranksBy(i int) bool {
	if i > 0 && slices.Contains(notGroupingBefore, q.toks[i-1]) {
		return true
	}
	for j := i - 1; j >= 0 && !isClauseMark(q.toks[j]); j-- {
		if slices.Contains(rankingWords, q.toks[j]) ||
			slices.Contains(countedRanks, q.toks[j]) && j+1 < len(q.toks) && isCount(q.toks[j+1]) {
			return true
		}
	}
	return false
}

// itemAt reads one group-by item starting at j; it returns "" when there is
// none.
func (q question) itemAt(j int) (item string, next int) {
	if j >= len(q.toks) {
		return "", j
	}
	if q.cols[j] != "" {
		return q.cols[j], j + 1
	}
	if q.known {
		return "", j
	}
	var w []string
	for j < len(q.toks) && len(w) < 3 && isPlainWord(q.toks[j]) && !slices.Contains(groupStops, q.toks[j]) {
		w = append(w, q.toks[j])
		j++
	}
	return strings.Join(w, " "), j
}

func isClauseMark(t string) bool { return len(t) == 1 && strings.Contains(",.;:?!", t) }

func isPlainWord(t string) bool {
	if t == columnMark || t == "" || isCount(t) {
		return false
	}
	return isWordRune([]rune(t)[0])
}

var numberWords = []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
	"ten", "eleven", "twelve", "fifteen", "twenty", "fifty", "hundred"}

// isCount reports whether a word is a number ("5", "ten").
func isCount(t string) bool {
	_, ok := canonicalNumber(t)
	return ok || slices.Contains(numberWords, t)
}

// hasBeforeCount reports whether one of the words is followed by a number:
// "top 5", "largest ten".
func (q question) hasBeforeCount(list ...string) bool {
	for i := 0; i+1 < len(q.toks); i++ {
		if slices.Contains(list, q.toks[i]) && isCount(q.toks[i+1]) {
			return true
		}
	}
	return false
}
