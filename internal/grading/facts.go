package grading

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Facts reads the facts an answer states (its values and the names and
// dates it gives that the question does not) and says for each whether
// tool results hold it: found as written (in any form of the number or
// date), computed from them (an aggregate of a table's column over all its
// rows, its first or last rows, or the rows of one category, possibly
// within a range of years; or the sum, difference, product or ratio of two
// other facts), or missing. A reference trajectory's results that miss a
// fact of the expected answer no longer support it: the server's data
// changed, or the case is wrong.
func Facts(answerText, question string, results []string) []eval.Fact {
	a := &answer{text: Parse(answerText), numbers: Numbers(answerText)}
	for _, n := range Numbers(question) {
		a.questionNumbers = append(a.questionNumbers, n.Value)
	}
	var tables []table
	for _, r := range results {
		tables = append(tables, tablesOf(r)...)
	}
	rel := relevanceOf(question, answerText)
	var facts []eval.Fact
	var values []factValue // the values found or computed, for the facts made of two others
	seen := map[string]bool{}
	var pending []factValue
	var dates [][]int
	for _, re := range []*regexp.Regexp{dateRE, longDateRE} {
		dates = append(dates, re.FindAllStringIndex(answerText, -1)...)
	}
	inDate := func(n Number) bool {
		return slices.ContainsFunc(dates, func(d []int) bool { return n.Start >= d[0] && n.End <= d[1] })
	}
	for _, n := range a.numbers {
		lit := answerText[n.Start:n.End]
		if !isNumberToken(lit) || gluedToWord(answerText, n) || a.questionNumber(n) || seen[lit] || a.partOfLonger(n) || inDate(n) {
			continue
		}
		seen[lit] = true
		f := eval.Fact{Fact: lit, Status: eval.FactMissing}
		switch how, ok := computed(n, lit, results, tables, rel); {
		case ok && how == "":
			f.Status = eval.FactFound
		case ok:
			f.Status, f.How = eval.FactComputed, how
		}
		facts = append(facts, f)
		fv := factValue{index: len(facts) - 1, value: n.Value, tol: precision(lit)}
		if f.Status == eval.FactMissing {
			pending = append(pending, fv)
		} else {
			values = append(values, fv)
		}
	}
	for _, p := range pending {
		if how, ok := combined(p, values, facts); ok {
			facts[p.index].Status, facts[p.index].How = eval.FactComputed, how
		}
	}
	qwords := map[string]bool{}
	for _, w := range splitWordsOf(question) {
		qwords[w] = true
	}
	for _, name := range namesOf(answerText) {
		name = fileNameIn(name, results)
		if seen[name] || qwords[strings.ToLower(name)] {
			continue
		}
		seen[name] = true
		f := eval.Fact{Fact: name, Status: eval.FactMissing}
		for _, r := range results {
			if len(Find(r, name)) > 0 || sameDateIn(name, r) || sameProteinIn(name, r) {
				f.Status = eval.FactFound
				break
			}
		}
		facts = append(facts, f)
	}
	return facts
}

// TermFacts says, for each term of a case's checks that an answer must
// contain and no fact of facts already covers, whether tool results hold
// it (any spelling, as whole words unless the checks match substrings):
// the words a case's author declared its answer's content. Terms the
// question gives, terms wanted under a negation ("no fly ortholog" states
// an absence, which no result holds), numbers (read by Facts) and words an
// answer derives rather than reads ("higher", "yes", "increased") are left
// out.
func TermFacts(checks eval.Checks, question string, results []string, facts []eval.Fact) []eval.Fact {
	var out []eval.Fact
	find := func(text, sp string) bool {
		if checks.Substring {
			return strings.Contains(strings.ToLower(text), strings.ToLower(strings.TrimSpace(sp)))
		}
		return len(Find(text, sp)) > 0
	}
	leftOut := func(sp string) bool {
		_, negated := spelling(sp)
		_, number := CanonicalNumber(strings.TrimSpace(sp))
		derived := !slices.ContainsFunc(splitWordsOf(sp), func(w string) bool { return !derivedWords[w] && !comparisonWords[w] })
		known := slices.ContainsFunc(facts, func(f eval.Fact) bool { return strings.EqualFold(f.Fact, sp) })
		return negated || number || derived || known || find(question, sp)
	}
	for _, t := range checks.Contains {
		if len(t.Any) == 0 || slices.ContainsFunc(t.Any, leftOut) {
			continue
		}
		f := eval.Fact{Fact: t.Any[0], Status: eval.FactMissing}
		if slices.ContainsFunc(results, func(r string) bool {
			return slices.ContainsFunc(t.Any, func(sp string) bool { return find(r, sp) })
		}) {
			f.Status = eval.FactFound
		}
		out = append(out, f)
	}
	return out
}

// derivedWords are words an answer concludes from data rather than reads
// in it: answers to yes-no questions, comparisons, changes.
var derivedWords = wordSet("yes", "no", "true", "false", "both", "neither", "either", "same", "different", "equal",
	"increased", "decreased", "increase", "decrease", "up", "down", "correct", "incorrect", "present", "absent",
	"found", "not", "none", "all", "only", "first", "last", "top", "bottom", "highest", "lowest", "largest",
	"smallest", "most", "least")

// Missing returns the facts the results do not hold.
func Missing(facts []eval.Fact) []string {
	var out []string
	for _, f := range facts {
		if f.Status == eval.FactMissing {
			out = append(out, f.Fact)
		}
	}
	return out
}

// partOfLonger reports whether a number is part of a longer one the
// answer states ("117" of "117,120,017" read as a list).
func (a *answer) partOfLonger(n Number) bool {
	for _, m := range a.numbers {
		if m.Start <= n.Start && m.End >= n.End && m.End-m.Start > n.End-n.Start {
			return true
		}
	}
	return false
}

// factValue is a numeric fact with the precision it is written to.
type factValue struct {
	index      int
	value, tol float64
}

// precision is half a unit of the last decimal a literal writes.
func precision(lit string) float64 {
	lit = strings.ReplaceAll(lit, ",", "")
	if i := strings.LastIndex(lit, "."); i >= 0 && i < len(lit)-1 {
		return 0.5 * math.Pow(10, -float64(len(lit)-i-1))
	}
	return 0.5
}

func closeTo(v, want, tol float64) bool {
	return math.Abs(v-want) <= tol+1e-9*math.Max(1, math.Abs(want))
}

// combined says how a missing value is the sum, difference, product or
// ratio (as a fraction or a percentage) of two facts found or computed.
func combined(p factValue, values []factValue, facts []eval.Fact) (string, bool) {
	for i, x := range values {
		for j, y := range values {
			if i == j {
				continue
			}
			ops := []struct {
				v    float64
				name string
			}{{x.value + y.value, "+"}, {x.value - y.value, "−"}, {x.value * y.value, "×"}}
			if y.value != 0 {
				ops = append(ops, struct {
					v    float64
					name string
				}{x.value / y.value, "÷"}, struct {
					v    float64
					name string
				}{100 * x.value / y.value, "÷ (as a percentage)"})
			}
			for _, op := range ops {
				if closeTo(op.v, p.value, p.tol) {
					return fmt.Sprintf("%s %s %s", facts[x.index].Fact, op.name, facts[y.index].Fact), true
				}
			}
		}
	}
	return "", false
}

// computed says whether the results hold the value n: found as written
// (how is ""), or computed from a table of them (how says how).
//
// A small whole number is found as written in almost any table, so it is
// sought first among the aggregates.
func computed(n Number, lit string, results []string, tables []table, r relevance) (how string, ok bool) {
	tol := precision(lit)
	aggregate := func() (string, bool) {
		for _, t := range tables {
			if how, ok := t.aggregate(n.Value, tol, n.Percent, r); ok {
				return how, true
			}
		}
		return "", false
	}
	small := n.Value == math.Trunc(n.Value) && math.Abs(n.Value) < 100
	if small {
		if how, ok := aggregate(); ok {
			return how, true
		}
	}
	for _, res := range results {
		if holdsValue(res, n, lit) {
			return "", true
		}
	}
	if !small {
		return aggregate()
	}
	return "", false
}

// namesOf returns the names and dates a text gives: gene symbols and
// identifiers ("VIRMA", "rs28934906") and dates ("2017-07-22"); not the
// protein changes that name the variant asked about ("N372H").
func namesOf(text string) []string {
	var out []string
	for _, d := range dateRE.FindAllString(text, -1) {
		out = append(out, d)
	}
	for _, d := range longDateRE.FindAllString(text, -1) {
		out = append(out, d)
	}
	for _, f := range fileNameRE.FindAllString(text, -1) {
		out = append(out, strings.TrimSpace(f))
	}
	for _, n := range properNameRE.FindAllStringIndex(text, -1) {
		name := text[n[0]:n[1]]
		if n[0] > 0 && !strings.ContainsAny(text[max(0, n[0]-2):n[0]], ".!?\n") &&
			!slices.ContainsFunc(strings.Fields(name), func(w string) bool { return neutralWords[strings.ToLower(w)] }) {
			out = append(out, name) // "Marco Ruiz"; not "Entrez Gene"
		}
	}
	for _, tok := range tokenize(text) {
		name := strings.TrimSuffix(strings.TrimSuffix(tok.Text, "'s"), "’s")
		if _, variant := canonicalProtein("p." + name); variant {
			continue // the variant asked about, in another notation: not a fact of the answer
		}
		if tok.Word && (IsSymbol(name) || identifierWord(name) && !isDigits(name)) && !dateRE.MatchString(name) && !strings.Contains(name, ".") {
			out = append(out, name)
		}
	}
	return out
}

// fileNameIn returns, of a file's name found with the words before it
// ("the file fantasy sports.csv"), the longest ending that the results
// hold, else its last word.
func fileNameIn(name string, results []string) string {
	if !fileNameRE.MatchString(name) || !strings.Contains(name, " ") {
		return name
	}
	words := strings.Fields(name)
	for i := range words {
		candidate := strings.Join(words[i:], " ")
		for _, r := range results {
			if strings.Contains(r, candidate) {
				return candidate
			}
		}
	}
	return words[len(words)-1]
}

// proteinChangeRE finds protein changes in HGVS notation: "p.N372H",
// "p.Asn372His", "p.(Arg175His)".
var proteinChangeRE = regexp.MustCompile(`p\.\(?[A-Za-z]{1,3}\d+[A-Za-z*]{1,3}\)?`)

// sameProteinIn reports whether text writes the protein change name in
// either notation ("N372H" as "p.Asn372His").
func sameProteinIn(name, text string) bool {
	want, ok := canonicalProtein("p." + strings.TrimPrefix(name, "p."))
	if !ok {
		return false
	}
	for _, m := range proteinChangeRE.FindAllString(text, -1) {
		if got, ok := canonicalProtein(m); ok && got == want {
			return true
		}
	}
	return false
}

// dateRE finds an ISO date; longDateRE a date written out ("January 15,
// 2020"); fileNameRE a file's name ("fantasy sports.csv"); properNameRE a
// name of two capitalised words or more ("Marco Ruiz").
var (
	dateRE       = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{4}\b`)
	longDateRE   = regexp.MustCompile(`\b(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4}\b`)
	fileNameRE   = regexp.MustCompile(`(?:[A-Za-z0-9_-]+ )*[A-Za-z0-9_-]+\.(?:csv|json|txt|tsv|md|tsx|ts|js|py|go|yaml|yml|xlsx)\b`)
	properNameRE = regexp.MustCompile(`\b[A-Z][a-z]+(?: [A-Z][a-z]+)+\b`)
)

// dateLayouts are the ways a table or a text writes a date.
var dateLayouts = []string{"2006-01-02", "1/2/2006", "01/02/2006", "2/1/2006", "02/01/2006", "January 2, 2006", "Jan 2, 2006", "2 January 2006", "2006/01/02"}

// sameDateIn reports whether text writes the date (ISO, or written out) in
// some layout.
func sameDateIn(date, text string) bool {
	var d time.Time
	var err error
	for _, layout := range []string{"2006-01-02", "January 2, 2006", "2/1/2006"} {
		if d, err = time.Parse(layout, date); err == nil {
			break
		}
	}
	if err != nil {
		return false
	}
	for _, layout := range dateLayouts {
		if strings.Contains(text, d.Format(layout)) {
			return true
		}
	}
	return false
}

// table is a table in a tool's result: a CSV file's rows, or a JSON list
// of records.
type table struct {
	name    string
	columns []string
	rows    [][]string
}

// tablesOf returns the tables a result holds: the result itself when it is
// CSV, every list of records when it is JSON, and CSV text in a JSON
// string (a file's content returned by a tool).
func tablesOf(result string) []table {
	var v any
	if json.Unmarshal([]byte(result), &v) == nil {
		var out []table
		walkJSON(v, "", &out)
		return out
	}
	if t, ok := csvTable(result); ok {
		return []table{t}
	}
	return nil
}

// walkJSON collects the tables of a decoded JSON value.
func walkJSON(v any, path string, out *[]table) {
	switch v := v.(type) {
	case string:
		if t, ok := csvTable(v); ok {
			t.name = path
			*out = append(*out, t)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			walkJSON(v[k], path+"."+k, out)
		}
	case []any:
		var records []map[string]any
		for _, x := range v {
			if m, ok := x.(map[string]any); ok {
				records = append(records, m)
			}
			walkJSON(x, path+"[]", out)
		}
		if len(records) >= 2 {
			*out = append(*out, recordsTable(path, records))
		}
	}
}

// recordsTable makes a table of a list of JSON records: a column per key.
func recordsTable(name string, records []map[string]any) table {
	keys := map[string]bool{}
	for _, r := range records {
		for k := range r {
			keys[k] = true
		}
	}
	t := table{name: name, columns: slices.Sorted(maps.Keys(keys))}
	for _, r := range records {
		row := make([]string, len(t.columns))
		for i, k := range t.columns {
			switch x := r[k].(type) {
			case nil:
			case string:
				row[i] = x
			case float64:
				row[i] = strconv.FormatFloat(x, 'f', -1, 64)
			default:
				b, _ := json.Marshal(x)
				row[i] = string(b)
			}
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// maxTableRows bounds the rows a table is read for (the aggregates over
// categories and ranges of years grow with them).
const maxTableRows = 5000

// csvTable reads text as CSV with a header row: at least two columns and
// two rows, every row as wide as the header.
func csvTable(text string) (table, bool) {
	if !strings.Contains(text, ",") || !strings.Contains(text, "\n") {
		return table{}, false
	}
	r := csv.NewReader(strings.NewReader(strings.TrimSpace(text)))
	records, err := r.ReadAll()
	if err != nil || len(records) < 3 || len(records[0]) < 2 || len(records) > maxTableRows {
		return table{}, false
	}
	return table{columns: records[0], rows: records[1:]}, true
}

// numeric reads a cell as a number: "6,446.20", "$1,234", "12.5%".
func numeric(cell string) (float64, bool) {
	s := strings.NewReplacer("$", "", "€", "", "£", "", ",", "", " ", "", "%", "").Replace(strings.TrimSpace(cell))
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && !math.IsInf(v, 0) && !math.IsNaN(v)
}

// dateOf reads the year a cell names, and its month when it is a date (0
// for a year alone).
func dateOf(cell string) (year, month int, ok bool) {
	s := strings.TrimSpace(cell)
	if len(s) == 4 {
		if y, err := strconv.Atoi(s); err == nil && y >= 1800 && y <= 2200 {
			return y, 0, true
		}
	}
	for _, layout := range append(dateLayouts, "2006-01-02 15:04:05", "2006-01-02T15:04:05Z07:00", "1/2/06") {
		if d, err := time.Parse(layout, s); err == nil {
			return d.Year(), int(d.Month()), true
		}
	}
	return 0, 0, false
}

// rowSet is a set of a table's rows and how they were chosen.
type rowSet struct {
	rows []int
	how  string
}

// relevance is what the question and the answer name, which the row sets
// an aggregate is taken over must be chosen by: the counts of rows they
// give ("the first five weeks"), the values they filter on ("assault"),
// the years they span ("from 2017 to 2020"). Without it any value would be
// some aggregate of some rows.
type relevance struct {
	counts map[int]bool
	words  map[string]bool
	years  map[int]bool
	// months are the months named with their year ("may 2014"), as
	// year*12 + month - 1.
	months map[int]bool
}

// monthYearRE finds a month named with its year: "May 2014", "may 2021".
var monthYearRE = regexp.MustCompile(`(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{4})\b`)

// relevanceOf reads the counts, words and years of texts.
func relevanceOf(texts ...string) relevance {
	r := relevance{counts: map[int]bool{}, words: map[string]bool{}, years: map[int]bool{}, months: map[int]bool{}}
	for _, text := range texts {
		for _, m := range monthYearRE.FindAllStringSubmatch(text, -1) {
			month := strings.Index("janfebmaraprmayjunjulaugsepoctnovdec", strings.ToLower(m[1]))/3 + 1
			if y, err := strconv.Atoi(m[2]); err == nil {
				r.months[y*12+month-1] = true
			}
		}
		for _, n := range Numbers(text) {
			if n.Value == math.Trunc(n.Value) && n.Value > 1 && n.Value < 1000 {
				r.counts[int(n.Value)] = true
			}
			if n.Value >= 1800 && n.Value <= 2200 && n.Value == math.Trunc(n.Value) {
				r.years[int(n.Value)] = true
			}
		}
		for _, w := range splitWordsOf(text) {
			r.words[w] = true
			if st := stem(w); st != "" {
				r.words[st] = true
			}
		}
	}
	return r
}

// names reports whether the texts name a table's value: each of its words
// (or another form of them).
func (r relevance) names(v string) bool {
	words := splitWordsOf(v)
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if st := stem(w); !r.words[w] && (st == "" || !r.words[st]) {
			return false
		}
	}
	return true
}

// aggregate says how value is an aggregate of a column of t over one of
// its row sets the texts name: all rows, the first or last k (a count they
// give), the rows of one value of a column with few values (a value they
// name), and those within a range of years they give as well.
func (t table) aggregate(value, tol float64, percent bool, r relevance) (string, bool) {
	n := len(t.rows)
	if n == 0 {
		return "", false
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	sets := []rowSet{{all, "all rows"}}
	windows := map[int]bool{} // the sets of the first or last rows: their count is theirs by definition
	for k := 2; k < n; k++ {
		if r.counts[k] {
			windows[len(sets)], windows[len(sets)+1] = true, true
			sets = append(sets, rowSet{all[:k], fmt.Sprintf("the first %d rows", k)}, rowSet{all[n-k:], fmt.Sprintf("the last %d rows", k)})
		}
	}
	years := map[int][]int{}  // by year column: the year of each row
	months := map[int][]int{} // by date column: the month of each row (year*12 + month - 1)
	for c := range t.columns {
		ys, ms := make([]int, n), make([]int, n)
		ok, dated := true, true
		for i, row := range t.rows {
			y, m, isYear := dateOf(cell(row, c))
			ok, dated = ok && isYear, dated && m > 0
			ys[i], ms[i] = y, y*12+m-1
		}
		if ok {
			years[c] = ys
		}
		if ok && dated {
			months[c] = ms
		}
	}
	for c, name := range t.columns {
		groups := map[string][]int{}
		for i, row := range t.rows {
			v := strings.ToLower(strings.TrimSpace(cell(row, c)))
			groups[v] = append(groups[v], i)
		}
		if len(groups) < 2 || len(groups) > 50 || len(groups) == n {
			continue
		}
		for _, v := range slices.Sorted(maps.Keys(groups)) {
			if !r.names(v) {
				continue
			}
			rows := groups[v]
			label := fmt.Sprintf("the rows whose %s is %q", name, v)
			sets = append(sets, rowSet{rows, label})
			within := func(col int, of []int, bounds map[int]bool, show func(int) string) {
				for from := range bounds {
					for to := range bounds {
						if to < from {
							continue
						}
						var in []int
						for _, i := range rows {
							if of[i] >= from && of[i] <= to {
								in = append(in, i)
							}
						}
						if len(in) > 0 && len(in) < len(rows) {
							sets = append(sets, rowSet{in, fmt.Sprintf("%s and %s from %s to %s", label, t.columns[col], show(from), show(to))})
						}
					}
				}
			}
			for yc, ys := range years {
				within(yc, ys, r.years, strconv.Itoa)
			}
			for mc, ms := range months {
				within(mc, ms, r.months, func(m int) string { return fmt.Sprintf("%d-%02d", m/12, m%12+1) })
			}
		}
	}
	// Counts first, then shares (of a percentage), then the aggregates of
	// a column: a small number is more often a count than a mean.
	for i, s := range sets {
		if closeTo(float64(len(s.rows)), value, tol) && len(s.rows) < n && !windows[i] {
			return fmt.Sprintf("the count of %s", s.how), true
		}
	}
	if percent {
		for _, s := range sets {
			if how, ok := t.share(s, value, tol, r); ok {
				return how, true
			}
		}
	}
	for _, s := range sets {
		for c, name := range t.columns {
			var xs []float64
			for _, i := range s.rows {
				if v, ok := numeric(cell(t.rows[i], c)); ok {
					xs = append(xs, v)
				}
			}
			if len(xs) < 2 || len(xs) < len(s.rows)/2 {
				continue
			}
			for _, agg := range aggregates(xs) {
				if closeTo(agg.v, value, tol) {
					return fmt.Sprintf("the %s of %s over %s", agg.name, name, s.how), true
				}
			}
		}
	}
	return "", false
}

// share says how value is the share (a percentage or a fraction) of the
// rows of s that have one value in a column ("42.86% of the fraud crimes
// occurred online").
func (t table) share(s rowSet, value, tol float64, r relevance) (string, bool) {
	if len(s.rows) < 2 || len(s.rows) > 500 {
		return "", false
	}
	for c, name := range t.columns {
		counts := map[string]int{}
		for _, i := range s.rows {
			counts[strings.ToLower(strings.TrimSpace(cell(t.rows[i], c)))]++
		}
		if len(counts) > 20 {
			continue
		}
		for _, v := range slices.Sorted(maps.Keys(counts)) {
			if !r.names(v) {
				continue
			}
			f := float64(counts[v]) / float64(len(s.rows))
			if closeTo(100*f, value, tol) && len(s.rows) > counts[v] {
				return fmt.Sprintf("the share of %s whose %s is %q", s.how, name, v), true
			}
		}
	}
	return "", false
}

func cell(row []string, c int) string {
	if c < len(row) {
		return row[c]
	}
	return ""
}

// aggregates are the usual aggregates of a list of values.
func aggregates(xs []float64) []struct {
	v    float64
	name string
} {
	sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		sum += x
		lo, hi = min(lo, x), max(hi, x)
	}
	sorted := slices.Clone(xs)
	sort.Float64s(sorted)
	median := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		median = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	return []struct {
		v    float64
		name string
	}{{sum, "sum"}, {sum / float64(len(xs)), "mean"}, {median, "median"}, {lo, "minimum"}, {hi, "maximum"}}
}
