package eval

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/internal/suggest"
)

// Case is one evaluation case, as a case file states it.
type Case struct {
	// Name is the case's name, unique among the loaded cases; its subtest
	// name is the name with spaces and regexp characters turned into "_".
	Name string `yaml:"name" json:"name"`
	// Category groups the case (a test function of its own); the loader
	// sets it to the file's base name when the file gives none.
	Category string `yaml:"category" json:"category,omitempty"`
	// Input is the question the model is asked.
	Input string `yaml:"input" json:"input"`
	// Expected is the expected answer, for the judge and the reference
	// run; "" for a case graded by Claims.
	Expected string `yaml:"expected" json:"expected"`
	// Kind is KindTool (the default) or KindCode.
	Kind Kind `yaml:"kind" json:"kind,omitempty"`
	// Checks are the deterministic checks on the final answer.
	Checks Checks `yaml:"checks" json:"checks,omitzero"`
	// Tools states expectations on the model's tool calls.
	Tools ToolExpect `yaml:"tools" json:"tools,omitzero"`
	// Reference is what a correct agent calls, in order: the calls the
	// reference run replays; nil for a case without a reference trajectory.
	Reference []RefCall `yaml:"reference" json:"reference,omitempty"`
	// Budget is what a correct answer should cost, for the performance
	// metric; zero fields take the defaults.
	Budget Budget `yaml:"budget" json:"budget,omitzero"`
	// Elicitation scripts the user's replies to the servers' requests for
	// input (MCP elicitation) during the case's tool calls.
	Elicitation []ElicitReply `yaml:"elicitation" json:"elicitation,omitempty"`
	// Claims are statements the answer must make, graded one by one as
	// MCP-Atlas grades them (fulfilled 1, partly 0.5, not 0); the case
	// passes when their mean reaches PassCoverage (default 1). A case with
	// claims needs no expected answer.
	Claims []Claim `yaml:"claims" json:"claims,omitempty"`
	// PassCoverage is the mean claim score a pass needs, above 0 and at
	// most 1; 0 (not given) means 1 (see Coverage).
	PassCoverage float64 `yaml:"pass_coverage" json:"pass_coverage,omitempty"`
	// Turns are the user's later messages of a conversation that Input
	// begins, each with what the agent's reply to it must do; the final
	// answer is the reply to the last (see Turn).
	Turns []Turn `yaml:"turns" json:"turns,omitempty"`
	// FirstReply is what the agent's reply to Input must do in a case with
	// Turns or a User (a clarifying question it must ask, checks of its
	// own), as a turn's reply must; nil when nothing is expected of it but
	// the case's tool expectations over every turn.
	FirstReply *ReplyExpect `yaml:"first_reply" json:"first_reply,omitempty"`
	// User, instead of Turns, has a model play the user after Input: it
	// answers each of the agent's replies until it is done, as the case
	// describes the user (see User); nil for a case whose user's messages
	// the file gives.
	User *User `yaml:"user" json:"user,omitempty"`

	// File is the case file the case was loaded from, as the loader was
	// given it; not in the JSON.
	File string `yaml:"-" json:"-"`
	// Line is the line of the case's "case:" key in File.
	Line int `yaml:"-" json:"-"`
	// Lines maps some of the case's fields ("tools.must_call[0]",
	// "reference[1]") to their lines in File, for messages about them found
	// after loading; nil when the case has none.
	Lines map[string]int `yaml:"-" json:"-"`
}

// Where returns "file:line" for messages.
func (c Case) Where() string {
	return c.File + ":" + strconv.Itoa(c.Line)
}

// WhereField returns "file:line" of one of the case's fields (see Lines),
// or of the case when the line of the field is not known.
func (c Case) WhereField(field string) string {
	if line, ok := c.Lines[field]; ok {
		return c.File + ":" + strconv.Itoa(line)
	}
	return c.Where()
}

// ReferenceAnswer is the answer a correct agent gives: the expected answer,
// or the claims one a line for a case that gives none.
func (c Case) ReferenceAnswer() string {
	if strings.TrimSpace(c.Expected) != "" || len(c.Claims) == 0 {
		return c.Expected
	}
	lines := make([]string, len(c.Claims))
	for i, cl := range c.Claims {
		lines[i] = cl.Text
	}
	return strings.Join(lines, "\n")
}

// Coverage returns the mean claim score a case needs to pass.
func (c Case) Coverage() float64 {
	if c.PassCoverage == 0 {
		return 1
	}
	return c.PassCoverage
}

// Claim is a statement an answer must make, with optional deterministic
// checks of its own. In YAML it is a text, or a map with claim and checks.
type Claim struct {
	// Text is the statement (JSON and YAML "claim").
	Text string `yaml:"claim" json:"claim"`
	// Checks decide the claim where they are sure; zero for a claim only
	// the judge decides.
	Checks Checks `yaml:"checks" json:"checks,omitzero"`
}

// UnmarshalYAML reads a text as a claim without checks, or a map with
// claim and checks.
func (c *Claim) UnmarshalYAML(value *yaml.Node) error {
	if value.Kind == yaml.ScalarNode {
		return value.Decode(&c.Text)
	}
	if value.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a claim is a text or a map with claim and checks", value.Line)
	}
	for i := 0; i+1 < len(value.Content); i += 2 {
		switch k := value.Content[i].Value; k {
		case "claim", "checks":
		default:
			hint := ""
			if c, near := suggest.Closest(k, []string{"claim", "checks"}); near {
				hint = ": did you mean " + c + "?"
			}
			return fmt.Errorf("line %d: unknown field %q in a claim%s (known fields: claim, checks)", value.Content[i].Line, k, hint)
		}
	}
	type plain Claim
	return value.Decode((*plain)(c))
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
// read the answer as a careful person would (see package grading): without
// the question's own text (a span of the question repeated in the answer
// is no evidence for or against it), and not taking as stated what the
// answer negates, only asks, attributes to another subject or offers as
// one of two values.
type Checks struct {
	// Contains lists words or phrases that the answer must state
	// (case-insensitive), as whole words: "pathogenic" is not found in
	// "nonpathogenic", "10,452" not in "110,452"; a hyphen also matches a
	// space or nothing. An occurrence under a negation or a contrast in its
	// clause does not count ("not p.P63S", "rather than 0.35"), but a
	// negated antonym does ("not intolerant" states "tolerant"); a term
	// written "not X" or "no X" asks for X under a negation. A term may
	// list alternatives and be bound to a subject (see Term).
	Contains Terms `yaml:"contains" json:"contains,omitempty"`
	// NotContains lists words or phrases the answer must not state,
	// matched like Contains: a negated occurrence states nothing ("not
	// damaging" passes not_contains: [damaging]).
	NotContains Terms `yaml:"not_contains" json:"not_contains,omitempty"`
	// Substring makes Contains and NotContains match anywhere, inside
	// longer words too.
	Substring bool `yaml:"substring" json:"substring,omitempty"`
	// Regexp lists RE2 patterns that must match the answer; a match that a
	// negation before it takes back does not count.
	Regexp []string `yaml:"regexp" json:"regexp,omitempty"`
	// NotRegexp lists RE2 patterns that must not match the answer, with
	// the same reading.
	NotRegexp []string `yaml:"not_regexp" json:"not_regexp,omitempty"`
	// Numbers lists values some number in the answer must equal within
	// tolerance, in any common form ("10 452", "ninety-nine", "164k"),
	// stated (not negated, not in a question) and not hedged between two
	// values.
	Numbers []NumberCheck `yaml:"numbers" json:"numbers,omitempty"`
}

// Terms is a list of terms.
type Terms []Term

// Texts returns the first spelling of each term.
func (ts Terms) Texts() []string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		if len(t.Any) > 0 {
			out = append(out, t.Any[0])
		}
	}
	return out
}

// Term is one item of contains or not_contains: a word or phrase, or its
// alternative spellings, optionally bound to a subject. In YAML it is a
// text ("benign"), or a map:
//
//	{term: pathogenic, of: BRCA1}             # pathogenic, said of BRCA1
//	{any: [P63S, Pro63Ser]}                   # either spelling
//	{any: [damaging, deleterious], of: CFTR, not_of: [TP53]}
type Term struct {
	// Any lists the term's spellings; one of them must occur.
	Any []string
	// Of lists the spellings of the subject the term must belong to; an
	// occurrence the answer gives to another subject (another Of or NotOf
	// of the case, or, for a subject written like a gene symbol, another
	// such symbol) does not count.
	Of Spellings
	// NotOf lists subjects the term must not belong to.
	NotOf Spellings
}

// UnmarshalYAML reads a text as a term of one spelling, or a map with term
// or any, and of and not_of.
func (t *Term) UnmarshalYAML(value *yaml.Node) error {
	if value.Kind == yaml.ScalarNode {
		var s string
		if err := value.Decode(&s); err != nil {
			return err
		}
		*t = Term{Any: []string{s}}
		return nil
	}
	if value.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a term is a text or a map with term or any, and of", value.Line)
	}
	for i := 0; i+1 < len(value.Content); i += 2 {
		switch k := value.Content[i].Value; k {
		case "term", "any", "of", "not_of":
		default:
			return fmt.Errorf("line %d: unknown field %q in a term (known fields: term, any, of, not_of)", value.Content[i].Line, k)
		}
	}
	var m struct {
		Term  string    `yaml:"term"`
		Any   Spellings `yaml:"any"`
		Of    Spellings `yaml:"of"`
		NotOf Spellings `yaml:"not_of"`
	}
	if err := value.Decode(&m); err != nil {
		return err
	}
	if m.Term != "" && len(m.Any) > 0 {
		return fmt.Errorf("line %d: a term has term or any, not both", value.Line)
	}
	*t = Term{Any: m.Any, Of: m.Of, NotOf: m.NotOf}
	if m.Term != "" {
		t.Any = []string{m.Term}
	}
	return nil
}

// MarshalJSON writes a term of one spelling and no subject as a text, as
// case files write it.
func (t Term) MarshalJSON() ([]byte, error) {
	if len(t.Any) == 1 && len(t.Of) == 0 && len(t.NotOf) == 0 {
		return json.Marshal(t.Any[0])
	}
	return json.Marshal(struct {
		Any   []string `json:"any"`
		Of    []string `json:"of,omitempty"`
		NotOf []string `json:"not_of,omitempty"`
	}{t.Any, t.Of, t.NotOf})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *Term) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		*t = Term{Any: []string{s}}
		return nil
	}
	var m struct {
		Any   []string `json:"any"`
		Of    []string `json:"of"`
		NotOf []string `json:"not_of"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*t = Term{Any: m.Any, Of: m.Of, NotOf: m.NotOf}
	return nil
}

// NumberCheck asks for a number equal to Value within Tolerance, and when
// Unit is set, for a number in that unit.
type NumberCheck struct {
	// Value is the expected number.
	Value float64 `yaml:"value" json:"value"`
	// Tolerance is the largest absolute difference from Value that counts
	// as equal; 0 asks for the value itself.
	Tolerance float64 `yaml:"tolerance" json:"tolerance"`
	// Unit lists the accepted spellings of the number's unit ("TPM",
	// "transcripts per million"); a case file may give one as a plain
	// text. A number followed by another unit ("63.18 RPKM") does not
	// count; a bare number counts when the answer names the unit elsewhere
	// ("median TPM: 63.18").
	Unit Units `yaml:"unit" json:"unit,omitempty"`
	// Percent says the value is a percentage (78.6 for 78.6%): the same
	// share written as a fraction (0.786) counts too.
	Percent bool `yaml:"percent" json:"percent,omitempty"`
	// Of binds the value to a subject, as for a Term: "0.35 is MECP2's"
	// does not count for {value: 0.35, of: NUTM2G}.
	Of Spellings `yaml:"of" json:"of,omitempty"`
	// NotOf lists subjects the value must not belong to.
	NotOf Spellings `yaml:"not_of" json:"not_of,omitempty"`
}

// Units are the accepted spellings of a unit. In YAML it is one text or a
// list of texts.
type Units = Spellings

// Spellings are the accepted spellings of a word or phrase. In YAML it is
// one text or a list of texts.
type Spellings []string

// UnmarshalYAML accepts a single text as a list of one.
func (u *Spellings) UnmarshalYAML(value *yaml.Node) error {
	if value.Kind == yaml.ScalarNode {
		var s string
		if err := value.Decode(&s); err != nil {
			return err
		}
		*u = Spellings{s}
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
	// MustCall lists tools the model must call, each by its name or as
	// "server/tool".
	MustCall []string `yaml:"must_call" json:"must_call,omitempty"`
	// MustNotCall lists tools the model must not call, named alike.
	MustNotCall []string `yaml:"must_not_call" json:"must_not_call,omitempty"`
	// Args asks for calls with given argument values, each met by some call.
	Args []ArgMatch `yaml:"args" json:"args,omitempty"`
	// MaxCalls bounds the number of tool calls; 0 means no bound.
	MaxCalls int `yaml:"max_calls" json:"max_calls,omitempty"`
	// Elicited asks for elicitation requests the calls met, with the
	// reply each got.
	Elicited []Elicited `yaml:"elicited" json:"elicited,omitempty"`
	// MustRead lists resource URIs the model must have read through
	// ReadResourceTool (a final "*" matches any rest).
	MustRead []string `yaml:"must_read" json:"must_read,omitempty"`
}

// ArgMatch asks that some call of Tool had these argument values: a subset
// match, or equality of the whole argument object when Exact is set.
type ArgMatch struct {
	// Tool names the tool, as MustCall does.
	Tool string `yaml:"tool" json:"tool"`
	// Args are the argument values asked for, matched loosely (99694174
	// matches "99694174", case is ignored).
	Args map[string]any `yaml:"args" json:"args"`
	// Exact asks for the call's whole argument object to equal Args.
	Exact bool `yaml:"exact" json:"exact,omitempty"`
}

// RefCall is one call of a reference trajectory.
type RefCall struct {
	// Tool names the tool, by its name or as "server/tool".
	Tool string `yaml:"tool" json:"tool"`
	// Args are the call's arguments, sent as given.
	Args map[string]any `yaml:"args" json:"args"`
	// ExpectError marks a call that must fail (an IsError result), as in
	// cases that exercise recovery from a tool error.
	ExpectError bool `yaml:"expect_error" json:"expect_error,omitempty"`
}

// Budget bounds what a correct answer should cost before its performance
// score drops; zero fields take the defaults (WithDefaults).
type Budget struct {
	// Seconds bounds the case run's wall time; 0 means DefaultBudgetSeconds.
	Seconds float64 `yaml:"seconds" json:"seconds,omitempty"`
	// Tokens bounds the case run's total tokens (Record.Usage); 0 means
	// DefaultBudgetTokens.
	Tokens int `yaml:"tokens" json:"tokens,omitempty"`
	// ToolCalls bounds the number of tool calls; 0 means
	// DefaultBudgetToolCalls.
	ToolCalls int `yaml:"tool_calls" json:"tool_calls,omitempty"`
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
