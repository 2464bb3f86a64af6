package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/runs"
)

// StreamFile is the go test -json stream a run directory may hold (make ci
// and the examples put it there).
const StreamFile = "test.json"

// shardDir is one shard's run directory as read.
type shardDir struct {
	dir     string
	summary *eval.Summary // nil: the shard did not finish
	records []eval.Record
	// index is the shard, from the summary or, without one, from the
	// records; 0 when unknown.
	index int
	// stream is the path of its go test stream, "" when it has none;
	// skipped holds the tests the stream says were skipped, with their
	// output.
	stream  string
	skipped map[string]string
	// notes are what was odd about it (an unreadable last line).
	notes []string
}

// readShard reads a shard's run directory.
func readShard(dir string) (*shardDir, error) {
	if !runs.IsRun(dir) {
		hint := ""
		if info, err := os.Stat(filepath.Join(dir, runs.Dir)); err == nil && info.IsDir() {
			hint = fmt.Sprintf(" (it holds runs: name the shards' run directories, e.g. %s)", filepath.Join(dir, runs.Dir, "*"))
		}
		return nil, fmt.Errorf("%s is not a run directory: it has no %s or %s%s", dir, eval.RecordsFile, eval.SummaryFile, hint)
	}
	s := &shardDir{dir: dir, skipped: map[string]string{}}
	sum, err := runs.ReadSummary(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if sum.Shard == nil {
			return nil, fmt.Errorf("%s is not a shard of a split run: its summary has no shard (it ran without -shard or EVAL_SHARD)", dir)
		}
		if err := checkPlan(sum.Shard); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, eval.SummaryFile), err)
		}
		s.summary, s.index = &sum, sum.Shard.Index
	}
	if err := s.readRecords(); err != nil {
		return nil, err
	}
	if err := s.readStream(); err != nil {
		return nil, err
	}
	return s, nil
}

// checkPlan refuses a shard description that cannot be right: a shard
// out of range, in itself or for one of its case runs, or a list of case
// runs that is not the plan its fingerprints name (a summary altered, or
// another shard's plan): every shard is checked on its own, so that which
// one comes first does not decide what is caught. Under hash assignment
// every case run must be where its hash puts it.
func checkPlan(p *eval.Shard) error {
	if p.Count < 1 || p.Index < 1 || p.Index > p.Count || p.Count > MaxCount {
		return fmt.Errorf("shard %d of %d is not a shard", p.Index, p.Count)
	}
	listed := make(map[Identity]bool, len(p.Runs))
	for _, r := range p.Runs {
		if r.Shard < 1 || r.Shard > p.Count {
			return fmt.Errorf("case run %s is given to shard %d of %d", r.CaseRun, r.Shard, p.Count)
		}
		id := IdentityOf(r)
		if listed[id] {
			return fmt.Errorf("case run %s is listed twice", r.CaseRun)
		}
		listed[id] = true
		if p.Balance == Hash {
			if want := ByHash(id, p.Count); want != r.Shard {
				return fmt.Errorf("case run %s is given to shard %d, but its hash puts it in shard %d of %d: the plan was altered",
					r.CaseRun, r.Shard, want, p.Count)
			}
		}
	}
	cases, plan := Fingerprints(p.Runs, p.Count, p.Balance)
	if cases != p.Config.Cases {
		return fmt.Errorf("its case runs are not the case set it names (%s, not %s): the plan was altered", cases, p.Config.Cases)
	}
	if plan != p.Plan {
		return fmt.Errorf("its case runs are not assigned as its plan %s says (they make %s): the plan was altered", p.Plan, plan)
	}
	return nil
}

// Fingerprints returns what a shard's summary names its case runs by: the
// hash of their set and the fingerprint of their assignment to count
// shards, as the shard computed them (see SetHash and
// Fingerprint).
func Fingerprints(runs []eval.ShardRun, count int, balance string) (cases, plan string) {
	ids := make([]Identity, len(runs))
	given := make(map[Identity]int, len(runs))
	for i, r := range runs {
		ids[i] = IdentityOf(r)
		given[ids[i]] = r.Shard
	}
	return SetHash(ids), Fingerprint(count, balance, ids, func(id Identity) int { return given[id] })
}

// readRecords reads results.jsonl, later records of a case run replacing
// earlier ones (a rerun appends). A line that is not a record is skipped
// with a note: a shard killed while writing leaves half a line.
func (s *shardDir) readRecords() error {
	path := filepath.Join(s.dir, eval.RecordsFile)
	f, err := files.OpenRegular(path, files.MaxRunFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read records: %w", err)
	}
	defer f.Close()
	at := map[eval.CaseRun]int{}
	return eval.ReadLines(f, func(n int, line []byte) error {
		var r eval.Record
		if err := json.Unmarshal(line, &r); err != nil {
			s.notes = append(s.notes, fmt.Sprintf("%s line %d is not a record (%v): left out", path, n, err))
		} else if i, ok := at[r.CaseRun()]; ok {
			s.records[i] = r
		} else {
			at[r.CaseRun()] = len(s.records)
			s.records = append(s.records, r)
		}
		return nil
	})
}

// readStream notes the shard's go test stream and the tests it skipped.
func (s *shardDir) readStream() error {
	path := filepath.Join(s.dir, StreamFile)
	f, err := files.OpenRegular(path, files.MaxRunFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read test stream: %w", err)
	}
	defer f.Close()
	s.stream = path
	output := map[string]*strings.Builder{}
	dec := json.NewDecoder(f)
	for {
		var e struct{ Action, Test, Output string }
		if err := dec.Decode(&e); err != nil {
			break // the end, or a line that is not an event: the report says so
		}
		switch {
		case e.Test == "":
		case e.Action == "output":
			if output[e.Test] == nil {
				output[e.Test] = &strings.Builder{}
			}
			output[e.Test].WriteString(e.Output)
		case e.Action == "skip":
			s.skipped[e.Test] = skipReason(output[e.Test])
		case e.Action == "run":
			delete(s.skipped, e.Test) // a later run of the test
			delete(output, e.Test)
		}
	}
	return nil
}

// skipReason is a skipped test's own message, without go test's framing.
func skipReason(out *strings.Builder) string {
	if out == nil {
		return ""
	}
	var kept []string
	for _, l := range strings.Split(out.String(), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		kept = append(kept, t)
	}
	return strings.Join(kept, " ")
}
