package selection

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var cats = []Category{
	{Name: "Gene and Variant Utilities", Func: "TestGeneAndVariantUtilities", Cases: []string{"Gene_lookup", "alias_Gene_lookup"}},
	{Name: "Gene Magic", Func: "TestOtherCategories", Sub: "Gene_Magic", Cases: []string{"spell", "potion"}},
	{Name: "Ortho Stuff", Func: "TestOtherCategories", Sub: "Ortho_Stuff", Cases: []string{"x"}},
}

// selected lists the selected cases as category/case.
func selected(t *testing.T, run, skip string) []string {
	t.Helper()
	r, err := Parse("-test.run", run)
	require.NoError(t, err)
	s, err := Parse("-test.skip", skip)
	require.NoError(t, err)
	var out []string
	for i, sel := range Select(r, s, cats) {
		for j, ok := range sel {
			if ok {
				out = append(out, cats[i].Name+"/"+cats[i].Cases[j])
			}
		}
	}
	return out
}

func TestSelect(t *testing.T) {
	all := []string{"Gene and Variant Utilities/Gene_lookup", "Gene and Variant Utilities/alias_Gene_lookup", "Gene Magic/spell", "Gene Magic/potion", "Ortho Stuff/x"}
	tests := []struct {
		name, run, skip string
		want            []string
	}{
		{"no pattern", "", "", all},
		{"a word selects categories with and without a function", "Gene", "", all[:4]},
		{"nothing", "Nothing", "", nil},
		{"VS Code's pattern for one case", "^TestGeneAndVariantUtilities$/^Gene_lookup$", "", all[:1]},
		{"GoLand's pattern for one case", `^\QTestGeneAndVariantUtilities\E$/^\QGene_lookup\E$`, "", all[:1]},
		{"a category by its name, spaces and all", "Gene Magic", "", all[2:4]},
		{"a category name and a case", "Gene Magic/spell", "", all[2:3]},
		{"the function it would have", "^TestGeneMagic$", "", all[2:4]},
		{"a generated category by its name", "^Gene and Variant Utilities$", "", all[:2]},
		{"the function that runs the others", "TestOtherCategories", "", all[2:]},
		{"its category level", "TestOtherCategories/Ortho", "", all[4:]},
		{"the full path of a case", "^TestOtherCategories$/^Gene_Magic$/^potion$", "", all[3:4]},
		{"level 2 of TestOtherCategories is the category", "TestOtherCategories/spell", "", nil},
		{"alternatives", "Ortho|Gene Magic/spell", "", []string{"Gene Magic/spell", "Ortho Stuff/x"}},
		{"skip a case", "", "Gene Magic/spell", []string{all[0], all[1], all[3], all[4]}},
		{"skip categories by name", "", "Gene", all[4:]},
		{"run and skip", "Gene", "/alias", []string{all[0], all[2], all[3]}},
		{"a longer pattern still runs a case", "Gene Magic/spell/more", "", all[2:3]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, selected(t, tt.run, tt.skip))
		})
	}
}

func TestParse(t *testing.T) {
	p, err := Parse("-test.run", "")
	require.NoError(t, err)
	assert.Nil(t, p)
	_, err = Parse("-test.run", "Gene/a(b")
	assert.ErrorContains(t, err, `invalid regexp for element 1 of alternative 0 of -test.run ("a(b")`)

	tests := []struct {
		pattern string
		name    []string
		ok      bool
		partial bool
	}{
		{"A/B", []string{"TestA"}, true, true},
		{"A/B", []string{"TestA", "B1"}, true, false},
		{"A/B", []string{"TestA", "C"}, false, false},
		{"X|A", []string{"TestA", "C"}, true, false},
		{"(X|A)/C", []string{"TestA", "C"}, true, false},
		{"[/]", []string{"a/b"}, true, false},
		{`a\/b`, []string{"a/b"}, true, false},
		{"^T$", []string{"T", "anything"}, true, false},
	}
	for _, tt := range tests {
		p, err := Parse("-test.run", tt.pattern)
		require.NoError(t, err)
		ok, partial := p.Match(tt.name)
		assert.Equal(t, tt.ok, ok, "%s %v", tt.pattern, tt.name)
		assert.Equal(t, tt.partial, partial, "%s %v", tt.pattern, tt.name)
	}
}
