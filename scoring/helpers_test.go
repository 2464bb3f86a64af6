package scoring

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
	"github.com/mcpeval/mcpeval/internal/sampleserver"
)

var staffColumns = []string{"name", "department", "salary", "age", "gender", "hire_date", "total_sales",
	"min_price", "address"}

// staff is the schema of the tests' staff table.
var staff = grading.Schema{Columns: staffColumns}

var python = sync.OnceValues(sampleserver.Python)

// readCode reads each code's syntax tree the way the bundled server does
// (worker.py, with Python's own ast). It skips the test when there is no
// python3 (pandas is not needed), except under CI.
func readCode(t testing.TB, codes ...string) []*eval.CodeFacts {
	t.Helper()
	py, err := python()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err.Error())
	}
	facts, err := sampleserver.AnalyzeCode(context.Background(), py, codes)
	require.NoError(t, err)
	out := make([]*eval.CodeFacts, len(facts))
	for i := range facts {
		out[i] = &facts[i]
	}
	return out
}

// ran is an attempt whose code ran, with the server's report of it.
func ran(code string, facts *eval.CodeFacts, cpuSeconds float64) eval.Attempt {
	return eval.Attempt{Code: code, Execution: &eval.CodeExecution{Seconds: cpuSeconds, CPUSeconds: cpuSeconds, Facts: facts}}
}
