package llmstub

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/internal/yamlbound"
)

// A Fixture is a provider's recorded responses to the chat requests of one
// case, with the rules the provider applies to each follow-up request (the
// format is described in testdata/providers/README.md). Its Respond method
// is a Responder: it answers a request by its position in the conversation
// (the number of assistant messages it carries), byte for byte as recorded,
// or with the recorded refusal when the request breaks a rule.
type Fixture struct {
	// Name is the file's base name without its extension.
	Name     string   `yaml:"-"`
	Provider string   `yaml:"provider"`
	Shape    string   `yaml:"shape"`
	Sources  []string `yaml:"sources"`
	Notes    string   `yaml:"notes"`
	// Model is the model the case asks for; BasePath the path of the
	// endpoint under the stub's address (default /v1).
	Model    string `yaml:"model"`
	BasePath string `yaml:"base_path"`
	// Strict validates every request as OpenAI does (Options.Strict).
	Strict bool `yaml:"strict"`
	// Models is the answer to GET /models, when the provider gives one.
	Models *Response `yaml:"models"`
	// Case overrides fields of the case the end-to-end test runs (input,
	// expected, checks, tools).
	Case  map[string]any `yaml:"case"`
	Steps []Step         `yaml:"steps"`
	// Expect is what the case's record must show.
	Expect Expect `yaml:"expect"`

	messages []map[string]any // each step's assistant message, nil if none

	mu       sync.Mutex
	refusals []string
}

// A Step is the provider's response to the request at one position.
type Step struct {
	// Require lists rules the request must keep; Refuse is the provider's
	// answer to one that breaks a rule without a refusal of its own.
	Require  []Rule    `yaml:"require"`
	Refuse   *Response `yaml:"refuse"`
	Response Response  `yaml:"response"`
}

// A Rule is one thing a provider checks in a request; exactly one of Echo,
// Field, Header, Query and Path is set.
type Rule struct {
	// Echo is a field path in the assistant message of the previous step
	// ("reasoning_content", "tool_calls[].extra_content"): the request must
	// carry that message with the field as the provider sent it. "[]"
	// applies the rest of the path to every element of a list.
	Echo string `yaml:"echo"`
	// Field is a top-level field of the request body, Header a request
	// header, Query a URL query parameter: each must be present, and equal
	// Equals (or, for headers and queries, start with Prefix) when set.
	Field  string `yaml:"field"`
	Header string `yaml:"header"`
	Query  string `yaml:"query"`
	// Path is the URL path the request must be sent to.
	Path   string `yaml:"path"`
	Equals any    `yaml:"equals"`
	Prefix string `yaml:"prefix"`
	// Refuse, when set, is the provider's answer to a request that breaks
	// this rule (instead of the step's).
	Refuse *Response `yaml:"refuse"`
}

// Expect is the outcome a careful reader expects of the fixture's case.
type Expect struct {
	// Status is the record's status: pass, fail, error, cut or token_limit.
	Status string `yaml:"status"`
	// ReasonContains is in the record's reason (the provider's own message
	// for an error or a cut reply).
	ReasonContains string `yaml:"reason_contains"`
	// ToolCalls are the names of the tool calls the record shows, in order.
	ToolCalls []string `yaml:"tool_calls"`
	// ResponseExcludes are texts the recorded answer must not contain
	// (the model's thinking, say).
	ResponseExcludes []string `yaml:"response_excludes"`
	// CachedTokens and CostUSD, when set, are the record's usage figures;
	// UsageEstimated whether its usage had to be counted locally.
	CachedTokens   *int     `yaml:"cached_tokens"`
	CostUSD        *float64 `yaml:"cost_usd"`
	UsageEstimated *bool    `yaml:"usage_estimated"`
}

// LoadFixtures loads every *.yaml fixture of dir, in name order.
func LoadFixtures(dir string) ([]*Fixture, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no *.yaml fixture", dir)
	}
	sort.Strings(paths)
	var out []*Fixture
	for _, p := range paths {
		f, err := LoadFixture(p)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// LoadFixture reads and checks one fixture file.
func LoadFixture(path string) (*Fixture, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := yamlbound.Check(data, 16<<20); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	f := &Fixture{}
	if err := dec.Decode(f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// check validates the fixture and reads each step's assistant message.
func (f *Fixture) check() error {
	switch {
	case f.Provider == "" || f.Shape == "":
		return errors.New("provider and shape are required")
	case len(f.Sources) == 0:
		return errors.New("sources: name at least one public source")
	case len(f.Steps) == 0:
		return errors.New("steps: at least one response is required")
	}
	switch f.Expect.Status {
	case "pass", "fail", "error", "cut", "token_limit":
	default:
		return fmt.Errorf("expect.status %q: want pass, fail, error, cut or token_limit", f.Expect.Status)
	}
	for _, s := range f.Sources {
		if !strings.HasPrefix(s, "https://") {
			return fmt.Errorf("sources: %q is not an https URL", s)
		}
	}
	for i, s := range f.Steps {
		if s.Response.Body == "" {
			return fmt.Errorf("steps[%d].response.body is empty", i)
		}
		for j, r := range s.Require {
			if err := r.check(i); err != nil {
				return fmt.Errorf("steps[%d].require[%d]: %w", i, j, err)
			}
			if r.Refuse == nil && s.Refuse == nil {
				return fmt.Errorf("steps[%d].require[%d]: no refuse (the provider's answer to a request that breaks the rule) on the rule or the step", i, j)
			}
		}
		f.messages = append(f.messages, assistantMessage(s.Response.Body))
	}
	return nil
}

func (r Rule) check(step int) error {
	kinds := 0
	for _, set := range []bool{r.Echo != "", r.Field != "", r.Header != "", r.Query != "", r.Path != ""} {
		if set {
			kinds++
		}
	}
	switch {
	case kinds != 1:
		return errors.New("set exactly one of echo, field, header, query and path")
	case r.Echo != "" && step == 0:
		return errors.New("echo needs a previous step")
	case r.Prefix != "" && r.Header == "" && r.Query == "":
		return errors.New("prefix applies to header and query only")
	case r.Equals != nil && (r.Echo != "" || r.Path != ""):
		return errors.New("equals applies to field, header and query only")
	}
	return nil
}

// assistantMessage is the first choice's message of a chat response body,
// or nil.
func assistantMessage(body string) map[string]any {
	var resp struct {
		Choices []struct {
			Message map[string]any `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal([]byte(body), &resp) != nil || len(resp.Choices) == 0 {
		return nil
	}
	return resp.Choices[0].Message
}

// Options are the stub options the fixture asks for.
func (f *Fixture) Options() Options {
	return Options{Strict: f.Strict, ModelList: f.Models}
}

// Respond answers req with the step at its position.
func (f *Fixture) Respond(req Request) Reply {
	n := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	if n >= len(f.Steps) {
		msg := fmt.Sprintf("llmstub: fixture %s has %d steps; this request carries %d assistant messages", f.Name, len(f.Steps), n)
		f.refuse(msg)
		return Reply{Raw: &Response{Status: http.StatusInternalServerError, Headers: map[string]string{"Content-Type": "application/json"},
			Body: fmt.Sprintf(`{"error":{"message":%q}}`, msg)}}
	}
	step := f.Steps[n]
	for _, r := range step.Require {
		if err := f.keeps(r, req, n); err != nil {
			f.refuse(fmt.Sprintf("step %d: %v", n, err))
			if r.Refuse != nil {
				return Reply{Raw: r.Refuse}
			}
			return Reply{Raw: step.Refuse}
		}
	}
	return Reply{Raw: &step.Response}
}

// Refusals lists the rules requests broke, in order: why the stub answered
// with a refusal.
func (f *Fixture) Refusals() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.refusals...)
}

func (f *Fixture) refuse(why string) {
	f.mu.Lock()
	f.refusals = append(f.refusals, why)
	f.mu.Unlock()
}

// keeps reports why req, at position n, breaks r (nil when it keeps it).
func (f *Fixture) keeps(r Rule, req Request, n int) error {
	switch {
	case r.Path != "":
		if req.Path != r.Path {
			return fmt.Errorf("path %q, want %q", req.Path, r.Path)
		}
	case r.Header != "":
		return matches("header "+r.Header, req.Header.Get(r.Header), r)
	case r.Query != "":
		return matches("query parameter "+r.Query, req.Query.Get(r.Query), r)
	case r.Field != "":
		var body map[string]any
		if err := json.Unmarshal(req.Body, &body); err != nil {
			return fmt.Errorf("body: %v", err)
		}
		got, ok := body[r.Field]
		switch {
		case !ok:
			return fmt.Errorf("field %s is missing", r.Field)
		case r.Equals != nil && !jsonEqual(got, r.Equals):
			return fmt.Errorf("field %s is %s, want %s", r.Field, compactJSON(got), compactJSON(r.Equals))
		}
	case r.Echo != "":
		return f.echoed(r.Echo, req, n)
	}
	return nil
}

func matches(what, got string, r Rule) error {
	switch {
	case got == "":
		return fmt.Errorf("%s is missing", what)
	case r.Equals != nil && got != fmt.Sprint(r.Equals):
		return fmt.Errorf("%s is %q, want %q", what, got, fmt.Sprint(r.Equals))
	case r.Prefix != "" && !strings.HasPrefix(got, r.Prefix):
		return fmt.Errorf("%s does not start with %q", what, r.Prefix)
	}
	return nil
}

// echoed checks that the n-th assistant message of req carries the field at
// path as step n-1 sent it.
func (f *Fixture) echoed(path string, req Request, n int) error {
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return fmt.Errorf("body: %v", err)
	}
	seen := 0
	for i, m := range body.Messages {
		if m["role"] != "assistant" {
			continue
		}
		if seen++; seen == n {
			return echoedAt(f.messages[n-1], m, strings.Split(path, "."), fmt.Sprintf("messages[%d]", i))
		}
	}
	return fmt.Errorf("no assistant message %d", n)
}

func echoedAt(recorded, sent any, path []string, where string) error {
	if len(path) == 0 {
		if !jsonEqual(recorded, sent) {
			return fmt.Errorf("%s is %s, not %s as the provider sent it", where, compactJSON(sent), compactJSON(recorded))
		}
		return nil
	}
	key, each := strings.CutSuffix(path[0], "[]")
	rec, _ := recorded.(map[string]any)
	rv, ok := rec[key]
	if !ok {
		return nil // the provider sent no such field: nothing to echo
	}
	where += "." + key
	sm, _ := sent.(map[string]any)
	sv, ok := sm[key]
	if !ok {
		return fmt.Errorf("%s is missing", where)
	}
	if !each {
		return echoedAt(rv, sv, path[1:], where)
	}
	ra, _ := rv.([]any)
	sa, _ := sv.([]any)
	if len(sa) != len(ra) {
		return fmt.Errorf("%s has %d elements, the provider sent %d", where, len(sa), len(ra))
	}
	for i := range ra {
		if err := echoedAt(ra[i], sa[i], path[1:], fmt.Sprintf("%s[%d]", where, i)); err != nil {
			return err
		}
	}
	return nil
}

// jsonEqual compares two values as JSON.
func jsonEqual(a, b any) bool {
	return reflect.DeepEqual(normalized(a), normalized(b))
}

func normalized(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

func compactJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// Calls are the tool calls the recorded responses make, in order (legacy
// function_call included), with their arguments as JSON text.
func (f *Fixture) Calls() []Call {
	var out []Call
	add := func(fn any) {
		m, _ := fn.(map[string]any)
		if m == nil {
			return
		}
		name, _ := m["name"].(string)
		args, ok := m["arguments"].(string)
		if !ok {
			args = compactJSON(m["arguments"])
		}
		out = append(out, Call{Name: name, Arguments: args})
	}
	for _, msg := range f.messages {
		calls, _ := msg["tool_calls"].([]any)
		for _, c := range calls {
			cm, _ := c.(map[string]any)
			add(cm["function"])
		}
		add(msg["function_call"])
	}
	return out
}
