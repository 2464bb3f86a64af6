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

// Output kept per test and per package, and non-JSON lines kept per stream.
const (
	maxTestOutput    = 64 << 10
	maxPackageOutput = 16 << 10
	maxStrayLines    = 40
)

// testRun is the merged outcome of one test over all streams.
type testRun struct {
	pkg, name string
	action    testjson.Action // pass, fail or skip; "" while running
	elapsed   float64
	// unfinished: the stream ended while the test was running.
	unfinished bool
	output     tail
	attrs      map[string]string
}

// packageRun is the package-level part of the streams.
type packageRun struct {
	name   string
	action testjson.Action
	output tail
}

// events collects the test events of all streams. A test seen in several
// streams (shards, reruns) takes the outcome of the last one to finish it.
type events struct {
	tests    map[string]*testRun // by package + "\x00" + test name
	order    []string
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
	return &events{tests: map[string]*testRun{}, packages: map[string]*packageRun{}}
}

// scanStreams reads every stream with gotestsum's testjson scanner.
func scanStreams(streams []Stream) (*events, error) {
	ev := newEvents()
	for i, s := range streams {
		ev.timedOut = ""
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
		ev.addPackageEvent(e)
		return
	}
	key := e.Package + "\x00" + e.Test
	t := ev.tests[key]
	if t == nil {
		t = &testRun{pkg: e.Package, name: e.Test}
		ev.tests[key] = t
		ev.order = append(ev.order, key)
	}
	switch e.Action {
	case testjson.ActionRun:
		if t.action != "" || t.unfinished {
			// A rerun (another shard or --rerun-fails): start afresh.
			*t = testRun{pkg: e.Package, name: e.Test}
		}
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
