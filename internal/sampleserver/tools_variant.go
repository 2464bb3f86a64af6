package sampleserver

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func (h *handlers) variantTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: newTool("get_variant_dbnsfp",
			"Get pathogenicity predictions and functional annotations from dbNSFP for a variant: SIFT, PolyPhen-2 (HumDiv, HumVar), CADD (phred), REVEL, AlphaMissense, MutationTaster and conservation scores, with each method's rank score and the average rank score across methods.",
			append(variantParams(), buildParam(true))...), Handler: h.dbnsfp},
		{Tool: newTool("get_clinvar_by_variant",
			"Get ClinVar clinical significance and interpretation for a specific variant including pathogenic/benign classification, review status and condition.",
			append(variantParams(), buildParam(false))...), Handler: h.clinvarByVariant},
		{Tool: newTool("get_clinvar_by_gene_symbol",
			"List every ClinVar variant in a gene (by gene symbol) with its clinical significance. Large genes return very long lists; use get_clinvar_counts_by_entrez_id for counts.",
			symbolParam(), buildParam(true)), Handler: h.clinvarByGeneSymbol},
		{Tool: newTool("get_clinvar_by_entrez_id",
			"List every ClinVar variant in a gene (by Entrez Gene ID) with its clinical significance. Large genes return very long lists; use get_clinvar_counts_by_entrez_id for counts.",
			entrezParam(), buildParam(true)), Handler: h.clinvarByEntrezID},
		{Tool: newTool("get_clinvar_counts_by_entrez_id",
			"Count all ClinVar variants for a gene (Entrez Gene ID), with subcounts for pathogenic, likely pathogenic, uncertain significance, likely benign and benign.",
			entrezParam()), Handler: h.clinvarCounts},
		{Tool: newTool("get_gnomad_variant",
			"Get population allele counts and frequencies from gnomAD (exomes and genomes) for a specific variant (hg19 coordinates).",
			variantParams()...), Handler: h.gnomadVariant},
		{Tool: newTool("get_gnomad_by_gene_symbol",
			"Get gnomAD gene constraint metrics for a gene by symbol: observed/expected loss-of-function (LoF o/e) with its confidence interval (LOEUF is the upper bound), pLI, missense and synonymous o/e and Z scores.",
			symbolParam()), Handler: h.gnomadByGeneSymbol},
		{Tool: newTool("get_gnomad_by_entrez_id",
			"Get gnomAD gene constraint metrics for a gene by Entrez Gene ID: LoF o/e with confidence interval (LOEUF), pLI, missense and synonymous o/e.",
			entrezParam()), Handler: h.gnomadByEntrezID},
		{Tool: newTool("get_dgv_by_entrez_id",
			"Get DGV (Database of Genomic Variants) structural variants and copy number variations overlapping a gene, to identify benign structural variation in controls.",
			entrezParam()), Handler: h.dgvByEntrezID},
		{Tool: newTool("get_geno2mp_by_entrez_id",
			"Get Geno2MP HPO profile counts across 4 variant categories (Non-Coding, Synonymous/Unknown, Missense/Other Indel, Splice/Frameshift/Nonsense/Stop Loss) for a gene.",
			entrezParam()), Handler: h.geno2mpByEntrezID},
		{Tool: newTool("get_decipher_by_location",
			"Query DECIPHER control (unaffected) copy-number variants overlapping a genomic region (hg19 coordinates).",
			mcp.WithString("chr", mcp.Required(), mcp.Description(`Chromosome, e.g. "9"`)),
			mcp.WithInteger("start", mcp.Required(), mcp.Min(1), mcp.Description("Region start (hg19), e.g. 99690593")),
			mcp.WithInteger("stop", mcp.Required(), mcp.Min(1), mcp.Description("Region end (hg19), e.g. 99704153"))),
			Handler: h.decipherByLocation},
	}
}

// variantQuery is a parsed chr/pos/ref/alt argument set.
type variantQuery struct {
	Chr      string
	Pos      int
	Ref, Alt string
	Build    build
}

func (q variantQuery) String() string {
	return fmt.Sprintf("%s:%d %s>%s (%s)", q.Chr, q.Pos, q.Ref, q.Alt, q.Build)
}

func parseVariantQuery(req mcp.CallToolRequest, withBuild bool) (variantQuery, error) {
	var q variantQuery
	var err error
	if q.Chr, err = parseChromosome(req.GetString("chr", "")); err != nil {
		return q, err
	}
	if q.Pos, err = parsePosition(req.GetString("pos", "")); err != nil {
		return q, err
	}
	if q.Ref, err = parseAllele("ref", req.GetString("ref", "")); err != nil {
		return q, err
	}
	if q.Alt, err = parseAllele("alt", req.GetString("alt", "")); err != nil {
		return q, err
	}
	q.Build = hg19
	if withBuild {
		if q.Build, err = parseBuild(req.GetString("build", "hg19")); err != nil {
			return q, err
		}
	}
	return q, nil
}

func (h *handlers) dbnsfp(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	q, err := parseVariantQuery(req, true)
	if err != nil {
		return errResult(err)
	}
	v := h.fx().findVariant(q.Chr, q.Pos, q.Ref, q.Alt, q.Build)
	if v == nil {
		return jsonResult(obj{
			"data":    obj{"dbnsfpByVariant": nil},
			"message": fmt.Sprintf("No dbNSFP record found for %s.", q),
		})
	}
	ranks := obj{}
	sum, n := 0.0, 0
	methods := make([]string, 0, len(v.DBNSFP))
	for m := range v.DBNSFP {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	for _, m := range methods {
		if r, ok := v.DBNSFP[m]["rankscore"].(float64); ok {
			ranks[m] = r
			sum += r
			n++
		}
	}
	summary := obj{"num_methods_with_rankscore": n, "individual_rankscores": ranks}
	if n > 0 {
		summary["average_rankscore"] = math.Round(sum/float64(n)*1000) / 1000
	}
	return jsonResult(obj{"data": obj{"dbnsfpByVariant": obj{
		"variant": obj{"chr": v.Chr, "pos": q.Pos, "ref": v.Ref, "alt": v.Alt, "build": q.Build,
			"gene": v.Gene, "transcript": v.Transcript, "cdnaChange": v.CDNA, "proteinChange": v.ProteinChange},
		"scores":  v.DBNSFP,
		"summary": summary,
	}}})
}

func (h *handlers) clinvarByVariant(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	q, err := parseVariantQuery(req, true)
	if err != nil {
		return errResult(err)
	}
	pos19 := q.Pos
	if q.Build == hg38 {
		pos19, _ = h.fx().liftover(q.Chr, q.Pos, hg38) // 0 (matches nothing) outside known regions
	}
	matches := []clinvarRecord{}
	for _, records := range h.fx().clinvar {
		for _, r := range records {
			if r.Chr == q.Chr && r.Start == pos19 && r.Ref == q.Ref && r.Alt == q.Alt {
				matches = append(matches, h.inBuild(r, q.Build))
			}
		}
	}
	out := obj{"data": obj{"clinvarByVariant": matches}}
	if len(matches) == 0 {
		out["message"] = fmt.Sprintf("No ClinVar record found for %s.", q)
	}
	return jsonResult(out)
}

// inBuild returns the record with coordinates in the build (records are
// stored in hg19).
func (h *handlers) inBuild(r clinvarRecord, b build) clinvarRecord {
	if b != hg38 {
		return r
	}
	if s, ok := h.fx().liftover(r.Chr, r.Start, hg19); ok {
		if e, ok := h.fx().liftover(r.Chr, r.Stop, hg19); ok {
			r.Start, r.Stop = s, e
		}
	}
	return r
}

func (h *handlers) clinvarListing(g *gene, b build, key string) (*mcp.CallToolResult, error) {
	records := h.fx().clinvar[g.Symbol]
	out := make([]clinvarRecord, len(records))
	for i, r := range records {
		out[i] = h.inBuild(r, b)
	}
	return jsonResult(obj{"gene": g.Symbol, "entrezId": g.EntrezID, "build": b, "n_entries": len(out),
		"data": obj{key: out}})
}

func (h *handlers) clinvarByGeneSymbol(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupSymbol(req.GetString("gene_symbol", ""))
	if err != nil {
		return errResult(err)
	}
	b, err := parseBuild(req.GetString("build", "hg19"))
	if err != nil {
		return errResult(err)
	}
	return h.clinvarListing(g, b, "clinvarByGeneSymbol")
}

func (h *handlers) clinvarByEntrezID(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupEntrez("entrez_id", req.GetString("entrez_id", ""))
	if err != nil {
		return errResult(err)
	}
	b, err := parseBuild(req.GetString("build", "hg19"))
	if err != nil {
		return errResult(err)
	}
	return h.clinvarListing(g, b, "clinvarByGeneEntrezId")
}

func (h *handlers) clinvarCounts(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupEntrez("entrez_id", req.GetString("entrez_id", ""))
	if err != nil {
		return errResult(err)
	}
	counts := obj{}
	for _, c := range clinvarClasses {
		counts[c.key] = 0
	}
	records := h.fx().clinvar[g.Symbol]
	for _, r := range records {
		key := classKey(r.Significance.Description)
		counts[key] = counts[key].(int) + 1
	}
	counts["all"] = len(records)
	return jsonResult(obj{"gene": g.Symbol, "entrezId": g.EntrezID, "data": obj{"clinvarCountsByEntrezId": counts}})
}

func (h *handlers) gnomadVariant(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	q, err := parseVariantQuery(req, false)
	if err != nil {
		return errResult(err)
	}
	v := h.fx().findVariant(q.Chr, q.Pos, q.Ref, q.Alt, hg19)
	if v == nil || v.Gnomad == nil {
		return jsonResult(obj{
			"chr": q.Chr, "pos": q.Pos, "ref": q.Ref, "alt": q.Alt, "build": hg19,
			"alleleCount": 0, "homCount": 0,
			"message": fmt.Sprintf("Variant %s does not appear in gnomAD reference populations: it was observed 0 times.", q),
		})
	}
	total, num := 0, 0
	for _, c := range []*gnomadCounts{v.Gnomad.Exome, v.Gnomad.Genome} {
		if c != nil {
			total += c.AlleleCount
			num += c.AlleleNum
		}
	}
	freq := float64(total) / float64(num)
	return jsonResult(obj{
		"chr": v.Chr, "pos": v.Hg19Pos, "ref": v.Ref, "alt": v.Alt, "build": hg19, "gene": v.Gene,
		"exome": v.Gnomad.Exome, "genome": v.Gnomad.Genome,
		"totalAlleleCount": total, "totalAlleleNum": num, "totalAlleleFrequency": freq,
		"message": fmt.Sprintf("Variant %s is present in gnomAD: observed %d times in %d alleles (allele frequency %.4g).", q, total, num, freq),
	})
}

func (h *handlers) constraintOf(g *gene) (*mcp.CallToolResult, error) {
	c := obj{"entrezId": g.EntrezID}
	for k, v := range h.fx().constraint[g.Symbol] {
		c[k] = v
	}
	return jsonResult(obj{"data": c})
}

func (h *handlers) gnomadByGeneSymbol(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupSymbol(req.GetString("gene_symbol", ""))
	if err != nil {
		return errResult(err)
	}
	return h.constraintOf(g)
}

func (h *handlers) gnomadByEntrezID(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupEntrez("entrez_id", req.GetString("entrez_id", ""))
	if err != nil {
		return errResult(err)
	}
	return h.constraintOf(g)
}

func (h *handlers) dgvByEntrezID(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupEntrez("entrez_id", req.GetString("entrez_id", ""))
	if err != nil {
		return errResult(err)
	}
	entries := h.fx().dgv[g.Symbol]
	if entries == nil {
		entries = []dgvEntry{}
	}
	out := obj{"gene": g.Symbol, "entrezId": g.EntrezID, "n_entries": len(entries), "data": entries}
	if len(entries) == 0 {
		out["message"] = fmt.Sprintf("No DGV entries found for %s.", g.Symbol)
	}
	return jsonResult(out)
}

func (h *handlers) geno2mpByEntrezID(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupEntrez("entrez_id", req.GetString("entrez_id", ""))
	if err != nil {
		return errResult(err)
	}
	counts := obj{"gene": g.Symbol, "entrezId": g.EntrezID}
	for k, v := range h.fx().geno2mp[g.Symbol] {
		counts[k] = v
	}
	return jsonResult(counts)
}

func (h *handlers) decipherByLocation(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	chr, err := parseChromosome(req.GetString("chr", ""))
	if err != nil {
		return errResult(err)
	}
	start, err := req.RequireInt("start")
	if err != nil {
		return errResult(err)
	}
	stop, err := req.RequireInt("stop")
	if err != nil {
		return errResult(err)
	}
	if stop < start {
		return toolError("stop (%d) must not be smaller than start (%d)", stop, start)
	}
	matches := []decipherRecord{}
	for _, r := range h.fx().decipher {
		if r.Chr == chr && r.Start <= stop && r.Stop >= start {
			matches = append(matches, r)
		}
	}
	out := obj{"query": fmt.Sprintf("chr%s:%d-%d (hg19)", chr, start, stop), "n_entries": len(matches), "data": matches}
	if len(matches) == 0 {
		out["message"] = fmt.Sprintf("No DECIPHER control variants overlap chr%s:%d-%d (hg19).", chr, start, stop)
	}
	return jsonResult(out)
}
