package grading

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var staffColumns = []string{"name", "department", "salary", "age", "gender", "hire_date", "total_sales",
	"min_price", "address"}

// staff is the schema of the tests' staff table.
var staff = Schema{Columns: staffColumns}

func TestFilterWordsNeedContext(t *testing.T) {
	s := Schema{Columns: staffColumns, Values: map[string][]string{"department": {"Sales"}}}
	tests := []struct {
		question string
		want     []string
	}{
		{"Revenue over time", nil},
		{"Employees over 30", []string{"over 30"}},
		{"Salary greater than or equal to 5000", []string{"greater than or equal to 5000"}},
		{"Employees where the department is Sales", []string{"Sales"}},
		{"Employees where the department is large", []string{"where"}},
		{"Salary and bonus per department", nil},
		{"Salary at least 10 and at most 20, not in Sales", []string{"at least 10", "at most 20", "Sales"}},
		{"Hires from 2020 on", []string{"from 2020 on"}},
		{"How many employees were hired in 2023?", []string{"in 2023"}},
		{"How many employees are in each department?", nil},
		{"Staff aged 45 and over", []string{"45 and over"}},
		{"Departments that spend more than 90% of their budget", []string{"more than 90 %"}},
		{"Where revenue is units times price, what is the revenue?", nil},
		{"What is the average salary for each age group: under 30, 30 to 44, and 45 and over?", nil},
		{"Using the sales dataset, what are the total sales?", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range ParseQuestion(tt.question, s).Filters() {
			got = append(got, f.Text)
		}
		assert.Equal(t, tt.want, got, tt.question)
	}
	percent := ParseQuestion("more than 90% of it", s).Filters()
	require.Len(t, percent, 1)
	assert.Equal(t, [][]string{{"90", "0.9"}}, percent[0].Numbers, "a percentage is also its fraction")
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
		{"Sort them by salary in descending order", nil},
		{"The top 5 employees by salary", nil},
		{"The first 10 rows by hire date", nil},
		{"The highest salary by department", []string{"department"}},
		{"Salary divided by age", nil},
		{"Average salary by city", nil}, // city is no column of the table
		{"Average salary for each age group: under 30, 30 to 44", []string{"age"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ParseQuestion(tt.question, staff).GroupItems(), tt.question)
	}
}

func TestSortingAsked(t *testing.T) {
	tests := []struct {
		question string
		want     *Sort
	}{
		{"What is the mean salary?", nil},
		{"Sort them by salary in descending order", &Sort{Order: "desc", Keys: []string{"salary"}}},
		{"List the departments sorted by salary in ascending order", &Sort{Order: "asc", Keys: []string{"salary"}}},
		{"Average salary of each department? Sort from highest to lowest.", &Sort{Order: "desc"}},
		{"Sort from youngest to oldest", &Sort{Order: "asc"}},
		{"Names and salaries, highest first", &Sort{Order: "desc"}},
		{"Which 4 employees are the youngest? Give the bottom 4 by age", &Sort{Order: "asc", Keys: []string{"age"}}},
		{"Which 3 employees brought in the most sales?", &Sort{Order: "desc"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ParseQuestion(tt.question, staff).Sorting(), tt.question)
	}
}

func TestJoinsAsked(t *testing.T) {
	s := Schema{Columns: []string{"employee_id", "id", "department"}, Datasets: []string{"sales", "employees"}}
	tests := []struct {
		question string
		joins    int
		keys     []string
	}{
		{"Join the employees and departments datasets on department.", 1, []string{"department"}},
		{"Join the employees and departments datasets to find the total paid on each floor.", 1, nil},
		{"Using the sales and employees datasets (sales.employee_id matches employees.id), who sold most?", 1,
			[]string{"employee_id", "id"}},
		{"Combine the two datasets.", 1, nil},
		{"What is the mean?", 0, nil},
	}
	for _, tt := range tests {
		n, keys := ParseQuestion(tt.question, s).Joins()
		assert.Equal(t, tt.joins, n, tt.question)
		assert.Equal(t, tt.keys, keys, tt.question)
	}
}
