// Package suggest finds what a misspelt name was meant to be: a setting,
// a field of a case file, a model, a tool.
package suggest

import (
	"slices"
	"strings"

	"github.com/hbollon/go-edlib"
)

// Closest names the candidates most like name: those that start with name
// or that name starts with (EVAL_JUDGE: EVAL_JUDGE_MODE or
// EVAL_JUDGE_MODEL), else the one with the fewest edits from name. near
// says whether it is near enough to be a likely meaning: a related name,
// or at most a third of name's letters (at least two) edited. With no
// candidates it is "".
func Closest(name string, candidates []string) (closest string, near bool) {
	var related []string
	for _, c := range candidates {
		if strings.HasPrefix(c, name) || strings.HasPrefix(name, c) {
			related = append(related, c)
		}
	}
	if len(related) > 0 && name != "" {
		slices.Sort(related)
		return strings.Join(related, " or "), true
	}
	best, bestDistance := "", 0
	for _, c := range candidates {
		if d := edlib.LevenshteinDistance(strings.ToLower(name), strings.ToLower(c)); best == "" || d < bestDistance {
			best, bestDistance = c, d
		}
	}
	return best, best != "" && bestDistance <= max(2, len(name)/3)
}

// DidYouMean is " (did you mean X?)" when a candidate is near name (see
// Closest), else "".
func DidYouMean(name string, candidates []string) string {
	if c, near := Closest(name, candidates); near {
		return " (did you mean " + c + "?)"
	}
	return ""
}
