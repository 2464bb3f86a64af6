// Package evalcase loads evaluation cases from YAML files and evaluates their
// deterministic checks.
//
// A case file is a top-level YAML list whose items are one-key maps `case:`
// holding name, input, expected and optional category, as in MARRVEL-MCP's
// test_cases.yaml. Optional extensions add deterministic answer checks, tool
// expectations, a reference trajectory and a performance budget. Decoding is
// strict: unknown fields, wrong types, missing required fields, duplicate
// names, empty files, a second YAML document and YAML syntax errors are
// errors naming the file and line.
package evalcase

import (
	"path/filepath"
	"strings"
)

// defaultCategory is the category of cases that name none: the file's base
// name without extension.
func defaultCategory(file string) string {
	base := filepath.Base(file)
	return strings.TrimSuffix(base, filepath.Ext(base))
}
