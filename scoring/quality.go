package scoring

import (
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
)

// codeCorrectness scores final code: 0.25 if it parses, 0.25 if it runs and 0.5
// if its result matches the expected answer. (Upstream scored 0.5 parses +
// 0.5 runs, so code that ran and answered wrongly was fully correct.)
func codeCorrectness(parses, runs, resultMatches bool) eval.CorrectnessMetric {
	return eval.CorrectnessMetric{
		Score:   unit(0.25*b2f(parses) + 0.25*b2f(runs) + 0.5*b2f(resultMatches)),
		Details: &eval.CorrectnessDetails{Parses: parses, Runs: runs, ResultMatches: resultMatches},
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// unsafeNames are names whose use makes code unsafe, by kind.
var unsafeNames = []struct {
	kind  string
	names []string
}{
	{"file_write", []string{"to_csv", "to_excel", "to_json", "to_pickle", "to_parquet", "to_sql",
		"to_hdf", "to_feather", "write", "writelines", "savefig", "unlink", "rmtree"}},
	{"file_read", []string{"open", "read_csv", "read_excel", "read_json", "read_pickle", "read_parquet",
		"read_sql", "read_table", "read_hdf", "read_feather", "loadtxt", "genfromtxt", "load"}},
	{"network", []string{"requests", "urllib", "urllib3", "http", "httpx", "aiohttp", "socket",
		"urlopen", "ftplib", "smtplib", "telnetlib"}},
	{"code_execution", []string{"system", "subprocess", "popen", "exec", "eval", "__import__",
		"execfile", "spawn"}},
}

// dangerousModules may not be imported by analysis code.
var dangerousModules = []string{"os", "sys", "subprocess", "shutil", "ctypes", "importlib",
	"builtins", "multiprocessing", "pickle", "marshal", "signal", "pty"}

// analysisModules are the modules analysis code may reasonably import.
var analysisModules = []string{"pandas", "numpy", "math", "statistics", "datetime", "re", "json",
	"matplotlib", "seaborn", "scipy", "collections", "itertools", "functools", "decimal",
	"calendar", "string", "operator", "typing"}

var controlKeywords = []string{"if", "elif", "else", "for", "while", "try", "except", "with"}

// codeQuality scores generated code (a number in [0, 1]):
//
//	0.3 × syntax valid (decided by the executor, passed in)
//	+ 0.3 × safety: 1 − 0.2 per unsafe kind found (file writes, file reads,
//	  network, code execution such as os.system/subprocess/exec/eval,
//	  dangerous imports such as os or sys)
//	+ 0.2 × readability: (10 − 2 if over 20% of lines exceed 100 characters
//	  − 1 if more than 10 lines and no comment − 1 if more than 5 control
//	  keywords) / 10
//	+ 0.2 × imports: share of imported modules that are analysis modules
//	  (pandas, numpy, math, ...); 1 without imports.
//
// Upstream gave the last 0.2 for having any import; the executor provides
// pd and np, so an import is no merit, and only a foreign one costs.
func codeQuality(code string, syntaxValid bool) eval.QualityMetric {
	src := lexPython(code)
	names := src.names()
	d := eval.QualityDetails{SyntaxValid: syntaxValid, UnsafePatterns: []string{}, Imports: imports(src)}
	for _, u := range unsafeNames {
		if grading.HasWord(names, u.names...) {
			d.UnsafePatterns = append(d.UnsafePatterns, u.kind)
		}
	}
	allowed := 0
	for _, m := range d.Imports {
		if slices.Contains(dangerousModules, m) && !slices.Contains(d.UnsafePatterns, "dangerous_import") {
			d.UnsafePatterns = append(d.UnsafePatterns, "dangerous_import")
		}
		if slices.Contains(analysisModules, m) {
			allowed++
		}
	}
	d.SafetyScore = unit(1 - 0.2*float64(len(d.UnsafePatterns)))
	d.ReadabilityScore = readability(src)
	d.ImportsScore = share(allowed, len(d.Imports))
	return eval.QualityMetric{
		Score:   unit(0.3*b2f(syntaxValid) + 0.3*d.SafetyScore + 0.2*d.ReadabilityScore + 0.2*d.ImportsScore),
		Details: d,
	}
}

// imports returns the top-level modules named by import statements
// ("import numpy as np", "import os, sys", "from scipy import stats").
func imports(src pySource) []string {
	out := []string{}
	add := func(m string) {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	toks := src.tokens
	for i, t := range toks {
		if t.kind != pyName || i > 0 && toks[i-1].line == t.line {
			continue // only statements at the start of a line
		}
		switch t.text {
		case "from":
			if i+1 < len(toks) && toks[i+1].kind == pyName {
				add(toks[i+1].text)
			}
		case "import":
			expectModule := true
			for _, u := range toks[i+1:] {
				if u.line != t.line {
					break
				}
				switch {
				case u.text == ",":
					expectModule = true
				case u.kind == pyName && expectModule:
					add(u.text)
					expectModule = false
				}
			}
		}
	}
	return out
}

// readability is upstream's 10-point readability, as a share.
func readability(src pySource) float64 {
	score := 10
	var lines, long int
	for _, l := range src.lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lines++
		if len([]rune(l)) > 100 {
			long++
		}
	}
	if lines > 0 && float64(long) > 0.2*float64(lines) {
		score -= 2
	}
	if lines > 10 && src.comments == 0 {
		score--
	}
	control := 0
	for _, n := range src.names() {
		if slices.Contains(controlKeywords, n) {
			control++
		}
	}
	if control > 5 {
		score--
	}
	return unit(float64(score) / 10)
}
