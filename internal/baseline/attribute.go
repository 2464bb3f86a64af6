package baseline

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/tooldiff"
)

// Attribution is why a flipped case flipped, from the evidence the two
// runs recorded: every cause the evidence supports, the one that decided
// the verdict first. Cause, Why and DataChanges are that first cause's
// (the gate and the counts by cause weigh it); Causes holds them all.
type Attribution struct {
	Cause string `json:"cause"`
	// Why is the evidence, in a line.
	Why string `json:"why"`
	// DataChanges are the calls both runs made whose results differ.
	DataChanges []DataChange `json:"data_changes,omitempty"`
	// JudgeCheck says what the current judge made of the baseline's
	// answer, when mcpeval report asked it; "" when it was not.
	JudgeCheck string `json:"judge_check,omitempty"`
	// Replay is what re-running the case on the baseline's recorded tool
	// results showed (mcpeval report -attribute); nil without.
	Replay *ReplayCheck `json:"replay,omitempty"`
	// Causes are every cause the evidence supports, each with its
	// evidence, ordered by what decided the verdict: the first is Cause.
	Causes []CauseEvidence `json:"causes"`
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

// CauseEvidence is one cause of a flip with its evidence.
type CauseEvidence struct {
	Cause string `json:"cause"`
	Why   string `json:"why"`
	// DataChanges are, for the data, the calls whose results differ.
	DataChanges []DataChange `json:"data_changes,omitempty"`
}

// newAttribution is the attribution of the causes given, the deciding
// one first.
func newAttribution(causes ...CauseEvidence) *Attribution {
	a := &Attribution{Causes: causes}
	a.sync()
	return a
}

// sync makes Cause, Why and DataChanges the first cause's.
func (a *Attribution) sync() {
	first := a.Causes[0]
	a.Cause, a.Why, a.DataChanges = first.Cause, first.Why, first.DataChanges
}

// all are the flip's causes: Causes, or for an attribution that has only
// its one cause (built by hand, or read from an older compare.json) that
// one.
func (a *Attribution) all() []CauseEvidence {
	switch {
	case a == nil || len(a.Causes) == 0 && a.Cause == "":
		return nil
	case len(a.Causes) == 0:
		return []CauseEvidence{{Cause: a.Cause, Why: a.Why, DataChanges: a.DataChanges}}
	}
	return a.Causes
}

// Further are the causes after the first, which the evidence supports
// too.
func (a *Attribution) Further() []CauseEvidence {
	if all := a.all(); len(all) > 1 {
		return all[1:]
	}
	return nil
}

// Names are the flip's causes, the deciding one first: "data, surface".
func (a *Attribution) Names() string {
	var names []string
	for _, c := range a.all() {
		names = append(names, c.Cause)
	}
	return strings.Join(names, ", ")
}

// AllDataChanges are the calls whose results differ, of every cause.
func (a *Attribution) AllDataChanges() []DataChange {
	var out []DataChange
	for _, c := range a.all() {
		out = append(out, c.DataChanges...)
	}
	return out
}

// Decide makes cause the deciding one, found by a check the records could
// not make (the judge asked again, the case re-run on the baseline's tool
// results): a cause already named moves first, its evidence extended by
// more; one not named comes first with more as its evidence. A cause in
// drop is no longer supported and leaves the list.
func (a *Attribution) Decide(cause, more string, drop ...string) {
	var found *CauseEvidence
	rest := []CauseEvidence{}
	for _, c := range a.all() {
		switch {
		case c.Cause == cause:
			found = &c
		case !slices.Contains(drop, c.Cause):
			rest = append(rest, c)
		}
	}
	if found == nil {
		found = &CauseEvidence{Cause: cause, Why: more}
	} else if more != "" {
		found.Why += "; " + more
	}
	a.Causes = append([]CauseEvidence{*found}, rest...)
	a.sync()
}

// attribute finds the causes of a flipped case from its runs' records:
// each of eval.Causes() whose evidence is there, ordered by what decided
// the verdict (see decisive); the model when no other is.
func attribute(d CaseDiff, toolChanges []string) *Attribution {
	base, cur := d.Base.shown(), d.Current.shown()
	failing, side := d.Current, "now" // the side whose runs did not pass
	if d.Change == Fix {
		failing, side = d.Base, "baseline"
	}
	var causes []CauseEvidence
	why := infrastructure(failing, side)
	infra := why != ""
	if infra {
		causes = append(causes, CauseEvidence{Cause: eval.CauseInfrastructure, Why: why})
	}
	if len(toolChanges) > 0 {
		causes = append(causes, CauseEvidence{Cause: eval.CauseSurface, Why: "a tool it called changed: " + strings.Join(toolChanges, "; ")})
	}
	if base == nil || cur == nil || infra {
		// Without two records, or with no graded answer on the failing
		// side, the records say nothing more.
		if len(causes) > 0 {
			return newAttribution(causes...)
		}
		return newAttribution(CauseEvidence{Cause: eval.CauseModel, Why: "a run has no record to compare"})
	}
	sameAnswer := strings.TrimSpace(base.Response) == strings.TrimSpace(cur.Response)
	graded := false // the same answer's grading explains the verdict
	if why := caseChange(base, cur); why != "" {
		causes = append(causes, CauseEvidence{Cause: eval.CauseCase, Why: why})
		graded = true
	}
	if base.Grading != cur.Grading && sameAnswer {
		causes = append(causes, CauseEvidence{Cause: eval.CauseGrading, Why: fmt.Sprintf("the suite's grading changed (version %d, now %d) and graded the same answer otherwise: %s, now %s",
			base.Grading, cur.Grading, verdictOf(base), verdictOf(cur))})
		graded = true
	}
	reached := false // a changed result reached an answer
	if changes, same := dataChanges(base.ToolCalls, cur.ToolCalls); same && len(changes) > 0 {
		// A changed tool's other results are the surface's doing: its
		// evidence, not the data's.
		var own []DataChange
		surface := slices.IndexFunc(causes, func(c CauseEvidence) bool { return c.Cause == eval.CauseSurface })
		for _, ch := range changes {
			if surface >= 0 && toolChanged(ch.Tool, toolChanges) {
				causes[surface].DataChanges = append(causes[surface].DataChanges, ch)
			} else {
				own = append(own, ch)
			}
		}
		if len(own) > 0 {
			names := make([]string, len(own))
			for i, ch := range own {
				names[i] = ch.Tool + " " + ch.Arguments
			}
			causes = append(causes, CauseEvidence{Cause: eval.CauseData, DataChanges: own,
				Why: fmt.Sprintf("the same %s, %d returned other results: %s", prose.Plural(len(base.ToolCalls), "calls"), len(own), strings.Join(names, ", "))})
			reached = resultsReached(base, cur, toolChanges)
		}
	}
	if !graded && (base.Verdict != cur.Verdict || base.Status == eval.Undecided || cur.Status == eval.Undecided) {
		switch {
		case sameAnswer:
			causes = append(causes, CauseEvidence{Cause: eval.CauseJudge, Why: fmt.Sprintf("the same answer got another verdict: %s, now %s", verdictOf(base), verdictOf(cur))})
		case len(base.Checks) > 0 && sameChecks(base.Checks, cur.Checks):
			causes = append(causes, CauseEvidence{Cause: eval.CauseJudge, Why: fmt.Sprintf("the checks decided alike (%d held), the verdict did not: %s, now %s", len(cur.Checks), verdictOf(base), verdictOf(cur))})
		}
	}
	if len(causes) == 0 {
		why := "the model answered otherwise on the same tool surface"
		if !slices.Equal(d.Base.Tools, d.Current.Tools) {
			why = fmt.Sprintf("the model called other tools (%s, now %s)", toolPath(d.Base.Tools), toolPath(d.Current.Tools))
		}
		causes = append(causes, CauseEvidence{Cause: eval.CauseModel, Why: why})
	}
	slices.SortStableFunc(causes, func(a, b CauseEvidence) int {
		return cmp.Compare(decisive(a.Cause, sameAnswer, reached), decisive(b.Cause, sameAnswer, reached))
	})
	return newAttribution(causes...)
}

// decisive ranks a cause by how directly it decided the verdict, lower
// first; causes of one rank keep the order of eval.Causes(). A run that
// ended without an answer was decided by that. The same answer graded
// otherwise was decided by what grades it (the case, the grading, the
// judge), not by the tools, whose changes did not change the answer.
// Another answer that carries a changed tool result was decided by the
// data before a changed description.
func decisive(cause string, sameAnswer, reached bool) int {
	switch {
	case cause == eval.CauseInfrastructure:
		return 0
	case sameAnswer && (cause == eval.CauseCase || cause == eval.CauseGrading || cause == eval.CauseJudge):
		return 1
	case !sameAnswer && reached && cause == eval.CauseData:
		return 1
	}
	return 2
}

// toolChanged reports whether the tool is among the changes of the tool
// surface (see tooldiff.Explain: "NAME: what changed").
func toolChanged(tool string, toolChanges []string) bool {
	for _, ch := range toolChanges {
		if strings.HasPrefix(ch, tooldiff.Name(tool)+": ") {
			return true
		}
	}
	return false
}

// resultsReached reports whether a call's result that changed reached
// the answers: a line of text only the baseline's result holds is in the
// baseline's answer, or one only the current result holds is in the
// current answer.
func resultsReached(base, cur *eval.Record, toolChanges []string) bool {
	for i := range base.ToolCalls {
		b, c := base.ToolCalls[i].Result, cur.ToolCalls[i].Result
		if b == c || toolChanged(cur.ToolCalls[i].Name, toolChanges) {
			continue
		}
		if heldOnly(b, c, base.Response) || heldOnly(c, b, cur.Response) {
			return true
		}
	}
	return false
}

// heldOnly reports whether the part of result that other does not share
// (what lies between their common start and end) is in answer, when it
// is long enough to mean something.
func heldOnly(result, other, answer string) bool {
	p := 0
	for p < len(result) && p < len(other) && result[p] == other[p] {
		p++
	}
	s := 0
	for s < len(result)-p && s < len(other)-p && result[len(result)-1-s] == other[len(other)-1-s] {
		s++
	}
	word := func(b byte) bool {
		return b >= 0x80 || b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
	}
	for p > 0 && word(result[p-1]) { // whole words
		p--
	}
	for s > 0 && word(result[len(result)-s]) {
		s--
	}
	part := strings.TrimSpace(strings.Trim(result[p:len(result)-s], `"{}[],:`))
	return utf8.RuneCountInString(part) >= 3 && strings.Contains(strings.ToLower(answer), strings.ToLower(part))
}

// caseChange says how the case changed between the runs (the user's
// messages of a conversation, its expected answer, or the checks it makes,
// with the same grading), "" when it did not.
func caseChange(base, cur *eval.Record) string {
	if why := conversationChange(base, cur); why != "" {
		return why
	}
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
	if base.Grading != cur.Grading {
		return ""
	}
	if len(base.Checks) > 0 && len(cur.Checks) > 0 && !slices.Equal(names(base.Checks), names(cur.Checks)) {
		return fmt.Sprintf("the case's checks changed: %s, now %s", strings.Join(names(base.Checks), "; "), strings.Join(names(cur.Checks), "; "))
	}
	// The checks of an earlier reply of a conversation, at a turn both
	// runs graded (the last turn's are the answer's, above).
	for i := range min(len(base.Turns), len(cur.Turns)) - 1 {
		b, c := base.Turns[i], cur.Turns[i]
		if b.Reply == "" || c.Reply == "" || b.Status == eval.NotRun || c.Status == eval.NotRun {
			continue
		}
		if !slices.Equal(names(b.Checks), names(c.Checks)) {
			return fmt.Sprintf("the case's checks at turn %d changed: %s, now %s", b.Turn,
				orNone(strings.Join(names(b.Checks), "; ")), orNone(strings.Join(names(c.Checks), "; ")))
		}
	}
	return ""
}

// orNone is text, or "none" when it is empty.
func orNone(text string) string {
	if text == "" {
		return "none"
	}
	return text
}

// conversationChange says at which turn the user's messages of a
// conversation changed between the runs, "" when they did not (or neither
// record is of a conversation). The messages of a simulated user are no
// part of the case: they answer the model's replies, and change with
// them.
func conversationChange(base, cur *eval.Record) string {
	if len(base.Turns) == 0 && len(cur.Turns) == 0 {
		return ""
	}
	users := func(r *eval.Record) []string {
		if len(r.Turns) == 0 {
			return []string{r.Question}
		}
		var out []string
		for _, t := range r.Turns {
			if !t.Simulated {
				out = append(out, t.User)
			}
		}
		return out
	}
	b, c := users(base), users(cur)
	for i := range max(len(b), len(c)) {
		switch {
		case i >= len(b):
			return fmt.Sprintf("the case's conversation changed: %s, now %d (turn %d: %q)", prose.Plural(len(b), "turns"), len(c), i+1, clipText(c[i]))
		case i >= len(c):
			return fmt.Sprintf("the case's conversation changed: %s, now %d", prose.Plural(len(b), "turns"), len(c))
		case b[i] != c[i]:
			return fmt.Sprintf("the case's conversation changed at turn %d: %q, now %q", i+1, clipText(b[i]), clipText(c[i]))
		}
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
		what = fmt.Sprintf("%s: %d of %s ended in an error, a cut or a limit, the first %s", side, n, prose.Plural(len(o.records), "runs"), first.Status)
	}
	return what + ": " + prose.OneLine(prose.Shorten(first.Reason, 200))
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
			changes = append(changes, DataChange{Tool: c.Name, Server: c.Server, Arguments: prose.OneLine(prose.Shorten(c.Arguments, 120)),
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
		after = prose.Shorten(after, context)
	}
	return prose.OneLine(fmt.Sprintf("%s[-%s-]{+%s+}%s", before, prose.Shorten(a[p:len(a)-s], 2*context), prose.Shorten(b[p:len(b)-s], 2*context), after))
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

// CauseLine is the comparison's count of flips by their deciding cause,
// in the order of eval.Causes(), and of the further causes the evidence
// supports: "2 flipped cases by cause: 1 data, 1 model; further causes:
// 1 surface".
func (c *Comparison) CauseLine() string {
	counts := c.CauseCounts()
	total := 0
	var parts []string
	for _, cause := range eval.Causes() {
		if n := counts[cause]; n > 0 {
			total += n
			parts = append(parts, fmt.Sprintf("%d %s", n, cause))
		}
	}
	if total == 0 {
		return "no case flipped"
	}
	line := prose.Plural(total, "flipped cases") + " by cause: " + strings.Join(parts, ", ")
	further := map[string]int{}
	for _, d := range c.Cases {
		for _, f := range d.Attribution.Further() {
			further[f.Cause]++
		}
	}
	parts = nil
	for _, cause := range eval.Causes() {
		if n := further[cause]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, cause))
		}
	}
	if len(parts) > 0 {
		line += "; further causes: " + strings.Join(parts, ", ")
	}
	return line
}

// Explanation is a flipped case's causes with their evidence, in a line:
// the deciding one's (see Deciding), then "also CAUSE: evidence" for each
// further cause.
func (a *Attribution) Explanation() string {
	if a == nil {
		return ""
	}
	s := a.Deciding()
	for _, c := range a.Further() {
		s += "; also " + c.Cause + ": " + c.Why
	}
	return s
}

// Deciding is the deciding cause with its evidence and what asking again
// showed: the judge's check, the re-runs on the baseline's tool results.
func (a *Attribution) Deciding() string {
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
	return fmt.Sprintf("on the baseline's tool results (run %s) %d of %s did as the baseline (%.0f%% sure)", r.Run, r.AsBaseline, prose.Plural(r.Runs, "runs"), 100*r.Sure)
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

// FlipMessages are what a run's report and JUnit file say of its flipped
// cases, by case name and model (see rundata.Data.Flips): the change
// since the baseline and its deciding cause, then each further cause on a
// line of its own ("also surface: …").
func (c *Comparison) FlipMessages() map[eval.CaseRun]string {
	out := map[eval.CaseRun]string{}
	for _, d := range c.Cases {
		if a := d.Attribution; a != nil {
			msg := fmt.Sprintf("%s since %s, cause %s", d.Change, c.Base.RunID, a.Deciding())
			for _, f := range a.Further() {
				msg += "\nalso " + f.Cause + ": " + f.Why
			}
			out[eval.CaseRun{Name: d.Name, Model: d.Model}] = msg
		}
	}
	return out
}
