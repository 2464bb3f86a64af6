package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/shard"
	"github.com/mcpeval/mcpeval/internal/testname"
)

// planShard assigns every selected case run (case, arm, repeat) to a
// shard, when the run is split (-shard k/n), and says how many are this
// process's. The cases of other shards get no subtest at all.
func (h *Harness) planShard() {
	st := h.run.Settings
	if !st.Shard.Split() {
		return
	}
	byName := map[string]eval.Case{}
	for _, c := range h.cases {
		byName[c.Name] = c
	}
	weight := func(id shard.Identity) (float64, bool) { return h.run.ExpectedSeconds(byName[id.Name], id.CaseRun) }
	runs := h.plannedRuns()
	h.shard = shard.NewSplit(st.Shard, st.ShardBalance, runs, weight)
	fmt.Fprintf(h.stdout, "mcpeval: shard %s: %d of the %d selected case runs (assigned by %s, plan %s)\n",
		st.Shard, h.shard.Mine(), len(runs), h.shard.Plan.Balance, h.shard.Plan.Fingerprint)
}

// myRuns lists the case runs this process runs (see plannedRuns): its
// shard's, or every selected one.
func (h *Harness) myRuns() []eval.CaseRun {
	var out []eval.CaseRun
	for _, r := range h.plannedRuns() {
		if h.shard == nil || h.shard.Owns(shard.IdentityOf(r)) {
			out = append(out, r.CaseRun)
		}
	}
	return out
}

// plannedCount counts the case runs this process runs: its shard's, or
// every selected one.
func (h *Harness) plannedCount() int {
	if h.shard != nil {
		return h.shard.Mine()
	}
	return len(h.plannedRuns())
}

// plannedRuns lists the case runs -run and -skip select: each selected
// case with each selected arm, in each repeat (-count).
func (h *Harness) plannedRuns() []eval.ShardRun {
	arms := h.arms()
	var out []eval.ShardRun
	for _, c := range h.cases {
		if !h.selected[c.Name] {
			continue
		}
		for _, a := range arms {
			name := h.testName(c, a)
			if a.Subtest != "" && !h.categoryOf[c.Category].Selects(h.runPattern, h.skipPattern, h.names[c.Name], a.Subtest) {
				continue
			}
			for r := range h.gotest.Count {
				out = append(out, eval.ShardRun{CaseRun: h.run.CaseRunOf(c.Name, a.Name, r), Category: c.Category,
					File: h.caseFile(c.File), Line: c.Line, Test: name.String()})
			}
		}
	}
	return out
}

// caseFile names a case file relative to the configured case path, as
// every machine running a shard names it.
func (h *Harness) caseFile(file string) string {
	h.caseDirOnce.Do(func() {
		h.caseDir = h.settings.Cases
		if info, err := os.Stat(h.caseDir); err == nil && !info.IsDir() {
			h.caseDir = filepath.Dir(h.caseDir)
		}
	})
	rel, err := filepath.Rel(h.caseDir, file)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = filepath.Base(file)
	}
	return filepath.ToSlash(rel)
}

// testName returns the test name of a case's run with an arm: its
// category's test function (or TestOtherCategories and the category), the
// case, and the arm's subtest when the run has several.
func (h *Harness) testName(c eval.Case, a Arm) testname.Name {
	cat := h.categoryOf[c.Category]
	return testname.Name{Func: cat.Func, Category: cat.Sub, Case: h.names[c.Name], Arm: a.Subtest}
}

// shardArms returns the arms whose run of the case in this repeat belongs
// to this shard.
func (h *Harness) shardArms(c eval.Case, arms []Arm, repeat int) []Arm {
	if h.shard == nil {
		return arms
	}
	return slices.DeleteFunc(slices.Clone(arms), func(a Arm) bool {
		id := shard.Identity{File: h.caseFile(c.File), CaseRun: h.run.CaseRunOf(c.Name, a.Name, repeat)}
		return !h.shard.Owns(id)
	})
}

// shardCases returns the cases with a run in this shard (all of them when
// the run is not split).
func (h *Harness) shardCases(cases []eval.Case) []eval.Case {
	if h.shard == nil {
		return cases
	}
	return slices.DeleteFunc(slices.Clone(cases), func(c eval.Case) bool { return !h.shard.HasCase(c.Name) })
}

// describeShard records the shard in the summary. Its not run are this
// shard's alone (see suite.Run.Plan): the others are other shards'.
func (h *Harness) describeShard(sum *eval.Summary) {
	if h.shard == nil {
		return
	}
	sum.Shard = h.shard.Summary(h.run.ShardInfo(h.gotest.Count))
}
