package evaltest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/shard"
	"github.com/mcpeval/mcpeval/internal/testname"
)

// planShard assigns every selected case run (case, model, repeat) to a
// shard, when the run is split (-shard k/n), and says how many are this
// process's. The cases of other shards get no subtest at all.
func (s *Suite) planShard() {
	st := s.run.Settings
	if !st.Shard.Split() {
		return
	}
	byName := map[string]eval.Case{}
	for _, c := range s.cases {
		byName[c.Name] = c
	}
	weight := func(id shard.Identity) (float64, bool) { return s.run.ExpectedSeconds(byName[id.Name], id.CaseRun) }
	runs := s.plannedRuns()
	s.shard = shard.NewSplit(st.Shard, st.ShardBalance, runs, weight)
	fmt.Printf("mcpeval: shard %s: %d of the %d selected case runs (assigned by %s, plan %s)\n",
		st.Shard, s.shard.Mine(), len(runs), s.shard.Plan.Balance, s.shard.Plan.Fingerprint)
}

// plannedCount counts the case runs this process runs: its shard's, or
// every selected one.
func (s *Suite) plannedCount() int {
	if s.shard != nil {
		return s.shard.Mine()
	}
	return len(s.plannedRuns())
}

// plannedRuns lists the case runs -run and -skip select: each selected
// case with each selected model, in each repeat (-count).
func (s *Suite) plannedRuns() []eval.ShardRun {
	models := s.models()
	var out []eval.ShardRun
	for _, c := range s.cases {
		if !s.selected[c.Name] {
			continue
		}
		for _, m := range models {
			name := s.testName(c, m)
			if len(models) > 1 {
				if !s.categoryOf[c.Category].Selects(s.runPattern, s.skipPattern, s.names[c.Name], m.subtest) {
					continue
				}
			}
			for r := range testCount() {
				out = append(out, eval.ShardRun{CaseRun: s.run.CaseRunOf(c.Name, m.model, r), Category: c.Category,
					File: caseFile(s.run.Settings.Cases, c.File), Line: c.Line, Test: name.String()})
			}
		}
	}
	return out
}

// caseFile names a case file relative to the configured case path, as
// every machine running a shard names it.
func caseFile(configured, file string) string {
	base := configured
	if info, err := os.Stat(configured); err == nil && !info.IsDir() {
		base = filepath.Dir(configured)
	}
	rel, err := filepath.Rel(base, file)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = filepath.Base(file)
	}
	return filepath.ToSlash(rel)
}

// testName returns the test name of a case's run with a model: its
// category's test function (or TestOtherCategories and the category), the
// case, and the model's subtest when the run has several.
func (s *Suite) testName(c eval.Case, m model) testname.Name {
	cat := s.categoryOf[c.Category]
	return testname.Name{Func: cat.Func, Category: cat.Sub, Case: s.names[c.Name], Arm: m.subtest}
}

// shardModels returns the models whose run of the case in this repeat
// belongs to this shard.
func (s *Suite) shardModels(c eval.Case, models []model, repeat int) []model {
	if s.shard == nil {
		return models
	}
	return slices.DeleteFunc(slices.Clone(models), func(m model) bool {
		id := shard.Identity{File: caseFile(s.run.Settings.Cases, c.File), CaseRun: s.run.CaseRunOf(c.Name, m.model, repeat)}
		return !s.shard.Owns(id)
	})
}

// shardCases returns the cases with a run in this shard (all of them when
// the run is not split).
func (s *Suite) shardCases(cases []eval.Case) []eval.Case {
	if s.shard == nil {
		return cases
	}
	return slices.DeleteFunc(slices.Clone(cases), func(c eval.Case) bool { return !s.shard.HasCase(c.Name) })
}

// describeShard records the shard in the summary and counts as not run
// only this shard's cases that did not run: the others are other shards'.
func (s *Suite) describeShard(sum *eval.Summary) {
	if s.shard == nil {
		return
	}
	sum.Shard = s.shard.Summary(s.run.ShardInfo(testCount()))
	sum.NotRun = s.shard.NotRun(*sum)
}
