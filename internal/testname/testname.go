// Package testname owns the go test names of a suite's case runs. It
// builds them for the harness and parses them for the report and for
// attribution:
//
//	TestGeneMagic/Case                        a category with a test function of its own
//	TestOtherCategories/Gene_Magic/Case       a category without one
//	TestGeneMagic/Case/arm                    one arm of a run that compares several
//
// and builds -run patterns that select exactly the named case runs, level
// by level. A repeat (go test -count) is never a level: go test runs each
// test function again under the same name, and a record's repeat tells the
// runs apart.
package testname

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Other is the test function that runs the categories without a test
// function of their own, one subtest per category.
const Other = "TestOtherCategories"

// Name is the test name of one case run, by level.
type Name struct {
	// Func is the category's test function, or Other.
	Func string
	// Category is the category's subtest under Other; "" under a
	// function of its own.
	Category string
	// Case is the case's subtest.
	Case string
	// Arm is the arm's subtest below the case when a run compares several
	// arms; "" otherwise.
	Arm string
}

// Levels returns the name's levels, top first.
func (n Name) Levels() []string {
	levels := []string{n.Func}
	if n.Category != "" {
		levels = append(levels, n.Category)
	}
	levels = append(levels, n.Case)
	if n.Arm != "" {
		levels = append(levels, n.Arm)
	}
	return levels
}

// String is the name as go test gives it (t.Name()).
func (n Name) String() string { return strings.Join(n.Levels(), "/") }

// Parent is the name of the test the case's subtest runs under: the
// category's test function, or Other and the category.
func (n Name) Parent() string {
	if n.Category != "" {
		return n.Func + "/" + n.Category
	}
	return n.Func
}

// Parse reads the go test name of a case run. Under Other the second level
// is the category; a level past the case is the arm.
func Parse(s string) (Name, error) {
	levels := strings.Split(s, "/")
	var n Name
	n.Func, levels = levels[0], levels[1:]
	if n.Func == Other && len(levels) > 0 {
		n.Category, levels = levels[0], levels[1:]
	}
	switch len(levels) {
	case 2:
		n.Arm = levels[1]
		fallthrough
	case 1:
		n.Case = levels[0]
	}
	if n.Func == "" || n.Case == "" || len(levels) > 2 || slices.Contains(levels, "") {
		return Name{}, fmt.Errorf("%q is not the test name of a case run (TestCategory/Case, %s/Category/Case, then an arm)", s, Other)
	}
	return n, nil
}

// Pattern returns a go test -run pattern that selects exactly the named
// case runs: one alternative per name, each level anchored and quoted
// ("^TestOtherCategories$/^Gene_Magic$/^spell$|^TestX$/^a$"). go test
// splits a pattern at '/' only outside parentheses, so each level is an
// element of its own. Duplicates are dropped; no names give "".
func Pattern(names []Name) string {
	var alts []string
	for _, n := range names {
		var elems []string
		for _, level := range n.Levels() {
			elems = append(elems, "^"+regexp.QuoteMeta(level)+"$")
		}
		if alt := strings.Join(elems, "/"); !slices.Contains(alts, alt) {
			alts = append(alts, alt)
		}
	}
	return strings.Join(alts, "|")
}

// Subtests returns a go test subtest name for every name, in order:
// unique, without '/', and free of regexp metacharacters and spaces, so
// that an anchored -run pattern (as IDEs send) selects exactly one.
// Characters outside letters, digits and "-_:=,<>@#%'" become '_'. Cases,
// the categories under Other and arms are named so.
func Subtests(names []string) []string {
	out := make([]string, len(names))
	used := map[string]bool{}
	for i, s := range names {
		base := sanitize(s)
		name := base
		for n := 2; used[strings.ToLower(name)]; n++ {
			name = base + "_" + strconv.Itoa(n)
		}
		used[strings.ToLower(name)] = true
		out[i] = name
	}
	return out
}

// maxNameRunes bounds subtest names; longer names are cut.
const maxNameRunes = 100

func sanitize(s string) string {
	var b strings.Builder
	underscore := false
	for _, r := range s {
		keep := unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-:=,<>@#%'", r)
		if !keep {
			if !underscore && b.Len() > 0 {
				b.WriteByte('_')
			}
			underscore = true
			continue
		}
		b.WriteRune(r)
		underscore = false
	}
	out := strings.TrimRight(b.String(), "_")
	if r := []rune(out); len(r) > maxNameRunes {
		out = strings.TrimRight(string(r[:maxNameRunes]), "_")
	}
	if out == "" {
		out = "case"
	}
	return out
}

// Func returns the test function name of a category: "Gene and Variant
// Utilities" gives "TestGeneAndVariantUtilities". Words start with a
// capital; characters other than ASCII letters and digits are dropped.
func Func(category string) string {
	var b strings.Builder
	b.WriteString("Test")
	upper := true
	for _, r := range category {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			upper = true
			continue
		}
		if r > unicode.MaxASCII {
			continue // dropped: "Gène" gives "Gne", not "GNe"
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
