package shard

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/runs"
)

// fixture is a split run of six cases over three shards, as the shards
// would have written it.
type fixture struct {
	plan   eval.Shard
	status map[string]eval.Status // by case name
	start  time.Time
}

func newFixture() *fixture {
	f := &fixture{status: map[string]eval.Status{}, start: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)}
	// Balanced by history: the assignment is the fixture's own.
	f.plan = eval.Shard{Count: 3, Balance: History,
		Config: eval.ShardConfig{Models: []string{"m"}, Repeats: 1, Settings: "s1", Provider: "http://stub/v1"}}
	for i := range 6 {
		name := fmt.Sprintf("case %d", i)
		f.plan.Runs = append(f.plan.Runs, eval.ShardRun{CaseRun: eval.CaseRun{Name: name, Model: "m"}, Category: "Genes", File: "genes.yaml", Line: 1 + 10*i,
			Test: "TestGenes/case_" + fmt.Sprint(i), Shard: 1 + i%3})
		f.status[name] = eval.Pass
	}
	f.status["case 4"] = eval.Fail
	f.plan.Group = "GITHUB_RUN_ID 7"
	seal(&f.plan)
	return f
}

// seal sets a plan's case-set hash and fingerprint from its case runs, as
// a shard computes them.
func seal(p *eval.Shard) {
	p.Config.Cases, p.Plan = Fingerprints(p.Runs, p.Count, p.Balance)
}

// write writes shard k's run directory under parent and returns it. With
// finished false it has no summary; stream adds a go test stream.
func (f *fixture) write(t *testing.T, parent string, k int, finished, stream bool) string {
	t.Helper()
	dir, err := runs.Create(parent, runs.NewID(f.start.Add(time.Duration(k)*time.Millisecond)))
	require.NoError(t, err)
	var lines, events []string
	for _, r := range f.plan.Runs {
		if r.Shard != k {
			continue
		}
		rec := eval.Record{Name: r.Name, Category: r.Category, Test: r.Test, File: r.File, Line: r.Line, Model: r.Model, Arm: r.Arm,
			Status: f.status[r.Name], Reason: "because", StartedAt: f.start.Add(time.Second), Seconds: 2,
			Usage: eval.Usage{TotalTokens: 100, Requests: 2}, ToolCalls: []eval.ToolCall{},
			Metrics: &eval.Metrics{Overall: eval.OverallMetric{Score: 0.5}}}
		data, err := json.Marshal(rec)
		require.NoError(t, err)
		lines = append(lines, string(data))
		events = append(events, fmt.Sprintf(`{"Action":"run","Package":"p","Test":%q}`, r.Test),
			fmt.Sprintf(`{"Action":%q,"Package":"p","Test":%q,"Elapsed":2}`, map[eval.Status]string{eval.Pass: "pass", eval.Fail: "fail"}[rec.Status], r.Test))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.RecordsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	if stream {
		require.NoError(t, os.WriteFile(filepath.Join(dir, StreamFile), []byte(strings.Join(events, "\n")+"\n"), 0o644))
	}
	if finished {
		plan := f.plan
		plan.Index = k
		sum := eval.Summary{RunID: filepath.Base(dir), Model: "m", Started: f.start, Finished: f.start.Add(time.Duration(10+k) * time.Second), Shard: &plan}
		data, err := json.Marshal(sum)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), data, 0o644))
	}
	return dir
}

// readRecords reads a run directory's records by case name.
func readRecords(t *testing.T, dir string) map[string]eval.Record {
	t.Helper()
	s, err := readShard(dir)
	if err != nil { // a merged run is no shard: read its records alone
		s = &shardDir{dir: dir}
		require.NoError(t, s.readRecords())
	}
	out := map[string]eval.Record{}
	for _, r := range s.records {
		out[r.Name] = r
	}
	return out
}

func TestMergeOfEveryShard(t *testing.T) {
	f := newFixture()
	shards := t.TempDir()
	dirs := []string{f.write(t, shards, 3, true, true), f.write(t, shards, 1, true, true), f.write(t, shards, 2, true, true)}
	out := t.TempDir()
	res, err := Merge(dirs, out)
	require.NoError(t, err)
	assert.False(t, res.Incomplete())
	assert.Equal(t, filepath.Join(out, runs.Dir, res.Summary.RunID), res.Dir)
	latest, err := runs.Resolve(out, runs.Latest)
	require.NoError(t, err)
	assert.Equal(t, res.Dir, latest, "the merged run is the latest")

	recs := readRecords(t, res.Dir)
	require.Len(t, recs, 6)
	for name, want := range f.status {
		assert.Equal(t, want, recs[name].Status, name)
	}
	s := res.Summary
	assert.Equal(t, 6, s.Total)
	assert.Equal(t, 5, s.Passed)
	assert.Equal(t, 1, s.Failed)
	assert.Equal(t, 0, s.NotRun)
	assert.Equal(t, 600, s.Usage.TotalTokens)
	assert.Nil(t, s.Shard, "the merged run is a whole run")
	require.NotNil(t, s.Merged)
	assert.Len(t, s.Merged.Shards, 3)
	assert.Equal(t, 1, s.Merged.Shards[0].Index, "shards in order, whatever order they were given in")
	assert.Equal(t, f.start, s.Started)
	assert.Equal(t, f.start.Add(13*time.Second), s.Finished, "the last shard to finish")
	assert.Len(t, s.Cases, 6)

	var onDisk eval.Summary
	data, err := os.ReadFile(filepath.Join(res.Dir, eval.SummaryFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &onDisk))
	assert.Equal(t, s.Passed, onDisk.Passed)
	var metrics []eval.MetricsEntry
	data, err = os.ReadFile(filepath.Join(res.Dir, eval.MetricsFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &metrics))
	assert.Len(t, metrics, 6)
	assert.FileExists(t, filepath.Join(res.Dir, eval.MetricsSummaryFile))
	stream, err := os.ReadFile(filepath.Join(res.Dir, StreamFile))
	require.NoError(t, err)
	assert.Equal(t, 12, strings.Count(string(stream), "\n"), "every shard's events")
	assert.Less(t, strings.Index(string(stream), "case_0"), strings.Index(string(stream), "case_1"), "shard 1's stream first")

	text := res.Describe()
	assert.Contains(t, text, "merged shards 1/3 (2 records: ")
	assert.Contains(t, text, "6 case runs: 5 passed, 1 failed, 0 errors, 0 token-limit, 0 cached, 0 not run")
	assert.NotContains(t, text, "NOT RUN")
}

// The metrics of a merged run with arms are named by arm, as one process
// names them.
func TestMergeNamesMetricsByArm(t *testing.T) {
	f := newFixture()
	for i := range f.plan.Runs {
		f.plan.Runs[i].Arm = "with-server"
	}
	seal(&f.plan)
	shards := t.TempDir()
	dirs := []string{f.write(t, shards, 1, true, true), f.write(t, shards, 2, true, true), f.write(t, shards, 3, true, true)}
	res, err := Merge(dirs, t.TempDir())
	require.NoError(t, err)
	var metrics []eval.MetricsEntry
	data, err := os.ReadFile(filepath.Join(res.Dir, eval.MetricsFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &metrics))
	require.Len(t, metrics, 6)
	for _, m := range metrics {
		assert.Equal(t, "with-server", m.Model, m.Case)
	}
}

func TestMergeWithAShardMissingListsItsCasesAsNotRun(t *testing.T) {
	f := newFixture()
	shards := t.TempDir()
	dirs := []string{f.write(t, shards, 1, true, false), f.write(t, shards, 3, true, false)}
	res, err := Merge(dirs, t.TempDir())
	require.NoError(t, err)
	assert.True(t, res.Incomplete())
	recs := readRecords(t, res.Dir)
	require.Len(t, recs, 6, "the missing case runs are recorded")
	for _, name := range []string{"case 1", "case 4"} {
		r := recs[name]
		assert.Equal(t, eval.NotRun, r.Status, name)
		assert.Equal(t, "not run: shard 2/3 was not merged (no run directory of it was given)", r.Reason)
		assert.Equal(t, "TestGenes/"+strings.ReplaceAll(name, " ", "_"), r.Test)
	}
	s := res.Summary
	assert.Equal(t, 4, s.Total)
	assert.Equal(t, 2, s.NotRun)
	require.Len(t, s.Merged.Missing, 2)
	assert.Equal(t, "case 1", s.Merged.Missing[0].Name)
	text := res.Describe()
	assert.Contains(t, text, "shards not given: 2/3")
	assert.Contains(t, text, "NOT RUN: 2 case runs no shard reported:\n  shard 2/3: TestGenes/case_1 (genes.yaml:11)\n  shard 2/3: TestGenes/case_4 (genes.yaml:41)")
}

func TestMergeOfAShardThatDidNotFinish(t *testing.T) {
	f := newFixture()
	shards := t.TempDir()
	killed := f.write(t, shards, 2, false, false)
	// It was killed after its first case: drop the second record and
	// leave half a line.
	data, err := os.ReadFile(filepath.Join(killed, eval.RecordsFile))
	require.NoError(t, err)
	first, _, _ := strings.Cut(string(data), "\n")
	require.NoError(t, os.WriteFile(filepath.Join(killed, eval.RecordsFile), []byte(first+"\n{\"name\":\"case"), 0o644))

	res, err := Merge([]string{f.write(t, shards, 1, true, false), killed, f.write(t, shards, 3, true, false)}, t.TempDir())
	require.NoError(t, err)
	recs := readRecords(t, res.Dir)
	assert.Equal(t, eval.Pass, recs["case 1"].Status, "its finished case is merged")
	assert.Equal(t, eval.NotRun, recs["case 4"].Status)
	assert.Equal(t, "not run: shard 2/3 stopped before this case run (it wrote no summary)", recs["case 4"].Reason)
	assert.True(t, res.Incomplete())
	assert.False(t, res.Summary.Merged.Shards[1].Finished)
	assert.Contains(t, res.Describe(), "shard 2/3 ("+killed+") did not finish (no summary): its 1 records are merged")
	assert.Contains(t, res.Describe(), "line 2 is not a record")
}

func TestMergeLeavesSkippedCasesAsOneProcessDoes(t *testing.T) {
	f := newFixture()
	shards := t.TempDir()
	dir2 := f.write(t, shards, 2, true, false)
	// Shard 2 skipped case 4 (pandas missing): no record, a skip event.
	require.NoError(t, os.WriteFile(filepath.Join(dir2, eval.RecordsFile), nil, 0o644))
	recs := readRecords(t, f.write(t, t.TempDir(), 2, true, false))
	data, err := json.Marshal(recs["case 1"])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir2, eval.RecordsFile), append(data, '\n'), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir2, StreamFile), []byte(`{"Action":"run","Package":"p","Test":"TestGenes/case_4"}
{"Action":"output","Package":"p","Test":"TestGenes/case_4","Output":"    harness.go:10: code case: no pandas\n"}
{"Action":"skip","Package":"p","Test":"TestGenes/case_4"}
`), 0o644))
	res, err := Merge([]string{f.write(t, shards, 1, true, false), dir2, f.write(t, shards, 3, true, false)}, t.TempDir())
	require.NoError(t, err)
	assert.False(t, res.Incomplete(), "a case its shard skipped is not missing")
	assert.Len(t, readRecords(t, res.Dir), 5, "and has no record, as in one process")
	assert.Equal(t, 1, res.Summary.Skipped, "but counts as skipped")
	assert.Equal(t, 0, res.Summary.NotRun, "not as not run, as in one process")
}

func TestMergeRefuses(t *testing.T) {
	f0 := newFixture()
	type edit func(f *fixture, k int, s *eval.Summary)
	tests := []struct {
		name    string
		edit    edit
		dup     bool
		wantErr []string
	}{
		{"the same shard twice", nil, true, []string{"shard 1/3 appears twice"}},
		{"other number of shards", func(f *fixture, k int, s *eval.Summary) { s.Shard.Count = 4; seal(s.Shard) }, false, []string{"number of shards: 3 in", ", 4 in"}},
		{"other models", func(f *fixture, k int, s *eval.Summary) { s.Shard.Config.Models = []string{"x", "y"} }, false, []string{"models: m in", "x,y in"}},
		{"other repeats", func(f *fixture, k int, s *eval.Summary) { s.Shard.Config.Repeats = 3 }, false, []string{"repeats (-count): 1 in"}},
		{"other judge", func(f *fixture, k int, s *eval.Summary) { s.Shard.Config.Judge = "judge-2" }, false, []string{`judge model: none in`, `"judge-2" in`}},
		{"other settings", func(f *fixture, k int, s *eval.Summary) { s.Shard.Config.Settings = "s2" }, false, []string{"settings that decide outcomes"}},
		{"other plan", func(f *fixture, k int, s *eval.Summary) {
			s.Shard.Runs[0].Shard, s.Shard.Runs[3].Shard = 2, 2 // another cache, another balance
			seal(s.Shard)
		}, false, []string{"assigned the case runs differently", "same cache"}},
		{"other case set", func(f *fixture, k int, s *eval.Summary) {
			s.Shard.Runs = append(s.Shard.Runs[:len(s.Shard.Runs):len(s.Shard.Runs)], eval.ShardRun{CaseRun: eval.CaseRun{Name: "extra", Model: "m"}, File: "genes.yaml", Shard: 1})
			seal(s.Shard)
		}, false, []string{"case sets differ", `0 case runs only in the first (none), 1 only in the second ("extra" (genes.yaml, model m, repeat 0))`}},
		{"a shard of an earlier run", func(f *fixture, k int, s *eval.Summary) { s.Shard.Group = "GITHUB_RUN_ID 6" }, false,
			[]string{"the shards are of different runs (GITHUB_RUN_ID 7 in", "GITHUB_RUN_ID 6 in", "earlier run"}},
		{"plan altered", func(f *fixture, k int, s *eval.Summary) { s.Shard.Runs[2].Shard = 1 }, false,
			[]string{"its case runs are not assigned as its plan " + f0.plan.Plan + " says", "the plan was altered"}},
		{"case set altered", func(f *fixture, k int, s *eval.Summary) { s.Shard.Runs = s.Shard.Runs[1:] }, false,
			[]string{"its case runs are not the case set it names", "the plan was altered"}},
		{"not a shard", func(f *fixture, k int, s *eval.Summary) { s.Shard = nil }, false, []string{"is not a shard of a split run"}},
		{"shard out of range", func(f *fixture, k int, s *eval.Summary) { s.Shard.Index = 4 }, false, []string{"shard 4 of 3 is not a shard"}},
		{"case run out of range", func(f *fixture, k int, s *eval.Summary) { s.Shard.Runs[0].Shard = 0 }, false, []string{`case run "case 0" with m is given to shard 0 of 3`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			shards := t.TempDir()
			d1 := f.write(t, shards, 1, true, false)
			d2 := f.write(t, shards, 2, true, false)
			if tt.dup {
				d2 = f.write(t, shards, 1, true, false)
			}
			if tt.edit != nil {
				path := filepath.Join(d2, eval.SummaryFile)
				var s eval.Summary
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(data, &s))
				tt.edit(f, 2, &s)
				data, err = json.Marshal(s)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(path, data, 0o644))
			}
			out := t.TempDir()
			_, err := Merge([]string{d1, d2}, out)
			require.Error(t, err)
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
			list, _ := runs.List(out)
			assert.Empty(t, list, "nothing is written")
		})
	}
}

func TestMergeRefusesRecordsOfAnotherShardOrRun(t *testing.T) {
	f := newFixture()
	shards := t.TempDir()
	d1 := f.write(t, shards, 1, true, false)
	d2 := f.write(t, shards, 2, true, false)
	// A record of case 0 (shard 1's) in shard 2's directory.
	recs := readRecords(t, d1)
	data, err := json.Marshal(recs["case 0"])
	require.NoError(t, err)
	fh, err := os.OpenFile(filepath.Join(d2, eval.RecordsFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	fh.Write(append(data, '\n'))
	fh.Close()
	_, err = Merge([]string{d1, d2}, t.TempDir())
	require.ErrorContains(t, err, `(shard 2) holds a record of "case 0" (model m, repeat 0), which belongs to shard 1`)

	stranger := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(stranger, eval.RecordsFile), []byte(`{"name":"other case","model":"m","status":"pass"}`+"\n"), 0o644))
	_, err = Merge([]string{d1, stranger}, t.TempDir())
	require.ErrorContains(t, err, `holds a record of "other case" (model m, repeat 0), which the run did not select`)

	_, err = Merge([]string{t.TempDir()}, t.TempDir())
	require.ErrorContains(t, err, "is not a run directory")
	parent := t.TempDir()
	f.write(t, parent, 1, true, false)
	_, err = Merge([]string{parent}, t.TempDir())
	require.ErrorContains(t, err, "(it holds runs: name the shards' run directories, e.g. "+filepath.Join(parent, "runs", "*")+")")
	_, err = Merge([]string{f.write(t, t.TempDir(), 1, false, false)}, t.TempDir())
	require.ErrorContains(t, err, "none of the 1 run directories has a summary")
}

// An altered plan is caught whichever shard carries it and wherever that
// shard stands on the command line; under hash assignment even one made
// consistent again.
func TestMergeCatchesAnAlteredPlanInAnyOrder(t *testing.T) {
	hashed := newFixture()
	hashed.plan.Balance = Hash
	for i := range hashed.plan.Runs {
		r := &hashed.plan.Runs[i]
		r.Shard = ByHash(IdentityOf(*r), hashed.plan.Count)
	}
	seal(&hashed.plan)
	tests := []struct {
		name    string
		f       *fixture
		alter   func(p *eval.Shard)
		wantErr string
	}{
		{"an assignment moved", newFixture(), func(p *eval.Shard) { p.Runs[1].Shard = 3 }, "are not assigned as its plan"},
		{"a case run dropped", newFixture(), func(p *eval.Shard) { p.Runs = p.Runs[:5] }, "are not the case set it names"},
		{"hash assignment moved and resealed", hashed, func(p *eval.Shard) {
			p.Runs[0].Shard = p.Runs[0].Shard%3 + 1
			seal(p)
		}, "but its hash puts it in shard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shards := t.TempDir()
			var dirs []string
			for k := 1; k <= 3; k++ {
				dirs = append(dirs, tt.f.write(t, shards, k, true, false))
			}
			path := filepath.Join(dirs[1], eval.SummaryFile)
			var s eval.Summary
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &s))
			tt.alter(s.Shard)
			data, err = json.Marshal(s)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, data, 0o644))
			for _, order := range [][]string{{dirs[0], dirs[1], dirs[2]}, {dirs[1], dirs[0], dirs[2]}, {dirs[2], dirs[0], dirs[1]}} {
				_, err := Merge(order, t.TempDir())
				require.Error(t, err, "order %v", order)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Contains(t, err.Error(), dirs[1], "the altered shard is named")
			}
		})
	}
}

// A merge killed (SIGKILL) after writing every file of the merged run, its
// summary included, but before putting it in place leaves no run that
// lists as one, finished or not; the next merge removes what it left and
// lists one finished run.
func TestMergeKilledBeforeCommit(t *testing.T) {
	if dirs := os.Getenv("SHARD_TEST_KILLED_MERGE"); dirs != "" {
		// The merge to kill: it says when it is about to commit, and waits.
		parts := strings.Split(dirs, string(os.PathListSeparator))
		out, ready := parts[0], parts[1]
		committing = func(dir string) {
			// Written whole, then renamed: the test never reads it half written.
			if err := os.WriteFile(ready+".tmp", []byte(dir), 0o644); err != nil {
				panic(err)
			}
			if err := os.Rename(ready+".tmp", ready); err != nil {
				panic(err)
			}
			select {}
		}
		_, err := Merge(parts[2:], out)
		panic(fmt.Sprintf("the merge was not killed: %v", err))
	}
	f := newFixture()
	shards := t.TempDir()
	dirs := []string{f.write(t, shards, 1, true, false), f.write(t, shards, 2, true, false), f.write(t, shards, 3, true, false)}
	out, ready := t.TempDir(), filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command(os.Args[0], "-test.run=^TestMergeKilledBeforeCommit$")
	cmd.Env = append(os.Environ(), "SHARD_TEST_KILLED_MERGE="+strings.Join(append([]string{out, ready}, dirs...), string(os.PathListSeparator)))
	require.NoError(t, cmd.Start())
	var staged []byte
	require.Eventually(t, func() bool {
		var err error
		staged, err = os.ReadFile(ready)
		return err == nil
	}, time.Minute, 10*time.Millisecond, "the merge reaches its commit")
	require.FileExists(t, filepath.Join(string(staged), eval.SummaryFile), "killed with its summary written")
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()

	list, err := runs.List(out)
	require.NoError(t, err)
	assert.Empty(t, list, "the killed merge left no run")

	res, err := Merge(dirs, out)
	require.NoError(t, err)
	list, err = runs.List(out)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, res.Dir, list[0].Dir)
	assert.NotNil(t, list[0].Summary, "finished")
	assert.NoDirExists(t, string(staged), "what the killed merge left is removed")
}
