package sampleserver_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/sampleserver"
)

type args = map[string]any

// happyPaths has one successful call per tool with values the fixture must
// answer (the upstream MARRVEL cases rely on many of them).
var happyPaths = []struct {
	tool string
	args args
	want map[string]any // JSON path -> value (numbers as float64)
}{
	{"get_gene_by_symbol", args{"gene_symbol": "NUTM2G"}, map[string]any{
		"data.geneBySymbol.entrezId": 441457.0, "data.geneBySymbol.uniprotKBId": "Q5VZR4",
		"data.geneBySymbol.uniprotProteinName": "Hippocampus abundant transcript-like protein 2", "data.geneBySymbol.chr": "9"}},
	{"get_gene_by_symbol", args{"gene_symbol": "Trp53", "taxon_id": "10090"}, map[string]any{
		"data.geneBySymbol.entrezId": 22059.0, "data.geneBySymbol.humanOrtholog": "TP53"}},
	{"get_gene_by_entrez_id", args{"entrez_id": "7157"}, map[string]any{
		"data.geneByEntrezId.symbol": "TP53", "data.geneByEntrezId.xref.omimId": 191170.0}},
	{"get_gene_by_position", args{"chromosome": "chr9", "position": 99694174}, map[string]any{
		"data.genesByGenomicLocation.0.symbol": "NUTM2G"}},
	{"convert_hgvs_to_genomic", args{"hgvs_variant": "NM_001045477.4:c.187C>T"}, map[string]any{
		"gene": "NUTM2G", "chr": "9", "pos": 99694174.0, "ref": "C", "alt": "T", "proteinChange": "p.P63S"}},
	{"convert_protein_variant", args{"protein_variant": "NUTM2G:p.Pro63Ser"}, map[string]any{
		"candidates.0.pos": 99694174.0, "candidates.0.cdnaChange": "c.187C>T"}},
	{"convert_rsid_to_variant", args{"rsid": "rs28934906"}, map[string]any{
		"gene": "MECP2", "variant": "X-153296399-G-A"}},
	{"liftover_hg19_to_hg38", args{"chr": "9", "pos": 99694174}, map[string]any{"hg38Pos": 96931892.0}},
	{"liftover_hg38_to_hg19", args{"chr": "chr17", "pos": 7673802}, map[string]any{"hg19Pos": 7577120.0}},
	{"get_variant_dbnsfp", args{"chr": "9", "pos": "99694174", "ref": "C", "alt": "T", "build": "hg19"}, map[string]any{
		"data.dbnsfpByVariant.scores.CADD.phred":                    8.103,
		"data.dbnsfpByVariant.scores.REVEL.scores.0":                0.027,
		"data.dbnsfpByVariant.scores.Polyphen2HDIV.predictionLabel": "Benign",
		"data.dbnsfpByVariant.scores.Polyphen2HVAR.predictionLabel": "Benign",
		"data.dbnsfpByVariant.summary.average_rankscore":            0.16}},
	{"get_clinvar_by_variant", args{"chr": "X", "pos": "153296399", "ref": "G", "alt": "A"}, map[string]any{
		"data.clinvarByVariant.0.interpretation": "Pathogenic", "data.clinvarByVariant.0.condition": "Rett syndrome"}},
	{"get_clinvar_by_gene_symbol", args{"gene_symbol": "NUTM2G", "build": "hg19"}, map[string]any{"n_entries": 99.0}},
	{"get_clinvar_by_entrez_id", args{"entrez_id": "441457", "build": "hg38"}, map[string]any{"n_entries": 99.0, "build": "hg38"}},
	{"get_clinvar_counts_by_entrez_id", args{"entrez_id": "441457"}, map[string]any{
		"data.clinvarCountsByEntrezId.all": 99.0, "data.clinvarCountsByEntrezId.pathogenic": 33.0,
		"data.clinvarCountsByEntrezId.likelyPathogenic": 3.0}},
	{"get_gnomad_variant", args{"chr": "13", "pos": "32906729", "ref": "A", "alt": "C"}, map[string]any{
		"gene": "BRCA2", "exome.homCount": 10452.0}},
	{"get_gnomad_by_gene_symbol", args{"gene_symbol": "NUTM2G"}, map[string]any{
		"data.oe_lof": 0.35, "data.oe_lof_upper": 1.06}},
	{"get_gnomad_by_entrez_id", args{"entrez_id": "4204"}, map[string]any{"data.gene": "MECP2"}},
	{"get_dgv_by_entrez_id", args{"entrez_id": "441457"}, map[string]any{"n_entries": 16.0}},
	{"get_geno2mp_by_entrez_id", args{"entrez_id": "441457"}, map[string]any{"total": 412.0}},
	{"get_decipher_by_location", args{"chr": "9", "start": 99690593, "stop": 99704153}, map[string]any{
		"n_entries": 1.0, "data.0.variantClass": "duplication", "data.0.duplicationObs": 1.0}},
	{"get_omim_by_mim_number", args{"mim_number": "300005"}, map[string]any{
		"geneSymbol": "MECP2", "phenotypes.0.phenotype": "Rett syndrome"}},
	{"get_omim_by_gene_symbol", args{"gene_symbol": "MECP2"}, map[string]any{"mimNumber": 300005.0}},
	{"get_omim_variant", args{"gene_symbol": "MECP2", "variant": "R133C"}, map[string]any{
		"allelicVariants.0.dbSnps": "rs28934907"}},
	{"search_omim_by_disease_name", args{"disease_name": "Rett syndrome"}, map[string]any{"results.0.mimNumber": 312750.0}},
	{"search_hpo_terms", args{"phenotype_query": "seizure"}, map[string]any{"terms.0.id": "HP:0001250"}},
	{"get_hpo_associated_genes", args{"hpo_id": "HP:0001250"}, map[string]any{"genes.0.symbol": "MECP2"}},
	{"get_diopt_orthologs_by_entrez_id", args{"entrez_id": "441457"}, map[string]any{
		"data.dioptOrthologsByEntrezId.0.symbol2": "Nutm2", "data.dioptOrthologsByEntrezId.1.symbol2": "Nutm2f"}},
	{"get_diopt_alignment", args{"entrez_id": "441457"}, map[string]any{
		"uniprotId": "Q5VZR4", "domains.0.name": "MFS domain"}},
	{"get_ontology_across_diopt_orthologs", args{"entrez_id": "7157", "taxon_id2": 7227}, map[string]any{
		"ortholog": "p53", "goTerms.GO:0001085.name": "RNA polymerase II transcription factor binding"}},
	{"get_gtex_expression", args{"entrez_id": "441457"}, map[string]any{"data.Testis.Testis": 14.62}},
	{"get_ortholog_expression", args{"entrez_id": "4204"}, map[string]any{"data.0.symbol2": "Mecp2"}},
	{"get_pharos_targets", args{"entrez_id": "1080"}, map[string]any{
		"data.target.tdl": "Tclin", "data.target.drugs.0.name": "Ivacaftor"}},
	{"get_string_interactions_by_entrez_id", args{"entrez_id": "441457"}, map[string]any{
		"data.stringInteractionsByEntrezId.0.symbol2": "VIRMA"}},
	{"get_string_interactions_between_entrez_ids", args{"entrez_id1": "7157", "entrez_id2": "4193"}, map[string]any{
		"data.totalInteractions": 1.0, "data.stringInteractionsByEntrezId.0.symbol2": "MDM2"}},
}

func TestToolsHappyPath(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			c := tr.connect(t)
			for i, hp := range happyPaths {
				t.Run(fmt.Sprintf("%02d_%s", i, hp.tool), func(t *testing.T) {
					if hp.tool == "run_pandas" {
						requirePandas(t)
					}
					doc := callJSON(t, c, hp.tool, hp.args)
					for path, want := range hp.want {
						assert.Equal(t, want, requirePath(t, doc, path), "path %s", path)
					}
				})
			}
		})
	}
}

func TestEveryToolHasAHappyPath(t *testing.T) {
	c := connectInProcess(t)
	tools, err := c.ListTools(testContext(t), mcp.ListToolsRequest{})
	require.NoError(t, err)
	covered := map[string]bool{}
	for _, hp := range happyPaths {
		covered[hp.tool] = true
	}
	require.GreaterOrEqual(t, len(tools.Tools), 20)
	for _, tool := range tools.Tools {
		assert.True(t, covered[tool.Name], "tool %s has no happy-path row", tool.Name)
		assert.NotEmpty(t, tool.Description, "tool %s", tool.Name)
	}
}

// TestToolArgumentShapes checks that arguments mirror upstream: strings,
// except positions that upstream declares as int.
func TestToolArgumentShapes(t *testing.T) {
	c := connectInProcess(t)
	tools, err := c.ListTools(testContext(t), mcp.ListToolsRequest{})
	require.NoError(t, err)
	byName := map[string]mcp.Tool{}
	for _, tool := range tools.Tools {
		byName[tool.Name] = tool
	}
	tests := []struct {
		tool     string
		required []string
		integers []string
	}{
		{"get_variant_dbnsfp", []string{"chr", "pos", "ref", "alt", "build"}, nil},
		{"get_clinvar_by_variant", []string{"chr", "pos", "ref", "alt"}, nil},
		{"get_gene_by_symbol", []string{"gene_symbol"}, nil},
		{"get_gene_by_position", []string{"chromosome", "position"}, []string{"position"}},
		{"liftover_hg19_to_hg38", []string{"chr", "pos"}, []string{"pos"}},
		{"get_decipher_by_location", []string{"chr", "start", "stop"}, []string{"start", "stop"}},
		{"convert_hgvs_to_genomic", []string{"hgvs_variant"}, nil},
		{"get_clinvar_by_gene_symbol", []string{"gene_symbol", "build"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			tool, ok := byName[tt.tool]
			require.True(t, ok)
			assert.ElementsMatch(t, tt.required, tool.InputSchema.Required)
			for name, prop := range tool.InputSchema.Properties {
				want := "string"
				for _, i := range tt.integers {
					if i == name {
						want = "integer"
					}
				}
				assert.Equal(t, want, prop.(map[string]any)["type"], "argument %s", name)
			}
		})
	}
}

// TestBadArguments: schema violations come back as IsError results naming
// the argument, so a model can correct its call.
func TestBadArguments(t *testing.T) {
	tests := []struct {
		name     string
		tool     string
		args     args
		mentions string
	}{
		{"missing required", "get_variant_dbnsfp", args{"chr": "9", "ref": "C", "alt": "T", "build": "hg19"}, "pos"},
		{"number for string", "get_variant_dbnsfp", args{"chr": "9", "pos": 99694174, "ref": "C", "alt": "T", "build": "hg19"}, "pos"},
		{"string for integer", "liftover_hg19_to_hg38", args{"chr": "9", "pos": "99694174"}, "pos"},
		{"integer below minimum", "get_decipher_by_location", args{"chr": "9", "start": 0, "stop": 10}, "start"},
		{"no arguments", "get_gene_by_symbol", args{}, "gene_symbol"},
		{"wrong type for symbol", "get_gene_by_symbol", args{"gene_symbol": []any{"TP53"}}, "gene_symbol"},
	}
	c := connectStdio(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := call(t, c, tt.tool, tt.args)
			assert.True(t, res.IsError, "want IsError, got %s", text)
			assert.Contains(t, text, tt.mentions)
		})
	}
}

// TestActionableErrors: unknown entities and malformed notation are IsError
// results whose text tells the model what to do instead.
func TestActionableErrors(t *testing.T) {
	tests := []struct {
		name  string
		tool  string
		args  args
		wants []string
	}{
		{"unknown symbol suggests the right one", "get_gene_by_symbol", args{"gene_symbol": "NUTM2"},
			[]string{"Unknown gene symbol", "Check the symbol", "NUTM2G"}},
		{"alias is explained", "get_omim_by_gene_symbol", args{"gene_symbol": "P53"},
			[]string{"alias of TP53"}},
		{"unknown symbol in listing", "get_clinvar_by_gene_symbol", args{"gene_symbol": "GAPDH", "build": "hg19"},
			[]string{"Unknown gene symbol \"GAPDH\"", "Check the symbol"}},
		{"unknown entrez id", "get_gtex_expression", args{"entrez_id": "999999999"},
			[]string{"unknown Entrez Gene ID 999999999", "get_gene_by_symbol"}},
		{"symbol given as entrez id", "get_dgv_by_entrez_id", args{"entrez_id": "NUTM2G"},
			[]string{"numeric NCBI Entrez Gene ID", "get_gene_by_symbol"}},
		{"HGVS without transcript", "convert_hgvs_to_genomic", args{"hgvs_variant": "c.187C>T"},
			[]string{"malformed HGVS", "NM_000000.0:c.123A>G"}},
		{"HGVS with gene instead of transcript", "convert_hgvs_to_genomic", args{"hgvs_variant": "NUTM2G:c.187C>T"},
			[]string{"malformed HGVS", "NM_000000.0:c.123A>G"}},
		{"HGVS with broken edit", "convert_hgvs_to_genomic", args{"hgvs_variant": "NM_001045477.4:c.187CT"},
			[]string{"not a valid edit", "NM_000000.0:c.123A>G"}},
		{"protein HGVS points to the protein tool", "convert_hgvs_to_genomic", args{"hgvs_variant": "NP_001040942.1:p.Pro63Ser"},
			[]string{"convert_protein_variant"}},
		{"protein change without gene", "convert_protein_variant", args{"protein_variant": "p.P63S"},
			[]string{"malformed protein variant", "NUTM2G:p.P63S"}},
		{"bad chromosome", "get_variant_dbnsfp", args{"chr": "chr99", "pos": "1", "ref": "C", "alt": "T", "build": "hg19"},
			[]string{"chromosome must be"}},
		{"bad allele", "get_gnomad_variant", args{"chr": "9", "pos": "99694174", "ref": "C", "alt": "Z"},
			[]string{"alt must be DNA bases"}},
		{"bad build", "get_variant_dbnsfp", args{"chr": "9", "pos": "99694174", "ref": "C", "alt": "T", "build": "hg18"},
			[]string{"build must be"}},
		{"bad HPO id", "get_hpo_associated_genes", args{"hpo_id": "seizure"},
			[]string{"HP:0000000", "search_hpo_terms"}},
		{"bad MIM number", "get_omim_by_mim_number", args{"mim_number": "MECP2"},
			[]string{"six-digit OMIM number"}},
	}
	c := connectStdio(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := call(t, c, tt.tool, tt.args)
			require.True(t, res.IsError, "want IsError, got %s", text)
			for _, want := range tt.wants {
				assert.Contains(t, text, want)
			}
		})
	}
}

// TestNoDataIsNotAnError: well-formed queries the data does not cover are
// answered with JSON that says so.
func TestNoDataIsNotAnError(t *testing.T) {
	tests := []struct {
		name    string
		tool    string
		args    args
		message string
	}{
		{"variant not in dbNSFP", "get_variant_dbnsfp", args{"chr": "9", "pos": "99694175", "ref": "A", "alt": "G", "build": "hg19"}, "No dbNSFP record found"},
		{"variant not in ClinVar", "get_clinvar_by_variant", args{"chr": "9", "pos": "99694174", "ref": "C", "alt": "T"}, "No ClinVar record found"},
		{"variant absent from gnomAD", "get_gnomad_variant", args{"chr": "9", "pos": "99694174", "ref": "C", "alt": "T"}, "observed 0 times"},
		{"unknown HGVS", "convert_hgvs_to_genomic", args{"hgvs_variant": "NM_001045477.4:c.188C>A"}, "No data found"},
		{"HGVS deletion", "convert_hgvs_to_genomic", args{"hgvs_variant": "NM_007294.4:c.68_69delAG"}, "No data found"},
		{"gene without OMIM entry", "get_omim_by_gene_symbol", args{"gene_symbol": "NUTM2G"}, "No OMIM entry found"},
		{"no drugs or ligands", "get_pharos_targets", args{"entrez_id": "441457"}, "No approved drugs or active ligands"},
		{"no DECIPHER controls", "get_decipher_by_location", args{"chr": "X", "start": 153287025, "stop": 153363188}, "No DECIPHER control variants"},
		{"no fly ortholog", "get_ontology_across_diopt_orthologs", args{"entrez_id": "441457", "taxon_id2": 7227}, "No DIOPT ortholog"},
		{"unknown rsID", "convert_rsid_to_variant", args{"rsid": "rs1"}, "No data found"},
		{"position outside liftover regions", "liftover_hg19_to_hg38", args{"chr": "1", "pos": 1000}, "No data found"},
		{"no STRING interaction", "get_string_interactions_between_entrez_ids", args{"entrez_id1": "441457", "entrez_id2": "4214"}, "No STRING interaction"},
		{"no OMIM phenotype", "search_omim_by_disease_name", args{"disease_name": "progeria"}, "No OMIM phenotype"},
	}
	c := connectHTTP(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := callJSON(t, c, tt.tool, tt.args)
			assert.Contains(t, requirePath(t, doc, "message"), tt.message)
		})
	}
}

// TestLargeResponse: BRCA1's full ClinVar listing is far above the suite's
// 100,000-token limit (cl100k), and consistent with its counts.
func TestLargeResponse(t *testing.T) {
	c := connectHTTP(t)
	res, text := call(t, c, "get_clinvar_by_gene_symbol", args{"gene_symbol": "BRCA1", "build": "hg19"})
	require.False(t, res.IsError)
	require.Greater(t, len(text), 600_000)

	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	require.NoError(t, err)
	assert.Greater(t, len(enc.Encode(text, nil, nil)), 200_000)

	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &doc))
	records := requirePath(t, doc, "data.clinvarByGeneSymbol").([]any)
	counts := callJSON(t, c, "get_clinvar_counts_by_entrez_id", args{"entrez_id": "672"})
	assert.Equal(t, requirePath(t, counts, "data.clinvarCountsByEntrezId.all"), float64(len(records)))
	assert.Equal(t, requirePath(t, doc, "n_entries"), float64(len(records)))
}

// TestOtherListingsFitTheTokenLimit keeps the other genes' listings usable.
func TestOtherListingsFitTheTokenLimit(t *testing.T) {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("cl100k_base")
	require.NoError(t, err)
	c := connectInProcess(t)
	for _, symbol := range []string{"NUTM2G", "MECP2", "TP53", "BRCA2", "CFTR"} {
		_, text := call(t, c, "get_clinvar_by_gene_symbol", args{"gene_symbol": symbol, "build": "hg19"})
		assert.Less(t, len(enc.Encode(text, nil, nil)), 80_000, symbol)
	}
}

// TestClinvarCountsMatchListing: for every gene, each significance count
// equals the number of listed records with that significance.
func TestClinvarCountsMatchListing(t *testing.T) {
	c := connectInProcess(t)
	keys := map[string]string{"Pathogenic": "pathogenic", "Likely pathogenic": "likelyPathogenic",
		"Uncertain significance": "uncertainSignificance", "Likely benign": "likelyBenign", "Benign": "benign"}
	for _, entrez := range []string{"441457", "4204", "7157", "672", "675", "1080"} {
		t.Run(entrez, func(t *testing.T) {
			listing := callJSON(t, c, "get_clinvar_by_entrez_id", args{"entrez_id": entrez, "build": "hg19"})
			got := map[string]float64{}
			for _, r := range requirePath(t, listing, "data.clinvarByGeneEntrezId").([]any) {
				sig := requirePath(t, r, "significance.description").(string)
				require.Contains(t, keys, sig)
				got[keys[sig]]++
				got["all"]++
			}
			counts := callJSON(t, c, "get_clinvar_counts_by_entrez_id", args{"entrez_id": entrez})
			assert.Equal(t, got, toFloatMap(t, requirePath(t, counts, "data.clinvarCountsByEntrezId")))
		})
	}
}

func toFloatMap(t *testing.T, v any) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for k, x := range v.(map[string]any) {
		if f := x.(float64); f != 0 {
			out[k] = f
		}
	}
	return out
}

// TestGTExHighestTissue checks the tissue ranking the upstream cases ask about.
func TestGTExHighestTissue(t *testing.T) {
	c := connectInProcess(t)
	tests := map[string]string{"441457": "Testis", "1080": "Pancreas", "7157": "Cells/EBV-transformed lymphocytes"}
	for entrez, want := range tests {
		doc := callJSON(t, c, "get_gtex_expression", args{"entrez_id": entrez})
		best, bestTPM := "", -1.0
		for category, subs := range requirePath(t, doc, "data").(map[string]any) {
			for sub, tpm := range subs.(map[string]any) {
				if tpm.(float64) > bestTPM {
					best, bestTPM = category+"/"+sub, tpm.(float64)
				}
			}
		}
		assert.True(t, best == want || best == want+"/"+want, "entrez %s: highest %s, want %s", entrez, best, want)
	}
}

// TestBuildsAgree: hg38 coordinates reach the same records as hg19 ones.
func TestBuildsAgree(t *testing.T) {
	c := connectInProcess(t)
	conv := callJSON(t, c, "convert_hgvs_to_genomic", args{"hgvs_variant": "NM_000546.6:c.524G>A"})
	hg19 := positionString(t, requirePath(t, conv, "pos"))
	hg38 := positionString(t, requirePath(t, conv, "hg38Pos"))
	lifted := callJSON(t, c, "liftover_hg19_to_hg38", args{"chr": "17", "pos": requirePath(t, conv, "pos")})
	assert.Equal(t, hg38, positionString(t, requirePath(t, lifted, "hg38Pos")))

	scores := func(pos, build string) any {
		doc := callJSON(t, c, "get_variant_dbnsfp", args{"chr": "17", "pos": pos, "ref": "C", "alt": "T", "build": build})
		return requirePath(t, doc, "data.dbnsfpByVariant.scores")
	}
	assert.Equal(t, scores(hg19, "hg19"), scores(hg38, "GRCh38"))

	genomic := callJSON(t, c, "convert_hgvs_to_genomic", args{"hgvs_variant": "NC_000017.11:g." + hg38 + "C>T"})
	assert.Equal(t, "p.R175H", requirePath(t, genomic, "proteinChange"))
}

func positionString(t *testing.T, v any) string {
	t.Helper()
	f, ok := v.(float64)
	require.True(t, ok, "position %v is not a number", v)
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func TestExampleGenesResource(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			c := tr.connect(t)
			ctx := testContext(t)
			list, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
			require.NoError(t, err)
			var uris []string
			for _, r := range list.Resources {
				uris = append(uris, r.URI)
			}
			require.Contains(t, uris, sampleserver.ExampleGenesURI)

			req := mcp.ReadResourceRequest{}
			req.Params.URI = sampleserver.ExampleGenesURI
			res, err := c.ReadResource(ctx, req)
			require.NoError(t, err)
			require.Len(t, res.Contents, 1)
			text, ok := res.Contents[0].(mcp.TextResourceContents)
			require.True(t, ok)
			var genes map[string]struct {
				EntrezID string `json:"entrez_id"`
			}
			require.NoError(t, json.Unmarshal([]byte(text.Text), &genes))
			var symbols []string
			for symbol, g := range genes {
				symbols = append(symbols, symbol)
				doc := callJSON(t, c, "get_gene_by_entrez_id", args{"entrez_id": g.EntrezID})
				assert.Equal(t, symbol, requirePath(t, doc, "data.geneByEntrezId.symbol"))
			}
			sort.Strings(symbols)
			assert.Equal(t, []string{"BRCA1", "BRCA2", "CFTR", "MECP2", "NUTM2G", "TP53"}, symbols)
		})
	}
}

func TestServerInstructions(t *testing.T) {
	c, err := client.NewInProcessClient(sampleserver.New())
	require.NoError(t, err)
	require.NoError(t, c.Start(testContext(t)))
	defer c.Close()
	res, err := c.Initialize(testContext(t), mcp.InitializeRequest{})
	require.NoError(t, err)
	assert.Contains(t, res.Instructions, "hg19/GRCh37")
	assert.Contains(t, res.Instructions, "State clearly when data is unavailable")
	assert.NotNil(t, res.Capabilities.Resources)
}

// TestConcurrentCalls runs 60 calls at once on one session and checks that
// every caller gets its own answer.
func TestConcurrentCalls(t *testing.T) {
	genes := map[string]string{"441457": "NUTM2G", "4204": "MECP2", "7157": "TP53", "672": "BRCA1", "675": "BRCA2", "1080": "CFTR"}
	ids := make([]string, 0, len(genes))
	for id := range genes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			c := tr.connect(t)
			ctx := testContext(t)
			const calls = 60
			var wg sync.WaitGroup
			errs := make(chan error, calls)
			for i := range calls {
				wg.Add(1)
				go func() {
					defer wg.Done()
					id := ids[i%len(ids)]
					res, err := callTool(ctx, c, "get_gene_by_entrez_id", args{"entrez_id": id})
					if err != nil {
						errs <- fmt.Errorf("call %d: %w", i, err)
						return
					}
					var doc map[string]any
					if err := json.Unmarshal([]byte(resultText(res)), &doc); err != nil {
						errs <- fmt.Errorf("call %d: decode: %w", i, err)
						return
					}
					if got, _ := lookup(doc, "data.geneByEntrezId.symbol"); got != genes[id] {
						errs <- fmt.Errorf("call %d: entrez %s answered %v, want %s", i, id, got, genes[id])
					}
				}()
			}
			wg.Wait()
			close(errs)
			var failures []string
			for err := range errs {
				failures = append(failures, err.Error())
			}
			assert.Empty(t, failures, strings.Join(failures, "\n"))
		})
	}
}
