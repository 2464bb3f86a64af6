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

// CheckVersion numbers the meaning of the deterministic checks. It is part
// of every cache key, so a result obtained under other rules (substring
// contains, echoed questions counted as evidence) is never reused.
const CheckVersion = 2

// CheckAnswer evaluates the case's deterministic answer checks on answer.
// The checks read the answer without the spans that repeat the question
// (see withoutEcho): the question's own words are no evidence. An answer
// that is nothing but the question fails every check.
func CheckAnswer(c eval.Case, answer string) []eval.CheckResult {
	var out []eval.CheckResult
	text, onlyEcho := withoutEcho(c.Input, answer)
	// result records one check; an answer that only repeats the question
	// fails it whatever it found.
	result := func(name string, ok bool, detail string) {
		if onlyEcho {
			ok, detail = false, "the answer only repeats the question"
		}
		out = append(out, check(name, ok, detail))
	}
	kind := ""
	if c.Checks.Substring {
		kind = " (substring)"
	}
	for _, s := range c.Checks.Contains {
		result("contains "+quote(s)+kind, containsText(text, s, c.Checks.Substring), "not found in the answer")
	}
	for _, s := range c.Checks.NotContains {
		result("not_contains "+quote(s)+kind, !containsText(text, s, c.Checks.Substring), "found in the answer")
	}
	for _, p := range c.Checks.Regexp {
		re, err := regexp.Compile(p) // validated at load time; cases built in code are not
		if err != nil {
			out = append(out, check("regexp "+quote(p), false, err.Error()))
			continue
		}
		result("regexp "+quote(p), re.MatchString(text), "no match in the answer")
	}
	for _, p := range c.Checks.NotRegexp {
		re, err := regexp.Compile(p)
		if err != nil {
			out = append(out, check("not_regexp "+quote(p), false, err.Error()))
			continue
		}
		detail := ""
		if m := re.FindString(text); m != "" || re.MatchString(text) {
			detail = "matches " + quote(truncateRunes(m, 80)) + " in the answer"
		}
		result("not_regexp "+quote(p), detail == "", detail)
	}
	if len(c.Checks.Numbers) > 0 {
		numbers := numbersAt(text)
		for _, n := range c.Checks.Numbers {
			name := fmt.Sprintf("number %v ± %v", n.Value, n.Tolerance)
			detail := "no such number in the answer"
			if len(n.Unit) > 0 {
				name += " " + strings.Join(n.Unit, " or ")
				detail = "no such number in " + quote(n.Unit[0]) + " in the answer"
			}
			result(name, containsNumber(text, numbers, n), detail)
		}
	}
	return out
}

// HasAnswerChecks reports whether the case checks its answer (not only its
// tool calls).
func HasAnswerChecks(c eval.Checks) bool {
	return len(c.Contains)+len(c.NotContains)+len(c.Regexp)+len(c.NotRegexp)+len(c.Numbers) > 0
}

// containsText reports whether phrase occurs in text, ignoring case: as
// whole words (a phrase that begins or ends with a letter or digit must not
// continue a longer word there; any run of white space matches any other),
// or anywhere when substring is set.
func containsText(text, phrase string, substring bool) bool {
	if substring {
		return strings.Contains(strings.ToLower(text), strings.ToLower(phrase))
	}
	return wordPattern(phrase).MatchString(text)
}

// wordPattern compiles phrase into a case-insensitive whole-word pattern.
func wordPattern(phrase string) *regexp.Regexp { return phrasePattern(phrase, false) }

// phrasePattern compiles phrase into a case-insensitive pattern that finds
// it as whole words, anywhere or, when atStart, at the start of the text.
func phrasePattern(phrase string, atStart bool) *regexp.Regexp {
	phrase = strings.TrimSpace(phrase)
	var b strings.Builder
	b.WriteString("(?i)")
	first, _ := utf8.DecodeRuneInString(phrase)
	switch {
	case atStart:
		b.WriteString("^")
	case isWordRune(first):
		b.WriteString(`(?:^|[^\p{L}\p{N}_])`)
	}
	for i, field := range strings.Fields(phrase) {
		if i > 0 {
			b.WriteString(`\s+`)
		}
		b.WriteString(regexp.QuoteMeta(field))
	}
	last, _ := utf8.DecodeLastRuneInString(phrase)
	if isWordRune(last) {
		b.WriteString(`(?:$|[^\p{L}\p{N}_])`)
	}
	return regexp.MustCompile(b.String())
}

func truncateRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
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

// number is a number written in a text, and the byte offset where its
// literal ends.
type number struct {
	value float64
	end   int
}

// numbersIn returns the values of numbersAt.
func numbersIn(text string) []float64 {
	var out []float64
	for _, n := range numbersAt(text) {
		out = append(out, n.value)
	}
	return out
}

// numbersAt returns the decimal numbers written in text ("1,234.5", "0.35",
// "-2e-3"), in order. A comma-joined literal gives each comma-separated
// number, as in compact JSON ("[1,234]"), and also the grouped value when
// the commas separate thousands ("1,234" gives 1, 234 and 1234). A sign or
// dot right after a letter or digit joins words instead of starting a
// number: "9-99694174" gives 9 and 99694174, "c.187C>T" gives 187.
func numbersAt(text string) []number {
	var out []number
	for _, loc := range numberRE.FindAllStringIndex(text, -1) {
		start, lit := loc[0], text[loc[0]:loc[1]]
		if before, _ := utf8.DecodeLastRuneInString(text[:start]); isWordRune(before) {
			trimmed := strings.TrimLeft(lit, "-+\u2212.")
			start += len(lit) - len(trimmed)
			lit = trimmed
		}
		lit = strings.Replace(lit, "\u2212", "-", 1)
		if groupedRE.MatchString(lit) {
			out = appendNumber(out, strings.ReplaceAll(lit, ",", ""), loc[1])
		}
		end := loc[1] - len(lit) // the literal's start, as it ends in text
		for part := range strings.SplitSeq(lit, ",") {
			end += len(part)
			out = appendNumber(out, part, end)
			end++ // the comma
		}
	}
	return out
}

func appendNumber(out []number, lit string, end int) []number {
	if v, err := strconv.ParseFloat(lit, 64); err == nil {
		return append(out, number{v, end})
	}
	return out
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// containsNumber reports whether some number equals n.Value within
// n.Tolerance, allowing for the rounding of decimal fractions, and is in
// one of n.Unit's spellings when it has any (see unitOK).
func containsNumber(text string, numbers []number, n eval.NumberCheck) bool {
	slack := 1e-9 * max(1, math.Abs(n.Value))
	for _, v := range numbers {
		if math.Abs(v.value-n.Value) <= n.Tolerance+slack && unitOK(text, v.end, n.Unit) {
			return true
		}
	}
	return false
}

// unitOK reports whether the number whose literal ends at end is in one of
// units (always, when units is empty): a unit right after it, optionally
// after white space or an opening parenthesis, must be one of them ("63.18
// TPM", "1.7 %"); a number followed by another word that can be a unit
// ("63.18 RPKM") is not; a number followed by nothing of the sort is when
// the text names one of the units elsewhere ("median TPM: 63.18").
func unitOK(text string, end int, units eval.Units) bool {
	if len(units) == 0 {
		return true
	}
	rest := strings.TrimLeft(text[end:], " \t\u00a0([")
	for _, u := range units {
		if strings.TrimSpace(u) != "" && phrasePattern(u, true).MatchString(rest) {
			return true
		}
	}
	if word := leadingWord(rest); word != "" && !notUnits[strings.ToLower(word)] {
		return false // another unit
	}
	for _, u := range units {
		if strings.TrimSpace(u) != "" && containsText(text, u, false) {
			return true
		}
	}
	return false
}

// leadingWord returns the word s begins with: letters (with µ), or a
// percent or per-mille sign; "" when s begins otherwise.
func leadingWord(s string) string {
	if strings.HasPrefix(s, "%") || strings.HasPrefix(s, "‰") {
		return s[:len(string([]rune(s)[0]))]
	}
	end := 0
	for i, r := range s {
		if !unicode.IsLetter(r) {
			break
		}
		end = i + utf8.RuneLen(r)
	}
	return s[:end]
}

// notUnits are words that often follow a number without being its unit.
var notUnits = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "but": true, "by": true,
	"for": true, "from": true, "in": true, "is": true, "of": true, "on": true, "or": true, "the": true,
	"than": true, "to": true, "versus": true, "vs": true, "was": true, "were": true, "whereas": true,
	"which": true, "while": true, "with": true, "compared": true,
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
