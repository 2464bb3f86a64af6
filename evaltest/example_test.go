package evaltest_test

import (
	"fmt"
	"testing"

	"github.com/mcpeval/mcpeval/evaltest"
)

// evaluation is a module's suite: its case files (cases/ under the module
// root, or EVAL_CASES) against the MCP servers of its .mcp.json, unless
// EVAL_SERVER or EVAL_SERVERS_FILE names others. Generated lists the
// categories with a test function of their own; in a module it is the
// variable of categories_test.go, which
//
//	//go:generate go tool mcpeval generate -cases ../cases -o categories_test.go
//
// writes from the case files (mcpeval init sets all of this up).
var evaluation = evaltest.New(evaltest.Config{
	Generated:   []string{"Gene Lookup", "Variant Scores"},
	ServersFile: ".mcp.json",
})

// In a module's test file, these are TestMain, TestOtherCategories and,
// in categories_test.go, one function per category:
//
//	func TestMain(m *testing.M)            { evaluation.Main(m) }
//	func TestOtherCategories(t *testing.T) { evaluation.RunOther(t) }
//	func TestGeneLookup(t *testing.T)      { evaluation.Run(t, "Gene Lookup") }
func exampleTestMain(m *testing.M)            { evaluation.Main(m) }
func exampleTestOtherCategories(t *testing.T) { evaluation.RunOther(t) }
func exampleTestGeneLookup(t *testing.T)      { evaluation.Run(t, "Gene Lookup") }

// An evaluation module's test file wires the suite to go test: TestMain
// reads the settings, loads the cases and connects the servers; each
// category's function runs its cases as parallel subtests, and
// TestOtherCategories the categories without a function of their own.
// -run selects categories by name either way:
//
//	go test ./evaltest -run 'Gene Lookup'            # the two Gene Lookup cases
//	go test ./evaltest -run 'Gene Lookup/Entrez ID'  # and a case of it
//
// The cases are those of a YAML case file, as LoadCases reads them.
func Example() {
	cases, err := evaltest.LoadCases("../cmd/mcpeval/internal/initcmd/template/cases/sample.yaml.tmpl")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cases {
		fmt.Printf("%s / %s: %d reference calls\n", c.Category, c.Name, len(c.Reference))
	}
	// Output:
	// Gene Lookup / Entrez ID of NUTM2G: 1 reference calls
	// Gene Lookup / Entrez IDs of TP53 and BRCA1: 2 reference calls
	// Variant Scores / CADD phred score of NM_001045477.4:c.187C>T: 2 reference calls
}
