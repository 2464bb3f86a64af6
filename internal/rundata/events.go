package rundata

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
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

// maxStrayLines bounds the non-JSON lines kept per stream.
const maxStrayLines = 40

// events is what the streams say: gotestsum's Execution of every test, plus
// what it does not keep.
type events struct {
	exec *testjson.Execution
	// process numbers the go test processes of each package (its "start"
	// events, across streams); processOf gives each test case's.
	process   map[string]int
	processOf map[string]map[int]int // package -> test case ID -> process
	// stray holds non-JSON input lines.
	stray       []string
	first, last time.Time
}

// scanStreams reads every stream into one testjson.Execution; each stream
// is a run of its own (RunID).
func scanStreams(streams []Stream) (*events, error) {
	ev := &events{process: map[string]int{}, processOf: map[string]map[int]int{}}
	for i, s := range streams {
		h := &streamHandler{events: ev, stream: s.Name}
		exec, err := testjson.ScanTestOutput(testjson.ScanConfig{
			RunID: i + 1, Stdout: s.R, Handler: h, Execution: ev.exec, IgnoreNonJSONOutputLines: true,
		})
		if err != nil {
			return nil, fmt.Errorf("read test events %s: %w", s.Name, err)
		}
		ev.exec = exec
	}
	return ev, nil
}

// actionStart is the event with which go test starts a package's process.
const actionStart testjson.Action = "start"

// streamHandler notes, per event, what the Execution does not keep.
type streamHandler struct {
	events *events
	stream string
	stray  int
}

// Event implements testjson.EventHandler. It runs after the Execution added
// the event, so a "run" event's test case is the package's newest.
func (h *streamHandler) Event(e testjson.TestEvent, exec *testjson.Execution) error {
	ev := h.events
	if !e.Time.IsZero() {
		if ev.first.IsZero() || e.Time.Before(ev.first) {
			ev.first = e.Time
		}
		if e.Time.After(ev.last) {
			ev.last = e.Time
		}
	}
	switch {
	case e.Test == "" && e.Action == actionStart:
		ev.process[e.Package]++
	case e.Test != "" && e.Action == testjson.ActionRun:
		if ev.processOf[e.Package] == nil {
			ev.processOf[e.Package] = map[int]int{}
		}
		ev.processOf[e.Package][exec.Package(e.Package).Total] = ev.process[e.Package]
	}
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

// testRuns is one test's runs in the last go test process that ran it: go
// test -count=N runs a test N times in one process; a later process (another
// shard or stream, or gotestsum --rerun-fails) replaces the earlier runs.
type testRuns struct {
	pkg, name string
	runs      []testRun
}

// testRun is one run of a test and how it ended.
type testRun struct {
	testjson.TestCase
	action testjson.Action
}

// tests returns every test's runs, in the order the tests first ran.
func (ev *events) tests() []*testRuns {
	var out []*testRuns
	if ev.exec == nil {
		return nil
	}
	for _, pkgName := range ev.exec.Packages() {
		pkg := ev.exec.Package(pkgName)
		var cases []testRun
		for _, group := range []struct {
			action testjson.Action
			cases  []testjson.TestCase
		}{{testjson.ActionPass, pkg.Passed}, {testjson.ActionFail, pkg.Failed}, {testjson.ActionSkip, pkg.Skipped}} {
			for _, tc := range group.cases {
				cases = append(cases, testRun{tc, group.action})
			}
		}
		slices.SortFunc(cases, func(a, b testRun) int { return a.ID - b.ID })
		byName := map[testjson.TestName]*testRuns{}
		for _, tc := range cases {
			t := byName[tc.Test]
			if t == nil {
				t = &testRuns{pkg: pkgName, name: string(tc.Test)}
				byName[tc.Test] = t
				out = append(out, t)
			}
			if len(t.runs) > 0 && ev.processOf[pkgName][t.runs[0].ID] != ev.processOf[pkgName][tc.ID] {
				// A run of a repeat the earlier process did not run (the
				// shards of a split run share repeats of a case) joins them.
				if r, ok := tc.Attributes[repeatAttr]; ok {
					t.runs = slices.DeleteFunc(t.runs, func(old testRun) bool { return old.Attributes[repeatAttr] == r })
				} else {
					t.runs = nil
				}
			}
			t.runs = append(t.runs, tc)
		}
	}
	slices.SortStableFunc(out, func(a, b *testRuns) int { return a.runs[0].Time.Compare(b.runs[0].Time) })
	return out
}

// repeatAttr is the attribute (t.Attr) in which the suite gives a case
// run's repeat index.
const repeatAttr = "eval.repeat"

// repeatOf is the repeat index of the i-th run of a test: its repeatAttr,
// else its place.
func repeatOf(r testRun, i int) int {
	if n, err := strconv.Atoi(r.Attributes[repeatAttr]); err == nil && n >= 0 {
		return n
	}
	return i
}

// outcome is what the stream says about one run of a test. The output of a
// passed test is not kept (testjson drops it once its parent passes): its
// record says it all.
func (ev *events) outcome(r testRun) TestOutcome {
	var out strings.Builder
	ev.exec.Package(r.Package).WriteOutputTo(&out, r.ID) // its own lines, not its subtests'
	o := TestOutcome{Action: string(r.action), Elapsed: r.Elapsed.Seconds(), Attrs: r.Attributes,
		Output: testOutput(out.String())}
	if r.Elapsed < 0 { // gotestsum's mark of a test the stream never finished
		o.Unfinished, o.Elapsed = true, 0
	}
	return o
}

// packageOutput is the output of a package outside its tests.
func (ev *events) packageOutput(name string) string {
	var b strings.Builder
	ev.exec.Package(name).WriteOutputTo(&b, 0)
	return b.String()
}

// seconds is the wall time between the first and last timed event.
func (ev *events) seconds() float64 {
	if ev.first.IsZero() {
		return 0
	}
	return ev.last.Sub(ev.first).Seconds()
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
