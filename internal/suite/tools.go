package suite

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/tokens"
	"github.com/mcpeval/mcpeval/internal/tooldiff"
	"github.com/mcpeval/mcpeval/internal/toolstats"
)

// toolServers is each connected server's tool surface, named as the run
// names it; the sizes of the tools' definitions are countDefinitions'.
func (s *Run) toolServers() []toolstats.Server {
	ids := s.tools.ServerNames()
	out := make([]toolstats.Server, len(s.tools.Servers))
	for i, srv := range s.tools.Servers {
		name, version := srv.Info()
		out[i] = toolstats.Server{Server: s.servers[i], ID: ids[i], Name: name, Version: version, Protocol: srv.Protocol(),
			Roots: srv.Roots(), Isolation: srv.Isolation()}
		for _, t := range s.tools.Entries() {
			if t.Server == ids[i] {
				out[i].Tools = append(out[i].Tools, t.Listed)
			}
		}
	}
	return out
}

// countDefinitions counts the tokens of the tool definitions as the
// provider receives them: each server's tools, in the evaluated model's
// encoding, into the tool statistics, and every arm's, in its model's.
// Counting needs the encoding's tables, whose loading takes longer than a
// cached run's cases, so it runs in the background; the function returned
// waits for it, and whatever reads the counts calls it first (the
// -max-tool-tokens check, the surface's comparison, the summary). Counts
// that the previous run of the same surface recorded are reused (see
// priorDefinitionTokens), and an arm offering the servers' tools as they
// are, in the same encoding, adds up the tools' counts.
func (s *Run) countDefinitions() (wait func(), err error) {
	counter := s.definitionCounter()
	armCounters := make([]*tokens.Counter, len(s.arms))
	for i, a := range s.arms {
		if armCounters[i], err = s.counterFor(a.model); err != nil {
			return nil, err
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		known := s.priorDefinitionTokens(counter.Encoding)
		byServer := map[string]map[string]int{}
		all := 0
		for _, t := range s.tools.Entries() {
			n, ok := known[[2]string{t.Server, t.Name}]
			if !ok {
				offered := t.Listed
				offered.Name = t.Offered
				n = tokens.ToolDefinition(counter, offered)
			}
			if byServer[t.Server] == nil {
				byServer[t.Server] = map[string]int{}
			}
			byServer[t.Server][t.Name] = n
			all += n
		}
		for id, counts := range byServer {
			s.toolStats.SetDefinitionTokens(id, counts)
		}
		for i, a := range s.arms {
			if a.tools == s.tools && armCounters[i].Encoding == counter.Encoding {
				a.toolTokens = all
			} else {
				a.toolTokens = tokens.ToolDefinitions(armCounters[i], a.tools.Tools())
			}
		}
	}()
	return func() { <-done }, nil
}

// priorDefinitionTokens returns the tokens of each tool's definition, by
// server short name and tool name, as the previous run of the same servers
// (see lastRunOfSameServers) recorded them, when that run counted them the
// same way (tokens.DefinitionMethod, in encoding) and offered the same
// tool surface (the same hash: the same servers, offered names,
// descriptions and schemas); nil otherwise.
func (s *Run) priorDefinitionTokens(encoding string) map[[2]string]int {
	if s.prior.Summary == nil {
		return nil
	}
	prior := s.prior.Summary.Tools
	if prior.Hash != s.toolHash || prior.Encoding != encoding || prior.DefinitionMethod != tokens.DefinitionMethod {
		return nil
	}
	known := map[[2]string]int{}
	for _, srv := range prior.Servers {
		for _, st := range srv.Stats {
			if st.DefinitionTokens > 0 {
				known[[2]string{srv.ID, st.Name}] = st.DefinitionTokens
			}
		}
	}
	return known
}

// definitionCounter counts the tool definitions in the evaluated model's
// encoding (the first arm's, with several).
func (s *Run) definitionCounter() *tokens.Counter {
	if len(s.arms) > 0 {
		if c, err := s.counterFor(s.arms[0].model); err == nil {
			return c
		}
	}
	return s.limitCounter
}

// checkDefinitionTokens refuses a tool surface whose definitions take more
// tokens than -max-tool-tokens allows, naming the largest tools.
func (s *Run) checkDefinitionTokens() error {
	limit := s.Settings.MaxToolTokens
	if limit <= 0 {
		return nil
	}
	s.definitionsCounted()
	ts := s.toolStats.Summary()
	if ts.DefinitionTokens <= limit {
		return nil
	}
	return fmt.Errorf("the tool definitions take %s tokens (%s) with every request, above -max-tool-tokens %d (EVAL_MAX_TOOL_TOKENS); largest: %s: no case was run. Offer fewer tools with EVAL_TOOLS (or -tools), shorten their descriptions and schemas, or raise the limit",
		tokens.Grouped(ts.DefinitionTokens), s.definitionCounter().Encoding, limit, largestTools(ts, 3))
}

// largestTools names the n tools whose definitions are largest, with
// their sizes: "get_gene (412), search (380), lookup (301)".
func largestTools(ts eval.ToolSummary, n int) string {
	var all []eval.ToolStats
	for _, srv := range ts.Servers {
		all = append(all, srv.Stats...)
	}
	slices.SortStableFunc(all, func(a, b eval.ToolStats) int {
		return cmp.Or(cmp.Compare(b.DefinitionTokens, a.DefinitionTokens), cmp.Compare(a.Name, b.Name))
	})
	parts := make([]string, 0, n)
	for _, st := range all[:min(n, len(all))] {
		parts = append(parts, fmt.Sprintf("%s (%s)", tooldiff.Name(st.Name), tokens.Grouped(st.DefinitionTokens)))
	}
	return strings.Join(parts, ", ")
}

// compareSurface compares the run's tool surface with the one the
// previous run of the same servers recorded (see lastRunOfSameServers),
// and counts the cached passes of the loaded cases that the difference
// makes unusable.
func (s *Run) compareSurface() {
	prev := s.prior
	if prev.Summary == nil {
		s.noticeOtherServers()
		return
	}
	if prev.Summary.Tools.Hash == s.toolHash {
		return
	}
	ch := tooldiff.Compare(prev.Summary.Tools, s.toolSummary())
	ch.Since = cmp.Or(prev.Summary.RunID, prev.ID)
	s.redactor.Value(&ch) // it is printed before the summary is redacted
	if !s.Settings.Reference {
		ch.InvalidatedPasses = s.invalidatedPasses(prev.Summary.Tools.Hash, max(prev.Summary.Repeats, 1))
	}
	s.toolChanges = &ch
}

// noticeOtherServers says why cached passes run again when the servers
// are not those of the previous run (a server added to the servers file,
// one removed): the tool surface is part of every cache key.
func (s *Run) noticeOtherServers() {
	if s.Settings.Reference || s.Settings.Force {
		return
	}
	last, _ := runs.Newest(s.Settings.Out, func(sum *eval.Summary) bool { return sum.Tools != nil && sum.Tools.Hash != "" })
	if last.Summary == nil || last.Summary.Tools.Hash == s.toolHash {
		return
	}
	n := s.invalidatedPasses(last.Summary.Tools.Hash, max(last.Summary.Repeats, 1))
	if n == 0 {
		return
	}
	var before []string
	for _, srv := range last.Summary.Tools.Servers {
		before = append(before, cmp.Or(srv.ID, srv.Name))
	}
	now := s.tools.ServerNames()
	fmt.Fprintln(s.log, s.redactor.String(fmt.Sprintf("mcpeval: notice: the servers are not those of run %s (%s; now %s): the tool surface is part of every cache key, so %s cached under its servers run again, and are paid again",
		cmp.Or(last.Summary.RunID, last.ID), strings.Join(before, ", "), strings.Join(now, ", "), prose.Plural(n, "passes"))))
}

// lastRunOfSameServers returns the finished run in the output directory
// that started last among those that recorded the tool surface of the
// same servers, as the servers name themselves (serverInfo), in any
// order: a run of other servers (another servers file) is no earlier
// state of these. Its Summary is nil when there is none.
func (s *Run) lastRunOfSameServers() runs.Run {
	var own []string
	for _, srv := range s.tools.Servers {
		name, _ := srv.Info()
		own = append(own, name)
	}
	slices.Sort(own)
	prior, _ := runs.Newest(s.Settings.Out, func(sum *eval.Summary) bool {
		if sum.Tools == nil {
			return false
		}
		var theirs []string
		for _, srv := range sum.Tools.Servers {
			theirs = append(theirs, srv.Name)
		}
		slices.Sort(theirs)
		return slices.Equal(own, theirs)
	})
	return prior
}

// invalidatedPasses counts the loaded cases' repeats (up to repeats) with
// each arm whose pass the cache holds under the tool surface oldHash:
// with this run's surface their keys differ, so they run again.
func (s *Run) invalidatedPasses(oldHash string, repeats int) int {
	n := 0
	for _, c := range s.Cases {
		for _, a := range s.arms {
			for r := range repeats {
				if hit, _, ok := s.cached(c, a, r, oldHash); ok && hit.Record.Status == eval.Pass {
					n++
				}
			}
		}
	}
	return n
}

// ToolChanges returns how the run's tool surface differs from the one the
// previous finished run saw; nil when it does not, or there is none.
func (s *Run) ToolChanges() *eval.ToolChanges { return s.toolChanges }

// toolSummary is the tool surface, its coverage and each tool's health
// over the records written so far.
func (s *Run) toolSummary() *eval.ToolSummary {
	s.definitionsCounted()
	ts := s.toolStats.Summary()
	ts.Hash, ts.MinCoverage, ts.Changes = s.toolHash, s.Settings.MinToolCoverage, s.toolChanges
	if n := s.selectedCount(); n < len(s.Cases) {
		ts.SelectedCases, ts.LoadedCases = n, len(s.Cases)
	}
	ts.Encoding, ts.DefinitionMethod, ts.MaxDefinitionTokens = s.definitionCounter().Encoding, tokens.DefinitionMethod, s.Settings.MaxToolTokens
	ts.Dialect, ts.Adapted = s.dialect.Describe(), s.adaptedTools()
	return &ts
}

// FormatToolChanges is what a run prints first when its tool surface
// differs from the previous run's: what changed, tool by tool, with the
// diff of each changed input schema, and the cached passes that the change
// invalidated.
func FormatToolChanges(ch *eval.ToolChanges, reference bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpeval: the tool surface changed since run %s: %s\n", ch.Since, tooldiff.Count(ch))
	for _, l := range tooldiff.Lines(ch) {
		b.WriteString("mcpeval: " + l + "\n")
	}
	switch {
	case reference:
	case ch.InvalidatedPasses == 0:
		b.WriteString("mcpeval: no cached pass of the loaded cases was made with the earlier surface: the change costs no case a re-run\n")
	default:
		fmt.Fprintf(&b, "mcpeval: the change invalidated %s of the loaded cases: the tool surface is part of the cache key, so they run again\n", prose.Plural(ch.InvalidatedPasses, "cached passes"))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// maxListed bounds the tool names a closing line lists.
const maxListed = 60

// maxListedSelected bounds the tools named as not called when the run
// selected some of the cases.
const maxListedSelected = 8

// maxArmHealth bounds the arms whose tool health the closing lines give.
const maxArmHealth = 20

// formatArmHealth writes the tool health of each arm of a run of arms:
// its calls to the servers' tools and how many failed, in one line.
func formatArmHealth(b *strings.Builder, byArm []eval.ArmToolStats) {
	if len(byArm) == 0 {
		return
	}
	type health struct{ calls, errors int }
	var arms []string
	of := map[string]*health{}
	for _, a := range byArm {
		if of[a.Arm] == nil {
			of[a.Arm] = &health{}
			arms = append(arms, a.Arm)
		}
		of[a.Arm].calls += a.Calls
		of[a.Arm].errors += a.Errors
	}
	var parts []string
	for _, arm := range arms[:min(len(arms), maxArmHealth)] {
		h := of[arm]
		parts = append(parts, fmt.Sprintf("%s %d of %s failed", arm, h.errors, prose.Plural(h.calls, "calls")))
	}
	line := strings.Join(parts, "; ")
	if len(arms) > maxArmHealth {
		line += fmt.Sprintf("; and %d more arms (tools.by_arm in summary.json)", len(arms)-maxArmHealth)
	}
	fmt.Fprintf(b, "mcpeval: tool calls by arm: %s\n", line)
}

// formatTools writes the closing lines about the tools: each server's
// coverage and the tools never called, the tools whose calls failed or
// whose results crossed the token limit, calls to tools no server offers,
// and a reminder of a change of the surface.
func formatTools(b *strings.Builder, t *eval.ToolSummary) {
	if t == nil {
		return
	}
	formatArmHealth(b, t.ByArm)
	var failing, over, broken, unscripted, unchecked []eval.ToolStats
	by, never := "", "never called"
	if t.SelectedCases > 0 {
		// Coverage is of the cases that ran: a -run of a few cases leaves
		// most tools uncalled, which says nothing of the others.
		by = fmt.Sprintf(" by the %d selected of %d cases", t.SelectedCases, t.LoadedCases)
		never = "not called by the selected cases"
	}
	for _, srv := range t.Servers {
		fmt.Fprintf(b, "mcpeval: tools: %s%s on %s\n", coverage(srv), by, srv.Server)
		if len(srv.Roots) > 0 {
			fmt.Fprintf(b, "mcpeval: roots offered to %s: %s\n", cmp.Or(srv.ID, srv.Server), strings.Join(srv.Roots, ", "))
		}
		if srv.Isolation != "" {
			fmt.Fprintf(b, "mcpeval: %s: cases kept apart: %s\n", cmp.Or(srv.ID, srv.Server), srv.Isolation)
		}
		switch n := len(srv.NeverCalled); {
		case n == 0:
		case t.SelectedCases > 0 && n > maxListedSelected:
			// A few cases leave most tools uncalled: their names say
			// nothing of the server, their number is enough.
			fmt.Fprintf(b, "mcpeval: %s %s (listed in summary.json)\n", prose.Plural(n, "tools"), never)
		default:
			fmt.Fprintf(b, "mcpeval: %s: %s\n", never, listNames(mapSlice(srv.NeverCalled, tooldiff.Name)))
		}
		formatParameters(b, srv)
		formatDefinitions(b, t, srv)
		for _, st := range srv.Stats {
			if st.Errors > 0 {
				failing = append(failing, st)
			}
			if st.OverLimit > 0 {
				over = append(over, st)
			}
			if st.OutputErrors > 0 {
				broken = append(broken, st)
			}
			if st.Unscripted > 0 {
				unscripted = append(unscripted, st)
			}
			if st.Unchecked > 0 || st.SchemaProblem != "" {
				unchecked = append(unchecked, st)
			}
		}
	}
	if len(t.Servers) > 1 && t.Encoding != "" {
		fmt.Fprintf(b, "mcpeval: tool definitions in all: %s tokens (%s) with every request\n", tokens.Grouped(t.DefinitionTokens), t.Encoding)
	}
	if len(failing) > 0 {
		slices.SortStableFunc(failing, func(a, b eval.ToolStats) int { return cmp.Compare(b.ErrorRate, a.ErrorRate) })
		parts := make([]string, len(failing))
		for i, st := range failing {
			parts[i] = fmt.Sprintf("%s %d of %s (%.1f%%)", tooldiff.Name(st.Name), st.Errors, prose.Plural(st.Calls, "calls"), 100*st.ErrorRate)
		}
		fmt.Fprintf(b, "mcpeval: tool calls that failed: %s\n", listNames(parts))
	}
	if len(broken) > 0 {
		parts := make([]string, len(broken))
		for i, st := range broken {
			parts[i] = fmt.Sprintf("%s %d of %d results (%s)", tooldiff.Name(st.Name), st.OutputErrors, st.Calls-st.NotRun, strings.Join(st.OutputProblems, "; "))
		}
		fmt.Fprintf(b, "mcpeval: results that break their tool's output schema: %s\n", listNames(parts))
	}
	if len(unchecked) > 0 {
		parts := make([]string, len(unchecked))
		for i, st := range unchecked {
			switch {
			case st.Unchecked == 0:
				parts[i] = fmt.Sprintf("%s (%s)", tooldiff.Name(st.Name), st.SchemaProblem)
			case st.SchemaProblem != "":
				parts[i] = fmt.Sprintf("%s %d of %s not checked (%s)", tooldiff.Name(st.Name), st.Unchecked, prose.Plural(st.Calls, "calls"), st.SchemaProblem)
			default:
				parts[i] = fmt.Sprintf("%s %d of %s not checked (the result too costly to check against the output schema)", tooldiff.Name(st.Name), st.Unchecked, prose.Plural(st.Calls, "calls"))
			}
		}
		fmt.Fprintf(b, "mcpeval: warning: tool schemas not checked (too costly to check, or broken; the calls are kept): %s\n", listNames(parts))
	}
	if len(unscripted) > 0 {
		parts := make([]string, len(unscripted))
		for i, st := range unscripted {
			parts[i] = fmt.Sprintf("%s %d", tooldiff.Name(st.Name), st.Unscripted)
		}
		fmt.Fprintf(b, "mcpeval: elicitations no case scripted a reply to (declined): %s\n", listNames(parts))
	}
	if len(over) > 0 {
		parts := make([]string, len(over))
		for i, st := range over {
			parts[i] = fmt.Sprintf("%s %d of %d results (largest %d tokens)", tooldiff.Name(st.Name), st.OverLimit, st.Calls-st.NotRun, st.ResultTokensMax)
		}
		fmt.Fprintf(b, "mcpeval: tool results over the token limit of %d: %s\n", t.TokenLimit, listNames(parts))
	}
	if len(t.Unknown) > 0 {
		parts := make([]string, len(t.Unknown))
		for i, st := range t.Unknown {
			parts[i] = fmt.Sprintf("%s %d", tooldiff.Name(st.Name), st.Calls)
		}
		fmt.Fprintf(b, "mcpeval: calls to tools no server offers: %s\n", listNames(parts))
	}
	if len(t.Overridden) > 0 {
		// The arms' own calls: the model read the arm's definition, not the
		// server's, so their failures are not the server's.
		parts := make([]string, len(t.Overridden))
		for i, st := range t.Overridden {
			parts[i] = fmt.Sprintf("arm %s %s %d of %s failed", st.Arm, tooldiff.Name(st.Name), st.Errors, prose.Plural(st.Calls, "calls"))
		}
		fmt.Fprintf(b, "mcpeval: calls to tools an arm overrides (the arm's, not in the server's health): %s\n", listNames(parts))
	}
	if ch := t.Changes; ch != nil {
		fmt.Fprintf(b, "mcpeval: the tool surface changed since run %s (%s; shown at the start)\n", ch.Since, tooldiff.Count(ch))
	}
}

// formatParameters writes a server's parameter coverage and the
// parameters of its called tools that no call passed.
func formatParameters(b *strings.Builder, srv eval.ServerTools) {
	if srv.Parameters == 0 {
		return
	}
	fmt.Fprintf(b, "mcpeval: parameters: %d of %d passed (%.1f%%) on %s\n", srv.ParametersPassed, srv.Parameters, srv.ParameterCoverage, srv.Server)
	var never []string
	for _, st := range srv.Stats {
		if st.Calls == 0 {
			continue
		}
		for _, p := range st.Parameters {
			if p.Calls == 0 {
				never = append(never, tooldiff.Name(st.Name)+"."+tooldiff.Name(p.Name))
			}
		}
	}
	if len(never) > 0 {
		fmt.Fprintf(b, "mcpeval: parameters of called tools never passed: %s\n", listNames(never))
	}
}

// formatDefinitions writes the size of a server's tool definitions, the
// context tax of every request, with its three largest tools.
func formatDefinitions(b *strings.Builder, t *eval.ToolSummary, srv eval.ServerTools) {
	if t.Encoding == "" { // a run before the suite counted them
		return
	}
	fmt.Fprintf(b, "mcpeval: tool definitions: %s tokens (%s) with every request on %s; largest: %s\n",
		tokens.Grouped(srv.DefinitionTokens), t.Encoding, srv.Server, largestTools(eval.ToolSummary{Servers: []eval.ServerTools{srv}}, 3))
}

// coverage reads "27 of 33 exercised (81.8%)".
func coverage(srv eval.ServerTools) string {
	return fmt.Sprintf("%d of %d exercised (%.1f%%)", srv.Exercised, srv.Tools, srv.Coverage)
}

func mapSlice(xs []string, f func(string) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// listNames joins names, cut after maxListed.
func listNames(names []string) string {
	if len(names) > maxListed {
		return strings.Join(names[:maxListed], ", ") + fmt.Sprintf(", … %d more (see summary.json)", len(names)-maxListed)
	}
	return strings.Join(names, ", ")
}

// toolGates returns a line for each server whose tool coverage is below
// the run's minimum, naming the tools never called.
func toolGates(sum eval.Summary, st settings.Settings) []string {
	if st.MinToolCoverage <= 0 || sum.Tools == nil {
		return nil
	}
	var out []string
	for _, srv := range sum.Tools.Servers {
		if srv.Coverage < st.MinToolCoverage {
			out = append(out, fmt.Sprintf("tool coverage of %s is below the minimum %g%%: %s; never called: %s",
				srv.Server, st.MinToolCoverage, coverage(srv), strings.Join(mapSlice(srv.NeverCalled, tooldiff.Name), ", ")))
		}
	}
	return out
}
