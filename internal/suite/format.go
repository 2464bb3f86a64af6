package suite

import (
	"fmt"
	"strings"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// FormatLine is the one line printed for a finished case under -v.
func FormatLine(r eval.Record) string {
	cached := ""
	if r.Cached {
		cached = " (cached)"
	}
	return fmt.Sprintf("%s%s: %d tool calls, %d tokens, %.1fs: %s", r.Status, cached, len(r.ToolCalls), r.Usage.TotalTokens, r.Seconds, oneLine(r.Reason, 200))
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
	if r.JudgeRaw != "" {
		fmt.Fprintf(&b, "judge replied: %s\n", oneLine(r.JudgeRaw, 300))
	}
	fmt.Fprintf(&b, "tools: %s\n", toolList(r.ToolCalls))
	if r.Response != "" {
		fmt.Fprintf(&b, "answer: %s\n", oneLine(r.Response, 300))
	}
	fmt.Fprintf(&b, "tokens: %d, %.1fs, %s:%d", r.Usage.TotalTokens, r.Seconds, r.File, r.Line)
	if r.ServerStderr != "" {
		fmt.Fprintf(&b, "\nserver stderr: %s", oneLine(r.ServerStderr, 600))
	}
	return b.String()
}

func toolList(calls []eval.ToolCall) string {
	if len(calls) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(calls))
	for i, c := range calls {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("... %d more", len(calls)-i))
			break
		}
		p := c.Name + "(" + oneLine(c.Arguments, 80) + ")"
		if c.IsError {
			p += " [error]"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// FormatSummary is the summary printed at the end of a run that wrote into
// runDir.
func FormatSummary(s eval.Summary, runDir string) string {
	var b strings.Builder
	what := "model " + s.Model
	if s.Reference {
		what = "REFERENCE RUN (no model evaluated)"
	}
	fmt.Fprintf(&b, "mcpeval: %s: %d cases: %d passed, %d failed, %d errors, %d token-limit, %d cached", what, s.Total, s.Passed, s.Failed, s.Errors, s.TokenLimit, s.Cached)
	if s.NotRun > 0 {
		fmt.Fprintf(&b, ", %d not run", s.NotRun)
	}
	fmt.Fprintf(&b, "; %d tokens, %d retries, %.1fs\n", s.Usage.TotalTokens, s.Retries, s.Seconds)
	if s.ServerRestarts > 0 {
		fmt.Fprintf(&b, "mcpeval: MCP servers restarted %d times after a crash or hang\n", s.ServerRestarts)
	}
	if s.Repeats > 1 {
		o := s.Overall
		fmt.Fprintf(&b, "mcpeval: %d repeats: pass rate %.3f, pass@%d %.3f, pass^%d %.3f, %d flaky cases\n",
			s.Repeats, o.PassRate, s.Repeats, last(o.PassAtK), s.Repeats, last(o.PassHatK), o.Flaky)
	}
	fmt.Fprintf(&b, "mcpeval: results in %s: %s, %s, %s, %s (evalreport, run by make eval, makes %s)", runDir,
		eval.RecordsFile, eval.SummaryFile, eval.MetricsFile, eval.MetricsSummaryFile, eval.ReportFile)
	if s.Reference {
		fmt.Fprintf(&b, "\nmcpeval: %s", settings.MissingKeyHelp)
	}
	return b.String()
}

// last is the last value of xs, or 0.
func last(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[len(xs)-1]
}
