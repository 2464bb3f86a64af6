// Package evaltest runs evaluation cases as go test subtests: every YAML
// case is a parallel subtest of its category's test function.
//
// A module of its own (mcpeval init writes one) declares a Suite and wires
// it to go test in a few lines (see the example): TestMain calls Main, one
// function per category calls Run, TestOtherCategories calls RunOther.
// This package's own tests are mcpeval's suite, the same way:
//
//	go test ./evaltest                      # every case
//	go test ./evaltest -run Gene -force     # categories containing "Gene", ignoring the cache
//	go test ./evaltest -args -h             # every setting, with its environment variable
//
// The case format and the record model (what case files hold and what a
// run writes to results.jsonl, summary.json and the metrics files) are
// package eval below this one, for a user's own code to read them.
package evaltest

import (
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
)

// LoadCases loads the cases of a case file, or of every *.yaml and *.yml
// file below a directory. Decoding is strict: every problem is an error
// naming the file and line.
func LoadCases(path string) ([]eval.Case, error) { return evalcase.LoadPath(path) }
