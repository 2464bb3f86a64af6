package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// shardsWithKeys measures what splitting a run buys against a provider
// that limits each API key's request rate: the same cases run by one
// process with one key, then by three shard processes at once with a key
// each, against a stub allowing each key keyRate requests per second. The
// shards are then merged, and the merged run must hold every case.
func (b *bench) shardsWithKeys() ([]row, error) {
	const n, keyRate, shards, conc = 400, 50.0, 3, 16
	path, cases, err := b.writeCases("shards", n)
	if err != nil {
		return nil, err
	}
	stub := startStub(cases, llmstub.Options{KeyRate: keyRate})
	defer stub.Close()
	if _, err := b.testBinary(); err != nil {
		return nil, err
	}
	if _, err := b.mcpeval(); err != nil {
		return nil, err
	}
	// A throttled request waits for its key's next slot (Retry-After):
	// allow enough retries for a crowd of requests on one key.
	retries := "EVAL_MAX_RETRIES=1000"

	one, err := b.runSuiteEnv(path, filepath.Join(b.work, "shards-one"), stub, conc, []string{"OPENAI_API_KEY=bench-key-0", retries})
	if err != nil {
		return nil, err
	}
	if one.summary.Passed != n {
		return nil, fmt.Errorf("one process: %d of %d cases passed", one.summary.Passed, n)
	}
	oneKey := stub.Keys()["Bearer bench-key-0"]

	dirs := make([]string, shards)
	sizes := make([]string, shards)
	errs := make([]error, shards)
	start := time.Now()
	var wg sync.WaitGroup
	for k := range shards {
		wg.Go(func() {
			r, err := b.runSuiteEnv(path, filepath.Join(b.work, fmt.Sprint("shards-", k+1)), stub, conc,
				[]string{fmt.Sprintf("OPENAI_API_KEY=bench-key-%d", k+1), fmt.Sprintf("EVAL_SHARD=%d/%d", k+1, shards), retries})
			dirs[k], sizes[k], errs[k] = r.dir, fmt.Sprint(r.summary.Total), err
		})
	}
	wg.Wait()
	split := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	throttled := 0
	for k := range shards {
		throttled += stub.Keys()[fmt.Sprintf("Bearer bench-key-%d", k+1)].Throttled
	}

	merged := filepath.Join(b.work, "shards-merged")
	cmd, err := b.mcpeval(append([]string{"merge", "runs", "-out", merged}, dirs...)...)
	if err != nil {
		return nil, err
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("mcpeval merge runs: %v\n%s", err, out)
	}
	_, sum, err := latestRun(merged)
	if err != nil {
		return nil, err
	}
	if sum.Passed != n {
		return nil, fmt.Errorf("merged run: %d of %d cases passed", sum.Passed, n)
	}

	speedup := one.wall.Seconds() / split.Seconds()
	ideal := time.Duration(float64(4*n) / keyRate * float64(time.Second))
	return []row{{
		name: fmt.Sprintf("%d cases x 4 requests, each API key limited to %.0f requests/s: one process with one key, then %d shards at once with a key each (merged: %d passed)",
			n, keyRate, shards, sum.Passed),
		target: ">= 2.5x faster",
		measured: fmt.Sprintf("%.2fx (one key %.1fs, ideal %.1fs, %d throttled; %d keys %.1fs for shards of %s cases, %d throttled)",
			speedup, one.wall.Seconds(), ideal.Seconds(), oneKey.Throttled, shards, split.Seconds(), strings.Join(sizes, "/"), throttled),
		ok: speedup >= 2.5,
	}}, nil
}
