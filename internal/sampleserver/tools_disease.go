package sampleserver

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func (h *handlers) diseaseTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: newTool("get_omim_by_mim_number",
			"Retrieve an OMIM entry by MIM number: a gene entry (with its phenotypes and allelic variants) or a phenotype entry (with its genes).",
			mcp.WithString("mim_number", mcp.Required(), mcp.Description(`Six-digit OMIM number, e.g. "300005"`))),
			Handler: h.omimByMimNumber},
		{Tool: newTool("get_omim_by_gene_symbol",
			"Find the OMIM gene entry of a gene symbol with all associated Mendelian phenotypes (inheritance, phenotype MIM numbers) and allelic variants.",
			symbolParam()), Handler: h.omimByGeneSymbol},
		{Tool: newTool("get_omim_variant",
			"Get OMIM allelic-variant records for a variant of a gene, with the associated phenotype.",
			symbolParam(),
			mcp.WithString("variant", mcp.Required(), mcp.Description(`Protein change ("p.R133C", "p.Arg133Cys", "R133C"), cDNA change ("c.397C>T") or dbSNP ID ("rs28934907")`))),
			Handler: h.omimVariant},
		{Tool: newTool("search_omim_by_disease_name",
			"Search OMIM by disease name or keyword to find matching genetic disorders and their associated genes.",
			mcp.WithString("disease_name", mcp.Required(), mcp.Description(`Disease name or keyword, e.g. "Rett syndrome"`))),
			Handler: h.searchOmim},
		{Tool: newTool("search_hpo_terms",
			"Search Human Phenotype Ontology (HPO) terms by phenotype name or synonym.",
			mcp.WithString("phenotype_query", mcp.Required(), mcp.Description(`Phenotype text, e.g. "seizure"`))),
			Handler: h.searchHPO},
		{Tool: newTool("get_hpo_associated_genes",
			"Get the genes associated with an HPO term, for phenotype-driven gene discovery.",
			mcp.WithString("hpo_id", mcp.Required(), mcp.Description(`HPO term ID, e.g. "HP:0001250"`))),
			Handler: h.hpoGenes},
	}
}

var mimPattern = regexp.MustCompile(`^(?i:(?:OMIM|MIM)\s*:?\s*)?[*#%+^]?(\d{6})$`)

func (h *handlers) omimByMimNumber(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw := req.GetString("mim_number", "")
	m := mimPattern.FindStringSubmatch(strings.TrimSpace(raw))
	if m == nil {
		return toolError("mim_number must be a six-digit OMIM number such as \"300005\"; got %q. Use search_omim_by_disease_name or get_omim_by_gene_symbol to find MIM numbers", raw)
	}
	for _, e := range h.fx().omim {
		if fmt.Sprint(e.MimNumber) == m[1] {
			return jsonResult(e)
		}
	}
	return jsonResult(obj{"mimNumber": m[1], "message": fmt.Sprintf("No OMIM entry found for MIM number %s.", m[1])})
}

// omimGeneEntry returns the OMIM gene entry of a fixture gene, or nil.
func (h *handlers) omimGeneEntry(g *gene) *omimEntry {
	for i, e := range h.fx().omim {
		if e.GeneSymbol == g.Symbol {
			return &h.fx().omim[i]
		}
	}
	return nil
}

func (h *handlers) omimByGeneSymbol(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupSymbol(req.GetString("gene_symbol", ""))
	if err != nil {
		return errResult(err)
	}
	e := h.omimGeneEntry(g)
	if e == nil {
		return jsonResult(obj{"geneSymbol": g.Symbol, "phenotypes": []omimPhenotype{},
			"message": fmt.Sprintf("No OMIM entry found for %s: the gene has no OMIM gene entry and no associated Mendelian phenotypes.", g.Symbol)})
	}
	return jsonResult(e)
}

var omimChangePattern = regexp.MustCompile(`^(?:P\.)?\(?([A-Z]{3}|[A-Z])(\d+)([A-Z]{3}|[A-Z*])\)?$`)

// omimMutation normalises a protein change to OMIM's "ARG133CYS" form.
func omimMutation(s string) (string, bool) {
	m := omimChangePattern.FindStringSubmatch(strings.ToUpper(strings.TrimSpace(s)))
	if m == nil {
		return "", false
	}
	from, ok1 := threeLetterUpper(m[1])
	to, ok2 := threeLetterUpper(m[3])
	return from + m[2] + to, ok1 && ok2
}

func threeLetterUpper(aa string) (string, bool) {
	if len(aa) == 3 {
		for three := range threeToOne {
			if strings.ToUpper(three) == aa {
				return aa, true
			}
		}
		return "", false
	}
	if aa == "*" || aa == "X" {
		return "TER", true
	}
	for three, one := range threeToOne {
		if one == aa {
			return strings.ToUpper(three), true
		}
	}
	return "", false
}

func (h *handlers) omimVariant(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	g, err := h.lookupSymbol(req.GetString("gene_symbol", ""))
	if err != nil {
		return errResult(err)
	}
	raw := strings.TrimSpace(req.GetString("variant", ""))
	var match func(av omimAllelicVariant) bool
	switch {
	case rsidPattern.MatchString(raw) && strings.HasPrefix(strings.ToLower(raw), "rs"):
		rsid := strings.ToLower(raw)
		match = func(av omimAllelicVariant) bool { return strings.EqualFold(av.DBSnps, rsid) }
	case strings.HasPrefix(raw, "c."):
		mutation := ""
		for _, v := range h.fx().variantsOf(g.Symbol) {
			if v.CDNA == raw {
				mutation, _ = omimMutation(v.ProteinChange)
			}
		}
		match = func(av omimAllelicVariant) bool {
			return mutation != "" && strings.HasSuffix(av.Mutations, ", "+mutation)
		}
	default:
		mutation, ok := omimMutation(raw)
		if !ok {
			return toolError("variant %q is not a recognised form: give a protein change (\"p.R133C\", \"p.Arg133Cys\", \"R133C\"), a cDNA change (\"c.397C>T\") or a dbSNP ID (\"rs28934907\")", raw)
		}
		match = func(av omimAllelicVariant) bool { return strings.HasSuffix(av.Mutations, ", "+mutation) }
	}
	e := h.omimGeneEntry(g)
	matches := []omimAllelicVariant{}
	if e != nil {
		for _, av := range e.AllelicVariants {
			if match(av) {
				matches = append(matches, av)
			}
		}
	}
	out := obj{"geneSymbol": g.Symbol, "variant": raw, "allelicVariants": matches}
	if e != nil {
		out["mimNumber"] = e.MimNumber
	}
	if len(matches) == 0 {
		out["message"] = fmt.Sprintf("No OMIM allelic variant of %s matches %s.", g.Symbol, raw)
	}
	return jsonResult(out)
}

// containsWords reports whether every word of query occurs in text.
func containsWords(text, query string) bool {
	text = strings.ToLower(text)
	words := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return r == ' ' || r == ',' || r == '-' || r == '\'' || r == ';'
	})
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

func (h *handlers) searchOmim(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	query := strings.TrimSpace(req.GetString("disease_name", ""))
	if query == "" {
		return toolError("disease_name must not be empty; give a disease name or keyword such as \"Rett syndrome\"")
	}
	type hit struct {
		MimNumber   int      `json:"mimNumber"`
		Title       string   `json:"title"`
		Inheritance string   `json:"inheritance,omitempty"`
		Genes       []string `json:"genes"`
	}
	hits := []hit{}
	seen := map[int]bool{}
	for _, e := range h.fx().omim {
		if e.Prefix == "#" && containsWords(e.Title, query) && !seen[e.MimNumber] {
			seen[e.MimNumber] = true
			hits = append(hits, hit{MimNumber: e.MimNumber, Title: e.Title, Inheritance: e.Inheritance, Genes: e.GeneSymbols})
		}
	}
	for _, e := range h.fx().omim {
		for _, p := range e.Phenotypes {
			if containsWords(p.Phenotype, query) && !seen[p.PhenotypeMimNumber] {
				seen[p.PhenotypeMimNumber] = true
				hits = append(hits, hit{MimNumber: p.PhenotypeMimNumber, Title: p.Phenotype,
					Inheritance: p.PhenotypeInheritance, Genes: []string{e.GeneSymbol}})
			}
		}
	}
	out := obj{"query": query, "total": len(hits), "results": hits}
	if len(hits) == 0 {
		out["message"] = fmt.Sprintf("No OMIM phenotype found matching %q.", query)
	}
	return jsonResult(out)
}

func (h *handlers) searchHPO(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	query := strings.TrimSpace(req.GetString("phenotype_query", ""))
	if query == "" {
		return toolError("phenotype_query must not be empty; give a phenotype such as \"seizure\"")
	}
	type termHit struct {
		ID         string   `json:"id"`
		Name       string   `json:"name"`
		Definition string   `json:"definition"`
		Synonyms   []string `json:"synonyms"`
	}
	terms := []termHit{}
	for _, t := range h.fx().hpo {
		if containsWords(t.Name+" | "+strings.Join(t.Synonyms, " | "), query) {
			terms = append(terms, termHit{ID: t.ID, Name: t.Name, Definition: t.Definition, Synonyms: t.Synonyms})
		}
	}
	out := obj{"query": query, "total_terms": len(terms), "terms": terms}
	if len(terms) == 0 {
		out["message"] = fmt.Sprintf("No HPO terms found for query: %s", query)
	}
	return jsonResult(out)
}

func (h *handlers) hpoGenes(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw := req.GetString("hpo_id", "")
	id := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(raw), "_", ":"))
	if !hpoIDPattern.MatchString(id) {
		return toolError("hpo_id must be an HPO term ID of the form HP:0000000 (e.g. \"HP:0001250\"); got %q. Use search_hpo_terms to find the ID of a phenotype", raw)
	}
	for _, t := range h.fx().hpo {
		if t.ID == id {
			return jsonResult(obj{"hpo_id": id, "name": t.Name, "gene_count": len(t.Genes), "genes": t.Genes})
		}
	}
	return jsonResult(obj{"hpo_id": id, "gene_count": 0, "genes": []hpoGene{},
		"message": fmt.Sprintf("No genes associated with %s were found.", id)})
}
