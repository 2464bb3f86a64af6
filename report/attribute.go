package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
)

// Attribution is why a flipped case flipped, from the evidence the two
// runs recorded.
type Attribution struct {
	Cause string `json:"cause"`
	// Why is the evidence, in a line.
	Why string `json:"why"`
	// DataChanges are the calls both runs made whose results differ.
	DataChanges []DataChange `json:"data_changes,omitempty"`
	// JudgeCheck says what the current judge made of the baseline's
	// answer, when it was asked (see ConfirmJudge); "" when it was not.
	JudgeCheck string `json:"judge_check,omitempty"`
	// Replay is what re-running the case on the baseline's recorded tool
	// results showed (mcpeval report -attribute); nil without.
	Replay *ReplayCheck `json:"replay,omitempty"`
}

// DataChange is a call both runs made, with other results.
type DataChange struct {
	Tool      string `json:"tool"`
	Server    string `json:"server,omitempty"`
	Arguments string `json:"arguments"`
	// Before and Now are the results' fingerprints (see package
	// recordings); Diff shows where the results differ.
	Before string `json:"before"`
	Now    string `json:"now"`
	Diff   string `json:"diff"`
}

// ReplayCheck is what the re-runs of a flipped case on the baseline's
// recorded tool results gave: of Runs runs, AsBaseline had the
// baseline's outcome (the model, given the old data, does as it did: the
// data moved it) and the others the current one (the model changed on the
// same data). Sure is the share of the runs that agree with the cause.
type ReplayCheck struct {
	Run        string  `json:"run"`
	Runs       int     `json:"runs"`
	AsBaseline int     `json:"as_baseline"`
	Sure       float64 `json:"sure"`
}

// attribute finds the cause of a flipped case from its runs' records: the
// first of eval.Causes whose evidence is there.
func attribute(d CaseDiff, toolChanges []string) *Attribution {
	base, cur := d.Base.shown(), d.Current.shown()
	failing, side := d.Current, "now" // the side whose runs did not pass
	if d.Change == Fix {
		failing, side = d.Base, "baseline"
	}
	if why := infrastructure(failing, side); why != "" {
		return &Attribution{Cause: eval.CauseInfrastructure, Why: why}
	}
	if len(toolChanges) > 0 {
		return &Attribution{Cause: eval.CauseSurface, Why: "a tool it called changed: " + strings.Join(toolChanges, "; ")}
	}
	if base == nil || cur == nil {
		return &Attribution{Cause: eval.CauseModel, Why: "a run has no record to compare"}
	}
	if why := caseChange(base, cur); why != "" {
		return &Attribution{Cause: eval.CauseCase, Why: why}
	}
	sameAnswer := strings.TrimSpace(base.Response) == strings.TrimSpace(cur.Response)
	if base.Grading != cur.Grading && sameAnswer {
		return &Attribution{Cause: eval.CauseGrading, Why: fmt.Sprintf("the suite's grading changed (version %d, now %d) and graded the same answer otherwise: %s, now %s",
			base.Grading, cur.Grading, verdictOf(base), verdictOf(cur))}
	}
	if changes, same := dataChanges(base.ToolCalls, cur.ToolCalls); same && len(changes) > 0 {
		names := make([]string, len(changes))
		for i, ch := range changes {
			names[i] = ch.Tool + " " + ch.Arguments
		}
		return &Attribution{Cause: eval.CauseData, DataChanges: changes,
			Why: fmt.Sprintf("the same %s, %d returned other results: %s", eval.Plural(len(base.ToolCalls), "calls"), len(changes), strings.Join(names, ", "))}
	}
	if base.Verdict != cur.Verdict || base.Status == eval.Undecided || cur.Status == eval.Undecided {
		switch {
		case strings.TrimSpace(base.Response) == strings.TrimSpace(cur.Response):
			return &Attribution{Cause: eval.CauseJudge, Why: fmt.Sprintf("the same answer got another verdict: %s, now %s", verdictOf(base), verdictOf(cur))}
		case len(base.Checks) > 0 && sameChecks(base.Checks, cur.Checks):
			return &Attribution{Cause: eval.CauseJudge, Why: fmt.Sprintf("the checks decided alike (%d held), the verdict did not: %s, now %s", len(cur.Checks), verdictOf(base), verdictOf(cur))}
		}
	}
	why := "the model answered otherwise on the same tool surface"
	if !slices.Equal(d.Base.Tools, d.Current.Tools) {
		why = fmt.Sprintf("the model called other tools (%s, now %s)", toolPath(d.Base.Tools), toolPath(d.Current.Tools))
	}
	return &Attribution{Cause: eval.CauseModel, Why: why}
}

// caseChange says how the case changed between the runs (its expected
// answer, or the checks it makes, with the same grading), "" when it did
// not.
func caseChange(base, cur *eval.Record) string {
	if strings.TrimSpace(base.Expected) != strings.TrimSpace(cur.Expected) {
		return fmt.Sprintf("the case's expected answer changed: %q, now %q", clipText(base.Expected), clipText(cur.Expected))
	}
	names := func(checks []eval.CheckResult) []string {
		var out []string
		for _, c := range checks {
			out = append(out, c.Check)
		}
		slices.Sort(out)
		return out
	}
	if base.Grading == cur.Grading && len(base.Checks) > 0 && len(cur.Checks) > 0 && !slices.Equal(names(base.Checks), names(cur.Checks)) {
		return fmt.Sprintf("the case's checks changed: %s, now %s", strings.Join(names(base.Checks), "; "), strings.Join(names(cur.Checks), "; "))
	}
	return ""
}

// clipText shortens a text quoted in a cause.
func clipText(s string) string {
	if r := []rune(s); len(r) > 120 {
		return string(r[:120]) + "…"
	}
	return s
}

// infrastructure says why the runs of the side that did not pass ended in
// an error, a cut reply or a token limit, when at least half of them did
// (enough to make it not pass); "" otherwise.
func infrastructure(o *CaseOutcome, side string) string {
	var first *eval.Record
	n := 0
	for _, r := range o.records {
		switch r.Status {
		case eval.Error, eval.Cut, eval.TokenLimit:
			n++
			if first == nil {
				first = r
			}
		}
	}
	if first == nil || 2*n < len(o.records) {
		return ""
	}
	what := fmt.Sprintf("%s: %s", side, first.Status)
	if len(o.records) > 1 {
		what = fmt.Sprintf("%s: %d of %d runs ended in an error, a cut or a limit, the first %s", side, n, len(o.records), first.Status)
	}
	return what + ": " + oneLine(shorten(first.Reason, 200))
}

// dataChanges compares two runs' calls: same is true when they made the
// same calls (tool, server and arguments, compared as the checks compare
// them) in the same order; the changes are those whose results differ.
func dataChanges(base, cur []eval.ToolCall) (changes []DataChange, same bool) {
	if len(base) != len(cur) {
		return nil, false
	}
	for i := range base {
		b, c := base[i], cur[i]
		if b.Name != c.Name || b.Server != c.Server || argsKey(b.Arguments) != argsKey(c.Arguments) {
			return nil, false
		}
		if b.NotRun || c.NotRun || b.Refused || c.Refused {
			continue
		}
		differ := b.ResultFingerprint != c.ResultFingerprint
		if b.ResultFingerprint == "" || c.ResultFingerprint == "" { // an older record: its text
			differ = b.Result != c.Result
		}
		if differ {
			changes = append(changes, DataChange{Tool: c.Name, Server: c.Server, Arguments: oneLine(shorten(c.Arguments, 120)),
				Before: b.ResultFingerprint, Now: c.ResultFingerprint, Diff: textDiff(b.Result, c.Result, 60)})
		}
	}
	return changes, true
}

// argsKey is a call's arguments as the checks compare them; text that is
// not a JSON object stands for itself.
func argsKey(raw string) string {
	var args map[string]any
	if json.Unmarshal([]byte(cmp.Or(strings.TrimSpace(raw), "{}")), &args) != nil {
		return raw
	}
	return grading.ArgsKey(args)
}

// textDiff shows where two texts differ: the part that changed, in
// [-old-]{+new+}, with up to context bytes on either side.
func textDiff(a, b string, context int) string {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	for p > 0 && !utf8Start(a, p) {
		p--
	}
	for s > 0 && !utf8Start(a, len(a)-s) {
		s--
	}
	before := a[:p]
	if len(before) > context {
		before = "…" + trimStart(before[len(before)-context:])
	}
	after := a[len(a)-s:]
	if len(after) > context {
		after = shorten(after, context)
	}
	return oneLine(fmt.Sprintf("%s[-%s-]{+%s+}%s", before, shorten(a[p:len(a)-s], 2*context), shorten(b[p:len(b)-s], 2*context), after))
}

func utf8Start(s string, i int) bool { return i >= len(s) || utf8.RuneStart(s[i]) }

// trimStart drops the bytes of a cut character at the start of s.
func trimStart(s string) string {
	for len(s) > 0 && !utf8Start(s, 0) {
		s = s[1:]
	}
	return s
}

func sameChecks(a, b []eval.CheckResult) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Check != b[i].Check || a[i].Passed != b[i].Passed {
			return false
		}
	}
	return true
}

func verdictOf(r *eval.Record) string {
	if r.Status == eval.Undecided {
		return "undecided"
	}
	return cmp.Or(r.Verdict, string(r.Status))
}

func toolPath(tools []string) string {
	if len(tools) == 0 {
		return "none"
	}
	return strings.Join(tools, " → ")
}

// CauseCounts counts the flipped cases by cause.
func (c *Comparison) CauseCounts() map[string]int {
	out := map[string]int{}
	for _, d := range c.Cases {
		if d.Attribution != nil {
			out[d.Attribution.Cause]++
		}
	}
	return out
}

// CauseLine is the comparison's count of flips by cause, in the order of
// eval.Causes: "2 flips: 1 model, 1 data".
func (c *Comparison) CauseLine() string {
	counts := c.CauseCounts()
	total := 0
	var parts []string
	for _, cause := range eval.Causes {
		if n := counts[cause]; n > 0 {
			total += n
			parts = append(parts, fmt.Sprintf("%d %s", n, cause))
		}
	}
	if total == 0 {
		return "no case flipped"
	}
	return eval.Plural(total, "flipped cases") + " by cause: " + strings.Join(parts, ", ")
}

// Explanation is a flipped case's cause with its evidence, in a line.
func (a *Attribution) Explanation() string {
	if a == nil {
		return ""
	}
	s := a.Cause + ": " + a.Why
	if a.JudgeCheck != "" {
		s += "; " + a.JudgeCheck
	}
	if r := a.Replay; r != nil {
		s += "; " + r.Line()
	}
	return s
}

// Line says what the replays showed.
func (r *ReplayCheck) Line() string {
	return fmt.Sprintf("on the baseline's tool results (run %s) %d of %d runs did as the baseline (%.0f%% sure)", r.Run, r.AsBaseline, r.Runs, 100*r.Sure)
}

// Records returns the records of the runs the comparison shows of the
// case, in the baseline and now; nil where there is none.
func (d CaseDiff) Records() (base, cur *eval.Record) { return d.Base.shown(), d.Current.shown() }

// Regate applies the regression gate again, once attributions changed.
func (c *Comparison) Regate() { c.applyGate() }

// ComparisonJSON is compare.json: the comparison's counts, the gate's
// decision and each flipped case with its cause.
type ComparisonJSON struct {
	Baseline    string         `json:"baseline"`
	Run         string         `json:"run"`
	Regressions int            `json:"regressions"`
	Fixes       int            `json:"fixes"`
	Significant bool           `json:"significant"`
	GateCauses  []string       `json:"gate_causes,omitempty"`
	Causes      map[string]int `json:"causes"`
	Flips       []FlipJSON     `json:"flips"`
}

// FlipJSON is a flipped case in compare.json.
type FlipJSON struct {
	Name     string `json:"name"`
	Model    string `json:"model,omitempty"`
	Category string `json:"category"`
	Change   string `json:"change"`
	Baseline string `json:"baseline"`
	Now      string `json:"now"`
	// Significant is true when the gate flagged the case; Gated false when
	// the gate, limited to causes, did not weigh it.
	Significant bool `json:"significant"`
	Gated       bool `json:"gated"`
	*Attribution
}

// JSON is the comparison as compare.json holds it.
func (c *Comparison) JSON() ComparisonJSON {
	out := ComparisonJSON{Baseline: c.Base.RunID, Run: c.Current.RunID, Regressions: c.Regressed, Fixes: c.Fixed,
		Significant: c.Significant, GateCauses: c.GateCauses, Causes: c.CauseCounts(), Flips: []FlipJSON{}}
	for _, d := range c.Cases {
		if d.Attribution == nil {
			continue
		}
		out.Flips = append(out.Flips, FlipJSON{Name: d.Name, Model: d.Model, Category: d.Category, Change: d.Change,
			Baseline: d.Base.Short(), Now: d.Current.Short(), Significant: d.Significant, Gated: c.gated(d), Attribution: d.Attribution})
	}
	return out
}

// FlipMessages are the lines a run's JUnit file gives its flipped cases,
// by case name and model (see Data.Flips): the change since the baseline
// and its cause.
func (c *Comparison) FlipMessages() map[eval.CaseRun]string {
	out := map[eval.CaseRun]string{}
	for _, d := range c.Cases {
		if d.Attribution != nil {
			out[eval.CaseRun{Name: d.Name, Model: d.Model}] = fmt.Sprintf("%s since %s, cause %s", d.Change, c.Base.RunID, d.Attribution.Explanation())
		}
	}
	return out
}
