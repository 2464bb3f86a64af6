package harness

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// loaded is a harness of three cases in two categories, one of them
// ("Odd Things") without a test function of its own; a Count of 0 is 1.
func loaded(gt GoTest) (*Harness, *bytes.Buffer) {
	var stderr bytes.Buffer
	if gt.Count == 0 {
		gt.Count = 1
	}
	return &Harness{
		config:   Config{Generated: []string{"Gene Lookup"}},
		gotest:   gt,
		stderr:   &stderr,
		settings: settings.Settings{Concurrency: 8},
		cases: []eval.Case{
			{Name: "Entrez id of TP53", Category: "Gene Lookup"},
			{Name: "Entrez id of BRCA1", Category: "Gene Lookup"},
			{Name: "data case", Category: "Odd Things"},
		},
	}, &stderr
}

// Select turns -run and -skip into the flags go test needs to run the
// selected cases' functions whole, leaves out the idle functions, and
// takes the concurrency as -parallel unless -parallel was given.
func TestSelect(t *testing.T) {
	tests := []struct {
		name     string
		gotest   GoTest
		selected []string
		want     Selection
		notice   string
	}{
		{name: "every case", selected: []string{"Entrez id of TP53", "Entrez id of BRCA1", "data case"},
			want: Selection{Cases: 3, Parallel: 8}},
		{name: "a category by name", gotest: GoTest{Run: "Gene"},
			selected: []string{"Entrez id of TP53", "Entrez id of BRCA1"},
			want:     Selection{Cases: 2, Run: `Gene|^(?:TestGeneLookup)$`, Skip: `^(?:TestOtherCategories)$`, Parallel: 8}},
		{name: "a case of the other categories", gotest: GoTest{Run: "Odd/data"},
			selected: []string{"data case"},
			want:     Selection{Cases: 1, Run: `Odd/data|^(?:TestOtherCategories)$`, Skip: `^(?:TestGeneLookup)$`, Parallel: 8}},
		{name: "a skip kept", gotest: GoTest{Run: "Gene", Skip: "/BRCA1"},
			selected: []string{"Entrez id of TP53"},
			want:     Selection{Cases: 1, Run: `Gene|^(?:TestGeneLookup)$`, Skip: `/BRCA1|^(?:TestOtherCategories)$`, Parallel: 8}},
		{name: "a tighter -parallel is kept", gotest: GoTest{Parallel: 2},
			selected: []string{"Entrez id of TP53", "Entrez id of BRCA1", "data case"},
			want:     Selection{Cases: 3}, notice: "-parallel 2 caps EVAL_CONCURRENCY 8"},
		{name: "benchmarks alone", gotest: GoTest{Run: "^$", Other: true}, want: Selection{}},
		{name: "another test of the package", gotest: GoTest{Run: "TestHelper", List: func(string) []string { return []string{"TestHelper"} }},
			want: Selection{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, stderr := loaded(tt.gotest)
			sel, err := h.Select()
			require.NoError(t, err)
			assert.Equal(t, tt.want, sel)
			var got []string
			for _, c := range h.cases {
				if h.selected[c.Name] {
					got = append(got, c.Name)
				}
			}
			assert.Equal(t, tt.selected, got)
			if tt.notice != "" {
				assert.Contains(t, stderr.String(), tt.notice)
			} else {
				assert.Empty(t, stderr.String())
			}
		})
	}
}

// A pattern that selects nothing says so and lists the categories by name
// and test function; -count=0 and a pattern that is no regular expression
// are refused.
func TestSelectRefuses(t *testing.T) {
	tests := []struct {
		gotest GoTest
		want   []string
	}{
		{GoTest{Run: "Nothing", Skip: "x", Count: 1}, []string{`-run "Nothing" with -skip "x" selects no case.`,
			"Gene Lookup                              TestGeneLookup (2 cases)",
			"Odd Things                               TestOtherCategories/Odd_Things (1 case)"}},
		{GoTest{Count: 0}, []string{"-count=0 runs no case"}},
		{GoTest{Run: "a(", Count: 1}, []string{"-run", "a("}},
	}
	for _, tt := range tests {
		h, _ := loaded(tt.gotest)
		h.gotest.Count = tt.gotest.Count // loaded takes 0 for 1
		_, err := h.Select()
		require.Error(t, err)
		for _, w := range tt.want {
			assert.Contains(t, err.Error(), w)
		}
	}
}
