package evalcase

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpeval/mcpeval/internal/eval"
)

// CheckAnswer evaluates the case's deterministic answer checks on answer.
func CheckAnswer(c eval.Case, answer string) []eval.CheckResult {
	var out []eval.CheckResult
	lower := strings.ToLower(answer)
	for _, s := range c.Checks.Contains {
		ok := strings.Contains(lower, strings.ToLower(s))
		out = append(out, check("contains "+quote(s), ok, "not found in the answer"))
	}
	for _, s := range c.Checks.NotContains {
		ok := !strings.Contains(lower, strings.ToLower(s))
		out = append(out, check("not_contains "+quote(s), ok, "found in the answer"))
	}
	for _, p := range c.Checks.Regexp {
		re, err := regexp.Compile(p) // validated at load time; cases built in code are not
		if err != nil {
			out = append(out, check("regexp "+quote(p), false, err.Error()))
			continue
		}
		out = append(out, check("regexp "+quote(p), re.MatchString(answer), "no match in the answer"))
	}
	if len(c.Checks.Numbers) > 0 {
		numbers := numbersIn(answer)
		for _, n := range c.Checks.Numbers {
			name := fmt.Sprintf("number %v ± %v", n.Value, n.Tolerance)
			out = append(out, check(name, containsNumber(numbers, n), "no such number in the answer"))
		}
	}
	return out
}

// CheckTools evaluates the case's tool expectations on the calls made.
func CheckTools(c eval.Case, calls []eval.ToolCall) []eval.CheckResult {
	var out []eval.CheckResult
	attempted, ran := map[string]bool{}, map[string]bool{}
	for _, call := range calls {
		attempted[call.Name] = true
		ran[call.Name] = ran[call.Name] || !call.NotRun
	}
	for _, name := range c.Tools.MustCall {
		detail := "never called"
		if attempted[name] && !ran[name] {
			detail = "called, but never run (bad arguments or too many calls)"
		}
		out = append(out, check("must_call "+name, ran[name], detail))
	}
	for _, name := range c.Tools.MustNotCall {
		out = append(out, check("must_not_call "+name, !attempted[name], "was called"))
	}
	for _, m := range c.Tools.Args {
		args, _ := json.Marshal(m.Args)
		name := fmt.Sprintf("args %s %s", m.Tool, args)
		if m.Exact {
			name += " (exact)"
		}
		out = append(out, check(name, anyCallMatches(calls, m), "no call with these arguments"))
	}
	if max := c.Tools.MaxCalls; max > 0 {
		out = append(out, check(fmt.Sprintf("max_calls %d", max), len(calls) <= max, fmt.Sprintf("%d calls made", len(calls))))
	}
	return out
}

// Failed returns the checks that did not hold.
func Failed(checks []eval.CheckResult) []eval.CheckResult {
	var failed []eval.CheckResult
	for _, c := range checks {
		if !c.Passed {
			failed = append(failed, c)
		}
	}
	return failed
}

func check(name string, ok bool, detail string) eval.CheckResult {
	r := eval.CheckResult{Check: name, Passed: ok}
	if !ok {
		r.Detail = detail
	}
	return r
}

func quote(s string) string { return strconv.Quote(s) }

// numberRE finds decimal literals: digit groups joined by commas, an
// optional fraction and exponent, an optional sign (U+2212 included).
var numberRE = regexp.MustCompile(`[-+\x{2212}]?(?:\d+(?:,\d+)*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?`)

// groupedRE matches a literal with thousands separators: "1,234,567.5".
var groupedRE = regexp.MustCompile(`^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:[eE][-+]?\d+)?$`)

// numbersIn returns the decimal numbers written in text ("1,234.5", "0.35",
// "-2e-3"), in order. A comma-joined literal gives each comma-separated
// number, as in compact JSON ("[1,234]"), and also the grouped value when
// the commas separate thousands ("1,234" gives 1, 234 and 1234). A sign or
// dot right after a letter or digit joins words instead of starting a
// number: "9-99694174" gives 9 and 99694174, "c.187C>T" gives 187.
func numbersIn(text string) []float64 {
	var out []float64
	for _, loc := range numberRE.FindAllStringIndex(text, -1) {
		lit := text[loc[0]:loc[1]]
		if before, _ := utf8.DecodeLastRuneInString(text[:loc[0]]); isWordRune(before) {
			lit = strings.TrimLeft(lit, "-+\u2212.")
		}
		lit = strings.Replace(lit, "\u2212", "-", 1)
		if groupedRE.MatchString(lit) {
			out = appendNumber(out, strings.ReplaceAll(lit, ",", ""))
		}
		for part := range strings.SplitSeq(lit, ",") {
			out = appendNumber(out, part)
		}
	}
	return out
}

func appendNumber(out []float64, lit string) []float64 {
	if v, err := strconv.ParseFloat(lit, 64); err == nil {
		return append(out, v)
	}
	return out
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// containsNumber reports whether some number equals n.Value within
// n.Tolerance, allowing for the rounding of decimal fractions.
func containsNumber(numbers []float64, n eval.NumberCheck) bool {
	slack := 1e-9 * max(1, math.Abs(n.Value))
	for _, v := range numbers {
		if math.Abs(v-n.Value) <= n.Tolerance+slack {
			return true
		}
	}
	return false
}

func anyCallMatches(calls []eval.ToolCall, m eval.ArgMatch) bool {
	for _, call := range calls {
		if call.Name != m.Tool || call.NotRun {
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
