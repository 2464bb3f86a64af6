package baseline

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/tooldiff"
)

// WriteText writes the comparison for a terminal: the tool
// surface's changes, the totals, the regression gate's two tests, the
// categories and every case that changed, with its evidence.
func WriteText(w io.Writer, c *Comparison, baseDir string) {
	if c.Tools != nil {
		fmt.Fprintf(w, "the tool surface changed since the baseline %s: %s\n", c.Tools.Since, tooldiff.Count(c.Tools))
		for _, l := range tooldiff.Lines(c.Tools) {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintf(w, "comparison with %s: %s, %s, %d new, %d removed, %d with other tool calls\n",
		baseDir, prose.Plural(c.Regressed, "regressions"), prose.Plural(c.Fixed, "fixes"), c.Count(NewCase), c.Count(Removed), c.ToolsChanged())
	fmt.Fprintln(w, c.CauseLine())
	for _, l := range c.GateLines() {
		fmt.Fprintln(w, l)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "category\tbaseline\tnow\tdelta")
	for _, d := range c.Categories {
		fmt.Fprintf(tw, "%s\t%.1f%%\t%.1f%%\t%+.1f\n", d.Name, 100*d.Base, 100*d.Current, 100*(d.Current-d.Base))
	}
	tw.Flush()
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "change\tcase\tbaseline\tnow\tp\tadjusted p\tcause\ttool changes")
	for _, d := range c.Cases {
		if d.Change == Unchanged && !d.ToolsChanged && !d.Significant {
			continue
		}
		change := d.Change
		if d.Significant {
			change += " (significant)"
		}
		if d.ToolsChanged {
			change += ", tools changed"
		}
		cause := "-"
		if d.Attribution != nil {
			cause = d.Attribution.Names()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", change, d.Name, d.Base.Short(), d.Current.Short(), d.PText(), d.AdjustedPText(),
			cause, strings.Join(d.ToolChanges, "; "))
	}
	tw.Flush()
	for _, l := range c.CauseLines() {
		fmt.Fprintln(w, l)
	}
}

// CauseLines are the flipped cases grouped by their deciding cause, each
// with the evidence of every cause, and under a data move the calls whose
// results changed.
func (c *Comparison) CauseLines() []string {
	models := map[string]bool{}
	for _, d := range c.Cases {
		models[d.Model] = true
	}
	var out []string
	for _, g := range c.ByCause() {
		out = append(out, fmt.Sprintf("cause %s: %s", g.Cause, prose.Plural(len(g.Cases), "flipped cases")))
		for _, d := range g.Cases {
			name := d.Name
			if len(models) > 1 {
				name += " [" + d.Model + "]"
			}
			gated := ""
			if !c.gated(d) {
				gated = " (not gated)"
			}
			// Tool names, arguments and results are the model's and the
			// servers' text.
			out = append(out, tooldiff.Printable(fmt.Sprintf("  %s %s%s: %s", d.Change, name, gated, d.Attribution.Explanation())))
			for _, ch := range d.Attribution.AllDataChanges() {
				out = append(out, tooldiff.Printable(fmt.Sprintf("    %s %s: %s", tooldiff.Name(ch.Tool), ch.Arguments, ch.Diff)))
			}
		}
	}
	return out
}

// CauseGroup is the flipped cases of one cause.
type CauseGroup struct {
	Cause string
	Cases []CaseDiff
}

// ByCause groups the flipped cases by cause, in the order of eval.Causes().
func (c *Comparison) ByCause() []CauseGroup {
	var out []CauseGroup
	for _, cause := range eval.Causes() {
		g := CauseGroup{Cause: cause}
		for _, d := range c.Cases {
			if d.Attribution != nil && d.Attribution.Cause == cause {
				g.Cases = append(g.Cases, d)
			}
		}
		if len(g.Cases) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// GateLines says what the regression gate found: the run-level test and
// the case flags, each with its level.
func (c *Comparison) GateLines() []string {
	g := c.Gate
	run := "not worse"
	if g.RunWorse {
		run = "worse"
	}
	return []string{
		fmt.Sprintf("regression gate at level %g: the run is %s: %s worse, %d better (signed-rank p = %.4g, level %g)",
			c.Alpha, run, prose.Plural(g.Worse, "cases"), g.Better, g.RunP, g.RunLevel),
		fmt.Sprintf("regression gate at level %g: %s flagged of %d tested (one-sided Fisher p, adjusted for a false discovery rate of %g)",
			c.Alpha, prose.Plural(g.Flagged, "cases"), g.Tested, g.CaseLevel),
	}
}

// Verdict is the one line of a failed gate: why the run counts as a
// significant regression, with the evidence of the first flagged cases.
func (c *Comparison) Verdict(baseDir string) string {
	g := c.Gate
	var why []string
	if g.RunWorse {
		why = append(why, fmt.Sprintf("the run is worse (%s worse, %d better; signed-rank p = %.4g, level %g)", prose.Plural(g.Worse, "cases"), g.Better, g.RunP, g.RunLevel))
	}
	if flagged := c.Flagged(); len(flagged) > 0 {
		const shown = 5
		var list []string
		for _, d := range flagged[:min(shown, len(flagged))] {
			list = append(list, d.Evidence())
		}
		if len(flagged) > shown {
			list = append(list, fmt.Sprintf("and %d more", len(flagged)-shown))
		}
		why = append(why, fmt.Sprintf("%s flagged (false discovery rate %g): %s", prose.Plural(len(flagged), "cases"), g.CaseLevel, strings.Join(list, ", ")))
	}
	gated := ""
	if len(c.GateCauses) > 0 {
		gated = " (the gate weighs the flips of " + strings.Join(c.GateCauses, ", ") + ")"
	}
	return fmt.Sprintf("significant regression against %s%s: %s; %s regressed, %d fixed; %s", baseDir, gated, strings.Join(why, "; "), prose.Plural(c.Regressed, "cases"), c.Fixed, c.CauseLine())
}

// Evidence is a flagged case's evidence: its counts before and after and
// its p-value after the correction.
func (d CaseDiff) Evidence() string {
	name := fmt.Sprintf("%q", d.Name)
	if d.Model != "" {
		name += " [" + d.Model + "]"
	}
	cause := ""
	if d.Attribution != nil {
		cause = ", cause " + d.Attribution.Cause
	}
	return fmt.Sprintf("%s %s → %s (adjusted p = %.4g%s)", name, d.Base.Short(), d.Current.Short(), d.AdjustedP, cause)
}

// PText is the case's one-sided p-value, "-" for a case not in both runs.
func (d CaseDiff) PText() string {
	if d.Base == nil || d.Current == nil {
		return "-"
	}
	return fmt.Sprintf("%.4g", d.P)
}

// AdjustedPText is the case's p-value after the correction, "not tested"
// for a case whose counts could not show a significant drop.
func (d CaseDiff) AdjustedPText() string {
	switch {
	case d.Base == nil || d.Current == nil:
		return "-"
	case !d.Tested:
		return "not tested"
	}
	return fmt.Sprintf("%.4g", d.AdjustedP)
}

// Short is the outcome in a few characters: passes/runs with repeats,
// else the status; "-" when the case did not run.
func (o *CaseOutcome) Short() string {
	switch {
	case o == nil:
		return "-"
	case o.Runs > 1:
		return fmt.Sprintf("%d/%d", o.Passes, o.Runs)
	}
	return string(o.Status)
}
