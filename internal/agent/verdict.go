package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpeval/mcpeval/internal/eval"
)

// parseVerdict reads the verdict of one judge reply. The reply counts only
// when it carries exactly one verdict:
//
//   - one submit_verdict call whose arguments are one JSON object with a
//     "verdict" of "yes" or "no" and an optional "reason" text: no other
//     key, no key twice, nothing after the object (key case and the white
//     space around the verdict may vary); or
//   - without such a call, a text that is exactly such an object,
//     optionally in a code fence (```json).
//
// Every other verdict signal must agree with it: a second submit_verdict
// call, a text beside the call that states a verdict ("No. The answer is
// wrong.", a JSON verdict), a reason that states the opposite verdict
// ("Verdict: no"). Anything else is an unusable reply: its Verdict is "",
// its Reason says why and its Raw keeps the reply.
func parseVerdict(m eval.Message) Verdict {
	raw := replyText(m)
	unusable := func(why string) Verdict {
		return Verdict{Raw: raw, Reason: "judge reply has no single clear verdict: " + why}
	}
	var calls []eval.MessageToolCall
	for _, tc := range m.ToolCalls {
		if tc.Function.Name == verdictTool {
			calls = append(calls, tc)
		}
	}
	content := strings.TrimSpace(m.Content)

	var verdict, reason string
	if len(calls) == 0 {
		if content == "" {
			return unusable("the reply is empty (expected a submit_verdict call or {\"verdict\": \"yes\"|\"no\", \"reason\": ...})")
		}
		v, r, err := readVerdictObject(unfence(content))
		if err != nil {
			return unusable("the text is not one verdict object: " + err.Error())
		}
		verdict, reason = v, r
	} else {
		for i, call := range calls {
			v, r, err := readVerdictObject(call.Function.Arguments)
			if err != nil {
				return unusable(fmt.Sprintf("%s call %d of %d: %v", verdictTool, i+1, len(calls), err))
			}
			if i == 0 {
				verdict, reason = v, r
			} else if v != verdict {
				return unusable(fmt.Sprintf("%s calls disagree: %q, then %q", verdictTool, verdict, v))
			}
		}
		if other := opposite(verdict); content != "" && statesVerdict(content, true)[other] {
			return unusable(fmt.Sprintf("the %s call says %q but the text beside it says %q", verdictTool, verdict, other))
		}
	}
	if other := opposite(verdict); statesVerdict(reason, false)[other] {
		return unusable(fmt.Sprintf("the verdict is %q but its reason says %q", verdict, other))
	}
	if reason == "" {
		reason = "(the judge gave no reason)"
	}
	return Verdict{Pass: verdict == "yes", Verdict: verdict, Reason: reason}
}

func opposite(verdict string) string {
	if verdict == "yes" {
		return "no"
	}
	return "yes"
}

// replyText shows a whole reply as text: its content, then each tool call
// as name(arguments).
func replyText(m eval.Message) string {
	var parts []string
	if s := strings.TrimSpace(m.Content); s != "" {
		parts = append(parts, s)
	}
	for _, tc := range m.ToolCalls {
		parts = append(parts, tc.Function.Name+"("+tc.Function.Arguments+")")
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

// readVerdictObject reads a text that must be exactly one JSON object with
// the keys "verdict" (required, "yes" or "no" in any case, white space
// around it ignored) and "reason" (optional text), each at most once in any
// letter case, and nothing but white space after it.
func readVerdictObject(s string) (verdict, reason string, err error) {
	s = strings.TrimSpace(s)
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", "", errors.New("not a JSON object")
	}
	seen := map[string]bool{}
	var gotVerdict bool
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", "", fmt.Errorf("invalid JSON: %v", err)
		}
		key, _ := tok.(string)
		k := strings.ToLower(key)
		if seen[k] {
			return "", "", fmt.Errorf("key %q appears twice", k)
		}
		seen[k] = true
		value, err := dec.Token()
		if err != nil {
			return "", "", fmt.Errorf("invalid JSON: %v", err)
		}
		text, isText := value.(string)
		switch {
		case k != "verdict" && k != "reason":
			return "", "", fmt.Errorf("unexpected key %q (only verdict and reason)", key)
		case k == "reason" && value == nil:
		case !isText:
			return "", "", fmt.Errorf("%s is %s, not a text", k, jsonKind(value))
		case k == "verdict":
			verdict, gotVerdict = strings.ToLower(strings.TrimSpace(text)), true
		default:
			reason = strings.TrimSpace(text)
		}
	}
	if _, err := dec.Token(); err != nil {
		return "", "", fmt.Errorf("invalid JSON: %v", err)
	}
	if rest := strings.TrimSpace(s[dec.InputOffset():]); rest != "" {
		return "", "", fmt.Errorf("text follows the JSON object: %s", strconv.Quote(truncate(rest, 60)))
	}
	switch {
	case !gotVerdict:
		return "", "", errors.New("no verdict")
	case verdict != "yes" && verdict != "no":
		return "", "", fmt.Errorf("verdict %q is neither yes nor no", verdict)
	}
	return verdict, reason, nil
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

// verdictEnd ends a verdict word: a quote or punctuation, or the end of
// the text ("verdict: no," but not "the verdict is no surprise").
const verdictEnd = `(?:["'”]|\s*(?:[.,;:!)—–]|-\s|$))`

// Phrases that state a verdict. Each pattern's first group is the verdict
// word.
var (
	// verdictWordRE: "verdict: no", "verdict is yes", "\"verdict\": \"no\"".
	verdictWordRE = regexp.MustCompile(`(?i)\bverdict\b["'”]?\s*(?:[:=]|\bis\b|\bshould be\b|\bwould be\b)\s*[:=]?\s*["'“]?\s*(yes|no)` + verdictEnd)
	// leadingWordRE: a text that opens with "Yes." or "No," or is only that word.
	leadingWordRE = regexp.MustCompile(`(?i)^[\s*_#>"'“]*(yes|no)[*_"'”]*\s*(?:[.,!:;—–]|-\s|$)`)
	// actuallyRE: "Actually, no".
	actuallyRE = regexp.MustCompile(`(?i)\b(?:actually|on reflection|on second thought)\s*,?\s*(yes|no)` + verdictEnd)
	// answerIsRE: "the answer is wrong", "the answer is correct."; the word
	// before "answer" tells an expected answer from the graded one.
	answerIsRE = regexp.MustCompile(`(?i)\b(\w+)?\s*answer\s+(?:is|was)\s+(?:(?:factually|clearly|completely|entirely|simply|therefore|thus|fully)\s+)?(incorrect|wrong|not correct|inaccurate|unacceptable|not acceptable|correct|right|acceptable|accurate)\b`)
	// decisionRE: "I reject", "should be accepted".
	decisionRE = regexp.MustCompile(`(?i)\b(?:(?:I|we)\s+(accept|reject)|should\s+be\s+(accepted|rejected))\b`)
)

// statesVerdict returns the verdicts a text states (its keys are "yes" and
// "no"). A reason is read for explicit statements only ("verdict: no", a
// leading "No."); the text beside a verdict call also for judgements of the
// answer ("the answer is wrong", "I accept").
func statesVerdict(text string, beside bool) map[string]bool {
	out := map[string]bool{}
	for _, re := range []*regexp.Regexp{verdictWordRE, leadingWordRE, actuallyRE} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			out[strings.ToLower(m[1])] = true
		}
	}
	if !beside {
		return out
	}
	for _, m := range answerIsRE.FindAllStringSubmatch(text, -1) {
		if w := strings.ToLower(m[1]); w == "expected" || w == "reference" || w == "correct" || w == "right" {
			continue
		}
		switch strings.ToLower(m[2]) {
		case "correct", "right", "acceptable", "accurate":
			out["yes"] = true
		default:
			out["no"] = true
		}
	}
	for _, m := range decisionRE.FindAllStringSubmatch(text, -1) {
		if strings.HasPrefix(strings.ToLower(m[1]+m[2]), "accept") {
			out["yes"] = true
		} else {
			out["no"] = true
		}
	}
	return out
}
