package evaltest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/shard"
)

// shardState is this process's part of a split run (-shard k/n): the plan
// of the whole run and what the summary says of it.
type shardState struct {
	spec shard.Spec
	plan shard.Plan
	info eval.Shard
	mine int // the case runs of this shard
}

// planShard assigns every selected case run (case, model, repeat) to a
// shard, when the run is split, and says how many are this process's.
// The cases of other shards get no subtest at all.
func (s *Suite) planShard() {
	st := s.run.Settings
	if !st.Shard.Split() {
		return
	}
	runs := s.plannedRuns()
	ids := make([]shard.Identity, len(runs))
	for i, r := range runs {
		ids[i] = shard.Identity{File: r.File, Case: r.Name, Model: r.Model, Repeat: r.Repeat}
	}
	byName := map[string]eval.Case{}
	for _, c := range s.cases {
		byName[c.Name] = c
	}
	weight := func(id shard.Identity) (float64, bool) {
		return s.run.ExpectedSeconds(byName[id.Case], id.Model, id.Repeat)
	}
	plan := shard.NewPlan(ids, st.Shard.Count, st.ShardBalance, weight)
	mine := 0
	for i := range runs {
		runs[i].Shard, _ = plan.Shard(ids[i])
		if runs[i].Shard == st.Shard.Index {
			mine++
		}
	}
	config := s.run.ShardConfig(testCount())
	config.Cases = shard.SetHash(ids)
	s.shard = &shardState{spec: st.Shard, plan: plan, mine: mine, info: eval.Shard{
		Index: st.Shard.Index, Count: st.Shard.Count, Balance: plan.Balance, Plan: plan.Fingerprint, Config: config, Runs: runs,
		Group: s.run.ShardGroup(),
	}}
	fmt.Printf("mcpeval: shard %s: %d of the %d selected case runs (assigned by %s, plan %s)\n", st.Shard, mine, len(runs), plan.Balance, plan.Fingerprint)
}

// plannedCount counts the case runs this process runs: its shard's, or
// every selected one.
func (s *Suite) plannedCount() int {
	if s.shard != nil {
		return s.shard.mine
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
		path := s.testPath(c)
		for _, m := range models {
			levels := path
			if len(models) > 1 {
				levels = append(path[:len(path):len(path)], m.subtest)
				if !s.categoryOf[c.Category].Selects(s.runPattern, s.skipPattern, evalcase.FuncName, s.names[c.Name], m.subtest) {
					continue
				}
			}
			for r := range testCount() {
				out = append(out, eval.ShardRun{Name: c.Name, Category: c.Category, File: caseFile(s.run.Settings.Cases, c.File),
					Line: c.Line, Test: strings.Join(levels, "/"), Model: m.model, Repeat: r})
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

// testPath returns the levels of a case's test name: its category's test
// function (or TestOtherCategories and the category) and the case.
func (s *Suite) testPath(c eval.Case) []string {
	cat := s.categoryOf[c.Category]
	if cat.Sub != "" {
		return []string{cat.Func, cat.Sub, s.names[c.Name]}
	}
	return []string{cat.Func, s.names[c.Name]}
}

// shardModels returns the models whose next run of the case belongs to
// this shard; the others' runs are counted as done elsewhere. A run the
// plan does not hold (-run does not select it) is left to go test.
func (s *Suite) shardModels(c eval.Case, models []model) []model {
	if s.shard == nil {
		return models
	}
	var mine []model
	for _, m := range models {
		id := shard.Identity{File: caseFile(s.run.Settings.Cases, c.File), Case: c.Name, Model: m.model, Repeat: s.run.PeekRepeat(c.Name, m.model)}
		if j, ok := s.shard.plan.Shard(id); ok && j != s.shard.spec.Index {
			s.run.SkipRepeat(c.Name, m.model)
			continue
		}
		mine = append(mine, m)
	}
	return mine
}

// shardCases returns the cases with a run in this shard (all of them when
// the run is not split).
func (s *Suite) shardCases(cases []eval.Case) []eval.Case {
	if s.shard == nil {
		return cases
	}
	mine := map[string]bool{}
	for _, r := range s.shard.info.Runs {
		if r.Shard == s.shard.spec.Index {
			mine[r.Name] = true
		}
	}
	var out []eval.Case
	for _, c := range cases {
		if mine[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

// describeShard records the shard in the summary and counts as not run
// only this shard's cases that did not run: the others are other shards'.
func (s *Suite) describeShard(sum *eval.Summary) {
	if s.shard == nil {
		return
	}
	info := s.shard.info
	sum.Shard = &info
	type pair struct{ name, model string }
	ran := map[pair]bool{}
	for _, c := range sum.Cases {
		ran[pair{c.Name, c.Model}] = true
	}
	mine := map[pair]bool{}
	for _, r := range info.Runs {
		if p := (pair{r.Name, r.Model}); r.Shard == info.Index && !ran[p] {
			mine[p] = true
		}
	}
	sum.NotRun = len(mine)
}
