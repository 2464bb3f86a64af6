package sampleserver

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"
)

//go:embed data/*.json
var dataFS embed.FS

// gene is one human gene of the fixture (data/genes.json).
type gene struct {
	Symbol      string   `json:"symbol"`
	EntrezID    int      `json:"entrezId"`
	TaxonID     int      `json:"taxonId"`
	Name        string   `json:"name"`
	Alias       []string `json:"alias"`
	Chr         string   `json:"chr"`
	Band        string   `json:"band"`
	Strand      string   `json:"strand"`
	Hg19Start   int      `json:"hg19Start"`
	Hg19Stop    int      `json:"hg19Stop"`
	Hg38Start   int      `json:"hg38Start"`
	Hg38Stop    int      `json:"hg38Stop"`
	HgncID      string   `json:"hgncId"`
	LocusType   string   `json:"locusType"`
	Status      string   `json:"status"`
	UniprotKBID string   `json:"uniprotKBId"`
	ProteinName string   `json:"proteinName"`
	EnsemblID   string   `json:"ensemblId"`
	OmimID      *int     `json:"omimId"`
	Transcript  string   `json:"transcript"`
	Summary     string   `json:"summary"`
}

// variant is one single-nucleotide variant of the fixture (data/variants.json).
type variant struct {
	Gene              string                    `json:"gene"`
	Transcript        string                    `json:"transcript"`
	CDNA              string                    `json:"cdna"`
	ProteinChange     string                    `json:"proteinChange"`
	ProteinChangeLong string                    `json:"proteinChangeLong"`
	RSID              string                    `json:"rsid"`
	Chr               string                    `json:"chr"`
	Hg19Pos           int                       `json:"hg19Pos"`
	Hg38Pos           int                       `json:"hg38Pos"`
	Ref               string                    `json:"ref"`
	Alt               string                    `json:"alt"`
	Consequence       string                    `json:"consequence"`
	DBNSFP            map[string]map[string]any `json:"dbnsfp"`
	Gnomad            *gnomadVariant            `json:"gnomad"`
	Clinvar           *clinvarAssertion         `json:"clinvar"`
}

type gnomadCounts struct {
	AlleleCount     int     `json:"alleleCount"`
	AlleleNum       int     `json:"alleleNum"`
	HomCount        int     `json:"homCount"`
	AlleleFrequency float64 `json:"alleleFrequency"`
}

type gnomadVariant struct {
	Exome  *gnomadCounts `json:"exome"`
	Genome *gnomadCounts `json:"genome"`
}

type clinvarAssertion struct {
	UID           string `json:"uid"`
	Significance  string `json:"significance"`
	Condition     string `json:"condition"`
	ReviewStatus  string `json:"reviewStatus"`
	LastEvaluated string `json:"lastEvaluated"`
}

// clinvarGene describes a gene's ClinVar content; the listing is generated
// from it deterministically (see generateClinvar).
type clinvarGene struct {
	Counts               map[string]int `json:"counts"`
	Total                int            `json:"total"`
	Conditions           []string       `json:"conditions"`
	PathogenicCopyNumber bool           `json:"pathogenicCopyNumber"`
}

type clinvarSignificance struct {
	Description   string `json:"description"`
	LastEvaluated string `json:"lastEvaluated"`
	ReviewStatus  string `json:"reviewStatus"`
}

// clinvarRecord is one ClinVar entry as the ClinVar tools return it.
type clinvarRecord struct {
	UID            string              `json:"uid"`
	Title          string              `json:"title"`
	Chr            string              `json:"chr"`
	Start          int                 `json:"start"`
	Stop           int                 `json:"stop"`
	Ref            string              `json:"ref,omitempty"`
	Alt            string              `json:"alt,omitempty"`
	Type           string              `json:"type"`
	Band           string              `json:"band"`
	Condition      string              `json:"condition"`
	Interpretation string              `json:"interpretation"`
	Significance   clinvarSignificance `json:"significance"`
}

type dgvEntry struct {
	Accession      string `json:"accession"`
	Chr            string `json:"chr"`
	Start          int    `json:"start"`
	Stop           int    `json:"stop"`
	VariantType    string `json:"variantType"`
	VariantSubType string `json:"variantSubType"`
	Reference      string `json:"reference"`
	PubMedID       int    `json:"pubMedId"`
	Method         string `json:"method"`
	SampleSize     int    `json:"sampleSize"`
	ObservedGains  int    `json:"observedGains"`
	ObservedLosses int    `json:"observedLosses"`
}

type decipherRecord struct {
	ID             string `json:"id"`
	Chr            string `json:"chr"`
	Start          int    `json:"start"`
	Stop           int    `json:"stop"`
	VariantClass   string `json:"variantClass"`
	DeletionObs    int    `json:"deletionObs"`
	DuplicationObs int    `json:"duplicationObs"`
	Observations   int    `json:"observations"`
	SampleSize     int    `json:"sampleSize"`
	Population     string `json:"population"`
}

type goTerm struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

type expressionTerm struct {
	Name                string `json:"name"`
	NumberOfAnnotations int    `json:"numberOfAnnotations"`
}

type expressionGroup struct {
	Name  string           `json:"name"`
	Terms []expressionTerm `json:"terms"`
}

type orthologExpression struct {
	Groups []expressionGroup `json:"groups"`
}

// dioptRecord is an ortholog as get_diopt_orthologs_by_entrez_id returns it.
type dioptRecord struct {
	TaxonID2     int    `json:"taxonId2"`
	Species2     string `json:"species2"`
	Symbol2      string `json:"symbol2"`
	EntrezID2    int    `json:"entrezId2"`
	Name2        string `json:"name2"`
	Score        int    `json:"score"`
	BestScore    bool   `json:"bestScore"`
	BestScoreRev bool   `json:"bestScoreRev"`
	Confidence   string `json:"confidence"`
}

// ortholog is one DIOPT ortholog of a fixture gene (data/diopt.json): its
// DIOPT record plus GO terms, expression and alignment identity.
type ortholog struct {
	dioptRecord
	GO         []goTerm            `json:"go"`
	Expression *orthologExpression `json:"expression"`
	Identity   float64             `json:"identity"`
}

type proteinDomain struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
	Accession   string `json:"accession"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
}

type alignment struct {
	Length  int             `json:"length"`
	Domains []proteinDomain `json:"domains"`
}

type pharosDrug struct {
	Name       string `json:"name"`
	Approved   bool   `json:"approved"`
	Action     string `json:"action"`
	Indication string `json:"indication"`
}

type pharosLigand struct {
	Name          string `json:"name"`
	Activities    int    `json:"activities"`
	IsDrug        bool   `json:"isDrug"`
	ClinicalPhase string `json:"clinicalPhase"`
}

type pharosTarget struct {
	TDL              string         `json:"tdl"`
	Fam              string         `json:"fam"`
	Novelty          float64        `json:"novelty"`
	Drugs            []pharosDrug   `json:"drugs"`
	Ligands          []pharosLigand `json:"ligands"`
	PublicationCount int            `json:"publicationCount"`
}

type interaction struct {
	EntrezID2   int     `json:"entrezId2"`
	Symbol2     string  `json:"symbol2"`
	CombExpDB   float64 `json:"combExpDb"`
	Database    float64 `json:"database"`
	Experiments float64 `json:"experiments"`
	Textmining  float64 `json:"textmining"`
}

type omimPhenotype struct {
	Phenotype            string `json:"phenotype"`
	PhenotypeMimNumber   int    `json:"phenotypeMimNumber"`
	PhenotypeInheritance string `json:"phenotypeInheritance"`
	PhenotypeMappingKey  int    `json:"phenotypeMappingKey"`
}

type omimAllelicVariant struct {
	Number    string `json:"number"`
	Name      string `json:"name"`
	Mutations string `json:"mutations"`
	DBSnps    string `json:"dbSnps"`
	Text      string `json:"text"`
}

// omimEntry is a gene entry (prefix "*", with phenotypes and allelic
// variants) or a phenotype entry (prefix "#").
type omimEntry struct {
	MimNumber       int                  `json:"mimNumber"`
	Prefix          string               `json:"prefix"`
	Title           string               `json:"title"`
	GeneSymbols     []string             `json:"geneSymbols"`
	GeneSymbol      string               `json:"geneSymbol,omitempty"`
	EntrezID        int                  `json:"entrezId,omitempty"`
	Inheritance     string               `json:"inheritance,omitempty"`
	Description     string               `json:"description"`
	Phenotypes      []omimPhenotype      `json:"phenotypes,omitempty"`
	AllelicVariants []omimAllelicVariant `json:"allelicVariants,omitempty"`
}

type hpoGene struct {
	EntrezID int    `json:"entrezId"`
	Symbol   string `json:"symbol"`
}

type hpoTerm struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Definition string    `json:"definition"`
	Synonyms   []string  `json:"synonyms"`
	Genes      []hpoGene `json:"genes"`
}

// geneConstraint is gnomAD's gene constraint record; kept as a map so the
// tool returns every field of the fixture unchanged.
type geneConstraint map[string]any

// orthologGene is a model-organism gene known from the DIOPT data.
type orthologGene struct {
	ortholog
	HumanSymbol string
}

// fixture is the whole embedded dataset with its lookup indexes. It is
// immutable after loadFixture returns.
type fixture struct {
	genes      []*gene
	bySymbol   map[string]*gene // upper-case symbol
	byEntrez   map[int]*gene
	variants   []*variant
	clinvar    map[string][]clinvarRecord // gene symbol -> listing sorted by position
	constraint map[string]geneConstraint
	dgv        map[string][]dgvEntry
	decipher   []decipherRecord
	geno2mp    map[string]map[string]int
	orthologs  map[string][]ortholog
	alignments map[string]alignment
	gtex       map[string]map[string]map[string]float64
	pharos     map[string]pharosTarget
	stringDB   map[string][]interaction
	omim       []omimEntry
	hpo        []hpoTerm
	// model-organism genes by taxon and upper-case symbol, and by Entrez ID
	orthologBySymbol map[int]map[string]orthologGene
	orthologByEntrez map[int]orthologGene
}

// loadFixture decodes the embedded JSON files and builds the indexes.
func loadFixture() (*fixture, error) {
	fx := &fixture{}
	var clinvarGenes map[string]clinvarGene
	files := []struct {
		name   string
		target any
	}{
		{"genes.json", &fx.genes},
		{"variants.json", &fx.variants},
		{"gnomad_genes.json", &fx.constraint},
		{"dgv.json", &fx.dgv},
		{"decipher.json", &fx.decipher},
		{"geno2mp.json", &fx.geno2mp},
		{"diopt.json", &fx.orthologs},
		{"alignments.json", &fx.alignments},
		{"gtex.json", &fx.gtex},
		{"pharos.json", &fx.pharos},
		{"string.json", &fx.stringDB},
		{"omim.json", &fx.omim},
		{"hpo.json", &fx.hpo},
		{"clinvar.json", &clinvarGenes},
	}
	for _, f := range files {
		raw, err := dataFS.ReadFile("data/" + f.name)
		if err != nil {
			return nil, fmt.Errorf("read fixture %s: %w", f.name, err)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(f.target); err != nil {
			return nil, fmt.Errorf("decode fixture %s: %w", f.name, err)
		}
	}

	fx.bySymbol = make(map[string]*gene, len(fx.genes))
	fx.byEntrez = make(map[int]*gene, len(fx.genes))
	for _, g := range fx.genes {
		if g.Hg19Stop-g.Hg19Start != g.Hg38Stop-g.Hg38Start {
			return nil, fmt.Errorf("gene %s: hg19 and hg38 spans differ", g.Symbol)
		}
		fx.bySymbol[strings.ToUpper(g.Symbol)] = g
		fx.byEntrez[g.EntrezID] = g
	}
	for _, v := range fx.variants {
		g, ok := fx.bySymbol[v.Gene]
		if !ok {
			return nil, fmt.Errorf("variant %s:%s: unknown gene %s", v.Transcript, v.CDNA, v.Gene)
		}
		if v.Hg38Pos != g.liftToHg38(v.Hg19Pos) {
			return nil, fmt.Errorf("variant %s:%s: hg38 position does not match the gene's liftover", v.Transcript, v.CDNA)
		}
		for _, c := range []*gnomadCounts{gnomadExome(v), gnomadGenome(v)} {
			if c != nil && c.AlleleNum > 0 {
				c.AlleleFrequency = float64(c.AlleleCount) / float64(c.AlleleNum)
			}
		}
	}

	fx.clinvar = make(map[string][]clinvarRecord, len(clinvarGenes))
	for symbol, cg := range clinvarGenes {
		g, ok := fx.bySymbol[symbol]
		if !ok {
			return nil, fmt.Errorf("clinvar.json: unknown gene %s", symbol)
		}
		records, err := generateClinvar(g, cg, fx.variantsOf(symbol))
		if err != nil {
			return nil, fmt.Errorf("clinvar.json: %w", err)
		}
		fx.clinvar[symbol] = records
	}
	for _, g := range fx.genes {
		for section, present := range map[string]bool{
			"clinvar": fx.clinvar[g.Symbol] != nil, "gnomad_genes": fx.constraint[g.Symbol] != nil,
			"gtex": fx.gtex[g.Symbol] != nil, "pharos": fx.pharos[g.Symbol].TDL != "",
			"alignments": fx.alignments[g.Symbol].Length > 0, "geno2mp": fx.geno2mp[g.Symbol] != nil,
		} {
			if !present {
				return nil, fmt.Errorf("gene %s has no %s data", g.Symbol, section)
			}
		}
	}

	fx.orthologBySymbol = make(map[int]map[string]orthologGene)
	fx.orthologByEntrez = make(map[int]orthologGene)
	for human, list := range fx.orthologs {
		for _, o := range list {
			og := orthologGene{ortholog: o, HumanSymbol: human}
			if fx.orthologBySymbol[o.TaxonID2] == nil {
				fx.orthologBySymbol[o.TaxonID2] = make(map[string]orthologGene)
			}
			fx.orthologBySymbol[o.TaxonID2][strings.ToUpper(o.Symbol2)] = og
			fx.orthologByEntrez[o.EntrezID2] = og
		}
	}
	return fx, nil
}

func gnomadExome(v *variant) *gnomadCounts {
	if v.Gnomad == nil {
		return nil
	}
	return v.Gnomad.Exome
}

func gnomadGenome(v *variant) *gnomadCounts {
	if v.Gnomad == nil {
		return nil
	}
	return v.Gnomad.Genome
}

func (fx *fixture) variantsOf(symbol string) []*variant {
	var out []*variant
	for _, v := range fx.variants {
		if v.Gene == symbol {
			out = append(out, v)
		}
	}
	return out
}

// symbols returns the fixture's human gene symbols, sorted.
func (fx *fixture) symbols() []string {
	out := make([]string, 0, len(fx.genes))
	for _, g := range fx.genes {
		out = append(out, g.Symbol)
	}
	sort.Strings(out)
	return out
}

// liftoverMargin is how far around a fixture gene positions can be lifted
// over; the sample data holds no liftover chain beyond these regions.
const liftoverMargin = 2_000_000

func (g *gene) liftToHg38(pos int) int { return pos + g.Hg38Start - g.Hg19Start }
func (g *gene) liftToHg19(pos int) int { return pos - g.Hg38Start + g.Hg19Start }

// liftover converts chr:pos between builds using the region around a fixture
// gene. ok is false when the position lies outside every known region.
func (fx *fixture) liftover(chr string, pos int, from build) (lifted int, ok bool) {
	for _, g := range fx.genes {
		if g.Chr != chr {
			continue
		}
		start, stop := g.Hg19Start, g.Hg19Stop
		if from == hg38 {
			start, stop = g.Hg38Start, g.Hg38Stop
		}
		if pos < start-liftoverMargin || pos > stop+liftoverMargin {
			continue
		}
		if from == hg38 {
			return g.liftToHg19(pos), true
		}
		return g.liftToHg38(pos), true
	}
	return 0, false
}

// findVariant returns the fixture variant at chr:pos ref>alt in the build.
func (fx *fixture) findVariant(chr string, pos int, ref, alt string, b build) *variant {
	for _, v := range fx.variants {
		p := v.Hg19Pos
		if b == hg38 {
			p = v.Hg38Pos
		}
		if v.Chr == chr && p == pos && v.Ref == ref && v.Alt == alt {
			return v
		}
	}
	return nil
}

// genesAt returns the fixture genes overlapping chr:start-stop in the build.
func (fx *fixture) genesAt(chr string, start, stop int, b build) []*gene {
	var out []*gene
	for _, g := range fx.genes {
		gs, ge := g.Hg19Start, g.Hg19Stop
		if b == hg38 {
			gs, ge = g.Hg38Start, g.Hg38Stop
		}
		if g.Chr == chr && start <= ge && stop >= gs {
			out = append(out, g)
		}
	}
	return out
}

// ClinVar significance classes, in the order the counts report them.
var clinvarClasses = []struct{ key, label string }{
	{"pathogenic", "Pathogenic"},
	{"likelyPathogenic", "Likely pathogenic"},
	{"uncertainSignificance", "Uncertain significance"},
	{"likelyBenign", "Likely benign"},
	{"benign", "Benign"},
}

var reviewStatuses = []string{
	"criteria provided, single submitter",
	"criteria provided, single submitter",
	"criteria provided, multiple submitters, no conflicts",
	"no assertion criteria provided",
	"reviewed by expert panel",
}

var aminoAcids = []string{"Ala", "Arg", "Asn", "Asp", "Cys", "Gln", "Glu", "Gly", "His", "Ile", "Leu", "Lys", "Met", "Phe", "Pro", "Ser", "Thr", "Trp", "Tyr", "Val"}

var complement = map[string]string{"A": "T", "C": "G", "G": "C", "T": "A"}

// generateClinvar builds a gene's ClinVar listing: the fixture variants that
// carry a ClinVar assertion, plus deterministic synthetic records filling
// each significance class up to the fixture's counts. The same gene always
// yields the same records.
func generateClinvar(g *gene, cg clinvarGene, curated []*variant) ([]clinvarRecord, error) {
	sum := 0
	for _, c := range clinvarClasses {
		sum += cg.Counts[c.key]
	}
	if len(cg.Counts) != len(clinvarClasses) || sum != cg.Total {
		return nil, fmt.Errorf("gene %s: counts %v do not add up to total %d", g.Symbol, cg.Counts, cg.Total)
	}
	if len(cg.Conditions) == 0 {
		return nil, fmt.Errorf("gene %s: no conditions", g.Symbol)
	}
	records := make([]clinvarRecord, 0, cg.Total)
	remaining := make(map[string]int, len(cg.Counts))
	for k, n := range cg.Counts {
		remaining[k] = n
	}
	for _, v := range curated {
		if v.Clinvar == nil {
			continue
		}
		key := classKey(v.Clinvar.Significance)
		if key == "" {
			return nil, fmt.Errorf("variant %s: unknown significance %q", v.CDNA, v.Clinvar.Significance)
		}
		remaining[key]--
		if remaining[key] < 0 {
			return nil, fmt.Errorf("gene %s: more curated %s records than counted", g.Symbol, key)
		}
		records = append(records, curatedRecord(g, v))
	}

	seed := fnv.New64a()
	seed.Write([]byte(g.Symbol))
	rng := rand.New(rand.NewPCG(seed.Sum64(), 0x5eed))
	uid := 1_500_000 + g.EntrezID%1000*1000
	for _, class := range clinvarClasses {
		for i := 0; i < remaining[class.key]; i++ {
			uid++
			records = append(records, syntheticRecord(rng, g, cg, class.key, class.label, uid))
		}
	}
	sort.Slice(records, func(i, j int) bool {
		if records[i].Start != records[j].Start {
			return records[i].Start < records[j].Start
		}
		return records[i].UID < records[j].UID
	})
	return records, nil
}

func classKey(label string) string {
	for _, c := range clinvarClasses {
		if strings.EqualFold(c.label, label) {
			return c.key
		}
	}
	return ""
}

func curatedRecord(g *gene, v *variant) clinvarRecord {
	return clinvarRecord{
		UID:            v.Clinvar.UID,
		Title:          fmt.Sprintf("%s(%s):%s (%s)", v.Transcript, g.Symbol, v.CDNA, v.ProteinChangeLong),
		Chr:            v.Chr,
		Start:          v.Hg19Pos,
		Stop:           v.Hg19Pos,
		Ref:            v.Ref,
		Alt:            v.Alt,
		Type:           "single nucleotide variant",
		Band:           g.Band,
		Condition:      v.Clinvar.Condition,
		Interpretation: v.Clinvar.Significance,
		Significance: clinvarSignificance{
			Description:   v.Clinvar.Significance,
			LastEvaluated: v.Clinvar.LastEvaluated,
			ReviewStatus:  v.Clinvar.ReviewStatus,
		},
	}
}

func syntheticRecord(rng *rand.Rand, g *gene, cg clinvarGene, key, label string, uid int) clinvarRecord {
	pos := g.Hg19Start + rng.IntN(g.Hg19Stop-g.Hg19Start+1)
	rec := clinvarRecord{
		UID:            fmt.Sprint(uid),
		Chr:            g.Chr,
		Start:          pos,
		Stop:           pos,
		Band:           g.Band,
		Condition:      cg.Conditions[rng.IntN(len(cg.Conditions))],
		Interpretation: label,
		Significance: clinvarSignificance{
			Description: label,
			LastEvaluated: fmt.Sprintf("%d-%02d-%02d",
				2014+rng.IntN(11), 1+rng.IntN(12), 1+rng.IntN(28)),
			ReviewStatus: reviewStatuses[rng.IntN(len(reviewStatuses))],
		},
	}
	if key == "pathogenic" && cg.PathogenicCopyNumber {
		rec.Start = pos - 200_000 - rng.IntN(3_000_000)
		rec.Stop = pos + 200_000 + rng.IntN(3_000_000)
		copies, kind := 1, "copy number loss"
		if rng.IntN(2) == 0 {
			copies, kind = 3, "copy number gain"
		}
		rec.Type = kind
		rec.Title = fmt.Sprintf("GRCh37/hg19 %s(chr%s:%d-%d)x%d", g.Band, g.Chr, rec.Start, rec.Stop, copies)
		rec.Condition = "See cases"
		return rec
	}
	cpos := 1 + rng.IntN(1500)
	codon := (cpos-1)/3 + 1
	bases := []string{"A", "C", "G", "T"}
	switch kind := rng.IntN(10); {
	case kind < 7:
		ref := bases[rng.IntN(4)]
		alt := bases[(indexOf(bases, ref)+1+rng.IntN(3))%4]
		rec.Ref, rec.Alt = ref, alt
		cref, calt := ref, alt
		if g.Strand == "-" {
			cref, calt = complement[ref], complement[alt]
		}
		from := aminoAcids[rng.IntN(len(aminoAcids))]
		to := aminoAcids[rng.IntN(len(aminoAcids))]
		if key == "pathogenic" && rng.IntN(3) == 0 {
			to = "Ter"
		}
		rec.Type = "single nucleotide variant"
		rec.Title = fmt.Sprintf("%s(%s):c.%d%s>%s (p.%s%d%s)", g.Transcript, g.Symbol, cpos, cref, calt, from, codon, to)
	case kind < 9:
		n := 1 + rng.IntN(4)
		rec.Stop = pos + n - 1
		rec.Type = "Deletion"
		rec.Title = fmt.Sprintf("%s(%s):c.%d_%ddel", g.Transcript, g.Symbol, cpos, cpos+n-1)
	default:
		rec.Type = "Duplication"
		rec.Title = fmt.Sprintf("%s(%s):c.%ddup", g.Transcript, g.Symbol, cpos)
	}
	return rec
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
