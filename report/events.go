package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"gotest.tools/gotestsum/testjson"
)

// Stream is one `go test -json` output, for example one shard of a run.
type Stream struct {
	// Name identifies the stream in messages, e.g. its file path.
	Name string
	R    io.Reader
}

// actionStart is the event with which go test starts a package's process.
const actionStart testjson.Action = "start"

// Output kept per test and per package, and non-JSON lines kept per stream.
const (
	maxTestOutput    = 64 << 10
	maxPackageOutput = 16 << 10
	maxStrayLines    = 40
)

// testRun is the outcome of one run of a test.
type testRun struct {
	action  testjson.Action // pass, fail or skip; "" while running
	elapsed float64
	// unfinished: the stream ended while the test was running.
	unfinished bool
	output     tail
	attrs      map[string]string
}

// testRuns is one test over all streams: its runs in one go test process,
// in order. go test -count=N runs a test N times in one process; a test run
// again by a later process (another shard or stream, or gotestsum
// --rerun-fails) starts afresh.
type testRuns struct {
	pkg, name string
	runs      []*testRun
	// process identifies the go test process of the runs.
	process process
}

// process identifies one go test process of a package: its stream and the
// package's "start" event in that stream.
type process struct{ stream, start int }

// last is the current run, made if there is none.
func (t *testRuns) last() *testRun {
	if len(t.runs) == 0 {
		t.runs = append(t.runs, &testRun{})
	}
	return t.runs[len(t.runs)-1]
}

// packageRun is the package-level part of the streams.
type packageRun struct {
	name   string
	action testjson.Action
	output tail
}

// events collects the test events of all streams. A test seen in several
// go test processes (shards, reruns) takes the runs of the last one.
type events struct {
	tests map[string]*testRuns // by package + "\x00" + test name
	order []string
	// stream is the index of the stream being read; starts counts the
	// package "start" events read, and started holds the count at each
	// package's last start in this stream.
	stream   int
	starts   int
	started  map[string]int
	packages map[string]*packageRun
	pkgOrder []string
	// timedOut is the test whose output go test's timeout panic landed in:
	// from there on that output belongs to the package.
	timedOut string
	// build holds build-output lines; stray holds non-JSON input lines.
	build []string
	stray []string
	first time.Time
	last  time.Time
}

func newEvents() *events {
	return &events{tests: map[string]*testRuns{}, packages: map[string]*packageRun{}}
}

// scanStreams reads every stream with gotestsum's testjson scanner.
func scanStreams(streams []Stream) (*events, error) {
	ev := newEvents()
	for i, s := range streams {
		ev.timedOut = ""
		ev.stream, ev.started = i, map[string]int{}
		h := &streamHandler{events: ev, stream: s.Name}
		_, err := testjson.ScanTestOutput(testjson.ScanConfig{
			RunID:                    i + 1,
			Stdout:                   s.R,
			Handler:                  h,
			IgnoreNonJSONOutputLines: true,
		})
		if err != nil {
			return nil, fmt.Errorf("read test events %s: %w", s.Name, err)
		}
	}
	return ev, nil
}

// streamHandler feeds one stream's events into the shared collection.
type streamHandler struct {
	events *events
	stream string
	stray  int
}

// Event implements testjson.EventHandler.
func (h *streamHandler) Event(e testjson.TestEvent, _ *testjson.Execution) error {
	h.events.add(e)
	return nil
}

// Err implements testjson.EventHandler; it receives non-JSON lines.
func (h *streamHandler) Err(text string) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	h.stray++
	switch {
	case h.stray < maxStrayLines:
		h.events.stray = append(h.events.stray, h.stream+": "+text)
	case h.stray == maxStrayLines:
		h.events.stray = append(h.events.stray, h.stream+": (more lines that are not test events left out)")
	}
	return nil
}

func (ev *events) add(e testjson.TestEvent) {
	if !e.Time.IsZero() {
		if ev.first.IsZero() || e.Time.Before(ev.first) {
			ev.first = e.Time
		}
		if e.Time.After(ev.last) {
			ev.last = e.Time
		}
	}
	if e.Action == testjson.ActionBuild {
		ev.build = append(ev.build, strings.TrimRight(e.Output, "\n"))
		return
	}
	if e.Test == "" {
		if e.Action == actionStart {
			ev.starts++
			ev.started[e.Package] = ev.starts
		}
		ev.addPackageEvent(e)
		return
	}
	key := e.Package + "\x00" + e.Test
	proc := process{stream: ev.stream, start: ev.started[e.Package]}
	tr := ev.tests[key]
	if tr == nil {
		tr = &testRuns{pkg: e.Package, name: e.Test, process: proc}
		ev.tests[key] = tr
		ev.order = append(ev.order, key)
	}
	if tr.process != proc {
		// Another process ran the test (a shard or --rerun-fails): its
		// runs replace the earlier ones.
		tr.runs, tr.process = nil, proc
	}
	if e.Action == testjson.ActionRun {
		if len(tr.runs) == 0 || tr.last().action != "" || tr.last().unfinished {
			tr.runs = append(tr.runs, &testRun{}) // the next repeat of -count=N
		}
		return
	}
	t := tr.last()
	switch e.Action {
	case testjson.ActionOutput:
		if strings.HasPrefix(e.Output, "panic: test timed out") {
			ev.timedOut = key
		}
		if ev.timedOut == key {
			ev.addPackageEvent(testjson.TestEvent{Package: e.Package, Action: e.Action, Output: e.Output})
			return
		}
		t.output.add(e.Output, maxTestOutput)
	case testjson.ActionAttr:
		if t.attrs == nil {
			t.attrs = map[string]string{}
		}
		t.attrs[e.Key] = e.Value
	case testjson.ActionPass, testjson.ActionFail, testjson.ActionSkip:
		t.action = e.Action
		// gotestsum reports a test the stream never finished as a fail
		// with a negative elapsed time.
		t.unfinished = e.Elapsed < 0
		if t.unfinished {
			t.elapsed = 0
		} else {
			t.elapsed = e.Elapsed
		}
	}
}

func (ev *events) addPackageEvent(e testjson.TestEvent) {
	p := ev.packages[e.Package]
	if p == nil {
		p = &packageRun{name: e.Package}
		ev.packages[e.Package] = p
		ev.pkgOrder = append(ev.pkgOrder, e.Package)
	}
	switch e.Action {
	case testjson.ActionOutput:
		p.output.add(e.Output, maxPackageOutput)
	case testjson.ActionPass, testjson.ActionFail, testjson.ActionSkip:
		p.action = e.Action
	}
}

// seconds is the wall time between the first and last timed event.
func (ev *events) seconds() float64 {
	if ev.first.IsZero() {
		return 0
	}
	return ev.last.Sub(ev.first).Seconds()
}

// tail keeps the last bytes of a text written in pieces.
type tail struct {
	parts     []string
	size      int
	truncated bool
}

func (t *tail) add(s string, limit int) {
	t.parts = append(t.parts, s)
	t.size += len(s)
	for t.size > limit && len(t.parts) > 1 {
		t.size -= len(t.parts[0])
		t.parts = t.parts[1:]
		t.truncated = true
	}
}

func (t *tail) String() string {
	s := strings.Join(t.parts, "")
	if t.truncated {
		s = "…(earlier output left out)\n" + s
	}
	return s
}

// framing matches the lines go test writes around a test's own output.
var framing = regexp.MustCompile(`^\s*(=== (RUN|PAUSE|CONT|NAME|ATTR)\s|--- (PASS|FAIL|SKIP): )`)

// testOutput is a test's output without framing lines and with go test's
// four-space indentation of log lines removed.
func testOutput(raw string) string {
	lines := strings.Split(raw, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if framing.MatchString(l) {
			continue
		}
		kept = append(kept, strings.TrimPrefix(l, "    "))
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
}
