// Package sampleserver is a stand-in for the MARRVEL-MCP server (rare-disease
// genetics tools) that needs no internet: it offers the same tool names and
// argument shapes as the real server and answers from a small embedded
// fixture dataset (data/*.json) with JSON shaped like the real responses.
//
// The data is an evaluation fixture, not a reference database: it covers the
// genes NUTM2G, MECP2, TP53, BRCA1, BRCA2 and CFTR and a few variants in each.
// Bad arguments, unknown genes and malformed HGVS become IsError tool results
// a model can act on; a well-formed query that the data does not cover is
// answered with JSON saying that no data was found.
package sampleserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hbollon/go-edlib"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Name and Version identify the server in the MCP handshake; the version
// it serves also names its data (ServedVersion).
const (
	Name    = "marrvel-sample"
	Version = "1.0.0"
)

// ExampleGenesURI is the resource listing the fixture's genes.
const ExampleGenesURI = "reference://example-genes"

const instructions = "MARRVEL-MCP sample server for rare disease research: query genes (symbol, Entrez ID, position), " +
	"analyze variants (dbNSFP, ClinVar, gnomAD, DGV, DECIPHER, Geno2MP), find disease associations (OMIM, HPO), " +
	"discover orthologs (DIOPT), tissue expression (GTEx), drug targets (Pharos) and protein interactions (STRING). " +
	"Convert HGVS cDNA notation to genomic coordinates and protein changes; lift over between genome builds. " +
	"Default coordinates: hg19/GRCh37. State clearly when data is unavailable. " +
	"This server answers from a small fixture dataset (genes NUTM2G, MECP2, TP53, BRCA1, BRCA2, CFTR) for evaluation, " +
	"not from the live MARRVEL databases."

// New builds the sample server with all tools and the example-genes
// resource. The fixture loads in the background from here on, while a
// client connects and lists the tools (it takes longer than both); the
// first call that needs it waits for it. A malformed fixture, which the
// package tests rule out, panics in that call.
func New() *server.MCPServer {
	load := sync.OnceValues(loadFixture)
	go load()
	fx := func() *fixture {
		fx, err := load()
		if err != nil {
			panic(fmt.Sprintf("sampleserver: %v", err))
		}
		return fx
	}
	pandas := NewPandas(PandasConfig{}) // run_pandas and list_datasets (pandas.go)
	s := server.NewMCPServer(Name, ServedVersion(pandas.cfg.Datasets),
		server.WithInstructions(instructions),
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithInputSchemaValidation(),
		server.WithRecovery(),
		server.WithToolHandlerMiddleware(traceCalls),
	)
	h := &handlers{fx: fx}
	for _, group := range [][]server.ServerTool{h.geneTools(), h.variantTools(), h.diseaseTools(), h.orthologTools(), pandas.Tools()} {
		s.AddTools(encodedSchemas(group)...)
	}
	s.AddResource(mcp.NewResource(ExampleGenesURI, "example-genes",
		mcp.WithResourceDescription("Gene symbols and Entrez IDs covered by the sample dataset."),
		mcp.WithMIMEType("application/json"),
	), h.exampleGenes)
	return s
}

// encodedSchemas gives each tool its input schema encoded once, as the
// same JSON: the server checks the arguments of every call against the
// schema (WithInputSchemaValidation), and a schema it has only in
// structured form it encodes again for each call.
func encodedSchemas(tools []server.ServerTool) []server.ServerTool {
	for i := range tools {
		t := &tools[i].Tool
		if t.RawInputSchema != nil {
			continue
		}
		raw, err := json.Marshal(t.InputSchema)
		if err != nil {
			panic(fmt.Sprintf("sampleserver: tool %s: %v", t.Name, err))
		}
		t.RawInputSchema, t.InputSchema = raw, mcp.ToolInputSchema{}
	}
	return tools
}

// handlers implements the tools over one fixture, loaded on first use.
type handlers struct {
	fx func() *fixture
}

func (h *handlers) exampleGenes(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	type entry struct {
		EntrezID    string `json:"entrez_id"`
		Description string `json:"description"`
	}
	genes := make(map[string]entry, len(h.fx().genes))
	for _, g := range h.fx().genes {
		genes[g.Symbol] = entry{EntrezID: fmt.Sprint(g.EntrezID), Description: g.Name}
	}
	text, err := encodeJSON(genes)
	if err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{
		URI: req.Params.URI, MIMEType: "application/json", Text: text,
	}}, nil
}

// encodeJSON renders v as indented JSON without HTML escaping, so HGVS
// strings such as c.187C>T stay readable.
func encodeJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encode response: %w", err)
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// jsonResult is a successful tool result holding v as JSON text.
func jsonResult(v any) (*mcp.CallToolResult, error) {
	text, err := encodeJSON(v)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(text), nil
}

// toolError is an IsError tool result the model can read and act on.
func toolError(format string, args ...any) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultError(fmt.Sprintf(format, args...)), nil
}

// errResult turns an argument error into an IsError tool result.
func errResult(err error) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultError(err.Error()), nil
}

// obj is a JSON object for small ad-hoc responses (encoded with sorted keys).
type obj = map[string]any

// lookupSymbol resolves a human gene symbol or returns an error message that
// tells the model how to recover.
func (h *handlers) lookupSymbol(symbol string) (*gene, error) {
	s := strings.ToUpper(strings.TrimSpace(symbol))
	if g, ok := h.fx().bySymbol[s]; ok {
		return g, nil
	}
	var hints []string
	for _, g := range h.fx().genes {
		for _, a := range g.Alias {
			if strings.EqualFold(a, s) {
				hints = append(hints, fmt.Sprintf("%s is an alias of %s", symbol, g.Symbol))
			}
		}
		if s != "" && (strings.HasPrefix(g.Symbol, s) || strings.HasPrefix(s, g.Symbol) || edlib.LevenshteinDistance(s, g.Symbol) <= 2) {
			hints = append(hints, "did you mean "+g.Symbol+"?")
		}
	}
	msg := fmt.Sprintf("Unknown gene symbol %q: no human gene (taxon 9606) with this symbol. Check the symbol and use the official HGNC gene symbol", symbol)
	if len(hints) > 0 {
		msg += " (" + strings.Join(hints, "; ") + ")"
	}
	return nil, fmt.Errorf("%s. This sample dataset covers: %s", msg, strings.Join(h.fx().symbols(), ", "))
}

// lookupEntrez resolves a human Entrez Gene ID given as a string.
func (h *handlers) lookupEntrez(name, raw string) (*gene, error) {
	id, err := parseEntrezID(name, raw)
	if err != nil {
		return nil, err
	}
	if g, ok := h.fx().byEntrez[id]; ok {
		return g, nil
	}
	return nil, fmt.Errorf("unknown Entrez Gene ID %d: no human gene with this ID. Check the ID, or look it up with get_gene_by_symbol (for example NUTM2G has Entrez ID 441457). This sample dataset covers: %s",
		id, strings.Join(h.fx().symbols(), ", "))
}
