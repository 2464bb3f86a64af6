package evalcase

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpeval/mcpeval/internal/eval"
)

// SubtestNames returns a go test subtest name for every case, in order:
// unique, without '/', and free of regexp metacharacters and spaces, so that
// an anchored -run pattern (as IDEs send) selects exactly one case.
// Characters outside letters, digits and "-_:=,<>@#%'" become '_'.
func SubtestNames(cases []eval.Case) []string {
	names := make([]string, len(cases))
	used := map[string]bool{}
	for i, c := range cases {
		base := sanitize(c.Name)
		name := base
		for n := 2; used[strings.ToLower(name)]; n++ {
			name = base + "_" + strconv.Itoa(n)
		}
		used[strings.ToLower(name)] = true
		names[i] = name
	}
	return names
}

// maxNameRunes bounds subtest names; longer case names are cut.
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

// FuncName returns the Go test function name for a category:
// "Gene and Variant Utilities" gives "TestGeneAndVariantUtilities". Words
// start with a capital; characters other than ASCII letters and digits are
// dropped.
func FuncName(category string) string {
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
