package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/scoring"
)

// codeRun is one reference solution of a bundled code case.
type codeRun struct {
	question, code, dataset string
}

// bundledCodeRuns returns the final reference call of every code case in
// cases/code.yaml.
func (b *bench) bundledCodeRuns() ([]codeRun, error) {
	cases, err := evalcase.LoadFile(filepath.Join(b.root, "cases", "code.yaml"))
	if err != nil {
		return nil, err
	}
	var runs []codeRun
	for _, c := range cases {
		if c.Kind != eval.KindCode || len(c.Reference) == 0 {
			continue
		}
		ref := c.Reference[len(c.Reference)-1]
		code, _ := ref.Args["code"].(string)
		dataset, _ := ref.Args["dataset"].(string)
		runs = append(runs, codeRun{question: c.Input, code: code, dataset: dataset})
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no code cases in cases/code.yaml")
	}
	return runs, nil
}

// pandasServer starts the sample server over stdio and runs every bundled
// reference solution once, so that its workers are up.
func (b *bench) pandasServer() (*mcpconn.Set, []codeRun, error) {
	runs, err := b.bundledCodeRuns()
	if err != nil {
		return nil, nil, err
	}
	server, err := b.sampleServer()
	if err != nil {
		return nil, nil, err
	}
	set, err := mcpconn.ConnectAll(context.Background(), []string{server}, mcpconn.Options{})
	if err != nil {
		return nil, nil, err
	}
	for _, r := range runs {
		if _, err := runCode(set, r); err != nil {
			set.Close()
			return nil, nil, err
		}
	}
	return set, runs, nil
}

func runCode(set *mcpconn.Set, r codeRun) (mcpconn.Result, error) {
	res, err := set.Call(context.Background(), "run_pandas", map[string]any{"code": r.code, "dataset": r.dataset})
	if err == nil && res.IsError {
		err = fmt.Errorf("run_pandas failed (is python3-pandas installed?): %s", res.Text)
	}
	return res, err
}

// pandasLatency measures run_pandas calls over stdio, cycling through the
// bundled code cases' reference solutions: one at a time (the target) and
// four at a time (the pool's size).
func (b *bench) pandasLatency() ([]row, error) {
	set, runs, err := b.pandasServer()
	if err != nil {
		return nil, err
	}
	defer set.Close()
	var rows []row
	for _, conc := range []int{1, 4} {
		const calls = 400
		latencies, wall, err := callConcurrently(calls, conc, func(i int) error {
			_, err := runCode(set, runs[i%len(runs)])
			return err
		})
		if err != nil {
			return nil, err
		}
		p50, p99 := percentile(latencies, 0.5), percentile(latencies, 0.99)
		r := row{
			name:     fmt.Sprintf("run_pandas over stdio, the %d bundled reference solutions, concurrency %d, %d calls", len(runs), conc, calls),
			target:   "(measured)",
			measured: fmt.Sprintf("p50 %s, p99 %s, %.0f calls/s", p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond), float64(calls)/wall.Seconds()),
			ok:       true,
		}
		if conc == 1 {
			r.target, r.ok = "p50 < 20ms", p50 < 20*time.Millisecond
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// callConcurrently makes n calls, conc at a time, and returns their
// latencies and the wall time.
func callConcurrently(n, conc int, call func(i int) error) ([]time.Duration, time.Duration, error) {
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var mu sync.Mutex
	var firstErr error
	latencies := make([]time.Duration, 0, n)
	var wg sync.WaitGroup
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for i := range next {
				t := time.Now()
				err := call(i)
				d := time.Since(t)
				mu.Lock()
				latencies = append(latencies, d)
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return latencies, time.Since(start), firstErr
}

func percentile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// performanceUnderLoad scores the bundled reference solutions' performance
// with the machine idle and with every core busy (two spinning goroutines
// per CPU in this process), and compares.
func (b *bench) performanceUnderLoad() ([]row, error) {
	set, runs, err := b.pandasServer()
	if err != nil {
		return nil, err
	}
	defer set.Close()
	measure := func() (scores []float64, calls, cpu []time.Duration, err error) {
		for _, r := range runs {
			start := time.Now()
			res, err := runCode(set, r)
			if err != nil {
				return nil, nil, nil, err
			}
			d := time.Since(start)
			if res.Execution == nil {
				return nil, nil, nil, fmt.Errorf("run_pandas reported no execution time")
			}
			m := scoring.ScoreCode(scoring.CodeCase{Question: r.question, Attempts: []eval.Attempt{
				{Code: r.code, Dataset: r.dataset, Output: res.Text, Seconds: d.Seconds(), Execution: res.Execution}}})
			scores = append(scores, m.Performance.Score)
			calls = append(calls, d)
			cpu = append(cpu, time.Duration(res.Execution.CPUSeconds*float64(time.Second)))
		}
		return scores, calls, cpu, nil
	}
	idle, idleCalls, idleCPU, err := measure()
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 * runtime.NumCPU() {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				_ = n * n
			}
		})
	}
	time.Sleep(100 * time.Millisecond)
	busy, busyCalls, busyCPU, err := measure()
	stop()
	wg.Wait()
	if err != nil {
		return nil, err
	}
	same := 0
	for i := range idle {
		if idle[i] == busy[i] {
			same++
		}
	}
	return []row{{
		name:   fmt.Sprintf("performance score of the %d bundled reference solutions, idle vs %d CPUs busy", len(runs), runtime.NumCPU()),
		target: "all equal",
		measured: fmt.Sprintf("%d of %d equal (call p50 idle %s, busy %s; code CPU p50 idle %s, busy %s)", same, len(runs),
			percentile(idleCalls, 0.5).Round(100*time.Microsecond), percentile(busyCalls, 0.5).Round(100*time.Microsecond),
			percentile(idleCPU, 0.5).Round(10*time.Microsecond), percentile(busyCPU, 0.5).Round(10*time.Microsecond)),
		ok: same == len(runs),
	}}, nil
}

// cachedBundled runs all bundled cases (cases/) against the replaying stub
// once, then again: the second run is served from the cache.
func (b *bench) cachedBundled() ([]row, error) {
	cases, err := evalcase.LoadPath(filepath.Join(b.root, "cases"))
	if err != nil {
		return nil, err
	}
	stub := startStub(cases, llmstub.Options{})
	defer stub.Close()
	out := filepath.Join(b.work, "bundled")
	casesDir := filepath.Join(b.root, "cases")
	first, err := b.runSuite(casesDir, out, stub, 4)
	if err != nil {
		return nil, err
	}
	if first.summary.Passed != len(cases) {
		return nil, fmt.Errorf("first run: %d of %d bundled cases passed (skipped code cases need python3-pandas)",
			first.summary.Passed, len(cases))
	}
	before := stub.Requests()
	var walls []time.Duration
	for range 3 {
		r, err := b.runSuite(casesDir, out, stub, 4)
		if err != nil {
			return nil, err
		}
		if r.summary.Cached != len(cases) || stub.Requests() != before {
			return nil, fmt.Errorf("re-run: %d of %d cached, %d requests sent", r.summary.Cached, len(cases), stub.Requests()-before)
		}
		walls = append(walls, r.wall)
	}
	worst := slices.Max(walls)
	rows := []row{{
		name:     fmt.Sprintf("fully cached run of the %d bundled cases (suite process, start included; worst of 3)", len(cases)),
		target:   "< 1s",
		measured: fmt.Sprintf("%.2fs (first run %.1fs)", worst.Seconds(), first.wall.Seconds()),
		ok:       worst < time.Second,
	}}

	// The same through make eval: go test's build and link, gotestsum and
	// the report (written by mcpeval itself) come on top of the run.
	cmd := exec.Command("make", "eval", "OUT="+out)
	cmd.Dir = b.root
	cmd.Env = append(settings.IsolatedEnv(), "EVAL_CASES="+casesDir, "EVAL_CACHE="+filepath.Join(out, "cache.json"),
		"OPENAI_BASE_URL="+stub.BaseURL(), "EVAL_MODEL="+benchModel, "EVAL_CONCURRENCY=4")
	start := time.Now()
	if output, err := cmd.CombinedOutput(); err != nil {
		return rows, fmt.Errorf("make eval: %v\n%s", err, tail(string(output), 2000))
	}
	if stub.Requests() != before {
		return rows, fmt.Errorf("make eval sent %d requests: not served from the cache", stub.Requests()-before)
	}
	return append(rows, row{
		name:     fmt.Sprintf("fully cached make eval of the %d bundled cases (go test build and link, gotestsum, report included)", len(cases)),
		target:   "(measured)",
		measured: fmt.Sprintf("%.2fs", time.Since(start).Seconds()),
		ok:       true,
	}), nil
}
