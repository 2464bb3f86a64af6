package suite

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/tooldiff"
	"github.com/mcpeval/mcpeval/internal/toolstats"
)

// toolServers is each connected server's tool surface, named as the run
// names it.
func (s *Run) toolServers() []toolstats.Server {
	ids := s.tools.ServerNames()
	out := make([]toolstats.Server, len(s.tools.Servers))
	for i, srv := range s.tools.Servers {
		name, version := srv.Info()
		out[i] = toolstats.Server{Server: s.servers[i], ID: ids[i], Name: name, Version: version}
		for _, t := range s.tools.Entries() {
			if t.Server == ids[i] {
				out[i].Tools = append(out[i].Tools, t.Listed)
			}
		}
	}
	return out
}

// compareSurface compares the run's tool surface with the one the newest
// finished run of the same servers in the output directory recorded, and
// counts the cached
// passes of the loaded cases that the difference makes unusable.
func (s *Run) compareSurface() {
	prev, ok := s.lastRunOfSameServers()
	if !ok || prev.Summary.Tools.Hash == s.toolHash {
		return
	}
	cur := s.toolStats.Summary()
	ch := tooldiff.Compare(prev.Summary.Tools, &cur)
	ch.Since = cmp.Or(prev.Summary.RunID, prev.ID)
	s.redactor.Value(&ch) // it is printed before the summary is redacted
	if !s.Settings.Reference {
		ch.InvalidatedPasses = s.invalidatedPasses(prev.Summary.Tools.Hash, max(prev.Summary.Repeats, 1))
	}
	s.toolChanges = &ch
}

// lastRunOfSameServers returns the newest finished run in the output
// directory that recorded the tool surface of the same servers, as the
// servers name themselves (serverInfo), in any order: a run of other
// servers (another servers file) is no earlier state of these.
func (s *Run) lastRunOfSameServers() (runs.Run, bool) {
	list, err := runs.List(s.Settings.Out)
	if err != nil {
		return runs.Run{}, false
	}
	var own []string
	for _, srv := range s.tools.Servers {
		name, _ := srv.Info()
		own = append(own, name)
	}
	slices.Sort(own)
	var best runs.Run
	for _, r := range list {
		if r.Summary == nil || r.Summary.Tools == nil || r.Summary.Finished.IsZero() {
			continue
		}
		var theirs []string
		for _, srv := range r.Summary.Tools.Servers {
			theirs = append(theirs, srv.Name)
		}
		slices.Sort(theirs)
		if slices.Equal(own, theirs) && (best.Summary == nil || r.Summary.Finished.After(best.Summary.Finished)) {
			best = r
		}
	}
	return best, best.Summary != nil
}

// invalidatedPasses counts the loaded cases' repeats (up to repeats) with
// each arm whose pass the cache holds under the tool surface oldHash:
// with this run's surface their keys differ, so they run again.
func (s *Run) invalidatedPasses(oldHash string, repeats int) int {
	n := 0
	for _, c := range s.Cases {
		for _, a := range s.arms {
			for r := range repeats {
				key, err := s.keyWith(c, a, r, oldHash)
				if err != nil {
					continue
				}
				if rec, ok := s.cache.Get(key); ok && rec.Status == eval.Pass {
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
	ts := s.toolStats.Summary()
	ts.Hash, ts.MinCoverage, ts.Changes = s.toolHash, s.Settings.MinToolCoverage, s.toolChanges
	if n := s.selectedCount(); n < len(s.Cases) {
		ts.SelectedCases, ts.LoadedCases = n, len(s.Cases)
	}
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
		fmt.Fprintf(&b, "mcpeval: the change invalidated %s of the loaded cases: the tool surface is part of the cache key, so they run again\n", eval.Plural(ch.InvalidatedPasses, "cached passes"))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// maxListed bounds the tool names a closing line lists.
const maxListed = 60

// formatTools writes the closing lines about the tools: each server's
// coverage and the tools never called, the tools whose calls failed or
// whose results crossed the token limit, calls to tools no server offers,
// and a reminder of a change of the surface.
func formatTools(b *strings.Builder, t *eval.ToolSummary) {
	if t == nil {
		return
	}
	var failing, over []eval.ToolStats
	by, never := "", "never called"
	if t.SelectedCases > 0 {
		// Coverage is of the cases that ran: a -run of a few cases leaves
		// most tools uncalled, which says nothing of the others.
		by = fmt.Sprintf(" by the %d selected of %d cases", t.SelectedCases, t.LoadedCases)
		never = "not called by the selected cases"
	}
	for _, srv := range t.Servers {
		fmt.Fprintf(b, "mcpeval: tools: %s%s on %s\n", coverage(srv), by, srv.Server)
		if len(srv.NeverCalled) > 0 {
			fmt.Fprintf(b, "mcpeval: %s: %s\n", never, listNames(mapSlice(srv.NeverCalled, tooldiff.Name)))
		}
		for _, st := range srv.Stats {
			if st.Errors > 0 {
				failing = append(failing, st)
			}
			if st.OverLimit > 0 {
				over = append(over, st)
			}
		}
	}
	if len(failing) > 0 {
		slices.SortStableFunc(failing, func(a, b eval.ToolStats) int { return cmp.Compare(b.ErrorRate, a.ErrorRate) })
		parts := make([]string, len(failing))
		for i, st := range failing {
			parts[i] = fmt.Sprintf("%s %d of %d calls (%.1f%%)", tooldiff.Name(st.Name), st.Errors, st.Calls, 100*st.ErrorRate)
		}
		fmt.Fprintf(b, "mcpeval: tool calls that failed: %s\n", listNames(parts))
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
	if ch := t.Changes; ch != nil {
		fmt.Fprintf(b, "mcpeval: the tool surface changed since run %s (%s; shown at the start)\n", ch.Since, tooldiff.Count(ch))
	}
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
