package grading

import (
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func entityTexts(es []Entity) map[string]string {
	out := map[string]string{}
	for _, e := range es {
		out[e.Text] = e.Kind
	}
	return out
}

func TestEntities(t *testing.T) {
	tests := []struct {
		question string
		want     map[string]string
	}{
		{"What gene is associated with the variant NM_001045477.4:c.187C>T?",
			map[string]string{"NM_001045477.4:c.187C>T": entityHGVS}},
		{"Is Chr9:99694174 C>T present in gnomAD?", map[string]string{"Chr9:99694174": entityCoordinate}},
		{"What GO molecular functions are associated with TP53 or its orthologs?",
			map[string]string{"TP53": entityGene}},
		{"According to PolyPhen-2 and REVEL, is p.Pro63Ser (R175H) in OMIM?",
			map[string]string{"p.Pro63Ser": entityProtein, "R175H": entityProtein}},
		{"Genes for HP:0001250, rs121913529, OMIM #191170 and Entrez ID 7157, top 50 papers",
			map[string]string{"HP:0001250": entityHPO, "rs121913529": entityRSID, "191170": entityMIM,
				"7157": entityEntrez, "50": entityNumber}},
		{"Does BRCA1 match brca1 and BRCA1?", map[string]string{"BRCA1": entityGene}},
		{"Tell me about this gene.", map[string]string{}},
		{"Which genes go with the HPO phenotype 'Seizure', and is the phenotype's MIM number known?",
			map[string]string{"Seizure": entityTerm}},
		{`What is "haemolytic anaemia"? Is Rett syndrome or Alzheimer's disease in OMIM? Which syndrome?`,
			map[string]string{"haemolytic anaemia": entityTerm, "Rett syndrome": entityTerm, "Alzheimer's disease": entityTerm}},
		{"What is the Entrez ID of the mouse gene Trp53 in STRING, by LOEUF?", map[string]string{"Trp53": entityGene}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, entityTexts(FindEntities(tt.question)), tt.question)
	}
}

// The real MARRVEL case file names one variant, one position and two genes;
// database names (OMIM, REVEL, DGV, DIOPT, ...) are not genes.
func TestEntitiesOfMarrvelCases(t *testing.T) {
	const shared = "../../../shared/marrvel/test_cases.yaml"
	data, err := os.ReadFile(shared)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s is absent (the shared folder is not checked out beside the project)", shared)
	}
	require.NoError(t, err)
	var cases []struct {
		Case struct {
			Input string `yaml:"input"`
		} `yaml:"case"`
	}
	require.NoError(t, yaml.Unmarshal(data, &cases))
	require.Len(t, cases, 22)
	found := map[string]string{}
	withEntities := 0
	for _, c := range cases {
		es := FindEntities(c.Case.Input)
		if len(es) > 0 {
			withEntities++
		}
		for text, kind := range entityTexts(es) {
			found[text] = kind
		}
	}
	assert.Equal(t, map[string]string{
		"NM_001045477.4:c.187C>T": entityHGVS,
		"Chr9:99694174":           entityCoordinate,
		"NUTM2G":                  entityGene,
		"TP53":                    entityGene,
	}, found)
	assert.Equal(t, 22, withEntities, "every MARRVEL question names what to look up")
}
