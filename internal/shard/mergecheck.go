package shard

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// checkSame refuses shards that are not parts of one run: another number
// of shards, assignment, case set or setting. ref is the first finished
// shard; each difference is named with both values.
func checkSame(ref *shardDir, shards []*shardDir) error {
	a := ref.summary
	var problems []string
	for _, s := range shards {
		if s == ref || s.summary == nil {
			continue
		}
		b := s.summary
		diff := func(what string, x, y any) {
			problems = append(problems, fmt.Sprintf("%s: %v in %s, %v in %s", what, x, ref.dir, y, s.dir))
		}
		ca, cb := a.Shard.Config, b.Shard.Config
		switch {
		case a.Shard.Count != b.Shard.Count:
			diff("number of shards", a.Shard.Count, b.Shard.Count)
		case ca.Cases != cb.Cases:
			problems = append(problems, fmt.Sprintf("case sets differ between %s and %s: %s", ref.dir, s.dir, caseSetDiff(a.Shard.Runs, b.Shard.Runs)))
		case a.Shard.Balance != b.Shard.Balance:
			diff("assignment (-shard-balance)", a.Shard.Balance, b.Shard.Balance)
		case a.Shard.Plan != b.Shard.Plan:
			problems = append(problems, fmt.Sprintf("the shards assigned the case runs differently (plan %s in %s, %s in %s): with -shard-balance history every shard must start from the same cache",
				a.Shard.Plan, ref.dir, b.Shard.Plan, s.dir))
		}
		if !slices.Equal(ca.Models, cb.Models) {
			diff("models", strings.Join(ca.Models, ","), strings.Join(cb.Models, ","))
		}
		if ca.Repeats != cb.Repeats {
			diff("repeats (-count)", ca.Repeats, cb.Repeats)
		}
		if ca.Judge != cb.Judge {
			diff("judge model", quoteOrNone(ca.Judge), quoteOrNone(cb.Judge))
		}
		if ca.Provider != cb.Provider {
			diff("provider", quoteOrNone(ca.Provider), quoteOrNone(cb.Provider))
		}
		if ca.Reference != cb.Reference {
			diff("reference run", ca.Reference, cb.Reference)
		}
		if ca.Settings != cb.Settings {
			diff("settings that decide outcomes (system prompt, turn or token limit, recovery budget, judge prompt or the servers' tools)", ca.Settings, cb.Settings)
		}
		if ca.GitCommit != "" && cb.GitCommit != "" && ca.GitCommit != cb.GitCommit {
			diff("suite commit", ca.GitCommit, cb.GitCommit)
		}
		if ga, gb := a.Shard.Group, b.Shard.Group; ga != "" && gb != "" && ga != gb {
			problems = append(problems, fmt.Sprintf("the shards are of different runs (%s in %s, %s in %s): is one left from an earlier run?", ga, ref.dir, gb, s.dir))
		}
		if a.MinPassRate != b.MinPassRate || a.MinRunPassRate != b.MinRunPassRate {
			diff("pass-rate gates", fmt.Sprintf("%g/%g", a.MinPassRate, a.MinRunPassRate), fmt.Sprintf("%g/%g", b.MinPassRate, b.MinRunPassRate))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("the run directories are not shards of one run:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

func quoteOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return fmt.Sprintf("%q", s)
}

// caseSetDiff names a few case runs only one of two lists holds.
func caseSetDiff(a, b []eval.ShardRun) string {
	key := func(r eval.ShardRun) string {
		return fmt.Sprintf("%q (%s, model %s, repeat %d)", r.Name, r.File, r.Model, r.Repeat)
	}
	in := func(list []eval.ShardRun) map[string]bool {
		m := map[string]bool{}
		for _, r := range list {
			m[key(r)] = true
		}
		return m
	}
	inA, inB := in(a), in(b)
	var onlyA, onlyB []string
	for k := range inA {
		if !inB[k] {
			onlyA = append(onlyA, k)
		}
	}
	for k := range inB {
		if !inA[k] {
			onlyB = append(onlyB, k)
		}
	}
	slices.Sort(onlyA)
	slices.Sort(onlyB)
	return fmt.Sprintf("%d case runs only in the first (%s), %d only in the second (%s)", len(onlyA), firstFew(onlyA), len(onlyB), firstFew(onlyB))
}

// firstFew joins at most five items.
func firstFew(items []string) string {
	if len(items) > 5 {
		return strings.Join(items[:5], ", ") + fmt.Sprintf(" and %d more", len(items)-5)
	}
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}
