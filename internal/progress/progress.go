// Package progress shows how far a run is while it goes: on a terminal, a
// live line `[37/100] 34 pass, 3 fail, 0 errors, ETA 1m10s` written to the
// terminal itself (go test buffers a test binary's output, so its standard
// output would show nothing until the end); without one (CI), or under
// go test -v, the same line every 30 seconds on standard output. Lines a test binary prints while
// go test converts its output to JSON are framed so that go test reports
// them as the package's output, not as some running test's.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Counts is how far a run is.
type Counts struct {
	Total, Done                 int
	Pass, Fail, Errors, Skipped int
	// Undecided counts the runs the judge could not decide.
	Undecided int
	// NotRun counts the case runs a stopped run did not run (status
	// not_run); Skipped the others go test skipped.
	NotRun int
}

// Line formats counts: "[37/100] 34 pass, 3 fail, 0 errors, ETA 1m10s".
// The estimate assumes the remaining cases take as long, on average, as
// the finished ones; before the first one finishes there is none.
func Line(c Counts, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d/%d] %d pass, %d fail, %d errors", c.Done, c.Total, c.Pass, c.Fail, c.Errors)
	if c.Undecided > 0 {
		fmt.Fprintf(&b, ", %d undecided", c.Undecided)
	}
	if c.NotRun > 0 {
		fmt.Fprintf(&b, ", %d not run", c.NotRun)
	}
	if c.Skipped > 0 {
		fmt.Fprintf(&b, ", %d skipped", c.Skipped)
	}
	switch {
	case c.Done >= c.Total:
		fmt.Fprintf(&b, ", %s", round(elapsed))
	case c.Done > 0:
		eta := time.Duration(float64(elapsed) / float64(c.Done) * float64(c.Total-c.Done))
		fmt.Fprintf(&b, ", ETA %s", round(eta))
	}
	return b.String()
}

func round(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// Outcome is how a case ended, for the counts.
type Outcome int

// The outcomes a run counts.
const (
	Pass Outcome = iota
	Fail
	Error
	Skipped
	// Undecided: the judge could not decide.
	Undecided
	// NotRun: the run stopped before the case ran, or cancelled it.
	NotRun
)

// Options configure a Reporter.
type Options struct {
	// Total is the number of case runs the run will make.
	Total int
	// Off shows nothing while the run goes.
	Off bool
	// Every, when set, prints a line at that interval instead of the live
	// line, terminal or not. Without a terminal the interval is 30 s.
	Every time.Duration
	// JSON is set when go test converts the binary's output to JSON
	// (-test.v=test2json): lines are then framed as the package's output.
	JSON bool
	// Verbose is set under go test -v, which streams the binary's output
	// (a line per case) to the terminal from another process: a live line
	// would mix with it, so lines go into the output instead. The same
	// goes for JSON, whose consumer may print to the terminal, unless Live
	// says that it leaves the terminal to the live line.
	Verbose, Live bool
	// Terminal is where the live line goes; nil opens /dev/tty. Tests give
	// their own.
	Terminal io.Writer
}

// DefaultEvery is the interval of progress lines without a terminal.
const DefaultEvery = 30 * time.Second

// Reporter shows a run's progress. Its methods are safe for concurrent use.
type Reporter struct {
	opts  Options
	start time.Time

	mu     sync.Mutex
	counts Counts
	tty    io.Writer // live line target; nil: lines on stdout
	ttyF   *os.File  // opened here, closed by Stop
	drawn  bool      // the live line is on the terminal
	tap    *tap      // os.Stdout's copier, when output is interleaved
	stop   chan struct{}
	done   chan struct{}
}

// Start begins showing progress.
func Start(o Options) *Reporter {
	r := &Reporter{opts: o, start: time.Now(), counts: Counts{Total: o.Total}, stop: make(chan struct{}), done: make(chan struct{})}
	if o.Off {
		close(r.done)
		return r
	}
	every := o.Every
	if every == 0 && (o.Live || !o.Verbose && !o.JSON) {
		r.tty = o.Terminal
		if r.tty == nil {
			r.tty, r.ttyF = openTerminal()
		}
	}
	switch {
	case r.tty != nil:
		every = time.Second // the estimate counts down
		if isTerminal(os.Stdout) {
			// The binary's output goes to the terminal itself (a test
			// binary run directly): the live line stays below it.
			r.tap = newTap(r.redraw)
		}
	case every == 0:
		every = DefaultEvery
		fallthrough
	default:
		r.tap = newTap(nil)
	}
	r.tap.framed(o.JSON)
	go r.loop(every)
	return r
}

// openTerminal opens the process's controlling terminal for writing, or
// gives nil when it has none or it cannot show a live line.
func openTerminal() (io.Writer, *os.File) {
	if t := os.Getenv("TERM"); t == "dumb" {
		return nil, nil
	}
	f, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return nil, nil
	}
	if !isTerminal(f) {
		f.Close()
		return nil, nil
	}
	return f, f
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

func (r *Reporter) loop(every time.Duration) {
	defer close(r.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-tick.C:
			r.mu.Lock()
			if r.tty != nil {
				r.drawLocked()
			} else {
				r.tap.insert("mcpeval: " + Line(r.counts, time.Since(r.start)) + "\n")
			}
			r.mu.Unlock()
		}
	}
}

// Done counts a finished case run.
func (r *Reporter) Done(o Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts.Done++
	switch o {
	case Pass:
		r.counts.Pass++
	case Fail:
		r.counts.Fail++
	case Error:
		r.counts.Errors++
	case Skipped:
		r.counts.Skipped++
	case Undecided:
		r.counts.Undecided++
	case NotRun:
		r.counts.NotRun++
	}
	if r.tty != nil && !r.opts.Off {
		r.drawLocked()
	}
}

// Counts returns the counts so far.
func (r *Reporter) Counts() Counts {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts
}

// drawLocked draws the live line over the previous one.
func (r *Reporter) drawLocked() {
	if r.tap != nil && r.tap.midLine() {
		return // the next whole line go test prints redraws it
	}
	fmt.Fprint(r.tty, "\r\x1b[K"+Line(r.counts, time.Since(r.start)))
	r.drawn = true
}

// clearLocked removes the live line from the terminal.
func (r *Reporter) clearLocked() {
	if r.drawn {
		fmt.Fprint(r.tty, "\r\x1b[K")
		r.drawn = false
	}
}

// redraw is the tap's hook around go test's lines on a terminal.
func (r *Reporter) redraw(before bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if before {
		r.clearLocked()
	} else if r.tty != nil {
		r.drawLocked()
	}
}

// Stop ends the live line (it is cleared) or the periodic lines, and
// gives os.Stdout back. It returns once everything is written.
func (r *Reporter) Stop() {
	select {
	case <-r.stop:
		return
	default:
		close(r.stop)
	}
	<-r.done
	r.tap.close()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tty != nil {
		r.clearLocked()
	}
}

// Notice shows a line the user must see while the run goes (an
// interrupt taken): on the terminal above the live line, when the run
// draws one there while its output goes elsewhere (to go test, which shows
// it only at the end, or to gotestsum, which hides a passing test's);
// else among the run's output, between go test's lines, as the periodic
// progress lines are. It is written to standard error too, so that the
// test output keeps it.
func (r *Reporter) Notice(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tty != nil && r.tap == nil {
		r.clearLocked()
		fmt.Fprintln(r.tty, line)
		r.drawLocked()
		fmt.Fprintln(os.Stderr, line)
		return
	}
	if r.tap != nil {
		r.tap.insert(line + "\n")
		return
	}
	fmt.Fprintln(os.Stderr, line)
}

// Closing shows the run's closing lines where the user sees them: they go
// to standard output, which go test shows only with -v or for a failed
// package, so they go to the terminal as well when go test hides them
// (standard output is neither the terminal nor a JSON stream) and does
// not show them anyway (shown: the package failed, and go test prints a
// failed package's output). With Off they go to standard output only. Call
// it after Stop.
func (r *Reporter) Closing(text string, shown bool) {
	fmt.Println(text)
	if shown || r.opts.Off || r.opts.JSON || isTerminal(os.Stdout) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.tty
	if w == nil {
		w, r.ttyF = openTerminal()
	}
	if w != nil {
		fmt.Fprintln(w, text)
	}
}

// Close releases the terminal. Call it last.
func (r *Reporter) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ttyF != nil {
		r.ttyF.Close()
		r.ttyF = nil
	}
}
