package scoring

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

func TestCorrectness(t *testing.T) {
	tests := []struct {
		parses, runs, matches bool
		want                  float64
	}{
		{true, true, true, 1},
		{true, true, false, 0.5},
		{true, false, false, 0.25},
		{false, false, false, 0},
	}
	for _, tt := range tests {
		c := codeCorrectness(tt.parses, tt.runs, tt.matches)
		assert.Equal(t, tt.want, c.Score)
		assert.Equal(t, eval.CorrectnessDetails{Parses: tt.parses, Runs: tt.runs, ResultMatches: tt.matches}, *c.Details)
	}
}

func TestQuality(t *testing.T) {
	longLine := "result = df[" + strings.Repeat("'salary', ", 12) + "]"
	tests := []struct {
		name        string
		code        string
		syntax      bool
		unsafe      []string
		readability float64
		imports     []string
		importScore float64
	}{
		{name: "clean pandas", code: "result = df['salary'].mean()", syntax: true,
			unsafe: []string{}, readability: 1, imports: []string{}, importScore: 1},
		{name: "invalid syntax", code: "result = df[", syntax: false,
			unsafe: []string{}, readability: 1, imports: []string{}, importScore: 1},
		{name: "writes a file and runs a shell", code: "import os\ndf.to_csv('out.csv')\nos.system('ls')",
			syntax: true, unsafe: []string{"file_write", "code_execution", "dangerous_import"},
			readability: 1, imports: []string{"os"}, importScore: 0},
		{name: "reads a file and the network", code: "import requests\nx = open('/etc/passwd').read()\nrequests.get(u)",
			syntax: true, unsafe: []string{"file_read", "network"}, readability: 1,
			imports: []string{"requests"}, importScore: 0},
		{name: "analysis imports", code: "import numpy as np, math\nfrom scipy import stats\nresult = np.mean(df.a)",
			syntax: true, unsafe: []string{}, readability: 1, imports: []string{"numpy", "math", "scipy"}, importScore: 1},
		{name: "long lines", code: longLine + "\n" + longLine, syntax: true,
			unsafe: []string{}, readability: 0.8, imports: []string{}, importScore: 1},
		{name: "long, uncommented, branching",
			code:   strings.Repeat("if a:\n    b = 1\n", 6),
			syntax: true, unsafe: []string{}, readability: 0.8, imports: []string{}, importScore: 1},
		{name: "column names are not calls", code: "result = df['open'].max() - df['eval'].min()", syntax: true,
			unsafe: []string{}, readability: 1, imports: []string{}, importScore: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := codeQuality(tt.code, tt.syntax)
			assert.Equal(t, tt.unsafe, q.Details.UnsafePatterns)
			assert.Equal(t, tt.imports, q.Details.Imports)
			assert.InDelta(t, tt.readability, q.Details.ReadabilityScore, 1e-9)
			assert.InDelta(t, tt.importScore, q.Details.ImportsScore, 1e-9)
			safety := 1 - 0.2*float64(len(tt.unsafe))
			assert.InDelta(t, safety, q.Details.SafetyScore, 1e-9)
			want := 0.3*b2f(tt.syntax) + 0.3*safety + 0.2*tt.readability + 0.2*tt.importScore
			assert.InDelta(t, want, q.Score, 1e-4)
		})
	}
}

func TestPerformance(t *testing.T) {
	tests := []struct {
		name        string
		seconds     float64
		code        string
		ran         bool
		timePoints  float64
		timeClass   string
		spaceClass  string
		shortPoints float64
	}{
		{name: "constant", seconds: 0.01, code: "result = len(df)", ran: true,
			timePoints: 0.3, timeClass: "O(1)", spaceClass: "O(1)", shortPoints: 0.1},
		{name: "aggregation", seconds: 0.5, code: "result = df['salary'].mean()", ran: true,
			timePoints: 0.25, timeClass: "O(n)", spaceClass: "O(1)", shortPoints: 0.1},
		{name: "filter and group", seconds: 2, code: "result = df[df.age > 3].groupby('d').size()", ran: true,
			timePoints: 0.15, timeClass: "O(n)", spaceClass: "O(n)", shortPoints: 0.1},
		{name: "sort", seconds: 9, code: "result = df.sort_values('salary')", ran: true,
			timePoints: 0.05, timeClass: "O(n log n)", spaceClass: "O(n)", shortPoints: 0.1},
		{name: "row loop is linear", seconds: 0.05,
			code: "total = 0\nfor _, row in df.iterrows():\n    total += row['salary']\nresult = total", ran: true,
			timePoints: 0.3, timeClass: "O(n)", spaceClass: "O(n)", shortPoints: 0.1},
		{name: "nested loops", seconds: 0.05,
			code: "n = 0\nfor a in df.x:\n    for b in df.y:\n        n += a * b\nresult = n", ran: true,
			timePoints: 0.3, timeClass: "O(n^2)", spaceClass: "O(n)", shortPoints: 0.1},
		{name: "apply inside a loop", seconds: 0.05,
			code: "out = []\nfor c in cols:\n    out.append(df[c].apply(f))", ran: true,
			timePoints: 0.3, timeClass: "O(n^2)", spaceClass: "O(n)", shortPoints: 0.1},
		{name: "loop block closed before the next loop", seconds: 0.05,
			code: "for a in x:\n    n = a\nfor b in y:\n    m = b", ran: true,
			timePoints: 0.3, timeClass: "O(n)", spaceClass: "O(n)", shortPoints: 0.1},
		{name: "failed run earns no time points", seconds: 0.01, code: "result = df['nope'].mean()", ran: false,
			timePoints: 0, timeClass: "O(n)", spaceClass: "O(1)", shortPoints: 0.1},
		{name: "long code", seconds: 0.01, code: strings.Repeat("x = 1\n", 15), ran: true,
			timePoints: 0.3, timeClass: "O(1)", spaceClass: "O(1)", shortPoints: 0.05},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := codePerformance(eval.Attempt{Code: tt.code, Seconds: tt.seconds}, tt.ran)
			d := p.Details
			assert.Equal(t, tt.timePoints, d.ExecutionTimeScore)
			assert.Equal(t, tt.timeClass, d.TimeComplexity)
			assert.Equal(t, tt.spaceClass, d.SpaceComplexity)
			want := tt.timePoints + 0.3*complexityScores[tt.timeClass] + 0.2*complexityScores[tt.spaceClass] +
				tt.shortPoints + 0.1*b2f(tt.ran)
			assert.InDelta(t, want, p.Score, 1e-4)
			assert.LessOrEqual(t, p.Score, 1.0)
		})
	}
}

// The time scored is the CPU time of the code's own execution when the
// server reports it, not the duration of the whole tool call.
func TestPerformanceTimesTheCode(t *testing.T) {
	call := eval.Attempt{Code: "result = len(df)", Seconds: 6.3}
	p := codePerformance(call, true)
	assert.Equal(t, eval.TimingToolCall, p.Details.Timing)
	assert.Equal(t, 6.3, p.Details.ExecutionSeconds)
	assert.Equal(t, 0.05, p.Details.ExecutionTimeScore)

	call.Execution = &eval.CodeExecution{Seconds: 0.004, CPUSeconds: 0.003}
	p = codePerformance(call, true)
	assert.Equal(t, eval.TimingCodeCPU, p.Details.Timing)
	assert.Equal(t, 0.003, p.Details.ExecutionSeconds)
	assert.Equal(t, 0.004, p.Details.WallSeconds)
	assert.Equal(t, 0.3, p.Details.ExecutionTimeScore, "the fastest tier is reachable")
}
