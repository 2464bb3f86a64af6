package suite

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// FormatLine is the one line printed for a finished case under -v.
func FormatLine(r eval.Record) string {
	cached := ""
	if r.Cached {
		cached = " (cached)"
	}
	turns, leaks := "", ""
	for _, t := range r.Turns {
		if t.Simulated {
			turns = fmt.Sprintf(", %s with the simulated user", prose.Plural(len(r.Turns), "turns"))
		}
		for _, f := range t.Leaks {
			leaks += fmt.Sprintf(" (leak at turn %d: the simulated user gave \"%s\" unasked)", t.Turn, oneLine(f, 120))
		}
	}
	return fmt.Sprintf("%s%s: %s, %d tokens, %.1fs%s: %s%s", r.Status, cached, prose.Plural(len(r.ToolCalls), "tool calls"), r.Usage.TotalTokens, r.Seconds, turns, oneLine(r.Reason, 200), leaks)
}

// FormatFailure is the paragraph printed for a failed or errored case:
// verdict, reason, tools called, tokens and seconds.
func FormatFailure(r eval.Record) string {
	var b strings.Builder
	verdict := string(r.Status)
	if r.Verdict != "" {
		verdict += " (judge: " + r.Verdict + ")"
	}
	fmt.Fprintf(&b, "%s: %s\n", verdict, oneLine(r.Reason, 600))
	for _, line := range eval.ClaimLines(r.Claims) {
		b.WriteString(oneLine(line, 400) + "\n")
	}
	for _, line := range eval.TurnLines(r.Turns) {
		b.WriteString(escapeHidden(line) + "\n")
	}
	if r.JudgeRaw != "" {
		n := 300
		if r.Status == eval.Undecided {
			n = 900 // both replies
		}
		fmt.Fprintf(&b, "judge replied: %s\n", oneLine(r.JudgeRaw, n))
	}
	if len(r.Judges) > 1 {
		fmt.Fprintf(&b, "judges: %s\n", judgeList(r.Judges))
	}
	fmt.Fprintf(&b, "tools: %s\n", toolList(r.ToolCalls, namesServers(r.Checks)))
	for _, l := range serverInput(r.ToolCalls) {
		b.WriteString(l + "\n")
	}
	if r.Response != "" {
		fmt.Fprintf(&b, "answer: %s\n", oneLine(r.Response, 300))
	}
	fmt.Fprintf(&b, "tokens: %d, %.1fs, %s:%d", r.Usage.TotalTokens, r.Seconds, escapeHidden(r.File), r.Line)
	if r.ServerStderr != "" {
		fmt.Fprintf(&b, "\nserver stderr: %s", oneLine(r.ServerStderr, 600))
	}
	return b.String()
}

// judgeList shows each judge's verdict: "a yes, b no (split)".
func judgeList(judges []eval.JudgeVerdict) string {
	parts := make([]string, len(judges))
	for i, j := range judges {
		switch {
		case j.Error != "":
			parts[i] = j.Model + " error"
		case j.Verdict == "":
			parts[i] = j.Model + " could not decide"
		default:
			parts[i] = j.Model + " " + j.Verdict
		}
	}
	return strings.Join(parts, ", ")
}

// serverInput is what the servers asked and said during the calls: each
// elicitation round trip (what was asked, the reply), and the stderr of
// the first call that failed with the server's stderr lines beside it.
func serverInput(calls []eval.ToolCall) []string {
	var out []string
	stderr := false
	for _, c := range calls {
		for _, e := range c.Elicitations {
			reply := e.Action
			if e.Content != nil {
				reply += " " + eval.ArgumentsJSON(e.Content)
			}
			switch {
			case e.Simulated:
				reply += " (the simulated user's reply)"
			case !e.Scripted:
				reply += " (no reply scripted: declined)"
			}
			out = append(out, fmt.Sprintf("elicitation: %s asked \"%s\" for %s → %s", c.Name, oneLine(e.Message, 200),
				oneLine(strings.Join(e.Fields, ", "), 200), oneLine(reply, 300)))
		}
		if c.IsError && c.Stderr != "" && !stderr {
			stderr = true
			out = append(out, fmt.Sprintf("stderr of %s when %s failed: %s", c.Server, c.Name, oneLine(c.Stderr, 600)))
		}
	}
	return out
}

// namesServers reports whether a tool check names a tool as server/tool:
// the calls are then named so too, to tell one server's tool from
// another's of the same name.
func namesServers(checks []eval.CheckResult) bool {
	for _, c := range checks {
		for _, kind := range []string{"must_call ", "must_not_call ", "args ", "elicited "} {
			if rest, ok := strings.CutPrefix(c.Check, kind); ok && strings.Contains(strings.Fields(rest + " ")[0], "/") {
				return true
			}
		}
	}
	return false
}

// toolList lists the calls with their arguments, by the tool's name on
// its server, or as server/tool when qualified.
func toolList(calls []eval.ToolCall, qualified bool) string {
	if len(calls) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(calls))
	for i, c := range calls {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("... %d more", len(calls)-i))
			break
		}
		name := c.Name
		if qualified && c.Server != "" {
			name = c.Server + "/" + c.Name
		}
		p := name + "(" + oneLine(c.Arguments, 80) + ")"
		if c.IsError {
			p += " [error]"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// oneLine folds s to one line of at most n characters, its hidden
// characters escaped (escapeHidden).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return escapeHidden(s)
}

// escapeHidden writes the characters of s that a terminal or a CI log
// would act on or hide as Go-style escapes: control characters but tab and
// line feed (ESC[2J would clear the screen, an OSC sequence set the
// window's title, backspaces erase text), bidirectional formatting
// characters (U+202E reverses what follows) and invalid UTF-8 bytes. A
// model's answer then shows as what it is.
func escapeHidden(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hidden(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func hidden(r rune) bool {
	return (unicode.IsControl(r) && r != '\t' && r != '\n') || unicode.Is(unicode.Bidi_Control, r)
}

// FormatSummary is the summary printed at the end of a run that wrote into
// runDir.
func FormatSummary(s eval.Summary, runDir string) string {
	var b strings.Builder
	what := "model " + s.Model
	arms := armWord(s)
	if len(s.Models) > 1 {
		names := make([]string, len(s.Models))
		for i, m := range s.Models {
			names[i] = m.Model
		}
		what = arms + " " + strings.Join(names, ", ")
		if len(names) > maxNamed {
			what = fmt.Sprintf("%d %s (%s, … %s)", len(names), arms, strings.Join(names[:maxNamed-1], ", "), names[len(names)-1])
		}
	}
	if s.Reference {
		what = "REFERENCE RUN (no model evaluated)"
	}
	fmt.Fprintf(&b, "mcpeval: %s: %s: %d passed, %d failed, %d errors, %d token-limit", what, CountRuns(s), s.Passed, s.Failed, s.Errors, s.TokenLimit)
	if s.Cut > 0 {
		fmt.Fprintf(&b, ", %d cut off", s.Cut)
	}
	fmt.Fprintf(&b, ", %d cached", s.Cached)
	if s.Undecided > 0 {
		why := "the judge could not decide"
		if s.Verdicts == eval.VerdictsByChecks {
			why = "no judge ran, and the checks were not sure"
		}
		fmt.Fprintf(&b, ", %d undecided (%s)", s.Undecided, why)
	}
	if s.Skipped > 0 {
		fmt.Fprintf(&b, ", %d skipped", s.Skipped)
	}
	if s.NotRun > 0 {
		fmt.Fprintf(&b, ", %d not run", s.NotRun)
	}
	switch {
	case s.Reference: // no model, nothing spent
		fmt.Fprintf(&b, "; %.1fs\n", s.Seconds)
	case s.Rejudged != nil: // what it spent is the judge's: on the judge's line
		fmt.Fprintf(&b, "; the model asked nothing, $0.0000 spent on it, %.1fs\n", s.Seconds)
	default:
		judged := "" // the run's figures, as summary.json's usage and cost_usd: the judge's included
		switch judge, user := s.Judge != nil && s.Judge.Requests > 0, s.User != nil && s.User.Requests > 0; {
		case judge && user:
			judged = " (the judge's and the simulated users' included)"
		case judge:
			judged = " (the judge's included)"
		case user:
			judged = " (the simulated users' included)"
		}
		fmt.Fprintf(&b, "; %d tokens%s%s, %s, %d retries, %.1fs\n", s.Usage.TotalTokens, judged, cacheShare(s.Usage.PromptTokens, s.Usage.CachedTokens), costLine(s), s.Usage.Retries, s.Seconds)
	}
	if s.Replay != nil {
		fmt.Fprintln(&b, replayLine(s.Replay))
	}
	if s.Rejudged != nil {
		fmt.Fprintln(&b, RejudgedLine(s.Rejudged))
	}
	if len(s.Models) > 1 {
		// Each arm's own headline: its pass rate, costs and tools.
		for _, m := range s.Models {
			fmt.Fprintln(&b, formatModel(m))
		}
		// Each arm's verdict against the baseline arm, then what the arms
		// change; the pairs of every two arms after them, the first
		// maxPairLines of them.
		for _, v := range s.ArmVerdicts {
			fmt.Fprintln(&b, FormatVerdict(v))
		}
		for _, e := range s.ArmEffects {
			fmt.Fprintln(&b, formatEffect(e))
		}
		for i, p := range s.ModelPairs {
			if i == maxPairLines {
				fmt.Fprintf(&b, "mcpeval: and %d more pairs of %s (model_pairs in summary.json)\n", len(s.ModelPairs)-i, arms)
				break
			}
			adjusted := ""
			if len(s.ModelPairs) > 1 {
				adjusted = fmt.Sprintf(", adjusted for %d pairs %.4g", len(s.ModelPairs), p.AdjustedP)
			}
			fmt.Fprintf(&b, "mcpeval: %s vs %s on %s: %d passed only by %s, %d only by %s (McNemar p = %.4g%s)\n",
				p.A, p.B, prose.Plural(p.Cases, "cases"), p.OnlyA, p.A, p.OnlyB, p.B, p.McNemarP, adjusted)
		}
	}
	switch j := s.Judge; {
	case s.Rejudged != nil && !s.Reference:
		model, requests, cost := "", 0, "$0.0000"
		if j != nil {
			model, requests, cost = " "+j.Model, j.Requests, FormatCost(j.CostUSD, j.Unpriced)
		}
		fmt.Fprintf(&b, "mcpeval: judge%s: %s, %d tokens, %s, %d retries: all this re-judged run spent (not in the %s' costs)\n",
			model, prose.Plural(requests, "requests"), s.Usage.TotalTokens, cost, s.Usage.Retries, arms)
	case j != nil && !s.Reference:
		fmt.Fprintf(&b, "mcpeval: judge %s: %s, %s (not in the %s' costs)\n", j.Model, prose.Plural(j.Requests, "requests"), FormatCost(j.CostUSD, j.Unpriced), arms)
	}
	if u := s.User; u != nil && !s.Reference && s.Rejudged == nil {
		retries := ""
		switch {
		case u.Retries == 1:
			retries = " (1 retry)"
		case u.Retries > 1:
			retries = fmt.Sprintf(" (%d retries)", u.Retries)
		}
		fmt.Fprintf(&b, "mcpeval: simulated user %s: %s%s, %s (not in the %s' costs)\n", u.Model, prose.Plural(u.Requests, "requests"), retries, FormatCost(u.CostUSD, u.Unpriced), arms)
	}
	if len(s.Leaks) > 0 {
		fmt.Fprintf(&b, "mcpeval: the simulated user gave a fact unasked (a leak: the agent was not tested on asking for it) in %s: %s\n",
			prose.Plural(len(s.Leaks), "turns"), escapeHidden(oneLine(strings.Join(s.Leaks, "; "), 600)))
	}
	if s.Verdicts == eval.VerdictsByChecks && s.ChecksCalibration != nil {
		for _, line := range s.ChecksCalibration.Lines() {
			fmt.Fprintf(&b, "mcpeval: %s\n", line)
		}
	}
	if s.JudgeDisagreements > 0 {
		fmt.Fprintf(&b, "mcpeval: the judges (%s, %s) disagreed on %s\n", s.JudgeModel, s.JudgeMode, prose.Plural(s.JudgeDisagreements, "cases"))
	}
	if s.ServerRestarts > 0 {
		fmt.Fprintf(&b, "mcpeval: MCP servers restarted %d times after a crash or hang\n", s.ServerRestarts)
	}
	if s.Repeats > 1 && len(s.Models) < 2 { // with several, each one's line has its pass@k
		// The rates are over the runs that ran: k goes up to the most runs
		// a case had.
		o := s.Overall
		fmt.Fprintf(&b, "mcpeval: %d repeats", s.Repeats)
		if s.NotRun > 0 {
			fmt.Fprintf(&b, " (%s not run, left out of the rates)", prose.Plural(s.NotRun, "case runs"))
		}
		fmt.Fprintf(&b, ": pass rate %.3f", o.PassRate)
		if k := len(o.PassAtK); k > 1 {
			fmt.Fprintf(&b, ", pass@%d %.3f, pass^%d %.3f", k, last(o.PassAtK), k, last(o.PassHatK))
		}
		fmt.Fprintf(&b, ", %d flaky cases\n", o.Flaky)
	}
	formatTools(&b, s.Tools)
	fmt.Fprintf(&b, "mcpeval: results in %s: %s, %s, %s, %s (mcpeval report, run by make eval, makes %s)", runDir,
		eval.RecordsFile, eval.SummaryFile, eval.MetricsFile, eval.MetricsSummaryFile, eval.ReportFile)
	if s.Reference {
		fmt.Fprintf(&b, "\nmcpeval: %s", settings.MissingKeyHelp)
	}
	return b.String()
}

// armWord is what the run's arms are called: arms when they are
// the arms of an arms file, else models.
func armWord(s eval.Summary) string {
	if len(s.Arms) > 0 || len(s.Models) > 0 && s.Models[0].Arm != nil {
		return "arms"
	}
	return "models"
}

// maxNamed bounds the arms the first closing line names.
const maxNamed = 8

// CountRuns says how many case runs a summary counts: "12 cases" when each
// case ran once, "90 case runs" with several models or repeats.
func CountRuns(s eval.Summary) string { return PluralRuns(s, s.Total) }

// PluralRuns counts n case runs of the run s summarizes: "12 cases" when
// each case runs once, "90 case runs" with several models or repeats.
func PluralRuns(s eval.Summary, n int) string {
	if len(s.Models) > 1 || s.Repeats > 1 {
		return prose.Plural(n, "case runs")
	}
	return prose.Plural(n, "cases")
}

// formatModel is a model's closing line: its passes with the interval,
// pass@k and pass^k with repeats, its own cost and cost per pass; a model
// none of whose runs started says so.
func formatModel(m eval.ModelResult) string {
	what := "model " + m.Model
	if m.Arm != nil {
		what = fmt.Sprintf("arm %s (%s, %d tools, %d tokens of tool definitions per request)", m.Model, m.Arm.Model, m.Tools, m.ToolTokens)
	}
	if m.Runs == 0 {
		return fmt.Sprintf("mcpeval: %s: no run (%d not run)", what, m.NotRun)
	}
	line := fmt.Sprintf("mcpeval: %s: %d/%d passed (%.1f%%, 95%% interval %.1f-%.1f%%)", what, m.Passes, m.Runs, 100*m.PassRate, 100*m.Low, 100*m.High)
	if k := len(m.PassAtK); k > 1 {
		line += fmt.Sprintf(", pass@%d %.3f, pass^%d %.3f", k, m.PassAtK[k-1], k, m.PassHatK[k-1])
	}
	line += ", " + FormatCost(m.CostUSD, m.Unpriced)
	if m.Passes > 0 && m.Unpriced == 0 {
		line += fmt.Sprintf(", $%.4f per pass", m.CostPerPass)
	}
	if m.NotRun > 0 {
		line += fmt.Sprintf(", %d not run", m.NotRun)
	}
	return line + cacheShare(m.PromptTokens, m.CachedTokens)
}

// maxPairLines bounds the closing lines comparing two arms: with many
// arms (leave-one-out) their pairs are hundreds.
const maxPairLines = 20

// formatEffect is the closing line of what an arm changes: "arm server
// over no-server (no server): +45.0 points of pass rate (interval +28.1 to
// +59.0 at 99.2%, adjusted like p) on 20 cases, adjusted p 0.0001".
func formatEffect(e eval.ArmEffect) string {
	what := fmt.Sprintf("arm %s over %s (no server)", e.To, e.From)
	if e.Kind == "leave_one_out" {
		what = fmt.Sprintf("leaving %s out of %s (arm %s)", e.Hidden, e.From, e.To)
	}
	return fmt.Sprintf("mcpeval: %s: %+.1f points of pass rate (%s) on %d cases, adjusted p %.4g",
		what, 100*e.Effect, formatInterval(e.Low, e.High, e.Confidence), e.Cases, e.AdjustedP)
}

// formatInterval is an interval of a change in points at its confidence,
// adjusted like the p beside it.
func formatInterval(low, high, confidence float64) string {
	return fmt.Sprintf("interval %+.1f to %+.1f at %s%%, adjusted like p", 100*low, 100*high, strconv.FormatFloat(100*confidence, 'g', 4, 64))
}

// maxVerdictCases bounds the cases a verdict line names of each kind.
const maxVerdictCases = 5

// FormatVerdict is an arm's closing line against the baseline arm: "arm
// terse against baseline server: worse (-35.0 points, adjusted p 0.0039,
// below 0.05): 0 of 20 cases improved, 7 regressed (a, b, …); tool definitions -120
// tokens per request; cost per correct answer $0.0100 → $0.0150
// (+$0.0050)".
func FormatVerdict(v eval.ArmVerdict) string {
	decided := "below"
	if v.Verdict == eval.VerdictInconclusive {
		decided = "not below"
	}
	line := fmt.Sprintf("mcpeval: arm %s against baseline %s: %s (%+.1f points, adjusted p %.4g, %s %g): %d of %d cases improved%s, %d regressed%s",
		v.Arm, v.Baseline, v.Verdict, 100*v.Effect, v.AdjustedP, decided, v.Alpha,
		len(v.Improved), v.Cases, caseList(v.Improved), len(v.Regressed), caseList(v.Regressed))
	line += fmt.Sprintf("; tool definitions %+d tokens per request", v.ToolTokensChange)
	if v.CostPerPassChange != nil {
		line += fmt.Sprintf("; cost per correct answer $%.4f → $%.4f (%s)", v.BaselineCostPerPass, v.CostPerPass, signedUSD(*v.CostPerPassChange))
	} else {
		line += "; cost per correct answer not comparable (no pass, or requests without a price)"
	}
	return line
}

// caseList names the first cases of a verdict: " (a, b, … and 3 more)".
func caseList(names []string) string {
	if len(names) == 0 {
		return ""
	}
	shown := make([]string, 0, maxVerdictCases)
	for _, n := range names[:min(len(names), maxVerdictCases)] {
		shown = append(shown, oneLine(n, 80))
	}
	if more := len(names) - len(shown); more > 0 {
		shown = append(shown, fmt.Sprintf("and %d more", more))
	}
	return " (" + strings.Join(shown, ", ") + ")"
}

// signedUSD is a change in dollars: "+$0.0050", "-$0.0010".
func signedUSD(usd float64) string {
	if math.Round(usd*1e4) == 0 {
		return "+$0.0000"
	}
	if usd < 0 {
		return fmt.Sprintf("-$%.4f", -usd)
	}
	return fmt.Sprintf("+$%.4f", usd)
}

// FormatCost says what requests cost: "$0.0123", "unpriced" when none had
// a price, or "$0.0123 and 4 unpriced requests".
func FormatCost(usd float64, unpriced int) string {
	switch {
	case unpriced > 0 && usd == 0:
		return "unpriced"
	case unpriced > 0:
		return fmt.Sprintf("$%.4f and %d unpriced requests", usd, unpriced)
	}
	return fmt.Sprintf("$%.4f", usd)
}

// cacheShare says which share of the prompt tokens the provider's prompt
// cache served, or nothing when it served none.
func cacheShare(prompt, cached int) string {
	if cached <= 0 || prompt <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%.0f%% of prompt tokens from the provider's prompt cache)", 100*float64(cached)/float64(prompt))
}

// last is the last value of xs, or 0.
func last(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[len(xs)-1]
}

// costLine says what the run cost, the judge's requests included: "$0.0123
// spent (the judge's $0.0020 included), $0.0040 saved by the cache", and
// how many requests had no price.
func costLine(s eval.Summary) string {
	line := fmt.Sprintf("$%.4f spent", s.CostUSD)
	var parts []string
	if j := s.Judge; j != nil && j.CostUSD > 0 {
		parts = append(parts, fmt.Sprintf("the judge's $%.4f", j.CostUSD))
	}
	if u := s.User; u != nil && u.CostUSD > 0 {
		parts = append(parts, fmt.Sprintf("the simulated users' $%.4f", u.CostUSD))
	}
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, " and ") + " included)"
	}
	if s.SavedUSD > 0 {
		line += fmt.Sprintf(", $%.4f saved by the cache", s.SavedUSD)
	}
	if n := s.Usage.Unpriced; n > 0 {
		line += fmt.Sprintf(" (%s of models without a price in %s not counted)", prose.Plural(n, "requests"), cmp.Or(s.Prices, "the price table"))
	}
	return line
}
