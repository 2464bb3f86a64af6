// Package selection applies go test's -run and -skip patterns to a suite's
// cases as go test itself would, and also by the names of the categories:
// a category without a test function of its own runs under
// TestOtherCategories/<category>/<case>, yet `-run Gene` selects the
// category "Gene Magic" as it selects TestGeneAndVariantUtilities.
//
// Patterns are split and matched as package testing does: '/' separates
// the levels of a test's name, '|' outside brackets and parentheses
// separates alternatives, each element is an unanchored regular expression
// whose spaces stand for '_', and a name matches when each element matches
// the name at its level.
package selection

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpeval/mcpeval/internal/testname"
)

// Pattern is a parsed -run or -skip pattern.
type Pattern struct {
	Text string
	alts [][]*regexp.Regexp
}

// Parse parses a -run or -skip pattern; an empty one gives nil. Errors
// name the element that is not a regular expression, as go test does.
func Parse(flagName, text string) (*Pattern, error) {
	if text == "" {
		return nil, nil
	}
	p := &Pattern{Text: text}
	for i, alt := range split(text) {
		var elems []*regexp.Regexp
		for j, e := range alt {
			re, err := regexp.Compile(rewrite(e))
			if err != nil {
				return nil, fmt.Errorf("invalid regexp for element %d of alternative %d of %s (%q): %v", j, i, flagName, e, err)
			}
			elems = append(elems, re)
		}
		p.alts = append(p.alts, elems)
	}
	return p, nil
}

// Match reports whether the pattern matches a test's name given as its
// levels (["TestX", "case"]): ok when each element matches the name at its
// level; partial when the pattern has more levels than the name, so that
// only some of the test's subtests match.
func (p *Pattern) Match(name []string) (ok, partial bool) {
	for _, alt := range p.alts {
		if ok, partial = matchAlt(alt, name); ok {
			return ok, partial
		}
	}
	return false, false
}

// TopLevel is a regular expression that matches the top-level names the
// pattern selects (the first element of each alternative), as -test.list
// takes it.
func (p *Pattern) TopLevel() string {
	var parts []string
	for _, alt := range p.alts {
		parts = append(parts, "(?:"+alt[0].String()+")")
	}
	return strings.Join(parts, "|")
}

func matchAlt(alt []*regexp.Regexp, name []string) (ok, partial bool) {
	for i, level := range name {
		if i >= len(alt) {
			break
		}
		if !alt[i].MatchString(level) {
			return false, false
		}
	}
	return true, len(name) < len(alt)
}

// split splits a pattern into alternatives of elements, as package testing
// does: '/' and '|' outside brackets and parentheses separate them, a
// backslash escapes the next character.
func split(s string) [][]string {
	var alts [][]string
	var elems []string
	brackets, parens := 0, 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '[':
			brackets++
		case ']':
			if brackets--; brackets < 0 {
				brackets = 0
			}
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets == 0 && parens == 0 {
				elems = append(elems, s[:i])
				if s[i] == '|' {
					alts = append(alts, elems)
					elems = nil
				}
				s, i = s[i+1:], 0
				continue
			}
		}
		i++
	}
	return append(alts, append(elems, s))
}

// rewrite makes a pattern element match the names go test gives subtests:
// spaces become '_' and unprintable runes their escapes.
func rewrite(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			b.WriteByte('_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Category is one category of a suite as go test sees it.
type Category struct {
	// Name is the category's name ("Gene Magic").
	Name string
	// Func is its test function: its own (TestGeneMagic) or
	// TestOtherCategories, under which it is the subtest Sub.
	Func, Sub string
	// Cases are the subtest names of its cases.
	Cases []string
}

// aliases are the names by which the top level of a pattern selects the
// category, its cases being the next level: its own function's name, the
// name its function would have, and its name as a subtest.
func (c Category) aliases() []string {
	var names []string
	if c.Sub == "" {
		names = append(names, c.Func)
	}
	for _, n := range []string{testname.Func(c.Name), rewrite(c.Name), c.Sub} {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// Select returns, for each category, which of its cases run: those whose
// name -run matches (nil: every case) and -skip does not, where a case's
// name is its test path (TestX/case, TestOtherCategories/Sub/case) or its
// category's name, function name or subtest name followed by the case
// (Gene_Magic/case, TestGeneMagic/case).
func Select(run, skip *Pattern, cats []Category) [][]bool {
	out := make([][]bool, len(cats))
	for i, c := range cats {
		out[i] = make([]bool, len(c.Cases))
		for j, name := range c.Cases {
			out[i][j] = c.Selects(run, skip, name)
		}
	}
	return out
}

// Selects reports whether -run matches (nil: everything) and -skip does not
// match the test whose name is one of the category's paths (see Select)
// followed by tail: a case, or a case and the model of its subtest.
func (c Category) Selects(run, skip *Pattern, tail ...string) bool {
	paths := [][]string{}
	if c.Sub != "" {
		paths = append(paths, []string{c.Func, c.Sub})
	}
	for _, a := range c.aliases() {
		paths = append(paths, []string{a})
	}
	selected, skipped := run == nil, false
	for _, p := range paths {
		full := append(slices.Clone(p), tail...)
		if run != nil {
			ok, _ := run.Match(full)
			selected = selected || ok
		}
		if skip != nil {
			ok, partial := skip.Match(full)
			skipped = skipped || ok && !partial
		}
	}
	return selected && !skipped
}
