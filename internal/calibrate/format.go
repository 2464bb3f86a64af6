package calibrate

import (
	"fmt"
	"github.com/mcpeval/mcpeval/internal/prose"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// TrustedKappa is the kappa below which a judge's verdicts should not be
// trusted alone.
const TrustedKappa = 0.8

// maxListed bounds the disagreeing answers listed per side.
const maxListed = 10

// Format describes a calibration in a few lines: the labels, the checks'
// agreement and the judge's, with the answers each side got wrong.
// noJudge says why no judge ran when none did.
func Format(cal eval.Calibration, noJudge string) string {
	var b strings.Builder
	yes := 0
	for _, r := range cal.Results {
		if r.Verdict == "yes" {
			yes++
		}
	}
	fmt.Fprintf(&b, "calibrate: %s (%d to accept, %d to reject) from %s\n", prose.Plural(cal.Items, "labelled answers"), yes, cal.Items-yes, strings.Join(cal.Labels, ", "))
	if cal.Checks == nil {
		fmt.Fprintln(&b, "calibrate: deterministic checks: no labelled answer belongs to a loaded case with answer checks")
	} else {
		fmt.Fprintf(&b, "calibrate: deterministic checks, on all %d answers whose case checks its answer (of every provenance: no trust figure): %s\n", cal.Checks.Items, Describe(*cal.Checks))
		describeSets(&b, "deterministic checks", cal.ChecksSets)
		listWrong(&b, cal.Results, func(r eval.LabelResult) string { return r.Checks }, "checks")
	}
	j := cal.Judge
	if j == nil {
		fmt.Fprintf(&b, "calibrate: judge: none: %s\n", noJudge)
		return b.String()
	}
	mode := ""
	if j.Mode != "" {
		mode = ", " + j.Mode
	}
	fmt.Fprintf(&b, "calibrate: judge %s%s (prompt %s) on %s: %s\n", strings.Join(j.Models, ","), mode, ShortHash(j.PromptHash), prose.Plural(j.Items, "answers"), Describe(j.Agreement))
	describeSets(&b, "judge", j.Sets)
	fmt.Fprintf(&b, "calibrate: judge: %d undecided (unclear twice), %d reused from the cache", j.Unusable, j.Cached)
	if len(j.Models) > 1 {
		fmt.Fprintf(&b, ", judges split on %d answers", j.Disagreements)
	}
	if j.Errors > 0 {
		fmt.Fprintf(&b, ", %d not decided (errors or token limit, left out)", j.Errors)
	}
	b.WriteString("\n")
	switch {
	case j.Kappa == nil:
		fmt.Fprintln(&b, "calibrate: judge: kappa is undefined (every label or every verdict the same): this calibration says nothing")
	case *j.Kappa < TrustedKappa:
		fmt.Fprintf(&b, "calibrate: judge: kappa %.2f is below %.1f: do not trust this judge's verdicts alone\n", *j.Kappa, TrustedKappa)
	}
	listWrong(&b, cal.Results, func(r eval.LabelResult) string { return r.Judge }, "judge")
	return b.String()
}

// Describe states an agreement in one line: what was decided, how often a
// pass and a fail were right, the share of wrong answers passed and of
// right answers failed, and kappa on what was decided.
func Describe(a eval.Agreement) string {
	c := a.Confusion
	return fmt.Sprintf("decided %s; pass right %s, fail right %s; wrong answers passed %s, right answers failed %s; kappa on the decided %s (label yes → %d yes, %d no, %d undecided; label no → %d yes, %d no, %d undecided)",
		percent(&a.Decided), percent(a.PassPrecision), percent(a.FailPrecision), percent(a.WrongPassed), percent(a.RightFailed),
		twoPlaces(a.Kappa), c.YesYes, c.YesNo, c.YesUndecided, c.NoYes, c.NoNo, c.NoUndecided)
}

// describeSets gives each set of labels its own line, naming where it
// comes from.
func describeSets(b *strings.Builder, side string, sets []eval.SetAgreement) {
	for _, s := range sets {
		fmt.Fprintf(b, "calibrate: %s, on the %d %s answers alone (%s): %s\n", side, s.Items, s.Set, Provenance(s), Describe(s.Agreement))
	}
}

// Provenance says where a set of labels comes from, and whether its
// figures measure trust.
func Provenance(s eval.SetAgreement) string {
	switch {
	case s.Provenance == eval.Blind && s.Spent != "":
		return fmt.Sprintf("blind, written by %s against %s, but spent: %s; not a trust figure", s.Author, s.Commit, s.Spent)
	case s.Provenance == eval.Blind:
		return fmt.Sprintf("blind: written by %s against %s, without reading the grading code", s.Author, s.Commit)
	case s.Provenance == eval.BesideTheChecks:
		return "written beside the checks: a regression guard, not a trust figure"
	}
	return "of mixed provenance: not a trust figure"
}

// listWrong lists the answers whose verdict (by side) differs from the label.
func listWrong(b *strings.Builder, results []eval.LabelResult, verdict func(eval.LabelResult) string, side string) {
	n := 0
	for _, r := range results {
		v := verdict(r)
		if v == "" || v == r.Verdict || v == "undecided" {
			continue
		}
		if n++; n > maxListed {
			continue
		}
		fmt.Fprintf(b, "calibrate:   %s said %s, label %s: %s (%s): %s\n", side, v, r.Verdict, r.Where(), r.Case, r.Why)
	}
	if n > maxListed {
		fmt.Fprintf(b, "calibrate:   ... and %d more (see calibration.json)\n", n-maxListed)
	}
}

// ShortHash shortens "sha256:<64 hex>" for display.
func ShortHash(h string) string {
	if len(h) > len("sha256:")+12 {
		return h[:len("sha256:")+12]
	}
	return h
}

func percent(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100**v)
}

func twoPlaces(v *float64) string {
	if v == nil {
		return "undefined"
	}
	return fmt.Sprintf("%.2f", *v)
}
