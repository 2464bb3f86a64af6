package scoring

import (
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
)

// complexityScores rates the complexity classes the guesses produce.
var complexityScores = map[string]float64{"O(1)": 1.0, "O(n)": 0.7, "O(n log n)": 0.5, "O(n^2)": 0.3}

var (
	// sortingNames make code O(n log n).
	sortingNames = []string{"sort_values", "sort_index", "sorted", "sort", "argsort", "nlargest",
		"nsmallest", "rank", "merge", "median", "quantile"}
	// linearNames touch every row.
	linearNames = []string{"mean", "sum", "max", "min", "count", "groupby", "apply", "value_counts",
		"unique", "nunique", "std", "var", "agg", "aggregate", "describe", "isin", "filter", "query",
		"drop_duplicates", "duplicated", "fillna", "dropna", "astype", "map", "corr", "cumsum",
		"pivot_table", "crosstab", "mode", "idxmax", "idxmin", "tolist", "to_list", "list", "dict",
		"set", "contains", "replace", "any", "all", "copy", "plot", "hist", "resample", "rolling",
		"diff", "pct_change", "shift", "concat", "join", "between", "isna", "notna", "sum"}
	// allocatingNames build a new frame, series or collection of rows.
	allocatingNames = []string{"merge", "join", "concat", "pivot_table", "crosstab", "copy", "groupby",
		"apply", "tolist", "to_list", "to_dict", "list", "dict", "append", "values", "to_numpy",
		"sort_values", "reset_index", "drop_duplicates", "unique", "value_counts", "fillna", "dropna"}
	// rowLoopNames iterate over rows in Python.
	rowLoopNames = []string{"iterrows", "itertuples", "apply", "applymap"}
)

// codePerformance scores the final attempt's code by its execution and a
// guess of its complexity (a number in [0, 1]):
//
//	execution time, only if the code ran: ≤ 0.1 s 0.3, ≤ 1 s 0.25, ≤ 5 s 0.15, else 0.05
//	+ 0.3 × time complexity + 0.2 × space complexity
//	  (O(1) 1.0, O(n) 0.7, O(n log n) 0.5, O(n^2) 0.3; guessed from pandas calls
//	  and loops: nested loops or row iteration inside a loop are O(n^2), sorting
//	  O(n log n), any whole-column operation or loop O(n))
//	+ 0.1 for short code (≤ 10 lines; 0.05 for ≤ 20)
//	+ 0.1 if it ran.
//
// The execution time is the CPU time of the code's own execution as the
// server reported it (eval.CodeExecution): not the interpreter's start, the
// import of pandas, the loading of the data or the rendering of the result,
// and not the time the code waited for a CPU, so the same code scores the
// same on an idle and on a busy machine. A server that reports nothing is
// timed by the whole tool call (Timing says which). Upstream also gave the
// time points to code that failed; a failed run's time says nothing, so it
// scores 0.
func codePerformance(final eval.Attempt, ran bool) eval.PerformanceMetric {
	src := lexPython(final.Code)
	d := &eval.PerformanceDetails{ExecutionSeconds: final.Seconds, Timing: eval.TimingToolCall, Ran: ran,
		CodeLines: src.codeLines()}
	if e := final.Execution; e != nil {
		d.ExecutionSeconds, d.WallSeconds, d.Timing = e.CPUSeconds, e.Seconds, eval.TimingCodeCPU
	}
	if ran {
		switch execSeconds := d.ExecutionSeconds; {
		case execSeconds <= 0.1:
			d.ExecutionTimeScore = 0.3
		case execSeconds <= 1:
			d.ExecutionTimeScore = 0.25
		case execSeconds <= 5:
			d.ExecutionTimeScore = 0.15
		default:
			d.ExecutionTimeScore = 0.05
		}
	}
	d.TimeComplexity, d.SpaceComplexity = complexity(src)
	d.TimeComplexityScore = complexityScores[d.TimeComplexity]
	d.SpaceComplexityScore = complexityScores[d.SpaceComplexity]
	short := 0.0
	switch {
	case d.CodeLines <= 10:
		short = 0.1
	case d.CodeLines <= 20:
		short = 0.05
	}
	return eval.PerformanceMetric{
		Score: unit(d.ExecutionTimeScore + 0.3*d.TimeComplexityScore + 0.2*d.SpaceComplexityScore +
			short + 0.1*b2f(ran)),
		Details: d,
	}
}

// complexity guesses the time and space complexity of pandas code.
func complexity(src pySource) (timeClass, spaceClass string) {
	names := src.names()
	depth := loopDepth(src)
	masks := slices.ContainsFunc(src.tokens, func(t pyToken) bool { return t.kind == pyOp && isComparison(t.text) })
	switch {
	case depth >= 2:
		timeClass = "O(n^2)"
	case grading.HasWord(names, sortingNames...):
		timeClass = "O(n log n)"
	case depth == 1 || masks || grading.HasWord(names, linearNames...):
		timeClass = "O(n)"
	default:
		timeClass = "O(1)"
	}
	spaceClass = "O(1)"
	if depth > 0 || masks || grading.HasWord(names, allocatingNames...) {
		spaceClass = "O(n)"
	}
	return timeClass, spaceClass
}

func isComparison(op string) bool {
	return slices.Contains([]string{"==", "!=", ">=", "<=", ">", "<"}, op)
}

// loopDepth is the deepest nesting of Python-level loops: for/while
// statements (by indentation), comprehensions and row iteration
// (iterrows, apply) each add a level; "for row in df.iterrows()" is one.
func loopDepth(src pySource) int {
	byLine := map[int][]string{}
	var order []int
	for _, t := range src.tokens {
		if t.kind != pyName {
			continue
		}
		if _, seen := byLine[t.line]; !seen {
			order = append(order, t.line)
		}
		byLine[t.line] = append(byLine[t.line], t.text)
	}
	var open []int // indentation of the enclosing loop statements
	deepest := 0
	for _, line := range order {
		text := src.lines[line]
		indent := len(text) - len(strings.TrimLeft(text, " \t"))
		for len(open) > 0 && open[len(open)-1] >= indent {
			open = open[:len(open)-1]
		}
		names := byLine[line]
		level := 0
		for _, n := range names {
			if n == "for" || n == "while" {
				level++
			}
		}
		if level == 0 && grading.HasWord(names, rowLoopNames...) {
			level = 1
		}
		deepest = max(deepest, len(open)+level)
		if names[0] == "for" || names[0] == "while" {
			open = append(open, indent)
		}
	}
	return deepest
}
