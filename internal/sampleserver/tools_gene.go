package sampleserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Parameter definitions shared by several tools.

func entrezParam() mcp.ToolOption {
	return mcp.WithString("entrez_id", mcp.Required(),
		mcp.Description(`NCBI Entrez Gene ID as a string, e.g. "441457" (NUTM2G) or "7157" (TP53)`))
}

func symbolParam() mcp.ToolOption {
	return mcp.WithString("gene_symbol", mcp.Required(),
		mcp.Description(`Official HGNC gene symbol, e.g. "NUTM2G" or "TP53"`))
}

// variantParams are chr, pos, ref and alt, all strings as upstream has them.
func variantParams() []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithString("chr", mcp.Required(), mcp.Description(`Chromosome, e.g. "9" or "chr9"`)),
		mcp.WithString("pos", mcp.Required(), mcp.Description(`Genomic position (1-based) as a string, e.g. "99694174"`)),
		mcp.WithString("ref", mcp.Required(), mcp.Description(`Reference allele, e.g. "C"`)),
		mcp.WithString("alt", mcp.Required(), mcp.Description(`Alternate allele, e.g. "T"`)),
	}
}

func buildParam(required bool) mcp.ToolOption {
	opts := []mcp.PropertyOption{mcp.Description(`Genome build: "hg19" (GRCh37, default coordinates) or "hg38" (GRCh38)`)}
	if required {
		opts = append(opts, mcp.Required())
	} else {
		opts = append(opts, mcp.DefaultString("hg19"))
	}
	return mcp.WithString("build", opts...)
}

func newTool(name, description string, opts ...mcp.ToolOption) mcp.Tool {
	return mcp.NewTool(name, append([]mcp.ToolOption{mcp.WithDescription(description)}, opts...)...)
}

func (h *handlers) geneTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: newTool("get_gene_by_entrez_id",
			"Retrieve comprehensive gene information by NCBI Entrez Gene ID including name, symbol, Ensembl gene ID, UniProt ID and protein name, location (hg19 and hg38) and summary.",
			entrezParam()), Handler: h.geneByEntrezID},
		{Tool: newTool("get_gene_by_symbol",
			"Find gene information including Entrez ID, UniProt ID and protein name, Ensembl ID, name and location for a gene symbol and species (human by default; also mouse, rat, zebrafish, fly, worm orthologs).",
			symbolParam(),
			mcp.WithString("taxon_id", mcp.DefaultString("9606"),
				mcp.Description(`NCBI taxonomy ID: "9606" human (default), "10090" mouse, "10116" rat, "7955" zebrafish, "7227" fly, "6239" worm`))),
			Handler: h.geneBySymbol},
		{Tool: newTool("get_gene_by_position",
			"Find the genes overlapping a chromosomal position.",
			mcp.WithString("chromosome", mcp.Required(), mcp.Description(`Chromosome, e.g. "9" or "chr9"`)),
			mcp.WithInteger("position", mcp.Required(), mcp.Min(1), mcp.Description("Genomic position (1-based), e.g. 99694174")),
			buildParam(false)),
			Handler: h.geneByPosition},
		{Tool: newTool("convert_hgvs_to_genomic",
			"Convert HGVS variant nomenclature (cDNA notation like NM_001045477.4:c.187C>T, or genomic notation like NC_000009.11:g.99694174C>T) to genomic coordinates (chr, pos, ref, alt) with the gene, transcript and protein change. Output coordinates are hg19/GRCh37 (hg38 given as hg38Pos). Essential first step before dbNSFP, ClinVar or gnomAD lookups of cDNA variants.",
			mcp.WithString("hgvs_variant", mcp.Required(), mcp.Description(`HGVS variant, e.g. "NM_001045477.4:c.187C>T"`))),
			Handler: h.convertHGVS},
		{Tool: newTool("convert_protein_variant",
			"Convert a protein-level variant (gene symbol and protein change) to genomic coordinates and cDNA change using Transvar-style annotation.",
			mcp.WithString("protein_variant", mcp.Required(), mcp.Description(`Gene symbol and protein change, e.g. "NUTM2G:p.P63S" or "MECP2:p.Arg133Cys"`))),
			Handler: h.convertProteinVariant},
		{Tool: newTool("convert_rsid_to_variant",
			"Convert a dbSNP rsID to a variant in chr-pos-ref-alt form (hg19/GRCh37, with the hg38 position) and its gene.",
			mcp.WithString("rsid", mcp.Required(), mcp.Description(`dbSNP identifier, e.g. "rs28934906"`))),
			Handler: h.convertRSID},
		{Tool: newTool("liftover_hg19_to_hg38",
			"Convert a genome coordinate from hg19/GRCh37 to hg38/GRCh38.",
			mcp.WithString("chr", mcp.Required(), mcp.Description(`Chromosome, e.g. "9"`)),
			mcp.WithInteger("pos", mcp.Required(), mcp.Min(1), mcp.Description("hg19 position, e.g. 99694174"))),
			Handler: h.liftoverTo(hg38)},
		{Tool: newTool("liftover_hg38_to_hg19",
			"Convert a genome coordinate from hg38/GRCh38 to hg19/GRCh37 for MARRVEL tool compatibility.",
			mcp.WithString("chr", mcp.Required(), mcp.Description(`Chromosome, e.g. "9"`)),
			mcp.WithInteger("pos", mcp.Required(), mcp.Min(1), mcp.Description("hg38 position, e.g. 96931892"))),
			Handler: h.liftoverTo(hg19)},
	}
}

// geneRecord is the gene shape of MARRVEL's gene queries.
type geneRecord struct {
	Alias              []string `json:"alias"`
	Chr                string   `json:"chr"`
	Band               string   `json:"band"`
	Strand             string   `json:"strand"`
	EntrezID           int      `json:"entrezId"`
	Hg19Start          int      `json:"hg19Start"`
	Hg19Stop           int      `json:"hg19Stop"`
	Hg38Start          int      `json:"hg38Start"`
	Hg38Stop           int      `json:"hg38Stop"`
	HgncID             string   `json:"hgncId"`
	LocusType          string   `json:"locusType"`
	Name               string   `json:"name"`
	Status             string   `json:"status"`
	Symbol             string   `json:"symbol"`
	TaxonID            int      `json:"taxonId"`
	UniprotKBID        string   `json:"uniprotKBId"`
	UniprotProteinName string   `json:"uniprotProteinName"`
	RefSeqTranscript   string   `json:"refSeqTranscript"`
	Summary            string   `json:"summary"`
	Xref               geneXref `json:"xref"`
}

type geneXref struct {
	EnsemblID string `json:"ensemblId"`
	OmimID    *int   `json:"omimId"`
}

func toGeneRecord(g *gene) geneRecord {
	return geneRecord{
		Alias: g.Alias, Chr: g.Chr, Band: g.Band, Strand: g.Strand, EntrezID: g.EntrezID,
		Hg19Start: g.Hg19Start, Hg19Stop: g.Hg19Stop, Hg38Start: g.Hg38Start, Hg38Stop: g.Hg38Stop,
		HgncID: g.HgncID, LocusType: g.LocusType, Name: g.Name, Status: g.Status, Symbol: g.Symbol,
		TaxonID: g.TaxonID, UniprotKBID: g.UniprotKBID, UniprotProteinName: g.ProteinName,
		RefSeqTranscript: g.Transcript, Summary: g.Summary,
		Xref: geneXref{EnsemblID: g.EnsemblID, OmimID: g.OmimID},
	}
}

// orthologRecord is a model-organism gene as the gene queries return it.
type orthologRecord struct {
	Symbol        string `json:"symbol"`
	EntrezID      int    `json:"entrezId"`
	TaxonID       int    `json:"taxonId"`
	Species       string `json:"species"`
	Name          string `json:"name"`
	HumanOrtholog string `json:"humanOrtholog"`
}

func toOrthologRecord(o orthologGene) orthologRecord {
	return orthologRecord{Symbol: o.Symbol2, EntrezID: o.EntrezID2, TaxonID: o.TaxonID2,
		Species: o.Species2, Name: o.Name2, HumanOrtholog: o.HumanSymbol}
}

func (h *handlers) geneByEntrezID(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw := req.GetString("entrez_id", "")
	if id, err := parseEntrezID("entrez_id", raw); err == nil {
		if o, ok := h.fx().orthologByEntrez[id]; ok {
			return jsonResult(obj{"data": obj{"geneByEntrezId": toOrthologRecord(o)}})
		}
	}
	g, err := h.lookupEntrez("entrez_id", raw)
	if err != nil {
		return errResult(err)
	}
	return jsonResult(obj{"data": obj{"geneByEntrezId": toGeneRecord(g)}})
}

func (h *handlers) geneBySymbol(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	symbol := req.GetString("gene_symbol", "")
	taxon := strings.TrimSpace(req.GetString("taxon_id", "9606"))
	if taxon == "" || taxon == "9606" {
		g, err := h.lookupSymbol(symbol)
		if err != nil {
			return errResult(err)
		}
		return jsonResult(obj{"data": obj{"geneBySymbol": toGeneRecord(g)}})
	}
	taxonID, err := strconv.Atoi(taxon)
	if err != nil {
		return toolError("taxon_id must be a numeric NCBI taxonomy ID such as \"9606\" (human) or \"10090\" (mouse); got %q", taxon)
	}
	genes, ok := h.fx().orthologBySymbol[taxonID]
	if !ok {
		return toolError("taxon_id %d is not covered by this sample dataset; use 9606 (human), 10090 (mouse), 10116 (rat), 7955 (zebrafish), 7227 (fly) or 6239 (worm)", taxonID)
	}
	o, ok := genes[strings.ToUpper(strings.TrimSpace(symbol))]
	if !ok {
		return toolError("Unknown gene symbol %q for taxon %d. Check the symbol (model-organism symbols differ from human ones, e.g. mouse Trp53 for human TP53); get_diopt_orthologs_by_entrez_id lists the orthologs of a human gene", symbol, taxonID)
	}
	return jsonResult(obj{"data": obj{"geneBySymbol": toOrthologRecord(o)}})
}

func (h *handlers) geneByPosition(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	chr, err := parseChromosome(req.GetString("chromosome", ""))
	if err != nil {
		return errResult(err)
	}
	pos, err := req.RequireInt("position")
	if err != nil {
		return errResult(err)
	}
	b, err := parseBuild(req.GetString("build", "hg19"))
	if err != nil {
		return errResult(err)
	}
	records := []geneRecord{}
	for _, g := range h.fx().genesAt(chr, pos, pos, b) {
		records = append(records, toGeneRecord(g))
	}
	out := obj{"data": obj{"genesByGenomicLocation": records}, "build": b}
	if len(records) == 0 {
		out["message"] = fmt.Sprintf("No gene found at chr%s:%d (%s).", chr, pos, b)
	}
	return jsonResult(out)
}

// conversion is the result shape of convert_hgvs_to_genomic.
type conversion struct {
	Input             string `json:"input"`
	Gene              string `json:"gene"`
	EntrezID          int    `json:"entrezId"`
	Transcript        string `json:"transcript"`
	CDNAChange        string `json:"cdnaChange"`
	ProteinChange     string `json:"proteinChange"`
	ProteinChangeLong string `json:"proteinChangeLong"`
	Consequence       string `json:"consequence"`
	Chr               string `json:"chr"`
	Pos               int    `json:"pos"`
	Ref               string `json:"ref"`
	Alt               string `json:"alt"`
	Build             string `json:"build"`
	Hg38Chr           string `json:"hg38Chr"`
	Hg38Pos           int    `json:"hg38Pos"`
	Variant           string `json:"variant"`
	RSID              string `json:"rsid,omitempty"`
}

func (h *handlers) toConversion(input string, v *variant) conversion {
	g := h.fx().bySymbol[v.Gene]
	return conversion{
		Input: input, Gene: v.Gene, EntrezID: g.EntrezID, Transcript: v.Transcript, CDNAChange: v.CDNA,
		ProteinChange: v.ProteinChange, ProteinChangeLong: v.ProteinChangeLong, Consequence: v.Consequence,
		Chr: v.Chr, Pos: v.Hg19Pos, Ref: v.Ref, Alt: v.Alt, Build: "hg19 (GRCh37)",
		Hg38Chr: v.Chr, Hg38Pos: v.Hg38Pos, Variant: fmt.Sprintf("%s-%d-%s-%s", v.Chr, v.Hg19Pos, v.Ref, v.Alt),
		RSID: v.RSID,
	}
}

func (h *handlers) convertHGVS(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	input := req.GetString("hgvs_variant", "")
	hv, err := parseHGVS(input)
	if err != nil {
		return errResult(err)
	}
	if hv.Position > 0 {
		for _, v := range h.fx().variants {
			if hv.Kind == "c" && strings.HasPrefix(v.Transcript, hv.Accession+".") &&
				v.CDNA == fmt.Sprintf("c.%d%s>%s", hv.Position, hv.Ref, hv.Alt) {
				return jsonResult(h.toConversion(input, v))
			}
			if hv.Kind == "g" {
				loc, ok := refSeqChromosomes[hv.Accession+"."+hv.Version]
				pos := v.Hg19Pos
				if loc.b == hg38 {
					pos = v.Hg38Pos
				}
				if ok && loc.chr == v.Chr && pos == hv.Position && v.Ref == hv.Ref && v.Alt == hv.Alt {
					return jsonResult(h.toConversion(input, v))
				}
			}
		}
	}
	return jsonResult(obj{
		"input":   input,
		"message": fmt.Sprintf("No data found: %s could not be mapped to genomic coordinates from the data available.", strings.TrimSpace(input)),
	})
}

func (h *handlers) convertProteinVariant(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	input := req.GetString("protein_variant", "")
	pc, err := parseProteinChange(input)
	if err != nil {
		return errResult(err)
	}
	g, err := h.lookupSymbol(pc.Gene)
	if err != nil {
		return errResult(err)
	}
	candidates := []obj{}
	for _, v := range h.fx().variantsOf(g.Symbol) {
		if v.ProteinChange != pc.Short {
			continue
		}
		candidates = append(candidates, obj{
			"transcript": v.Transcript, "gene": v.Gene, "strand": g.Strand,
			"coord":  fmt.Sprintf("chr%s:g.%d%s>%s/%s/%s", v.Chr, v.Hg19Pos, v.Ref, v.Alt, v.CDNA, v.ProteinChange),
			"region": "cds_in_exon", "chr": v.Chr, "pos": v.Hg19Pos, "ref": v.Ref, "alt": v.Alt,
			"hg38Chr": v.Chr, "hg38Pos": v.Hg38Pos, "cdnaChange": v.CDNA, "proteinChange": v.ProteinChange,
			"proteinChangeLong": v.ProteinChangeLong,
		})
	}
	out := obj{"input": input, "gene": g.Symbol, "build": "hg19", "candidates": candidates}
	if len(candidates) == 0 {
		out["message"] = fmt.Sprintf("No data found: no genomic variant of %s encodes %s in the data available.", g.Symbol, pc.Short)
	}
	return jsonResult(out)
}

func (h *handlers) convertRSID(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	input := req.GetString("rsid", "")
	m := rsidPattern.FindStringSubmatch(strings.TrimSpace(input))
	if m == nil {
		return toolError("rsid must be a dbSNP identifier such as \"rs28934906\"; got %q", input)
	}
	rsid := "rs" + m[1]
	for _, v := range h.fx().variants {
		if v.RSID == rsid {
			return jsonResult(obj{
				"rsid": rsid, "variant": fmt.Sprintf("%s-%d-%s-%s", v.Chr, v.Hg19Pos, v.Ref, v.Alt),
				"chr": v.Chr, "pos": v.Hg19Pos, "ref": v.Ref, "alt": v.Alt, "gene": v.Gene,
				"assembly": "GRCh37", "hg38Pos": v.Hg38Pos, "hgvs": v.Transcript + ":" + v.CDNA,
			})
		}
	}
	return jsonResult(obj{"rsid": rsid, "message": fmt.Sprintf("No data found: %s is not in the data available.", rsid)})
}

func (h *handlers) liftoverTo(to build) server.ToolHandlerFunc {
	from := hg19
	if to == hg19 {
		from = hg38
	}
	return func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		chr, err := parseChromosome(req.GetString("chr", ""))
		if err != nil {
			return errResult(err)
		}
		pos, err := req.RequireInt("pos")
		if err != nil {
			return errResult(err)
		}
		lifted, ok := h.fx().liftover(chr, pos, from)
		if !ok {
			return jsonResult(obj{
				string(from) + "Chr": chr, string(from) + "Pos": pos,
				"message": fmt.Sprintf("No data found: chr%s:%d (%s) lies outside the regions this sample server can lift over (around its genes).", chr, pos, from),
			})
		}
		return jsonResult(obj{
			string(from) + "Chr": chr, string(from) + "Pos": pos,
			string(to) + "Chr": chr, string(to) + "Pos": lifted,
		})
	}
}
