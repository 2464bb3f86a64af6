package sampleserver

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func (h *handlers) orthologTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: newTool("get_diopt_orthologs_by_entrez_id",
			"Find orthologs of a human gene across model organisms (mouse, rat, zebrafish, fly, worm, yeast) with DIOPT scores and confidence.",
			entrezParam()), Handler: h.dioptOrthologs},
		{Tool: newTool("get_diopt_alignment",
			"Get UniProt protein information (accession, protein name, length), protein domains and ortholog sequence identity for a human gene.",
			entrezParam()), Handler: h.dioptAlignment},
		{Tool: newTool("get_ontology_across_diopt_orthologs",
			"Get the Gene Ontology (GO) terms (molecular function, biological process, cellular component) of a human gene's ortholog in a given species.",
			entrezParam(),
			mcp.WithInteger("taxon_id2", mcp.Required(), mcp.Description("NCBI taxonomy ID of the ortholog's species, e.g. 7227 (fly) or 10090 (mouse)"))),
			Handler: h.orthologOntology},
		{Tool: newTool("get_gtex_expression",
			"Get GTEx tissue-specific gene expression across 54 human tissues (median TPM), grouped by tissue category.",
			entrezParam()), Handler: h.gtexExpression},
		{Tool: newTool("get_ortholog_expression",
			"Get expression annotation counts across anatomy, developmental stages and cellular components for the model-organism orthologs of a human gene.",
			entrezParam()), Handler: h.orthologExpression},
		{Tool: newTool("get_pharos_targets",
			"Get drug target information from Pharos for a gene: target development level (Tclin, Tchem, Tbio, Tdark), approved drugs and active ligands.",
			entrezParam()), Handler: h.pharosTargets},
		{Tool: newTool("get_string_interactions_by_entrez_id",
			"List STRING protein-protein interactions of a gene with their evidence scores.",
			entrezParam()), Handler: h.stringInteractions},
		{Tool: newTool("get_string_interactions_between_entrez_ids",
			"Get the STRING protein interaction between two genes (by Entrez Gene ID), if any.",
			mcp.WithString("entrez_id1", mcp.Required(), mcp.Description(`Entrez Gene ID of the first gene, e.g. "7157"`)),
			mcp.WithString("entrez_id2", mcp.Required(), mcp.Description(`Entrez Gene ID of the second gene, e.g. "4193"`))),
			Handler: h.stringBetween},
	}
}

// modelOrganisms are the species DIOPT reports on.
var modelOrganisms = []struct {
	taxon int
	name  string
}{
	{10090, "Mus musculus (mouse)"}, {10116, "Rattus norvegicus (rat)"}, {7955, "Danio rerio (zebrafish)"},
	{7227, "Drosophila melanogaster (fly)"}, {6239, "Caenorhabditis elegans (worm)"}, {4932, "Saccharomyces cerevisiae (yeast)"},
}

func (h *handlers) dioptOrthologs(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupEntrez("entrez_id", req.GetString("entrez_id", ""))
	if err != nil {
		return errResult(err)
	}
	records := []dioptRecord{}
	found := map[int]bool{}
	for _, o := range h.fx().orthologs[g.Symbol] {
		found[o.TaxonID2] = true
		records = append(records, o.dioptRecord)
	}
	missing := []string{}
	for _, m := range modelOrganisms {
		if !found[m.taxon] {
			missing = append(missing, m.name)
		}
	}
	out := obj{"gene": g.Symbol, "entrezId": g.EntrezID,
		"data":                   obj{"dioptOrthologsByEntrezId": records},
		"speciesWithoutOrtholog": missing}
	if len(missing) > 0 {
		out["message"] = fmt.Sprintf("No DIOPT ortholog of %s found in: %s.", g.Symbol, strings.Join(missing, ", "))
	}
	return jsonResult(out)
}

func (h *handlers) dioptAlignment(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupEntrez("entrez_id", req.GetString("entrez_id", ""))
	if err != nil {
		return errResult(err)
	}
	a := h.fx().alignments[g.Symbol]
	identities := []obj{}
	for _, o := range h.fx().orthologs[g.Symbol] {
		identities = append(identities, obj{"species": o.Species2, "symbol": o.Symbol2, "identityPercent": o.Identity})
	}
	return jsonResult(obj{"gene": g.Symbol, "entrezId": g.EntrezID, "uniprotId": g.UniprotKBID,
		"proteinName": g.ProteinName, "length": a.Length, "domains": a.Domains, "alignment": identities})
}

func (h *handlers) orthologOntology(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupEntrez("entrez_id", req.GetString("entrez_id", ""))
	if err != nil {
		return errResult(err)
	}
	taxon, err := req.RequireInt("taxon_id2")
	if err != nil {
		return errResult(err)
	}
	for _, o := range h.fx().orthologs[g.Symbol] {
		if o.TaxonID2 != taxon {
			continue
		}
		terms := map[string]goTerm{}
		for _, t := range o.GO {
			terms[t.ID] = t
		}
		out := obj{"gene": g.Symbol, "taxonId2": taxon, "species2": o.Species2, "ortholog": o.Symbol2, "goTerms": terms}
		if len(terms) == 0 {
			out["message"] = fmt.Sprintf("No GO annotations found for %s (%s ortholog of %s).", o.Symbol2, o.Species2, g.Symbol)
		}
		return jsonResult(out)
	}
	return jsonResult(obj{"gene": g.Symbol, "taxonId2": taxon, "goTerms": obj{},
		"message": fmt.Sprintf("No DIOPT ortholog of %s found in taxon %d, so no GO terms are available.", g.Symbol, taxon)})
}

func (h *handlers) gtexExpression(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupEntrez("entrez_id", req.GetString("entrez_id", ""))
	if err != nil {
		return errResult(err)
	}
	return jsonResult(obj{"gene": g.Symbol, "entrezId": g.EntrezID, "unit": "median TPM", "data": h.fx().gtex[g.Symbol]})
}

func (h *handlers) orthologExpression(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupEntrez("entrez_id", req.GetString("entrez_id", ""))
	if err != nil {
		return errResult(err)
	}
	entries := []obj{}
	for _, o := range h.fx().orthologs[g.Symbol] {
		if o.Expression == nil {
			continue
		}
		entries = append(entries, obj{"taxonId2": o.TaxonID2, "species2": o.Species2, "symbol2": o.Symbol2,
			"entrezId2": o.EntrezID2, "expressionSummary": o.Expression})
	}
	out := obj{"gene": g.Symbol, "data": entries}
	if len(entries) == 0 {
		out["message"] = fmt.Sprintf("No ortholog expression annotations found for %s.", g.Symbol)
	}
	return jsonResult(out)
}

func (h *handlers) pharosTargets(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupEntrez("entrez_id", req.GetString("entrez_id", ""))
	if err != nil {
		return errResult(err)
	}
	p := h.fx().pharos[g.Symbol]
	drugs, ligands := p.Drugs, p.Ligands
	if drugs == nil {
		drugs = []pharosDrug{}
	}
	if ligands == nil {
		ligands = []pharosLigand{}
	}
	target := obj{"name": g.ProteinName, "sym": g.Symbol, "uniprot": g.UniprotKBID, "tdl": p.TDL, "fam": p.Fam,
		"novelty": p.Novelty, "publicationCount": p.PublicationCount,
		"drugCount": len(drugs), "ligandCount": len(ligands), "drugs": drugs, "ligands": ligands}
	out := obj{"data": obj{"target": target}}
	if len(drugs) == 0 && len(ligands) == 0 {
		out["message"] = fmt.Sprintf("No approved drugs or active ligands found for %s.", g.Symbol)
	}
	return jsonResult(out)
}

func (h *handlers) stringInteractions(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupEntrez("entrez_id", req.GetString("entrez_id", ""))
	if err != nil {
		return errResult(err)
	}
	list := h.sortedInteractions(g)
	return jsonResult(obj{"gene": g.Symbol, "entrezId": g.EntrezID,
		"data": obj{"stringInteractionsByEntrezId": list, "totalInteractions": len(list)}})
}

func (h *handlers) sortedInteractions(g *gene) []interaction {
	list := append([]interaction{}, h.fx().stringDB[g.Symbol]...)
	sort.SliceStable(list, func(i, j int) bool { return list[i].CombExpDB > list[j].CombExpDB })
	return list
}

func (h *handlers) stringBetween(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw1, raw2 := req.GetString("entrez_id1", ""), req.GetString("entrez_id2", "")
	id2, err := parseEntrezID("entrez_id2", raw2)
	if err != nil {
		return errResult(err)
	}
	g, err := h.lookupEntrez("entrez_id1", raw1)
	if err != nil {
		// the data is indexed by its own genes: try the pair the other way round
		other, err2 := h.lookupEntrez("entrez_id2", raw2)
		if err2 != nil {
			return errResult(err)
		}
		id1, err1 := parseEntrezID("entrez_id1", raw1)
		if err1 != nil {
			return errResult(err1)
		}
		g, id2 = other, id1
	}
	matches := []interaction{}
	for _, i := range h.sortedInteractions(g) {
		if i.EntrezID2 == id2 {
			matches = append(matches, i)
		}
	}
	out := obj{"gene": g.Symbol, "entrezId": g.EntrezID, "partnerEntrezId": id2,
		"data": obj{"stringInteractionsByEntrezId": matches, "totalInteractions": len(matches)}}
	partner := fmt.Sprintf("Entrez %d", id2)
	if p, ok := h.fx().byEntrez[id2]; ok { // name the partner, as the gene is named
		out["partnerGene"] = p.Symbol
		partner = fmt.Sprintf("%s (Entrez %d)", p.Symbol, id2)
	}
	if len(matches) == 0 {
		out["message"] = fmt.Sprintf("No STRING interaction found between %s (Entrez %d) and %s.", g.Symbol, g.EntrezID, partner)
	}
	return jsonResult(out)
}
