// Merging a split run: Merge joins the run directories of the shards of a
// split run (go test ./evaltest -shard k/n, one process each) into one new
// run directory: the records, the go test streams, the metrics and the
// summary, as one process running every case would have written them.
//
// It refuses directories that are not shards of one run (another number
// of shards, assignment, case set or setting, or the same shard twice).
// Every case run the run selected is accounted for: a case run that no
// merged shard reported (its shard was not given, or stopped before it) is
// recorded as eval.NotRun with the reason and listed in the summary's
// "merged" section; the merge is then incomplete, never a silently
// smaller run.

package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/stats"
	"github.com/mcpeval/mcpeval/scoring"
)

// MergeResult is a merged run.
type MergeResult struct {
	// Dir is the new run directory.
	Dir     string
	Summary eval.Summary
	// Notes are what the merge noticed without refusing: a shard that did
	// not finish, unreadable record lines.
	Notes []string
}

// Incomplete reports whether some case run was reported by no shard.
func (r *MergeResult) Incomplete() bool {
	return r.Summary.Merged != nil && len(r.Summary.Merged.Missing) > 0
}

// Merge merges the shards' run directories dirs into a new run directory
// under parent (parent/runs/<id>), marks it as parent's latest run and
// returns it. It fails, writing nothing, when the directories are not
// shards of one run.
func Merge(dirs []string, parent string) (*MergeResult, error) {
	if len(dirs) == 0 {
		return nil, errors.New("merge: no run directory given")
	}
	var shards []*shardDir
	var ref *shardDir
	for _, dir := range dirs {
		s, err := readShard(dir)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		shards = append(shards, s)
		if ref == nil && s.summary != nil {
			ref = s
		}
	}
	if ref == nil {
		return nil, fmt.Errorf("merge: none of the %d run directories has a summary (no shard finished): their shards cannot be known", len(dirs))
	}
	if err := checkSame(ref, shards); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	plan := ref.summary.Shard
	planned := map[eval.CaseRun]eval.ShardRun{}
	for _, r := range plan.Runs {
		planned[r.CaseRun] = r
	}
	res := &MergeResult{}
	byIndex := map[int]*shardDir{}
	for _, s := range shards {
		if err := s.place(planned); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if s.index == 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("%s has no summary and no record: its shard is unknown; left out", s.dir))
			continue
		}
		if other, ok := byIndex[s.index]; ok {
			return nil, fmt.Errorf("merge: shard %d/%d appears twice: %s and %s", s.index, plan.Count, other.dir, s.dir)
		}
		byIndex[s.index] = s
		res.Notes = append(res.Notes, s.notes...)
		if s.summary == nil {
			res.Notes = append(res.Notes, fmt.Sprintf("shard %d/%d (%s) did not finish (no summary): its %d records are merged", s.index, plan.Count, s.dir, len(s.records)))
		}
	}

	merged := &eval.Merged{Count: plan.Count}
	for j := 1; j <= plan.Count; j++ {
		if s, ok := byIndex[j]; ok {
			ms := eval.MergedShard{Index: j, Dir: s.dir, Records: len(s.records), Finished: s.summary != nil}
			if s.summary != nil {
				ms.RunID = s.summary.RunID
			}
			merged.Shards = append(merged.Shards, ms)
		}
	}
	records := collect(plan, byIndex, merged)

	// The run is written aside and put in place whole: a merge killed
	// midway leaves no run that looks finished.
	id := runs.NewID(time.Now())
	staged, err := runs.Stage(parent, id)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	defer staged.Abort()
	res.Summary = summarize(id, ref.summary, byIndex, records, merged)
	if err := write(staged.Dir, records, res.Summary, byIndex); err != nil {
		return nil, fmt.Errorf("merge into %s: %w", staged.Dir, err)
	}
	if committing != nil {
		committing(staged.Dir)
	}
	if res.Dir, err = staged.Commit(); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if err := runs.MarkLatest(parent, res.Dir); err != nil {
		return nil, err
	}
	return res, nil
}

// committing, when set, is called with the staged run's directory once
// every file is written, just before the run is put in place: the tests
// kill a merge there.
var committing func(dir string)

// place finds the shard of a directory without a summary from its records,
// and checks that every record is a case run of the plan given to this
// shard.
func (s *shardDir) place(planned map[eval.CaseRun]eval.ShardRun) error {
	for _, r := range s.records {
		p, ok := planned[r.CaseRun()]
		if !ok {
			return fmt.Errorf("%s holds a record of %q (model %s, repeat %d), which the run did not select: it is not a shard of this run", s.dir, r.Name, r.Model, r.Repeat)
		}
		if s.index == 0 {
			s.index = p.Shard
		}
		if p.Shard != s.index {
			return fmt.Errorf("%s (shard %d) holds a record of %q (model %s, repeat %d), which belongs to shard %d", s.dir, s.index, r.Name, r.Model, r.Repeat, p.Shard)
		}
	}
	return nil
}

// collect returns the merged records in the plan's order: each case run's
// record from its shard, nothing for one its shard skipped (its stream
// says so), and a NotRun record for every other case run, which it adds
// to merged.Missing.
func collect(plan *eval.Shard, byIndex map[int]*shardDir, merged *eval.Merged) []eval.Record {
	got := map[eval.CaseRun]eval.Record{}
	for _, s := range byIndex {
		for _, r := range s.records {
			got[r.CaseRun()] = r
		}
	}
	records := make([]eval.Record, 0, len(plan.Runs))
	for _, p := range plan.Runs {
		if r, ok := got[p.CaseRun]; ok {
			records = append(records, r)
			continue
		}
		s := byIndex[p.Shard]
		if s != nil {
			if _, skipped := s.skipped[p.Test]; skipped && s.summary != nil {
				continue // as in one process: a skipped test, without a record
			}
		}
		var reason string
		switch {
		case s == nil:
			reason = fmt.Sprintf("not run: shard %d/%d was not merged (no run directory of it was given)", p.Shard, plan.Count)
		case s.summary == nil:
			reason = fmt.Sprintf("not run: shard %d/%d stopped before this case run (it wrote no summary)", p.Shard, plan.Count)
		default:
			reason = fmt.Sprintf("not run: shard %d/%d finished without a record of this case run", p.Shard, plan.Count)
		}
		merged.Missing = append(merged.Missing, p)
		records = append(records, eval.Record{Name: p.Name, Category: p.Category, Test: p.Test, File: p.File, Line: p.Line,
			Model: p.Model, Arm: p.Arm, Repeat: p.Repeat, Status: eval.NotRun, Reason: reason, ToolCalls: []eval.ToolCall{}})
	}
	return records
}

// summarize builds the merged run's summary from its records, with what
// the shards' summaries say of the run as a whole.
func summarize(id string, ref *eval.Summary, byIndex map[int]*shardDir, records []eval.Record, merged *eval.Merged) eval.Summary {
	sum := eval.Summary{RunID: id, Model: ref.Model, JudgeModel: ref.JudgeModel, Provider: ref.Provider, Servers: ref.Servers,
		CaseFiles: ref.CaseFiles, GitCommit: ref.GitCommit, Reference: ref.Reference, MinPassRate: ref.MinPassRate,
		MinRunPassRate: ref.MinRunPassRate, Merged: merged, Verdicts: ref.Verdicts, ChecksCalibration: ref.ChecksCalibration}
	for _, s := range byIndex {
		if s.summary == nil {
			continue
		}
		if sum.Started.IsZero() || s.summary.Started.Before(sum.Started) {
			sum.Started = s.summary.Started
		}
		if s.summary.Finished.After(sum.Finished) {
			sum.Finished = s.summary.Finished
		}
		sum.ServerRestarts += s.summary.ServerRestarts
		sum.BudgetUSD += s.summary.BudgetUSD
	}
	for _, r := range records { // a shard that did not finish ran until its last record
		if end := r.StartedAt.Add(time.Duration(r.Seconds * float64(time.Second))); !r.Cached && end.After(sum.Finished) {
			sum.Finished = end
		}
	}
	sum.Seconds = sum.Finished.Sub(sum.Started).Seconds()
	for _, r := range records {
		sum.Count(r)
	}
	stats.Summarize(&sum, records, ref.Shard.Config.Models)
	// Not run, as one process counts it: the selected cases (with each
	// model) of which no run has an outcome.
	ran, all := map[eval.CaseRun]bool{}, map[eval.CaseRun]bool{}
	for _, c := range sum.Cases {
		ran[eval.CaseRun{Name: c.Name, Model: c.Model}] = true
	}
	for _, r := range ref.Shard.Runs {
		if p := (eval.CaseRun{Name: r.Name, Model: r.ArmName()}); !ran[p] {
			all[p] = true
		}
	}
	sum.NotRun = len(all)
	return sum
}

// write writes the merged run's files into dir: the records, the summary,
// the metrics and the shards' go test streams, one after the other.
func write(dir string, records []eval.Record, sum eval.Summary, byIndex map[int]*shardDir) error {
	err := files.WriteAtomic(filepath.Join(dir, eval.RecordsFile), 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, r := range records {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	entries := []eval.MetricsEntry{}
	for _, r := range records {
		if r.Metrics != nil {
			entries = append(entries, eval.MetricsEntry{Case: r.Name, Category: r.Category, Kind: r.Kind, Model: r.ArmName(), Metrics: *r.Metrics})
		}
	}
	for name, v := range map[string]any{
		eval.MetricsFile:        entries,
		eval.MetricsSummaryFile: eval.MetricsFileSummary{Summary: scoring.Summarize(entries)},
		eval.SummaryFile:        sum,
	} {
		if err := writeJSON(filepath.Join(dir, name), v); err != nil {
			return err
		}
	}
	var streams []string
	for _, j := range slices.Sorted(maps.Keys(byIndex)) {
		if s := byIndex[j].stream; s != "" {
			streams = append(streams, s)
		}
	}
	if len(streams) == 0 {
		return nil
	}
	return files.WriteAtomic(filepath.Join(dir, StreamFile), 0o644, func(w io.Writer) error {
		for _, path := range streams {
			if err := appendFile(w, path); err != nil {
				return err
			}
		}
		return nil
	})
}

// appendFile copies the file at path to w, ending it with a newline.
func appendFile(w io.Writer, path string) error {
	data, err := files.ReadRegular(path, files.MaxRunFile)
	if err != nil {
		return err
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	_, err = w.Write(data)
	return err
}

// writeJSON writes v as indented JSON to path, atomically.
func writeJSON(path string, v any) error {
	return files.WriteAtomic(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// Describe is the merge in a few lines: the shards seen, the case runs
// merged, and those not run.
func (r *MergeResult) Describe() string {
	var b strings.Builder
	m := r.Summary.Merged
	var seen []string
	for _, s := range m.Shards {
		state := ""
		if !s.Finished {
			state = ", did not finish"
		}
		seen = append(seen, fmt.Sprintf("%d/%d (%d records%s: %s)", s.Index, m.Count, s.Records, state, s.Dir))
	}
	fmt.Fprintf(&b, "merged shards %s\n", strings.Join(seen, ", "))
	var absent []string
	for j := 1; j <= m.Count; j++ {
		if !slices.ContainsFunc(m.Shards, func(s eval.MergedShard) bool { return s.Index == j }) {
			absent = append(absent, fmt.Sprintf("%d/%d", j, m.Count))
		}
	}
	if len(absent) > 0 {
		fmt.Fprintf(&b, "shards not given: %s\n", strings.Join(absent, ", "))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	s := r.Summary
	fmt.Fprintf(&b, "%d case runs: %d passed, %d failed, %d errors, %d token-limit, %d cached, %d not run\n",
		s.Total+len(m.Missing), s.Passed, s.Failed, s.Errors, s.TokenLimit, s.Cached, len(m.Missing))
	if len(m.Missing) > 0 {
		fmt.Fprintf(&b, "NOT RUN: %d case runs no shard reported:\n", len(m.Missing))
		for _, p := range m.Missing {
			fmt.Fprintf(&b, "  shard %d/%d: %s (%s:%d", p.Shard, m.Count, p.Test, p.File, p.Line)
			if p.Repeat > 0 {
				fmt.Fprintf(&b, ", repeat %d", p.Repeat)
			}
			b.WriteString(")\n")
		}
	}
	fmt.Fprintf(&b, "merged run: %s", r.Dir)
	return b.String()
}
