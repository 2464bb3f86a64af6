package harness

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/selection"
	"github.com/mcpeval/mcpeval/internal/testname"
)

// otherTest is the test function of the categories without one of their
// own.
const otherTest = testname.Other

// Selection is how go test's flags must change so that it runs the test
// functions of the selected cases whole: Run and RunOther start only the
// selected cases.
type Selection struct {
	// Cases counts the selected cases; with none, go test runs as asked
	// (the pattern selects other tests of the package, or none on
	// purpose) and the harness does not start.
	Cases int
	// Run and Skip are the -test.run and -test.skip to set, "" to leave
	// the flag as it is.
	Run, Skip string
	// Parallel is the -test.parallel to set, 0 to leave it.
	Parallel int
}

// Select applies -run and -skip to the cases, by test names and by
// category names (see package selection). A pattern that selects no case,
// and no other test of the package, is an error that lists the
// categories.
func (h *Harness) Select() (Selection, error) {
	if h.gotest.Count == 0 {
		return Selection{}, errors.New("-count=0 runs no case: give -count=N with N of 1 or more (the runs of each case)")
	}
	run, err := selection.Parse("-run", h.gotest.Run)
	if err != nil {
		return Selection{}, err
	}
	skip, err := selection.Parse("-skip", h.gotest.Skip)
	if err != nil {
		return Selection{}, err
	}
	cats, cases := h.categories()
	h.runPattern, h.skipPattern = run, skip
	h.categoryOf = map[string]selection.Category{}
	for _, c := range cats {
		h.categoryOf[c.Name] = c
	}
	h.selected = map[string]bool{}
	var funcs []string
	for i, chosen := range selection.Select(run, skip, cats) {
		for j, ok := range chosen {
			if ok {
				h.selected[cases[i][j].Name] = true
				if f := regexp.QuoteMeta(cats[i].Func); !slices.Contains(funcs, f) {
					funcs = append(funcs, f)
				}
			}
		}
	}
	if len(h.selected) == 0 {
		if why := h.noCaseSelected(run); why != "" {
			return Selection{}, errors.New(why)
		}
		return Selection{}, nil
	}
	sel := Selection{Cases: len(h.selected), Parallel: h.parallel()}
	if run != nil {
		sel.Run = run.Text + "|^(?:" + strings.Join(funcs, "|") + ")$"
	}
	// The category functions with nothing to run are left out, not
	// reported as skipped.
	var idle []string
	for _, f := range append(slices.Clone(h.config.Generated), "") {
		name := otherTest
		if f != "" {
			name = testname.Func(f)
		}
		if q := regexp.QuoteMeta(name); !slices.Contains(funcs, q) && !slices.Contains(idle, q) {
			idle = append(idle, q)
		}
	}
	if len(idle) > 0 {
		sel.Skip = "^(?:" + strings.Join(idle, "|") + ")$"
		if skip != nil {
			sel.Skip = skip.Text + "|" + sel.Skip
		}
	}
	return sel, nil
}

// parallel lets the suite's own limit (EVAL_CONCURRENCY) decide how many
// category test functions run at once, as it decides how many cases do
// (Slot): go test's -parallel (default GOMAXPROCS) would otherwise hold
// back categories whose cases could run. An explicit -parallel is kept,
// with a notice when it is the tighter bound: it then caps the cases too.
func (h *Harness) parallel() int {
	concurrency := h.settings.Concurrency
	if p := h.gotest.Parallel; p > 0 {
		if p < concurrency {
			fmt.Fprintf(h.stderr, "mcpeval: notice: -parallel %d caps EVAL_CONCURRENCY %d: at most %d cases run at once\n", p, concurrency, p)
		}
		return 0
	}
	return concurrency
}

// categories describes the loaded categories as go test sees them, in the
// order of the case files, with their cases.
func (h *Harness) categories() ([]selection.Category, [][]eval.Case) {
	names := testname.Subtests(caseNames(h.cases))
	h.names = map[string]string{}
	for i, c := range h.cases {
		h.names[c.Name] = names[i]
	}
	var cats []selection.Category
	var cases [][]eval.Case
	index := map[string]int{}
	for _, c := range h.cases {
		i, ok := index[c.Category]
		if !ok {
			i = len(cats)
			index[c.Category] = i
			cats = append(cats, selection.Category{Name: c.Category, Func: testname.Func(c.Category)})
			cases = append(cases, nil)
		}
		cats[i].Cases = append(cats[i].Cases, h.names[c.Name])
		cases[i] = append(cases[i], c)
	}
	other := h.otherCategoryNames()
	for i := range cats {
		if j := slices.Index(other, cats[i].Name); j >= 0 {
			cats[i].Func, cats[i].Sub = otherTest, testname.Subtests(other)[j]
		}
	}
	return cats, cases
}

// noCaseSelected explains a -run that selects no case, or gives "" when
// that is on purpose: benchmarks or fuzzing alone (-run '^$'), or other
// tests of the package that the pattern selects.
func (h *Harness) noCaseSelected(run *selection.Pattern) string {
	if run == nil || run.Text == "^$" || h.gotest.Other || h.selectsOtherTests(run) {
		return ""
	}
	cats, cases := h.categories()
	var b strings.Builder
	fmt.Fprintf(&b, "-run %q", run.Text)
	if h.gotest.Skip != "" {
		fmt.Fprintf(&b, " with -skip %q", h.gotest.Skip)
	}
	b.WriteString(" selects no case. The categories, by name and test function (-run takes either, and a case after a /):")
	for i, c := range cats {
		test := c.Func
		if c.Sub != "" {
			test += "/" + c.Sub
		}
		fmt.Fprintf(&b, "\n  %-40s %s (%s)", c.Name, test, prose.Plural(len(cases[i]), "cases"))
	}
	return b.String()
}

// selectsOtherTests reports whether the pattern selects a test, example or
// benchmark of the package that is not a category's.
func (h *Harness) selectsOtherTests(run *selection.Pattern) bool {
	if h.gotest.List == nil {
		return false
	}
	ours := []string{otherTest}
	for _, c := range h.config.Generated {
		ours = append(ours, testname.Func(c))
	}
	for _, name := range h.gotest.List(run.TopLevel()) {
		if !slices.Contains(ours, name) {
			return true
		}
	}
	return false
}

// caseNames are the names of the cases, in order.
func caseNames(cases []eval.Case) []string {
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.Name
	}
	return names
}

// casesOf returns the loaded cases of a category.
func (h *Harness) casesOf(category string) []*eval.Case {
	var out []*eval.Case
	for i := range h.cases {
		if h.cases[i].Category == category {
			out = append(out, &h.cases[i])
		}
	}
	return out
}

// selectedCases returns the selected cases, in the order of the case
// files.
func (h *Harness) selectedCases() []eval.Case {
	var out []eval.Case
	for _, c := range h.cases {
		if h.selected[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

// otherCategoryNames lists the loaded categories without a test function
// of their own, in the order of the case files.
func (h *Harness) otherCategoryNames() []string {
	var other []string
	for _, c := range h.cases {
		if !slices.Contains(h.config.Generated, c.Category) && !slices.Contains(other, c.Category) {
			other = append(other, c.Category)
		}
	}
	return other
}

// otherCategories lists the other categories (see otherCategoryNames)
// that have selected cases.
func (h *Harness) otherCategories() []string {
	var out []string
	for _, name := range h.otherCategoryNames() {
		if slices.ContainsFunc(h.casesOf(name), func(c *eval.Case) bool { return h.selected[c.Name] }) {
			out = append(out, name)
		}
	}
	return out
}
