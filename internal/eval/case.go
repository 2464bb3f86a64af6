package eval

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Case is one evaluation case, as a case file states it.
type Case struct {
	Name     string `yaml:"name" json:"name"`
	Category string `yaml:"category" json:"category,omitempty"`
	Input    string `yaml:"input" json:"input"`
	Expected string `yaml:"expected" json:"expected"`
	// Kind is KindTool (the default) or KindCode.
	Kind      Kind       `yaml:"kind" json:"kind,omitempty"`
	Checks    Checks     `yaml:"checks" json:"checks,omitzero"`
	Tools     ToolExpect `yaml:"tools" json:"tools,omitzero"`
	Reference []RefCall  `yaml:"reference" json:"reference,omitempty"`
	Budget    Budget     `yaml:"budget" json:"budget,omitzero"`

	// File and Line locate the case in its source file.
	File string `yaml:"-" json:"-"`
	Line int    `yaml:"-" json:"-"`
}

// Where returns "file:line" for messages.
func (c Case) Where() string {
	return c.File + ":" + strconv.Itoa(c.Line)
}

// Kind says how a case is answered.
type Kind string

// The kinds of case.
const (
	// KindTool: an agent answers with the MCP servers' tools.
	KindTool Kind = "tool"
	// KindCode: the answer is pandas code run through the server's
	// run_pandas tool.
	KindCode Kind = "code"
)

// Checks are deterministic checks on the final answer; all must hold. They
// read the answer without the question's own text: a span of the question
// repeated in the answer is no evidence for or against it.
type Checks struct {
	// Contains lists words or phrases that must occur in the answer
	// (case-insensitive), as whole words: "pathogenic" is not found in
	// "nonpathogenic", "10,452" not in "110,452".
	Contains []string `yaml:"contains" json:"contains,omitempty"`
	// NotContains lists words or phrases that must not occur, matched like
	// Contains.
	NotContains []string `yaml:"not_contains" json:"not_contains,omitempty"`
	// Substring makes Contains and NotContains match anywhere, inside
	// longer words too.
	Substring bool `yaml:"substring" json:"substring,omitempty"`
	// Regexp lists RE2 patterns that must match the answer.
	Regexp []string `yaml:"regexp" json:"regexp,omitempty"`
	// NotRegexp lists RE2 patterns that must not match the answer.
	NotRegexp []string `yaml:"not_regexp" json:"not_regexp,omitempty"`
	// Numbers lists values some number in the answer must equal within tolerance.
	Numbers []NumberCheck `yaml:"numbers" json:"numbers,omitempty"`
}

// NumberCheck asks for a number equal to Value within Tolerance, and when
// Unit is set, for a number in that unit.
type NumberCheck struct {
	Value     float64 `yaml:"value" json:"value"`
	Tolerance float64 `yaml:"tolerance" json:"tolerance"`
	// Unit lists the accepted spellings of the number's unit ("TPM",
	// "transcripts per million"); a case file may give one as a plain
	// text. A number followed by another unit ("63.18 RPKM") does not
	// count; a bare number counts when the answer names the unit elsewhere
	// ("median TPM: 63.18").
	Unit Units `yaml:"unit" json:"unit,omitempty"`
}

// Units are the accepted spellings of a unit. In YAML it is one text or a
// list of texts.
type Units []string

// UnmarshalYAML accepts a single text as a list of one.
func (u *Units) UnmarshalYAML(value *yaml.Node) error {
	if value.Kind == yaml.ScalarNode {
		var s string
		if err := value.Decode(&s); err != nil {
			return err
		}
		*u = Units{s}
		return nil
	}
	var list []string
	if err := value.Decode(&list); err != nil {
		return err
	}
	*u = list
	return nil
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

// Budget bounds what a correct answer should cost before its performance
// score drops; zero fields take the defaults (WithDefaults).
type Budget struct {
	Seconds   float64 `yaml:"seconds" json:"seconds,omitempty"`
	Tokens    int     `yaml:"tokens" json:"tokens,omitempty"`
	ToolCalls int     `yaml:"tool_calls" json:"tool_calls,omitempty"`
}

// The default budget of a case.
const (
	DefaultBudgetSeconds   = 60
	DefaultBudgetTokens    = 20_000
	DefaultBudgetToolCalls = 8
)

// WithDefaults returns b with its zero fields set to the defaults.
func (b Budget) WithDefaults() Budget {
	if b.Seconds <= 0 {
		b.Seconds = DefaultBudgetSeconds
	}
	if b.Tokens <= 0 {
		b.Tokens = DefaultBudgetTokens
	}
	if b.ToolCalls <= 0 {
		b.ToolCalls = DefaultBudgetToolCalls
	}
	return b
}
