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

// Case is one evaluation case.
type Case struct {
	Name     string `yaml:"name" json:"name"`
	Category string `yaml:"category" json:"category,omitempty"`
	Input    string `yaml:"input" json:"input"`
	Expected string `yaml:"expected" json:"expected"`
	// Kind is "tool" (the default: an agent answering with MCP tools) or
	// "code" (the answer is pandas code run through the server's run_pandas tool).
	Kind      string     `yaml:"kind" json:"kind,omitempty"`
	Checks    Checks     `yaml:"checks" json:"checks,omitzero"`
	Tools     ToolExpect `yaml:"tools" json:"tools,omitzero"`
	Reference []RefCall  `yaml:"reference" json:"reference,omitempty"`
	Budget    Budget     `yaml:"budget" json:"budget,omitzero"`

	// File and Line locate the case in its source file.
	File string `yaml:"-" json:"-"`
	Line int    `yaml:"-" json:"-"`
}

// Checks are deterministic checks on the final answer; all must hold.
type Checks struct {
	// Contains lists texts that must occur in the answer (case-insensitive).
	Contains []string `yaml:"contains" json:"contains,omitempty"`
	// NotContains lists texts that must not occur (case-insensitive).
	NotContains []string `yaml:"not_contains" json:"not_contains,omitempty"`
	// Regexp lists RE2 patterns that must match the answer.
	Regexp []string `yaml:"regexp" json:"regexp,omitempty"`
	// Numbers lists values some number in the answer must equal within tolerance.
	Numbers []NumberCheck `yaml:"numbers" json:"numbers,omitempty"`
}

// NumberCheck asks for a number equal to Value within Tolerance.
type NumberCheck struct {
	Value     float64 `yaml:"value" json:"value"`
	Tolerance float64 `yaml:"tolerance" json:"tolerance"`
}

// ToolExpect states expectations on the tool calls the model made.
type ToolExpect struct {
	MustCall    []string   `yaml:"must_call" json:"must_call,omitempty"`
	MustNotCall []string   `yaml:"must_not_call" json:"must_not_call,omitempty"`
	Args        []ArgMatch `yaml:"args" json:"args,omitempty"`
	// MaxCalls bounds the number of tool calls; 0 means no bound.
	MaxCalls int `yaml:"max_calls" json:"max_calls,omitempty"`
}

// ArgMatch asks that some call of Tool had these argument values: a subset
// match, or equality of the whole argument object when Exact is set.
type ArgMatch struct {
	Tool  string         `yaml:"tool" json:"tool"`
	Args  map[string]any `yaml:"args" json:"args"`
	Exact bool           `yaml:"exact" json:"exact,omitempty"`
}

// RefCall is one call of a reference trajectory.
type RefCall struct {
	Tool string         `yaml:"tool" json:"tool"`
	Args map[string]any `yaml:"args" json:"args"`
	// ExpectError marks a call that must fail (an IsError result), as in
	// cases that exercise recovery from a tool error.
	ExpectError bool `yaml:"expect_error" json:"expect_error,omitempty"`
}

// Budget bounds what a correct answer should cost; zero fields use the
// scoring defaults.
type Budget struct {
	Seconds   float64 `yaml:"seconds" json:"seconds,omitempty"`
	Tokens    int     `yaml:"tokens" json:"tokens,omitempty"`
	ToolCalls int     `yaml:"tool_calls" json:"tool_calls,omitempty"`
}

// Kinds of case.
const (
	KindTool = "tool"
	KindCode = "code"
)

// Where returns "file:line" for messages.
func (c Case) Where() string {
	return c.File + ":" + itoa(c.Line)
}

// HasChecks reports whether the case carries any deterministic answer check.
func (c Case) HasChecks() bool {
	k := c.Checks
	return len(k.Contains)+len(k.NotContains)+len(k.Regexp)+len(k.Numbers) > 0
}

// HasToolExpectations reports whether the case states any tool expectation.
func (c Case) HasToolExpectations() bool {
	t := c.Tools
	return len(t.MustCall)+len(t.MustNotCall)+len(t.Args) > 0 || t.MaxCalls > 0
}

// defaultCategory is the category of cases that name none: the file's base
// name without extension.
func defaultCategory(file string) string {
	base := filepath.Base(file)
	return strings.TrimSuffix(base, filepath.Ext(base))
}
