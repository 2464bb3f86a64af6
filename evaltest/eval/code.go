package eval

// What a code-running tool reports about one execution besides its result
// text. The bundled server's run_pandas sends it in the tool result's _meta
// under CodeExecutionMeta; other servers may send the same.

// CodeExecutionMeta is the _meta key of a tool result that carries a
// CodeExecution.
const CodeExecutionMeta = "mcpeval/code_execution"

// CodeExecution is what the server measured and read of the code it ran.
type CodeExecution struct {
	// Seconds is the wall time of the code's own execution: the code, not
	// the process start, the import of pandas, the loading of the data or
	// the rendering of the result.
	Seconds float64 `json:"seconds"`
	// CPUSeconds is the CPU time, in seconds, of the thread that ran the
	// code, over the same span.
	CPUSeconds float64 `json:"cpu_seconds"`
	// TimedOut is true when the code was stopped at the time limit.
	TimedOut bool `json:"timed_out,omitempty"`
	// Facts is the reading of the code's syntax tree; nil when the server
	// gave none.
	Facts *CodeFacts `json:"facts,omitempty"`
}

// CodeFacts is what the syntax tree of pandas code shows it does. Column
// lists hold names as the code writes them, columns the code made itself
// followed by the columns they were made from (age_group, then age).
type CodeFacts struct {
	// Parsed is false when the code is not valid Python; the lists are
	// then empty.
	Parsed bool `json:"parsed"`
	// SyntaxError says why the code could not be read (a syntax error, or
	// nesting too deep to read); "" when it was.
	SyntaxError string `json:"syntax_error,omitempty"`
	// Columns are the names the code uses as columns, in order of first
	// use: string subscripts (df['a'], df[['a', 'b']]), attributes (df.a),
	// key arguments (by=, on=, ...) and the names inside query strings;
	// values compared with and printed text are left out.
	Columns []string `json:"columns"`
	// Operations are the functions and methods called, the frame attributes
	// read (shape) and the aggregation names given as strings (agg('mean')).
	Operations []string `json:"operations"`
	// Filters are the row conditions the code applies.
	Filters []CodeFilter `json:"filters"`
	// GroupBys are its groupings (JSON "group_bys").
	GroupBys []CodeGroupBy `json:"group_bys"`
	// Sorts are its orderings.
	Sorts []CodeSort `json:"sorts"`
	// Limits are the calls that keep only the first or last rows.
	Limits []CodeLimit `json:"limits"`
	// Joins are its merges, joins and concatenations.
	Joins []CodeJoin `json:"joins"`
	// Aggregations are the aggregations it computes.
	Aggregations []CodeAggregation `json:"aggregations"`
}

// CodeFilter is one condition: a comparison of columns (df['a'] > 5), a
// test (isin, between, str.contains, isna, ...) or a comparison inside a
// query string.
type CodeFilter struct {
	// Columns are the columns compared or tested.
	Columns []string `json:"columns"`
	// Op is the comparison (">", "==", "in", "between", "contains",
	// "isna", ...), flipped when the column is on the right.
	Op string `json:"op"`
	// Values are the literal values compared with, as text; empty when the
	// other side is no literal (another column, a mean).
	Values []string `json:"values"`
}

// CodeGroupBy is a grouping: groupby, pivot_table, crosstab, value_counts
// or resample, with the columns its keys come from.
type CodeGroupBy struct {
	// Method is the call that groups ("groupby", "pivot_table", ...).
	Method string `json:"method"`
	// Keys are the columns the keys come from; "(index)" for the index.
	Keys []string `json:"keys"`
}

// CodeSort is an ordering: sort_values, sort_index, nlargest, nsmallest,
// value_counts (which sorts by count) or sorted.
type CodeSort struct {
	// Method is the call that sorts ("sort_values", "nlargest", ...).
	Method string `json:"method"`
	// Keys are the columns sorted by; empty when the values are counts or
	// the key cannot be read.
	Keys []string `json:"keys"`
	// Ascending is the order, nil when it cannot be read.
	Ascending *bool `json:"ascending"`
	// N is how many rows nlargest and nsmallest keep (0 for the others).
	N int `json:"n"`
}

// CodeLimit keeps the first or last rows: head, tail, iloc[:n], [:n].
type CodeLimit struct {
	// Method is "head", "tail", "iloc" or "slice" (df[:n]).
	Method string `json:"method"`
	// N is how many rows it keeps; 0 when the count cannot be read.
	N int `json:"n"`
}

// CodeJoin is a merge, join or concat, with its key columns (on, left_on,
// right_on); no keys means the default (the common columns, or the index).
type CodeJoin struct {
	// Method is "merge", "join" or "concat".
	Method string `json:"method"`
	// Keys are the key columns; empty for the default.
	Keys []string `json:"keys"`
}

// CodeAggregation is an aggregation (mean, sum, max, count, ...) and the
// columns it applies to, as far as they can be read.
type CodeAggregation struct {
	// Func is the aggregation's name ("mean", "count", ...).
	Func string `json:"func"`
	// Columns are the columns it applies to; empty when they cannot be read.
	Columns []string `json:"columns"`
}
