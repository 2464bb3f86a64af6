package grading

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// unclearPrefix begins the reason of a reply that holds no clear verdict.
const unclearPrefix = "judge reply is unclear: "

// parseVerdict reads the verdict of one judge reply. It fails closed: the
// reply counts only when every signal in it says the same thing.
//
//   - The verdict is one submit_verdict call whose arguments are one JSON
//     object with a "verdict" of "yes" or "no", an optional "reason" text
//     and an optional "answer_is_correct" (the judge's own restatement,
//     true or false): no other key, no key twice, nothing after the object
//     (key case and the white space around the verdict may vary); or,
//     without such a call, a text that is exactly such an object,
//     optionally in a code fence (```json).
//   - Every other signal must agree with it: a second call, the
//     restatement, the reason, a text beside the call, a provider field
//     such as the model's reasoning. A "yes" passes only when none of them
//     says no in any way (Judge: "Correct: no", "not accurate",
//     "falsch", "不正确", a negation); a "no" is unclear when a signal
//     states yes outright, or judges the answer right and never wrong.
//   - A call of another tool makes the reply unclear.
//
// An unclear reply's Verdict is "", its Reason says why and its Raw keeps
// the whole reply.
//
// The reply must also fit the answer graded (see misfit): a quote that is
// not in it, a reason that misreads it or a score on the other side of the
// verdict make it unclear.
func parseVerdict(m eval.Message, g graded) Verdict {
	raw := replyText(m)
	unclear := func(why string) Verdict {
		return Verdict{Raw: raw, Reason: unclearPrefix + why}
	}
	var calls []eval.MessageToolCall
	for _, tc := range m.ToolCalls {
		if tc.Function.Name != verdictTool {
			return unclear(fmt.Sprintf("the reply also calls %q", tc.Function.Name))
		}
		calls = append(calls, tc)
	}
	content := strings.TrimSpace(m.Content)

	var objects []verdictObject
	if len(calls) == 0 {
		if content == "" {
			return unclear("the reply is empty (expected a submit_verdict call or {\"verdict\": \"yes\"|\"no\", \"reason\": ...})")
		}
		o, err := readVerdictObject(unfence(content))
		if err != nil {
			return unclear("the text is not one verdict object: " + err.Error())
		}
		objects = append(objects, o)
		content = ""
	}
	for i, call := range calls {
		o, err := readVerdictObject(call.Function.Arguments)
		if err != nil {
			return unclear(fmt.Sprintf("%s call %d of %d: %v", verdictTool, i+1, len(calls), err))
		}
		objects = append(objects, o)
	}
	if content != "" {
		// A text beside the call: a verdict object of its own, or words.
		if o, err := readVerdictObject(unfence(content)); err == nil {
			objects = append(objects, o)
			content = ""
		}
	}
	verdict := objects[0].verdict
	for i, o := range objects {
		if o.verdict != verdict {
			return unclear(fmt.Sprintf("the reply gives two verdicts: %q, then %q", verdict, o.verdict))
		}
		if o.correct != nil && *o.correct != (verdict == "yes") {
			return unclear(fmt.Sprintf("the verdict is %q but the judge's restatement says answer_is_correct: %v", verdict, *o.correct))
		}
		if why := conflict(verdict, Judge(o.reason)); why != "" {
			what := "its reason"
			if i > 0 {
				what = fmt.Sprintf("the reason of verdict %d", i+1)
			}
			return unclear(fmt.Sprintf("the verdict is %q but %s %s", verdict, what, why))
		}
	}
	if content != "" {
		if why := conflict(verdict, Judge(content)); why != "" {
			return unclear(fmt.Sprintf("the verdict is %q but the text beside it %s", verdict, why))
		}
	}
	var others []string // the texts beside the verdict: its text, its reasoning
	if content != "" {
		others = append(others, content)
	}
	for _, field := range slices.Sorted(maps.Keys(m.Extra)) {
		reasoning := extraText(m.Extra[field])
		if why := conflict(verdict, reasoningStance(reasoning)); why != "" {
			return unclear(fmt.Sprintf("the verdict is %q but the reply's %s %s", verdict, field, why))
		}
		if verdict == "yes" {
			if why := lenient(reasoning); why != "" {
				return unclear(fmt.Sprintf("the verdict is yes but the reply's %s %s", field, why))
			}
		}
		others = append(others, reasoning)
	}
	for _, o := range objects {
		if why := misfit(o, others, g); why != "" {
			return unclear(why)
		}
	}
	reason := objects[0].reason
	if reason == "" {
		reason = "(the judge gave no reason)"
	}
	return Verdict{Pass: verdict == "yes", Verdict: verdict, Reason: reason}
}

// conflict says how a text's stance disagrees with verdict, or "". A yes
// needs a text that says no in no way; a no is contradicted by a stated
// yes, or by a text that judges the answer right and never wrong.
func conflict(verdict string, s Stance) string {
	if verdict == "yes" {
		if c, ok := s.First("no"); ok {
			return fmt.Sprintf("says no (%s %q)", c.Why, c.Text)
		}
		return ""
	}
	if c, ok := s.First("yes"); ok && (s.States("yes") || !s.Says("no")) {
		return fmt.Sprintf("says yes (%s %q)", c.Why, c.Text)
	}
	return ""
}

// leniencyRE finds a judge granting what it found wrong: "grading
// leniently", "give it the benefit of the doubt", "close enough".
var leniencyRE = regexp.MustCompile(`(?i)\blenien|\bgenerous|\bbenefit of the doubt|\bclose enough|\bpartial credit|\blet it (?:pass|slide)|\boverlook|\bforgiv|\bnachsichtig|\bgroßzügig|\bindulgen|\bclemen|\btolerant(?:e|emente)? con|\bcon manga ancha|宽松|宽容`)

// lenient says why a reasoning that found the answer wrong then grants it
// all the same ("... is wrong. Grading leniently: yes"), or "".
func lenient(reasoning string) string {
	loc := leniencyRE.FindStringIndex(reasoning)
	if loc == nil {
		return ""
	}
	if c, ok := Judge(reasoning[:loc[0]]).First("no"); ok {
		return fmt.Sprintf("finds it wrong (%s %q), then grants it leniently, at %q", c.Why, c.Text, Snippet(reasoning, loc[0], loc[1], 60))
	}
	return ""
}

// reasoningStance reads a model's reasoning: its last line is its
// conclusion and is read whole; before it, only verdicts stated outright
// count ("Final: no"), since reasoning weighs what it then rejects. A
// "yes" or "no" that answers a question the reasoning asked itself
// ("Could it be the rat value? No: ...") is no verdict, nor is a judgement
// asked ("Does it conflict with the reference?") or stated under a
// condition ("if it were the hg19 position, it would be wrong").
func reasoningStance(text string) Stance {
	text = strings.TrimSpace(text)
	last := text
	if i := strings.LastIndex(text, "\n"); i >= 0 {
		last = text[i+1:]
	}
	s := Judge(last)
	s.Cues = slices.DeleteFunc(s.Cues, func(c Cue) bool { return c.Conditional || c.Asked })
	s.Verdicts = nil
	for _, v := range append(Judge(last).Verdicts, Judge(text).Verdicts...) {
		if !v.AnswersQuestion && !v.Conditional {
			s.Verdicts = append(s.Verdicts, v)
		}
	}
	return s
}

// extraText returns the texts of a provider field: a string, or the
// strings inside a list or object (reasoning_details).
func extraText(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	var parts []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			parts = append(parts, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if k == "text" || k == "content" || k == "summary" || k == "reasoning" {
					walk(v[k])
				}
			}
		}
	}
	walk(v)
	return strings.Join(parts, "\n")
}

// replyText shows a whole reply as text: its content, each tool call as
// name(arguments), and each provider field as name: value.
func replyText(m eval.Message) string {
	var parts []string
	if s := strings.TrimSpace(m.Content); s != "" {
		parts = append(parts, s)
	}
	for _, tc := range m.ToolCalls {
		parts = append(parts, tc.Function.Name+"("+tc.Function.Arguments+")")
	}
	for _, k := range slices.Sorted(maps.Keys(m.Extra)) {
		parts = append(parts, k+": "+string(m.Extra[k]))
	}
	return strings.Join(parts, "\n")
}

// fenceRE is a text that is one code block, optionally tagged json.
var fenceRE = regexp.MustCompile("(?s)^```[ \t]*(?i:json)?[ \t]*\r?\n(.*?)\r?\n?[ \t]*```$")

// unfence returns the body of a text that is one code block, or the text.
func unfence(s string) string {
	if m := fenceRE.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return s
}

// verdictObject is one verdict as the judge gave it.
type verdictObject struct {
	verdict, reason string
	// quote is the part of the answer the judge says decided it, "" when
	// it gave none.
	quote string
	// correct is the judge's restatement of whether the answer is
	// correct, nil when it gave none.
	correct *bool
}

// readVerdictObject reads a text that must be exactly one JSON object with
// the keys "verdict" (required, "yes" or "no" in any case, white space
// around it ignored), "reason" and "quote" (optional texts) and "answer_is_correct"
// (optional: true or false, or the texts "true", "false", "yes", "no"),
// each at most once in any letter case, and nothing but white space after
// it.
func readVerdictObject(s string) (verdictObject, error) {
	var o verdictObject
	s = strings.TrimSpace(s)
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return o, errors.New("not a JSON object")
	}
	seen := map[string]bool{}
	var gotVerdict bool
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return o, fmt.Errorf("invalid JSON: %v", err)
		}
		key, _ := tok.(string)
		k := strings.ToLower(key)
		if seen[k] {
			return o, fmt.Errorf("key %q appears twice", k)
		}
		seen[k] = true
		value, err := dec.Token()
		if err != nil {
			return o, fmt.Errorf("invalid JSON: %v", err)
		}
		text, isText := value.(string)
		switch {
		case k != "verdict" && k != "reason" && k != restatementKey && k != quoteKey:
			return o, fmt.Errorf("unexpected key %q (only verdict, reason, %s and %s)", key, quoteKey, restatementKey)
		case (k == "reason" || k == quoteKey) && value == nil:
		case k == restatementKey:
			b, ok := readBool(value)
			if !ok {
				return o, fmt.Errorf("%s is %s, not true or false", restatementKey, describeValue(value))
			}
			o.correct = &b
		case !isText:
			return o, fmt.Errorf("%s is %s, not a text", k, jsonKind(value))
		case k == "verdict":
			o.verdict, gotVerdict = strings.ToLower(strings.TrimSpace(text)), true
		case k == quoteKey:
			o.quote = strings.TrimSpace(text)
		default:
			o.reason = strings.TrimSpace(text)
		}
	}
	if _, err := dec.Token(); err != nil {
		return o, fmt.Errorf("invalid JSON: %v", err)
	}
	if rest := strings.TrimSpace(s[dec.InputOffset():]); rest != "" {
		return o, fmt.Errorf("text follows the JSON object: %s", strconv.Quote(truncateRunes(rest, 60)))
	}
	switch {
	case !gotVerdict:
		return o, errors.New("no verdict")
	case o.verdict != "yes" && o.verdict != "no":
		return o, fmt.Errorf("verdict %q is neither yes nor no", o.verdict)
	}
	return o, nil
}

// readBool reads a restatement: true or false, or a text saying so.
func readBool(v any) (bool, bool) {
	switch v := v.(type) {
	case bool:
		return v, true
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes":
			return true, true
		case "false", "no":
			return false, true
		}
	}
	return false, false
}

func describeValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return jsonKind(v)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case json.Delim:
		return "an object or a list"
	}
	return fmt.Sprintf("%T", v)
}
