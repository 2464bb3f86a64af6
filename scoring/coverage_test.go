package scoring

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
)

func TestCoverage(t *testing.T) {
	tests := []struct {
		name                      string
		question, code            string
		filter, group, sort, join float64
		missing                   []string
	}{
		{
			name:     "nothing special asked: full",
			question: "What is the mean salary?",
			code:     "result = df['salary'].mean()",
			filter:   1, group: 1, sort: 1, join: 1,
			missing: []string{},
		},
		{
			name:     "two conditions asked, one in code",
			question: "Employees older than 30 with salary above 50000",
			code:     "result = df[df['age'] > 30]",
			filter:   0.5, group: 1, sort: 1, join: 1,
			missing: []string{"Filter missing: above 50000"},
		},
		{
			name:     "two conditions asked, both in a query",
			question: "Employees older than 30 with salary above 50000",
			code:     `result = df.query("age > 30 and salary > 50000")`,
			filter:   1, group: 1, sort: 1, join: 1,
			missing: []string{},
		},
		{
			name:     "a condition on another number is not the one asked",
			question: "Employees older than 30 with salary above 50000",
			code:     "result = df[(df['age'] > 30) & (df['salary'] > 5000)]",
			filter:   0.5, group: 1, sort: 1, join: 1,
			missing: []string{"Filter missing: above 50000"},
		},
		{
			name:     "between counts its two bounds",
			question: "Employees aged between 30 and 40",
			code:     "result = df[df['age'].between(30, 40)]",
			filter:   1, group: 1, sort: 1, join: 1,
			missing: []string{},
		},
		{
			name:     "a condition without a value is met by any filter",
			question: "Employees whose salary is above average",
			code:     "result = df[df['salary'] > df['salary'].mean()]",
			filter:   1, group: 1, sort: 1, join: 1,
			missing: []string{},
		},
		{
			name:     "group by two columns, one grouped",
			question: "Average salary by department and gender",
			code:     "result = df.groupby('department')['salary'].mean()",
			filter:   1, group: 0.5, sort: 1, join: 1,
			missing: []string{"Group-by columns missing: gender"},
		},
		{
			name:     "group by a list of columns",
			question: "Total sales per department, gender",
			code:     "result = df.groupby(['department', 'gender'])['total_sales'].sum()",
			filter:   1, group: 1, sort: 1, join: 1,
			missing: []string{},
		},
		{
			name:     "group by a key made from a column",
			question: "Average salary for each age group: under 30, 30 to 44, and 45 and over",
			code:     "groups = pd.cut(df['age'], bins=[0, 29, 44, 200])\nresult = df.groupby(groups)['salary'].mean()",
			filter:   1, group: 1, sort: 1, join: 1,
			missing: []string{},
		},
		{
			name:     "sorting asked, missing",
			question: "List the names sorted by age in descending order",
			code:     "result = df[['name', 'age']]",
			filter:   1, group: 1, sort: 0, join: 1,
			missing: []string{"Sorting missing"},
		},
		{
			name:     "sorted the other way",
			question: "List the names sorted by age in descending order",
			code:     "result = df.sort_values('age')[['name', 'age']]",
			filter:   1, group: 1, sort: 2.0 / 3, join: 1,
			missing: []string{"Sort order: descending asked, the code sorts the other way"},
		},
		{
			name:     "sorted by another key",
			question: "List the names sorted by age in descending order",
			code:     "result = df.sort_values('salary', ascending=False)[['name', 'age']]",
			filter:   1, group: 1, sort: 2.0 / 3, join: 1,
			missing: []string{"Sort key missing: age"},
		},
		{
			name:     "a sort key is no grouping",
			question: "Sort them by salary",
			code:     "result = df.sort_values('salary')",
			filter:   1, group: 1, sort: 1, join: 1,
			missing: []string{},
		},
		{
			name:     "top N by a key is a sort, not a grouping",
			question: "Show the top 5 employees by salary",
			code:     "result = df.nlargest(5, 'salary')",
			filter:   1, group: 1, sort: 1, join: 1,
			missing: []string{},
		},
		{
			name:     "join asked, missing",
			question: "Merge the table with itself on department",
			code:     "result = df",
			filter:   1, group: 1, sort: 1, join: 0,
			missing: []string{"Join/merge operation missing", "Join key missing: department"},
		},
		{
			name:     "join on the asked key",
			question: "Merge the table with itself on department",
			code:     "result = pd.merge(df, df, on='department')",
			filter:   1, group: 1, sort: 1, join: 1,
			missing: []string{},
		},
		{
			name:     "a definition is no filter",
			question: "Where total sales is salary times 2, what is the total sales by department?",
			code:     "df['total_sales'] = df['salary'] * 2\nresult = df.groupby('department')['total_sales'].sum()",
			filter:   1, group: 1, sort: 1, join: 1,
			missing: []string{},
		},
	}
	codes := make([]string, len(tests))
	for i, tt := range tests {
		codes[i] = tt.code
	}
	facts := readCode(t, codes...)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := codeCoverage(tt.question, staff, facts[i])
			require.NotNil(t, c.Details)
			d := c.Details
			assert.InDelta(t, tt.filter, d.FilterConditionsCoverage, 1e-4, "filter")
			assert.InDelta(t, tt.group, d.GroupbyColumnsCoverage, 1e-4, "group by")
			assert.InDelta(t, tt.sort, d.SortingCoverage, 1e-4, "sorting")
			assert.InDelta(t, tt.join, d.JoinConditionsCoverage, 1e-4, "join")
			assert.InDelta(t, 0.3*tt.filter+0.3*tt.group+0.2*tt.sort+0.2*tt.join, c.Score, 1e-4, "score")
			assert.Equal(t, tt.missing, d.MissingRequirements)
		})
	}
}

// A value the dataset lists for a column, named in the question, asks for a
// filter on it: the code must compare with that value.
func TestCoverageOfListedValues(t *testing.T) {
	s := grading.Schema{Columns: staffColumns, Values: map[string][]string{"department": {"Sales", "Marketing", "Engineering"}},
		Datasets: []string{"sales"}}
	question := "Using the sales dataset, which employees work in Engineering and earn more than 150000?"
	facts := readCode(t,
		"result = df[(df['department'] == 'Engineering') & (df['salary'] > 150000)]",
		"result = df[df['department'] == 'Engineering']",
		"result = df[df['salary'] > 150000]",
		`result = df.query("department == 'Engineering' and salary > 150000")`,
		"result = df[df['department'].str.contains('Eng') & df.salary.gt(150000)]",
	)
	want := []float64{1, 0.5, 0.5, 1, 1}
	for i, f := range facts {
		c := codeCoverage(question, s, f)
		assert.InDelta(t, want[i], c.Details.FilterConditionsCoverage, 1e-4, "code %d: %v", i, c.Details.MissingRequirements)
	}
	assert.Equal(t, []string{"filter: Engineering", "filter: more than 150000"}, codeCoverage(question, s, facts[0]).Details.Requirements,
		"the dataset name sales is no value")

	or := codeCoverage("Which employees work in Sales or Marketing?", s,
		readCode(t, "result = df[df['department'].isin(['Sales', 'Marketing'])]")[0])
	assert.Equal(t, 1.0, or.Details.FilterConditionsCoverage)
	assert.Equal(t, []string{"filter: Sales or Marketing"}, or.Details.Requirements, "one condition with two values")
}

// Upstream read "or" in "for" and "in" in "minimum" as filter keywords and
// reported a missing filter.
func TestCoverageMinimumForEachIsNoFilter(t *testing.T) {
	c := codeCoverage("What is the minimum salary for each department?", staff,
		readCode(t, "result = df.groupby('department')['salary'].min()")[0])
	assert.Equal(t, 1.0, c.Details.FilterConditionsCoverage)
	assert.Empty(t, c.Details.MissingRequirements)
	assert.Equal(t, 1.0, c.Score)
}

// The guide's example output: every part covered but one of two joins.
func TestCoverageGuideExample(t *testing.T) {
	c := codeCoverage("Merge the orders with customers where total sales are above 100, then join the "+
		"regions, and show the average total sales per department sorted descending",
		staff, readCode(t, `
m = orders.merge(customers, on='id')
m = m[m['total_sales'] > 100]
result = m.groupby('department')['total_sales'].mean().sort_values(ascending=False)
`)[0])
	d := c.Details
	assert.Equal(t, 1.0, d.FilterConditionsCoverage)
	assert.Equal(t, 1.0, d.GroupbyColumnsCoverage)
	assert.Equal(t, 1.0, d.SortingCoverage)
	assert.Equal(t, 0.5, d.JoinConditionsCoverage)
	assert.Equal(t, []string{"Join/merge operation missing"}, d.MissingRequirements)
	assert.InDelta(t, 0.9, c.Score, 1e-9)
}

func TestCoverageWithoutColumns(t *testing.T) {
	c := codeCoverage("Average price by product category and region", grading.Schema{},
		readCode(t, "result = df.groupby(['Product_Category'])['price'].mean()")[0])
	assert.InDelta(t, 0.5, c.Details.GroupbyColumnsCoverage, 1e-9)
	assert.Equal(t, []string{"Group-by columns missing: region"}, c.Details.MissingRequirements)
}

// Every code metric stays within [0, 1] whatever the question, the code
// and its reading.
func FuzzCodeMetricsStayInUnitRange(f *testing.F) {
	f.Add("What is the average salary by department, top 5, older than 30?", "result = df.groupby('department')['salary'].mean()", 0.5)
	f.Add("between between between more than", "df.query('a > 1 > 2 > 3') if x: for a in b: for c in d: pass", 9.0)
	f.Add("", "'''unterminated", -1.0)
	f.Add("for each x group: under 30 (5 and over) from highest to lowest", "result = df.nlargest(-3, 'x').head(0)", 0.0)
	f.Fuzz(func(t *testing.T, question, code string, seconds float64) {
		facts := []*eval.CodeFacts{nil, {}, {Parsed: true, Columns: []string{"salary", question},
			Filters:  []eval.CodeFilter{{Columns: []string{question}, Op: ">", Values: []string{question, "30"}}},
			GroupBys: []eval.CodeGroupBy{{Keys: []string{question}}}, Limits: []eval.CodeLimit{{Method: "head", N: -1}},
			Sorts: []eval.CodeSort{{Method: "nlargest", N: 0}}, Joins: []eval.CodeJoin{{Keys: []string{question}}},
			Operations: []string{question, "mean"}}}
		s := grading.Schema{Columns: staffColumns, Values: map[string][]string{"department": {question, "Sales"}}, Datasets: []string{question}}
		for _, fa := range facts {
			for _, score := range []float64{
				codeUnderstanding(question, s, fa).Score,
				codeCoverage(question, s, fa).Score,
				codeCoverage(question, grading.Schema{}, fa).Score,
				codeQuality(code, true).Score,
				codePerformance(eval.Attempt{Code: code, Seconds: seconds}, true).Score,
				ScoreCode(CodeCase{Question: question, Columns: staffColumns,
					Attempts: []eval.Attempt{{Code: code, Failed: true, Output: question},
						{Code: code, Execution: &eval.CodeExecution{CPUSeconds: seconds, Facts: fa}}}}).Overall.Score,
			} {
				if score < 0 || score > 1 {
					t.Fatalf("score %v out of [0, 1]", score)
				}
			}
		}
	})
}
