package scoring

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
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
			missing: []string{"Filter conditions missing: 2 asked, 1 in code"},
		},
		{
			name:     "two conditions asked, both in a query",
			question: "Employees older than 30 with salary above 50000",
			code:     `result = df.query("age > 30 and salary > 50000")`,
			filter:   1, group: 1, sort: 1, join: 1,
			missing: []string{},
		},
		{
			name:     "between counts as two conditions",
			question: "Employees aged between 30 and 40",
			code:     "result = df[df['age'].between(30, 40)]",
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
			name:     "sorting asked, missing",
			question: "List the names sorted by age in descending order",
			code:     "result = df[['name', 'age']]",
			filter:   1, group: 1, sort: 0, join: 1,
			missing: []string{"Sorting missing"},
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
			missing: []string{"Join/merge operation missing"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := codeCoverage(tt.question, staffColumns, tt.code)
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

// Upstream read "or" in "for" and "in" in "minimum" as filter keywords and
// reported a missing filter.
func TestCoverageMinimumForEachIsNoFilter(t *testing.T) {
	c := codeCoverage("What is the minimum salary for each department?", staffColumns,
		"result = df.groupby('department')['salary'].min()")
	assert.Equal(t, 1.0, c.Details.FilterConditionsCoverage)
	assert.Empty(t, c.Details.MissingRequirements)
	assert.Equal(t, 1.0, c.Score)
}

// The guide's example output: every part covered but one of two joins.
func TestCoverageGuideExample(t *testing.T) {
	c := codeCoverage("Merge the orders with customers where total sales are above 100, then join the "+
		"regions, and show the average total sales per department sorted descending",
		staffColumns, `
m = orders.merge(customers, on='id')
m = m[m['total_sales'] > 100]
result = m.groupby('department')['total_sales'].mean().sort_values(ascending=False)
`)
	d := c.Details
	assert.Equal(t, 1.0, d.FilterConditionsCoverage)
	assert.Equal(t, 1.0, d.GroupbyColumnsCoverage)
	assert.Equal(t, 1.0, d.SortingCoverage)
	assert.Equal(t, 0.5, d.JoinConditionsCoverage)
	assert.Equal(t, []string{"Join/merge operation missing"}, d.MissingRequirements)
	assert.InDelta(t, 0.9, c.Score, 1e-9)
}

func TestCoverageWithoutColumns(t *testing.T) {
	c := codeCoverage("Average price by product category and region", nil,
		"result = df.groupby(['Product_Category'])['price'].mean()")
	assert.InDelta(t, 0.5, c.Details.GroupbyColumnsCoverage, 1e-9)
	assert.Equal(t, []string{"Group-by columns missing: region"}, c.Details.MissingRequirements)
}

func TestFilterWordsNeedContext(t *testing.T) {
	tests := []struct {
		question string
		want     int
	}{
		{"Sales over time", 0},
		{"Employees over 30", 1},
		{"Salary greater than or equal to 5000", 1},
		{"Employees where the department is Sales", 1},
		{"Salary and bonus per department", 0},
		{"Salary at least 10 and at most 20, not in Sales", 3},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, parseQuestion(tt.question, staffColumns).filterConditions(), tt.question)
	}
}

func TestGroupItems(t *testing.T) {
	tests := []struct {
		question string
		want     []string
	}{
		{"Average salary by department and gender", []string{"department", "gender"}},
		{"Average salary for each department", []string{"department"}},
		{"Average salary by department and the total sales", []string{"department"}},
		{"Names sorted descending by salary", nil},
		{"The top 5 employees by salary", nil},
		{"The first 10 rows by hire date", nil},
		{"The highest salary by department", []string{"department"}},
		{"Salary divided by age", nil},
		{"Average salary by city", nil}, // city is no column of the table
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, parseQuestion(tt.question, staffColumns).groupItems(), tt.question)
	}
}

// Every code metric stays within [0, 1] whatever the input.
func FuzzCodeMetricsStayInUnitRange(f *testing.F) {
	f.Add("What is the average salary by department, top 5, older than 30?", "result = df.groupby('department')['salary'].mean()", 0.5)
	f.Add("between between between more than", "df.query('a > 1 > 2 > 3') if x: for a in b: for c in d: pass", 9.0)
	f.Add("", "'''unterminated", -1.0)
	f.Fuzz(func(t *testing.T, question, code string, seconds float64) {
		for _, s := range []float64{
			codeUnderstanding(question, staffColumns, code).Score,
			codeCoverage(question, staffColumns, code).Score,
			codeCoverage(question, nil, code).Score,
			codeQuality(code, true).Score,
			codePerformance(seconds, code, true).Score,
			ScoreCode(CodeCase{Question: question, Columns: staffColumns,
				Attempts: []eval.Attempt{{Code: code, Failed: true, Output: question}, {Code: code}}}).Overall.Score,
		} {
			if s < 0 || s > 1 {
				t.Fatalf("score %v out of [0, 1]", s)
			}
		}
	})
}
