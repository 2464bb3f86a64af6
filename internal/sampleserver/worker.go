package sampleserver

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// workerScript is the Python side of run_pandas: the long-lived worker and
// the reading of code's syntax tree (worker.py).
//
//go:embed worker.py
var workerScript string

const (
	// workerStartTimeout bounds a worker's start: the interpreter, the
	// import of pandas and the loading of the datasets.
	workerStartTimeout = 2 * time.Minute
	// workerGrace is how long past the time limit a worker may take to
	// answer (it stops the code itself at the limit) before it is killed
	// and replaced.
	workerGrace = 10 * time.Second
	// maxReplyLine bounds one reply of a worker.
	maxReplyLine = 32 << 20
	// maxPreload is the largest dataset a worker loads when it starts;
	// larger ones are loaded on first use.
	maxPreload = 64 << 20
)

// workerConfig is the configuration a worker starts with (JSON).
type workerConfig struct {
	Preload    []string `json:"preload"`
	CPUSeconds int      `json:"cpu_seconds"`
	Memory     int64    `json:"memory"`
	FileSize   int64    `json:"file_size"`
}

// workerRequest asks a worker to run code on datasets in a work directory.
type workerRequest struct {
	Code    string   `json:"code"`
	Files   []string `json:"files"`
	Dir     string   `json:"dir"`
	Timeout float64  `json:"timeout"`
	Cap     int      `json:"cap"`
}

// workerReply is a worker's answer to a request.
type workerReply struct {
	Ready bool `json:"ready"`
	OK    bool `json:"ok"`
	// Text is the rendered result, or the error "Type: message"; Length
	// is its full length in characters (Text holds at most Cap+1).
	Text       string          `json:"text"`
	Length     int             `json:"length"`
	Seconds    float64         `json:"seconds"`
	CPUSeconds float64         `json:"cpu_seconds"`
	TimedOut   bool            `json:"timed_out"`
	Ended      string          `json:"ended"`
	Facts      *eval.CodeFacts `json:"facts"`
}

// worker is one long-lived Python process with pandas imported and the
// datasets loaded.
type worker struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies chan []byte // one line per reply; closed when the process's channel ends
	stderr  *tailWriter
	exited  chan struct{}
}

// workerPool keeps up to size workers and gives each request one of them.
// Workers start on demand, and a request gets the free worker freed last,
// which is warm: calls one at a time keep one worker. Each start costs the
// import of pandas (about a second of CPU), so the pool grows only when
// calls overlap for longer than a start takes: a request that finds every
// worker busy waits for one, and starts another only once it has waited as
// long as the last start took, counted from its arrival or the end of the
// last start, whichever is later, with no other start under way. A worker
// that does not answer in time, or whose request was cancelled, is killed
// and replaced.
type workerPool struct {
	command []string
	config  workerConfig
	mu      sync.Mutex
	free    []int // the slots not in use, the one freed last at the end
	slots   []*worker
	closed  bool
	// starting counts the starts under way; lastStart is how long the
	// last one took and lastReady when it ended.
	starting  int
	lastStart time.Duration
	lastReady time.Time
	// changed is closed, and replaced, when a slot is freed or a start
	// ends: what a waiting request waits for.
	changed chan struct{}
}

// defaultStartTime stands for the time a start takes before one has ended.
const defaultStartTime = time.Second

func newWorkerPool(command []string, config workerConfig, size int) *workerPool {
	p := &workerPool{command: command, config: config, slots: make([]*worker, size), changed: make(chan struct{})}
	for i := range size {
		p.free = append(p.free, size-1-i) // slot 0 first
	}
	return p
}

// acquire takes a slot: the free one with a live worker freed last, else
// a free one without a worker when no slot is in use, or when the request
// has waited as long as a start takes (see workerPool).
func (p *workerPool) acquire(ctx context.Context) (int, error) {
	arrived := time.Now()
	for {
		p.mu.Lock()
		slot, wait := p.pick(arrived)
		changed := p.changed
		p.mu.Unlock()
		if slot >= 0 {
			return slot, nil
		}
		var timeout <-chan time.Time
		var timer *time.Timer
		if wait > 0 {
			timer = time.NewTimer(wait)
			timeout = timer.C
		}
		select {
		case <-changed:
		case <-timeout:
		case <-ctx.Done():
		}
		if timer != nil {
			timer.Stop()
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
}

// pick takes a slot for a request that arrived at arrived, or returns -1
// and how long to wait at most before asking again (0: until a change).
// p.mu is held.
func (p *workerPool) pick(arrived time.Time) (slot int, wait time.Duration) {
	take := func(i int) int {
		slot := p.free[i]
		p.free = slices.Delete(p.free, i, i+1)
		return slot
	}
	for i := len(p.free) - 1; i >= 0; i-- {
		if w := p.slots[p.free[i]]; w != nil && !w.dead() {
			return take(i), 0
		}
	}
	if len(p.free) == 0 {
		return -1, 0
	}
	if len(p.free) == len(p.slots) {
		return take(len(p.free) - 1), 0
	}
	if p.starting > 0 {
		return -1, 0
	}
	patience := cmp.Or(p.lastStart, defaultStartTime)
	waited := time.Since(arrived)
	if !p.lastReady.IsZero() && p.lastReady.After(arrived) {
		waited = time.Since(p.lastReady)
	}
	if waited >= patience {
		return take(len(p.free) - 1), 0
	}
	return -1, patience - waited
}

// release frees a slot.
func (p *workerPool) release(slot int) {
	p.mu.Lock()
	p.free = append(p.free, slot)
	p.notify()
	p.mu.Unlock()
}

// notify wakes the waiting requests. p.mu is held.
func (p *workerPool) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// errPoolClosed is the error of a request to a closed pool.
var errPoolClosed = errors.New("run_pandas: the worker pool is closed")

// run runs one request on a worker. overrun is how long the worker may
// take to answer. The error is a harness failure: no worker could start,
// the context ended, or the worker died or hung (it is then replaced).
func (p *workerPool) run(ctx context.Context, req workerRequest, overrun time.Duration) (workerReply, error) {
	slot, err := p.acquire(ctx)
	if err != nil {
		return workerReply{}, err
	}
	w, err := p.workerAt(slot)
	if err != nil {
		p.release(slot)
		return workerReply{}, err
	}
	reply, err := w.do(ctx, req, overrun)
	if err != nil {
		// The worker is in an unknown state: replace it, and free the slot
		// once the new one is ready (or has failed to start).
		w.kill()
		p.set(slot, nil)
		go func() {
			if nw, err := p.start(); err == nil && !p.set(slot, nw) {
				nw.kill()
			}
			p.release(slot)
		}()
		return workerReply{}, err
	}
	p.release(slot)
	return reply, nil
}

// workerAt returns the slot's worker, starting one if there is none.
func (p *workerPool) workerAt(slot int) (*worker, error) {
	p.mu.Lock()
	w, closed := p.slots[slot], p.closed
	p.mu.Unlock()
	if closed {
		return nil, errPoolClosed
	}
	if w != nil && !w.dead() {
		return w, nil
	}
	w, err := p.start()
	if err != nil {
		return nil, err
	}
	if !p.set(slot, w) {
		w.kill()
		return nil, errPoolClosed
	}
	return w, nil
}

// set puts w in a slot; it reports false when the pool is closed.
func (p *workerPool) set(slot int, w *worker) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.slots[slot] = w
	return true
}

// close kills every worker; later requests fail.
func (p *workerPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for i, w := range p.slots {
		if w != nil {
			w.kill()
			p.slots[i] = nil
		}
	}
}

// pids returns the process ids of the live workers.
func (p *workerPool) pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []int
	for _, w := range p.slots {
		if w != nil && !w.dead() {
			out = append(out, w.cmd.Process.Pid)
		}
	}
	return out
}

// start starts a worker and waits until it has loaded pandas and the
// datasets, noting how long that took.
func (p *workerPool) start() (*worker, error) {
	began := time.Now()
	p.mu.Lock()
	p.starting++
	p.mu.Unlock()
	w, err := p.launch()
	p.mu.Lock()
	p.starting--
	if err == nil {
		p.lastStart, p.lastReady = time.Since(began), time.Now()
	}
	p.notify()
	p.mu.Unlock()
	return w, err
}

// launch starts a worker and waits until it is ready.
func (p *workerPool) launch() (*worker, error) {
	config, err := json.Marshal(p.config)
	if err != nil {
		return nil, err
	}
	args := append(slices.Clone(p.command[1:]), "-I", "-c", workerScript, "worker", string(config))
	cmd := exec.Command(p.command[0], args...)
	cmd.Dir, cmd.Env = os.TempDir(), runEnv(os.TempDir())
	newProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	replyRead, replyWrite, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{replyWrite} // fd 3 in the worker
	w := &worker{cmd: cmd, stdin: stdin, replies: make(chan []byte, 1), stderr: &tailWriter{max: maxErrorText},
		exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = io.Discard, w.stderr
	err = cmd.Start()
	replyWrite.Close()
	if err != nil {
		replyRead.Close()
		return nil, fmt.Errorf("run_pandas: start the Python worker: %w", err)
	}
	go func() {
		cmd.Wait()
		close(w.exited)
	}()
	go w.readReplies(replyRead)

	timer := time.NewTimer(workerStartTimeout)
	defer timer.Stop()
	select {
	case line, ok := <-w.replies:
		var ready workerReply
		if ok && json.Unmarshal(line, &ready) == nil && ready.Ready {
			return w, nil
		}
	case <-timer.C:
	}
	w.kill()
	<-w.exited
	msg := "run_pandas: the Python worker did not start"
	if tail := strings.TrimSpace(w.stderr.String()); tail != "" {
		msg += ":\n" + tail
	}
	return nil, errors.New(msg)
}

// readReplies passes the worker's reply lines on until its channel ends.
func (w *worker) readReplies(r *os.File) {
	defer r.Close()
	defer close(w.replies)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br, maxReplyLine)
		if err != nil {
			return
		}
		w.replies <- line
	}
}

// readLine reads one line of at most max bytes.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > max {
			return nil, fmt.Errorf("reply longer than %d bytes", max)
		}
		if err == nil {
			return line, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

// do sends one request and waits for the reply, at most overrun.
func (w *worker) do(ctx context.Context, req workerRequest, overrun time.Duration) (workerReply, error) {
	line, err := json.Marshal(req)
	if err != nil {
		return workerReply{}, err
	}
	if _, err := w.stdin.Write(append(line, '\n')); err != nil {
		return workerReply{}, w.died("did not take the request")
	}
	timer := time.NewTimer(overrun)
	defer timer.Stop()
	select {
	case line, ok := <-w.replies:
		if !ok {
			return workerReply{}, w.died("ended during the run")
		}
		var reply workerReply
		if err := json.Unmarshal(line, &reply); err != nil {
			return workerReply{}, fmt.Errorf("run_pandas: unreadable reply from the Python worker: %w", err)
		}
		return reply, nil
	case <-timer.C:
		return workerReply{}, fmt.Errorf("run_pandas: the Python worker did not answer within %s; it was replaced", overrun)
	case <-ctx.Done():
		return workerReply{}, ctx.Err()
	}
}

// died describes a worker that stopped, with the end of its stderr.
func (w *worker) died(what string) error {
	select {
	case <-w.exited:
	case <-time.After(time.Second):
	}
	msg := "run_pandas: the Python worker " + what
	if st := w.cmd.ProcessState; st != nil {
		msg += " (" + st.String() + ")"
	}
	if tail := strings.TrimSpace(w.stderr.String()); tail != "" {
		msg += ":\n" + tail
	}
	return errors.New(msg)
}

func (w *worker) dead() bool {
	select {
	case <-w.exited:
		return true
	default:
		return false
	}
}

// kill ends the worker's process group (the worker and the code it runs).
func (w *worker) kill() {
	if w.cmd.Process != nil {
		killGroup(w.cmd.Process)
	}
	w.stdin.Close()
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.buf), "")
}

// AnalyzeCode reads the syntax tree of each code text with python (any
// python3; pandas is not needed) and returns what each does, in order.
func AnalyzeCode(ctx context.Context, python string, codes []string) ([]eval.CodeFacts, error) {
	input, err := json.Marshal(codes)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, python, "-I", "-c", workerScript, "analyze")
	cmd.Env = runEnv(os.TempDir())
	cmd.Stdin = bytes.NewReader(input)
	var stderr tailWriter
	stderr.max = maxErrorText
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("analyze code with %s: %w\n%s", python, err, stderr.String())
	}
	var facts []eval.CodeFacts
	if err := json.Unmarshal(out, &facts); err != nil {
		return nil, fmt.Errorf("analyze code with %s: %w", python, err)
	}
	if len(facts) != len(codes) {
		return nil, fmt.Errorf("analyze code with %s: %d results for %d codes", python, len(facts), len(codes))
	}
	return facts, nil
}
