package grading

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// CheckVersion numbers the meaning of the deterministic checks. It is part
// of every cache key, so a result obtained under other rules (substring
// contains, echoed questions counted as evidence, negated terms counted as
// stated, a pass where the reader was not sure) is never reused.
const CheckVersion = 4

// CheckAnswer evaluates the case's deterministic answer checks on answer.
// Each check passes or fails only when it is sure, and is undecided
// otherwise (see decide.go): the judge decides, and without one the case
// is undecided. The checks read the answer without the spans that repeat
// the question (see withoutEcho): the question's own words are no
// evidence. An answer that is nothing but the question fails every check.
func CheckAnswer(c eval.Case, answer string) []eval.CheckResult {
	var out []eval.CheckResult
	text, onlyEcho := withoutEcho(c.Input, answer)
	a := readAnswer(c, text)
	// result records one check; an answer that only repeats the question
	// fails it whatever it found.
	result := func(name string, o outcome, detail string) {
		if onlyEcho {
			o, detail = fail, "the answer only repeats the question"
		}
		out = append(out, decided(name, o, detail))
	}
	kind := ""
	if c.Checks.Substring {
		kind = " (substring)"
	}
	for _, t := range c.Checks.Contains {
		o, detail := a.contains(t)
		result("contains "+termName(t)+kind, o, detail)
	}
	for _, t := range c.Checks.NotContains {
		o, detail := a.notContains(t)
		result("not_contains "+termName(t)+kind, o, detail)
	}
	for _, p := range c.Checks.Regexp {
		re, err := regexp.Compile(p) // validated at load time; cases built in code are not
		if err != nil {
			out = append(out, check("regexp "+quote(p), false, err.Error()))
			continue
		}
		o, detail := a.regexp(re)
		result("regexp "+quote(p), o, detail)
	}
	for _, p := range c.Checks.NotRegexp {
		re, err := regexp.Compile(p)
		if err != nil {
			out = append(out, check("not_regexp "+quote(p), false, err.Error()))
			continue
		}
		o, detail := a.notRegexp(re)
		result("not_regexp "+quote(p), o, detail)
	}
	for _, n := range c.Checks.Numbers {
		o, detail := a.number(n)
		result(numberName(n), o, detail)
	}
	if r, ok := a.rest(); ok && len(out) > 0 && !onlyEcho {
		out = append(out, r)
	}
	return out
}

// decided records a check's outcome.
func decided(name string, o outcome, detail string) eval.CheckResult {
	r := check(name, o == pass, detail)
	r.Undecided = o == undecided
	return r
}

// termName names a term in a check's name: "P63S" or "Pro63Ser", of
// "BRCA1".
func termName(t eval.Term) string {
	quoted := make([]string, len(t.Any))
	for i, s := range t.Any {
		quoted[i] = quote(s)
	}
	name := strings.Join(quoted, " or ")
	if len(t.Of) > 0 {
		name += " of " + quote(t.Of[0])
	}
	return name
}

func numberName(n eval.NumberCheck) string {
	name := fmt.Sprintf("number %v ± %v", n.Value, n.Tolerance)
	if len(n.Unit) > 0 {
		name += " " + strings.Join(n.Unit, " or ")
	}
	if n.Percent {
		name += " (percent)"
	}
	if len(n.Of) > 0 {
		name += " of " + quote(n.Of[0])
	}
	return name
}

// HasAnswerChecks reports whether the case checks its answer (not only its
// tool calls).
func HasAnswerChecks(c eval.Checks) bool {
	return len(c.Contains)+len(c.NotContains)+len(c.Regexp)+len(c.NotRegexp)+len(c.Numbers) > 0
}

// CheckTools evaluates the case's tool expectations on the calls made.
func CheckTools(c eval.Case, calls []eval.ToolCall) []eval.CheckResult {
	var out []eval.CheckResult
	// A name is the tool's on its server, or server/tool.
	called := func(name string) (attempted, ran bool) {
		for _, call := range calls {
			if call.Is(name) {
				attempted, ran = true, ran || !call.NotRun
			}
		}
		return attempted, ran
	}
	for _, name := range c.Tools.MustCall {
		attempted, ran := called(name)
		detail := "never called"
		if attempted && !ran {
			detail = "called, but never run (bad arguments or too many calls)"
		}
		out = append(out, check("must_call "+name, ran, detail))
	}
	for _, name := range c.Tools.MustNotCall {
		attempted, _ := called(name)
		out = append(out, check("must_not_call "+name, !attempted, "was called"))
	}
	for _, m := range c.Tools.Args {
		name := fmt.Sprintf("args %s %s", m.Tool, plainJSON(m.Args))
		if m.Exact {
			name += " (exact)"
		}
		out = append(out, check(name, anyCallMatches(calls, m), "no call with these arguments"))
	}
	for _, e := range c.Tools.Elicited {
		out = append(out, checkElicited(calls, e))
	}
	for _, uri := range c.Tools.MustRead {
		out = append(out, checkRead(calls, uri))
	}
	if max := c.Tools.MaxCalls; max > 0 {
		out = append(out, check(fmt.Sprintf("max_calls %d", max), len(calls) <= max, fmt.Sprintf("%d calls made", len(calls))))
	}
	return out
}

// Failed returns the checks that failed: not passed, and not undecided.
func Failed(checks []eval.CheckResult) []eval.CheckResult {
	var failed []eval.CheckResult
	for _, c := range checks {
		if !c.Passed && !c.Undecided {
			failed = append(failed, c)
		}
	}
	return failed
}

// Unsure returns the checks that could not decide.
func Unsure(checks []eval.CheckResult) []eval.CheckResult {
	var out []eval.CheckResult
	for _, c := range checks {
		if c.Undecided {
			out = append(out, c)
		}
	}
	return out
}

func check(name string, ok bool, detail string) eval.CheckResult {
	r := eval.CheckResult{Check: name, Passed: ok}
	if !ok {
		r.Detail = detail
	}
	return r
}

func quote(s string) string { return strconv.Quote(s) }

// plainJSON is v as JSON without HTML escapes, so that a label reads as the
// case file wrote it ("c.187C>T", not "c.187C\u003eT").
func plainJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// ExpectedError reports whether call failed as one of c's reference calls
// (at any of its turns) marked expect_error asks: the same tool, and the
// reference's arguments among the call's (compared as the args checks
// compare them).
func ExpectedError(c eval.Case, call eval.ToolCall) bool {
	if !call.IsError || call.NotRun {
		return false
	}
	for _, ref := range c.AllReference() {
		if ref.ExpectError && anyCallMatches([]eval.ToolCall{call}, eval.ArgMatch{Tool: ref.Tool, Args: ref.Args}) {
			return true
		}
	}
	return false
}

func anyCallMatches(calls []eval.ToolCall, m eval.ArgMatch) bool {
	for _, call := range calls {
		if !call.Is(m.Tool) || call.NotRun {
			continue
		}
		var got map[string]any
		if json.Unmarshal([]byte(call.Arguments), &got) != nil {
			continue
		}
		if argsMatch(got, m.Args, m.Exact) {
			return true
		}
	}
	return false
}

func argsMatch(got, want map[string]any, exact bool) bool {
	if exact && len(got) != len(want) {
		return false
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok || !sameValue(g, w) {
			return false
		}
	}
	return true
}

// ArgsKey is the canonical form of a tool call's arguments under the
// checks' loose matching of values (sameValue): two argument objects have
// the same key exactly when each matches the other as an `exact: true`
// args expectation does. A replay finds a call's recording by it.
func ArgsKey(args map[string]any) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(args)) {
		b.WriteString(strconv.Quote(k))
		b.WriteByte('=')
		b.WriteString(strconv.Quote(foldText(strings.TrimSpace(scalarText(args[k])))))
		b.WriteByte(';')
	}
	return b.String()
}

// foldText maps every rune to the smallest of its case-folding orbit, so
// that strings.EqualFold(a, b) holds exactly when foldText(a) ==
// foldText(b).
func foldText(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}

// sameValue compares loosely: a model may send 99694174 where the case says
// "99694174", or "nutm2g" for "NUTM2G".
func sameValue(got, want any) bool {
	return strings.EqualFold(strings.TrimSpace(scalarText(got)), strings.TrimSpace(scalarText(want)))
}

func scalarText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case nil:
		return ""
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
