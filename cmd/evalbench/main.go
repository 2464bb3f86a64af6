// Command evalbench measures the suite against the performance targets and
// prints a table of measured values beside them. It runs the real suite
// (the compiled evaltest test binary) against a local OpenAI-compatible
// stub with configurable latency and the bundled sample server.
//
//	go run ./cmd/evalbench            # all measurements (make bench)
//	go run ./cmd/evalbench -only overhead,cached
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/tokens"
)

// row is one line of the table.
type row struct {
	name, target, measured string
	ok                     bool
}

func main() {
	only := flag.String("only", "", "comma-separated measurements: overhead,cached,memory,report,tools,tokens (default all)")
	flag.Parse()
	if err := run(*only); err != nil {
		fmt.Fprintln(os.Stderr, "evalbench:", err)
		os.Exit(1)
	}
}

func run(only string) error {
	root, err := files.ModuleRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "evalbench")
	if err != nil {
		return err
	}
	if os.Getenv("EVALBENCH_KEEP") == "" {
		defer os.RemoveAll(work)
	} else {
		fmt.Fprintln(os.Stderr, "evalbench: keeping", work)
	}
	b := &bench{root: root, work: work}
	want := func(name string) bool { return only == "" || slices.Contains(strings.Split(only, ","), name) }

	var rows []row
	steps := []struct {
		name string
		f    func() ([]row, error)
	}{
		{"overhead", b.overhead}, {"cached", b.cachedRerun}, {"memory", b.memoryAndReport},
		{"tools", b.toolLatency}, {"tokens", b.tokenSpeed},
	}
	for _, s := range steps {
		if !want(s.name) && !(s.name == "memory" && want("report")) {
			continue
		}
		fmt.Fprintf(os.Stderr, "evalbench: measuring %s...\n", s.name)
		r, err := s.f()
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		rows = append(rows, r...)
	}
	fmt.Printf("\nmachine: %s/%s, %d CPUs, %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "measure\ttarget\tmeasured\tmet")
	failed := 0
	for _, r := range rows {
		met := "yes"
		if !r.ok {
			met, failed = "NO", failed+1
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.name, r.target, r.measured, met)
	}
	w.Flush()
	if failed > 0 {
		return fmt.Errorf("%d target(s) not met", failed)
	}
	return nil
}

type bench struct {
	root, work string
	binOnce    sync.Once
	bin        string
	binErr     error
}

// testBinary compiles the evaltest suite once.
func (b *bench) testBinary() (string, error) {
	b.binOnce.Do(func() {
		b.bin = filepath.Join(b.work, "evaltest.test")
		cmd := exec.Command("go", "test", "-c", "-o", b.bin, "./evaltest")
		cmd.Dir = b.root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.binErr = fmt.Errorf("build suite: %v\n%s", err, out)
		}
	})
	return b.bin, b.binErr
}

// writeCases writes n cases that each make two tool calls on the sample
// server, and returns their path and the parsed cases.
func (b *bench) writeCases(name string, n int) (string, []eval.Case, error) {
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, `- case:
    name: "bench case %d"
    category: "Gene and Variant Utilities"
    input: "Bench question %d: what is the Entrez id and the OMIM status of NUTM2G?"
    expected: "441457"
    checks: {contains: ["441457"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
      - {tool: get_omim_by_gene_symbol, args: {gene_symbol: NUTM2G}}
`, i, i)
	}
	path := filepath.Join(b.work, name+".yaml")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		return "", nil, err
	}
	cases, err := evalcase.LoadFile(path)
	return path, cases, err
}

// runResult is one suite run's measurements.
type runResult struct {
	wall    time.Duration
	maxRSS  int64 // bytes
	summary eval.Summary
	dir     string // the run's directory
}

// runSuite runs the compiled suite with the stub and returns its wall time
// (process start included) and peak memory.
func (b *bench) runSuite(casesPath, out string, stub *llmstub.Server, concurrency int, extra ...string) (runResult, error) {
	bin, err := b.testBinary()
	if err != nil {
		return runResult{}, err
	}
	cmd := exec.Command(bin, append([]string{"-test.count=1", "-test.timeout=0"}, extra...)...)
	cmd.Dir = filepath.Join(b.root, "evaltest")
	cmd.Env = append(settings.IsolatedEnv(),
		"EVAL_CASES="+casesPath, "EVAL_OUT="+out, "EVAL_CACHE="+filepath.Join(out, "cache.json"),
		"OPENAI_BASE_URL="+stub.BaseURL(), "EVAL_MODEL=bench-model", fmt.Sprintf("EVAL_CONCURRENCY=%d", concurrency))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	stdout, err := cmd.Output()
	wall := time.Since(start)
	if err != nil {
		return runResult{}, fmt.Errorf("suite run failed: %v\n%s\n%s", err, tail(string(stdout), 2000), tail(stderr.String(), 2000))
	}
	var r runResult
	r.wall = wall
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss * 1024
	}
	list, err := runs.List(out)
	if err != nil || len(list) == 0 || list[0].Summary == nil {
		return r, fmt.Errorf("no finished run in %s: %v", out, err)
	}
	r.dir, r.summary = list[0].Dir, *list[0].Summary
	return r, nil
}

func (b *bench) overhead() ([]row, error) {
	const n, conc, latency = 200, 16, 100 * time.Millisecond
	path, cases, err := b.writeCases("overhead", n)
	if err != nil {
		return nil, err
	}
	stub := llmstub.Start(llmstub.Replay(cases), llmstub.Options{Latency: latency})
	defer stub.Close()
	if _, err := b.testBinary(); err != nil {
		return nil, err
	}
	r, err := b.runSuite(path, filepath.Join(b.work, "overhead"), stub, conc)
	if err != nil {
		return nil, err
	}
	if r.summary.Passed != n {
		return nil, fmt.Errorf("%d of %d cases passed", r.summary.Passed, n)
	}
	ideal := time.Duration(math.Ceil(float64(n)/conc)) * 4 * latency
	ratio := r.wall.Seconds() / ideal.Seconds()
	return []row{{
		name:     fmt.Sprintf("overhead: %d cases x 4 requests, %s latency, concurrency %d (wall / ideal %s)", n, latency, conc, ideal),
		target:   "<= 1.10",
		measured: fmt.Sprintf("%.3f (wall %.2fs, %d requests, peak %d in flight)", ratio, r.wall.Seconds(), stub.Requests(), stub.PeakInFlight()),
		ok:       ratio <= 1.10,
	}}, nil
}

func (b *bench) cachedRerun() ([]row, error) {
	const n = 1000
	path, cases, err := b.writeCases("cached", n)
	if err != nil {
		return nil, err
	}
	stub := llmstub.Start(llmstub.Replay(cases), llmstub.Options{})
	defer stub.Close()
	out := filepath.Join(b.work, "cached")
	if _, err := b.runSuite(path, out, stub, 16); err != nil {
		return nil, err
	}
	before := stub.Requests()
	r, err := b.runSuite(path, out, stub, 16)
	if err != nil {
		return nil, err
	}
	if r.summary.Cached != n || stub.Requests() != before {
		return nil, fmt.Errorf("re-run: %d of %d cached, %d requests sent", r.summary.Cached, n, stub.Requests()-before)
	}
	return []row{{
		name:     fmt.Sprintf("cached re-run of %d passed cases (process start included)", n),
		target:   "<= 2s",
		measured: fmt.Sprintf("%.2fs", r.wall.Seconds()),
		ok:       r.wall <= 2*time.Second,
	}}, nil
}

func (b *bench) memoryAndReport() ([]row, error) {
	const n = 10_000
	path, cases, err := b.writeCases("memory", n)
	if err != nil {
		return nil, err
	}
	stub := llmstub.Start(llmstub.Replay(cases), llmstub.Options{})
	defer stub.Close()
	out := filepath.Join(b.work, "memory")
	r, err := b.runSuite(path, out, stub, 16)
	if err != nil {
		return nil, err
	}
	rows := []row{{
		name:     fmt.Sprintf("%d cases, stub at 0 ms: peak memory (wall %.1fs)", n, r.wall.Seconds()),
		target:   "<= 300 MB",
		measured: fmt.Sprintf("%.0f MB", float64(r.maxRSS)/1e6),
		ok:       r.maxRSS <= 300e6,
	}}
	// The report of the 10,000 cases, from their records and a go test
	// -json stream (of a cached re-run, which writes the same records).
	stream := filepath.Join(b.work, "memory-test.json")
	if err := b.captureStream(path, out, stub, stream); err != nil {
		return rows, err
	}
	list, err := runs.List(out)
	if err != nil || len(list) == 0 {
		return rows, fmt.Errorf("no run in %s: %v", out, err)
	}
	rerun := list[0].Dir
	if err := b.buildTool("evalreport"); err != nil {
		return rows, err
	}
	more, err := b.report(fmt.Sprintf("the %d cases of that run", n), out, rerun, stream)
	rows = append(rows, more...)
	if err != nil {
		return rows, err
	}

	// The same report with every conversation grown to about 20 KB.
	bigOut := filepath.Join(b.work, "memory-20k")
	big := filepath.Join(bigOut, runs.Dir, filepath.Base(rerun))
	if err := padRecords(rerun, big, 20_000); err != nil {
		return rows, err
	}
	more, err = b.report(fmt.Sprintf("%d cases with ~20 KB conversations", n), bigOut, big, stream)
	return append(rows, more...), err
}

// report writes the report of the run in dir (under out) with evalreport,
// then opens it in Chromium; it gives a row for each.
func (b *bench) report(what, out, dir, stream string) ([]row, error) {
	start := time.Now()
	if outb, err := exec.Command(b.binPath("evalreport"), "-out", out, "-run", dir, "-json", stream).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("evalreport: %v\n%s", err, outb)
	}
	d := time.Since(start)
	path := filepath.Join(dir, eval.ReportFile)
	size := int64(0)
	if info, err := os.Stat(path); err == nil {
		size = info.Size()
	}
	rows := []row{{
		name:     fmt.Sprintf("report for %s (evalreport, %.0f MB HTML)", what, float64(size)/1e6),
		target:   "<= 5s",
		measured: fmt.Sprintf("%.2fs", d.Seconds()),
		ok:       d <= 5*time.Second,
	}}
	ready, opened, err := openInChromium(path)
	if err != nil {
		return rows, err
	}
	if ready < 0 {
		return append(rows, row{name: "that report in Chromium", target: "< 3s", measured: "not measured: no Chromium (apt-get install chromium)"}), nil
	}
	return append(rows, row{
		name:     fmt.Sprintf("that report opened in Chromium until ready (table shown, whole page parsed; a case then opens in %s)", opened.Round(time.Millisecond)),
		target:   "< 3s",
		measured: fmt.Sprintf("%.2fs", ready.Seconds()),
		ok:       ready < 3*time.Second,
	}), nil
}

// padRecords copies a run's records into dir, growing each conversation to
// about size bytes with a long assistant message.
func padRecords(from, dir string, size int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	in, err := os.Open(filepath.Join(from, eval.RecordsFile))
	if err != nil {
		return err
	}
	defer in.Close()
	outf, err := os.Create(filepath.Join(dir, eval.RecordsFile))
	if err != nil {
		return err
	}
	defer outf.Close()
	w := bufio.NewWriter(outf)
	dec := json.NewDecoder(bufio.NewReader(in))
	enc := json.NewEncoder(w)
	filler := strings.Repeat("The variant chr9:99694174 C>T in NUTM2G has CADD 8.103. ", size/56)
	for {
		var rec eval.Record
		if err := dec.Decode(&rec); err != nil {
			break
		}
		rec.Conversation = append(rec.Conversation, eval.Message{Role: "assistant", Content: filler})
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, name := range []string{eval.SummaryFile, eval.MetricsSummaryFile} {
		if data, err := os.ReadFile(filepath.Join(from, name)); err == nil {
			os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
	}
	return nil
}

func (b *bench) binPath(name string) string { return filepath.Join(b.work, name) }

func (b *bench) buildTool(name string) error {
	cmd := exec.Command("go", "build", "-o", b.binPath(name), "./cmd/"+name)
	cmd.Dir = b.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %v\n%s", name, err, out)
	}
	return nil
}

// captureStream writes the go test -json stream of a (cached) re-run.
func (b *bench) captureStream(casesPath, out string, stub *llmstub.Server, stream string) error {
	bin, err := b.testBinary()
	if err != nil {
		return err
	}
	f, err := os.Create(stream)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command("go", "tool", "test2json", "-t", bin, "-test.v=test2json", "-test.count=1", "-test.timeout=0")
	cmd.Dir = filepath.Join(b.root, "evaltest")
	cmd.Env = append(settings.IsolatedEnv(),
		"EVAL_CASES="+casesPath, "EVAL_OUT="+out, "EVAL_CACHE="+filepath.Join(out, "cache.json"),
		"OPENAI_BASE_URL="+stub.BaseURL(), "EVAL_MODEL=bench-model", "EVAL_CONCURRENCY=16")
	cmd.Stdout = f
	return cmd.Run()
}

func (b *bench) toolLatency() ([]row, error) {
	if err := b.buildTool("marrvel-sample"); err != nil {
		return nil, err
	}
	set, err := mcpconn.ConnectAll(context.Background(), []string{b.binPath("marrvel-sample")}, mcpconn.Options{})
	if err != nil {
		return nil, err
	}
	defer set.Close()
	args := map[string]any{"gene_symbol": "NUTM2G"}
	const calls, conc = 4000, 16
	var mu sync.Mutex
	latencies := make([]time.Duration, 0, calls)
	var wg sync.WaitGroup
	next := make(chan struct{}, calls)
	for range calls {
		next <- struct{}{}
	}
	close(next)
	start := time.Now()
	var callErr error
	for range conc {
		wg.Go(func() {
			for range next {
				t := time.Now()
				_, err := set.Call(context.Background(), "get_gene_by_symbol", args)
				d := time.Since(t)
				mu.Lock()
				latencies = append(latencies, d)
				if err != nil && callErr == nil {
					callErr = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	if callErr != nil {
		return nil, callErr
	}
	slices.Sort(latencies)
	p := func(q float64) time.Duration { return latencies[int(q*float64(len(latencies)-1))] }
	return []row{{
		name:     fmt.Sprintf("tool call over stdio to the sample server, concurrency %d, %d calls", conc, calls),
		target:   "(measured)",
		measured: fmt.Sprintf("p50 %s, p99 %s, %.0f calls/s", p(0.5).Round(time.Microsecond), p(0.99).Round(time.Microsecond), float64(calls)/wall.Seconds()),
		ok:       true,
	}}, nil
}

func (b *bench) tokenSpeed() ([]row, error) {
	c, err := tokens.New(tokens.Default)
	if err != nil {
		return nil, err
	}
	text := strings.Repeat("The NUTM2G variant chr9:99694174 C>T has CADD 8.103 and REVEL 0.027; {\"gene\": \"NUTM2G\"}\n", (1<<20)/90)
	c.Count("warm up")
	start := time.Now()
	n := c.Count(text)
	d := time.Since(start)
	return []row{{
		name:     fmt.Sprintf("token counting, cl100k_base, %.1f MiB of text", float64(len(text))/(1<<20)),
		target:   "(measured)",
		measured: fmt.Sprintf("%.2f M tokens/s (%d tokens in %s)", float64(n)/d.Seconds()/1e6, n, d.Round(time.Millisecond)),
		ok:       true,
	}}, nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
