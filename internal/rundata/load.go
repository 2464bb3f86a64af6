package rundata

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"gotest.tools/gotestsum/testjson"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/stats"
	"github.com/mcpeval/mcpeval/internal/testname"
)

// Load reads the go test -json streams and, from outDir, the run's records,
// summary and metrics summary, and joins them into the report's data.
// Missing files in outDir are fine; unreadable lines and files become
// Problems. It fails only when a stream cannot be read or there is nothing
// to report.
func Load(outDir string, streams []Stream) (*Data, error) {
	return load(outDir, streams, false)
}

// load is Load, or with lean LoadLean.
func load(outDir string, streams []Stream, lean bool) (*Data, error) {
	// The streams are read while the run's directory is: reading its
	// records takes every core but in short gaps, reading a stream one.
	var ev *events
	var evErr error
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		ev, evErr = scanStreams(streams)
	}()
	in := inputs{lean: lean}
	var dirErr error
	if outDir != "" {
		dirErr = in.readOutDir(outDir)
	}
	<-scanned
	if evErr != nil {
		return nil, evErr
	}
	if dirErr != nil {
		return nil, dirErr
	}
	in.events = ev
	d := in.build()
	if len(d.Cases) == 0 && len(d.Problems) == 0 {
		return nil, fmt.Errorf("nothing to report: no case tests in %d test stream(s) and no records in %s", len(streams), filepath.Join(outDir, eval.RecordsFile))
	}
	return d, nil
}

// FromRecords joins the records into the report's data as Load does with
// no test events and no other file of the run's directory.
func FromRecords(records []eval.Record) *Data {
	in := inputs{events: &events{}, records: records}
	return in.build()
}

// inputs is everything Load read, before joining.
type inputs struct {
	events  *events
	records []eval.Record
	// lean: the records are decoded as LoadLean does, each one's line
	// kept in raw.
	lean           bool
	raw            [][]byte
	summary        *eval.Summary
	metricsSummary *eval.MetricsSummary
	calibration    *eval.Calibration
	problems       []string
	notices        []string
}

func (in *inputs) readOutDir(dir string) error {
	// The summaries are decoded while the records are.
	var s eval.Summary
	var ms eval.MetricsFileSummary
	var sOK, msOK bool
	var sErr, msErr error
	summaries := make(chan struct{})
	go func() {
		defer close(summaries)
		decode := func(b []byte) error { return json.Unmarshal(b, &s) }
		if in.lean {
			decode = func(b []byte) error { return decodeLeanSummary(b, &s) }
		}
		sOK, sErr = readFile(filepath.Join(dir, eval.SummaryFile), decode)
		msOK, msErr = readJSONFile(filepath.Join(dir, eval.MetricsSummaryFile), &ms)
	}()
	defer func() { <-summaries }()

	path := filepath.Join(dir, eval.RecordsFile)
	f, err := files.OpenRegular(path, files.MaxRunFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("open records: %w", err)
	default:
		defer f.Close()
		recs, raw, bad, err := readRecords(f, in.lean)
		if err != nil {
			return fmt.Errorf("read records %s: %w", path, err)
		}
		in.records, in.raw = recs, raw
		for _, b := range bad {
			in.problems = append(in.problems, fmt.Sprintf("%s: %s", path, b))
		}
	}

	<-summaries
	for _, err := range []error{sErr, msErr} {
		if err != nil {
			in.problems = append(in.problems, err.Error())
		}
	}
	if sOK && sErr == nil {
		in.summary = &s
	}
	if msOK && msErr == nil {
		in.metricsSummary = &ms.Summary
	}
	in.dropForeignSummaries()
	// make calibrate writes calibration.json into the output directory,
	// beside the runs it applies to; one in the run's own directory wins.
	for _, d := range []string{dir, runs.Parent(dir)} {
		var cal eval.Calibration
		if d != "" && in.readOptional(filepath.Join(d, eval.CalibrationFile), &cal) {
			in.calibration = &cal
			break
		}
	}
	return nil
}

// readOptional decodes the JSON file at path into v and reports whether it
// did; a missing file is fine, an unreadable one is a problem.
func (in *inputs) readOptional(path string, v any) bool {
	ok, err := readJSONFile(path, v)
	if err != nil {
		in.problems = append(in.problems, err.Error())
	}
	return ok && err == nil
}

// readRecords decodes one record per line, in order; with lean as
// LoadLean does, each record's line kept in raw. A line that is not a
// record (a run killed while writing) is reported in bad and skipped.
// Decoding JSON is most of a report's work, so batches of lines are decoded
// on all cores.
func readRecords(r io.Reader, lean bool) (recs []eval.Record, raw [][]byte, bad []string, err error) {
	type batch struct {
		first   int // line number of lines[0]
		lines   [][]byte
		records []eval.Record
		raw     [][]byte
		bad     []string
		done    chan struct{}
	}
	const batchLines = 64
	work := make(chan *batch)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for b := range work {
				for i, line := range b.lines {
					var rec eval.Record
					var jerr error
					if lean {
						rec, jerr = decodeLean(line)
					} else {
						jerr = json.Unmarshal(line, &rec)
					}
					if jerr != nil {
						b.bad = append(b.bad, fmt.Sprintf("line %d is not a record: %v", b.first+i, jerr))
						continue
					}
					b.records = append(b.records, rec)
					if lean {
						b.raw = append(b.raw, bytes.TrimSpace(line))
					}
				}
				b.lines = nil
				close(b.done)
			}
		})
	}

	// Batches are collected in the order they were read.
	pending := make(chan *batch, 2*runtime.GOMAXPROCS(0))
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for b := range pending {
			<-b.done
			recs = append(recs, b.records...)
			raw = append(raw, b.raw...)
			bad = append(bad, b.bad...)
		}
	}()

	br := bufio.NewReaderSize(r, 1<<20)
	cur := &batch{first: 1, done: make(chan struct{})}
	send := func(next int) {
		pending <- cur
		work <- cur
		cur = &batch{first: next, done: make(chan struct{})}
	}
	n := 0
	for {
		line, rerr := br.ReadBytes('\n')
		n++
		if len(bytes.TrimSpace(line)) > 0 {
			if len(cur.lines) == 0 {
				cur.first = n
			}
			cur.lines = append(cur.lines, line)
			if len(cur.lines) == batchLines {
				send(n + 1)
			}
		}
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				err = rerr
			}
			break
		}
	}
	send(n + 1)
	close(work)
	close(pending)
	wg.Wait()
	<-collected
	if err != nil {
		return nil, nil, nil, err
	}
	return recs, raw, bad, nil
}

// readJSONFile decodes path into v; ok is false when the file does not exist.
func readJSONFile(path string, v any) (ok bool, err error) {
	return readFile(path, func(b []byte) error { return json.Unmarshal(b, v) })
}

// readFile decodes path with decode; ok is false when the file does not
// exist.
func readFile(path string, decode func([]byte) error) (ok bool, err error) {
	b, err := files.ReadRegular(path, files.MaxRunFile)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if err := decode(b); err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	return true, nil
}

// build joins records and test events into cases and computes the totals.
func (in *inputs) build() *Data {
	d := &Data{Generated: time.Now()}
	if in.metricsSummary != nil {
		d.MetricsSummary = metricTiles(*in.metricsSummary)
	}

	// Each run of a case has its record: go test -count=N runs a test N
	// times, and the suite numbers the records of those runs by Repeat. The
	// last record of a run wins (a rerun appends a newer one).
	latest := map[recordKey]int{}
	parentCategory := map[string]string{}
	for i, r := range in.records {
		if r.Test == "" {
			continue
		}
		latest[recordKey{r.Test, r.Repeat}] = i
		if n, err := testname.Parse(r.Test); err == nil && r.Category != "" {
			parentCategory[n.Parent()] = r.Category
		}
	}
	used := make([]bool, len(in.records))
	// recordOf is the unused record of a test's run, or -1.
	recordOf := func(test string, repeat int) int {
		if i, ok := latest[recordKey{test, repeat}]; ok && !used[i] {
			return i
		}
		return -1
	}

	tests := in.events.tests()
	parents := map[string]bool{}
	// failedBelow holds the tests with a failed subtest.
	failedBelow := map[string]bool{}
	for _, t := range tests {
		failed := false
		for _, run := range t.runs {
			failed = failed || run.action == testjson.ActionFail
		}
		for p := testjson.TestName(t.name).Parent(); p != ""; p = testjson.TestName(p).Parent() {
			parents[t.pkg+"\x00"+p] = true
			failedBelow[t.pkg+"\x00"+p] = failedBelow[t.pkg+"\x00"+p] || failed
		}
	}

	for _, t := range tests {
		isParent := parents[t.pkg+"\x00"+t.name]
		subtest := testjson.TestName(t.name).IsSubTest() && !isParent
		for i, run := range t.runs {
			outcome := in.events.outcome(run)
			repeat := repeatOf(run, i)
			ri := recordOf(t.name, repeat)
			if ri < 0 && !subtest {
				if isParent && failedBelow[t.pkg+"\x00"+t.name] && outcome.Action == string(testjson.ActionFail) {
					// It failed because its cases did: what it said is no problem.
					in.addNotices(parentNotices(t.name, outcome))
					continue
				}
				in.addProblems(nonCaseProblems(t.name, outcome, isParent))
				continue
			}
			c := Case{Test: t.name, Package: t.pkg, Repeat: repeat, Event: outcome}
			if ri >= 0 {
				used[ri] = true
				c.setRecord(&in.records[ri])
				c.Raw = in.rawOf(ri)
			} else {
				c.setFromEvent(parentCategory)
			}
			d.Cases = append(d.Cases, c)
		}
	}
	for i, r := range in.records {
		if used[i] {
			continue
		}
		if r.Test != "" && latest[recordKey{r.Test, r.Repeat}] != i {
			continue // superseded by a later record of the same run
		}
		var c Case
		c.setRecord(&in.records[i])
		c.Raw = in.rawOf(i)
		d.Cases = append(d.Cases, c)
	}

	sortCases(d.Cases)
	d.MetricNames = metricColumns(d.Cases)
	d.Groups = group(d.Cases)
	d.Totals, d.Categories = count(d.Cases)
	records := recordsOf(d.Cases)
	d.Models, d.ModelPairs = modelsOf(records, in.summary)
	d.ArmEffects = stats.ArmEffects(d.Models, d.ModelPairs)
	d.ArmVerdicts = stats.Verdicts(records, d.Models)
	d.Run, d.FromSummary = in.run()
	d.Trust = trustOf(d.Run, in.calibration)
	d.Problems = append(in.packageProblems(), in.problems...)
	if in.summary != nil && in.summary.Stopped != "" &&
		!slices.ContainsFunc(d.Problems, func(p string) bool { return strings.Contains(p, in.summary.Stopped) }) {
		d.Problems = append([]string{"The run stopped: " + in.summary.Stopped}, d.Problems...)
	}
	d.Notices = append(in.packageNotices(), in.notices...)
	return d
}

// rawOf is the line of record i, nil when it is not kept.
func (in *inputs) rawOf(i int) []byte {
	if i < len(in.raw) {
		return in.raw[i]
	}
	return nil
}

// recordKey identifies the record of one run of a case.
type recordKey struct {
	test   string
	repeat int
}

// addProblems adds run problems, leaving out any already there: a test that
// fails the same way in every repeat is one problem.
func (in *inputs) addProblems(problems []string) {
	for _, p := range problems {
		if !slices.Contains(in.problems, p) {
			in.problems = append(in.problems, p)
		}
	}
}

// addNotices adds notices, leaving out any already there.
func (in *inputs) addNotices(notices []string) {
	for _, n := range notices {
		if !slices.Contains(in.notices, n) {
			in.notices = append(in.notices, n)
		}
	}
}

// parentNotices is the output of a test that failed only because some of
// its subtests did, as a notice.
func parentNotices(name string, t TestOutcome) []string {
	if out := strings.TrimSpace(t.Output); out != "" {
		return []string{fmt.Sprintf("%s says:\n%s", name, out)}
	}
	return nil
}

// noticePrefix starts the suite's notices in its output.
const noticePrefix = "mcpeval: notice: "

// packageNotices are the suite's notices in the packages' output, each
// once.
func (in *inputs) packageNotices() []string {
	ev := in.events
	if ev.exec == nil {
		return nil
	}
	var out []string
	for _, name := range ev.exec.Packages() {
		for _, line := range strings.Split(ev.packageOutput(name), "\n") {
			line = strings.TrimSpace(line)
			if n, ok := strings.CutPrefix(line, noticePrefix); ok && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// nonCaseProblems reports a failed run of a test that is not a case: a
// plain test of the package, or a category test failing on its own.
func nonCaseProblems(name string, t TestOutcome, isParent bool) []string {
	if t.Action != string(testjson.ActionFail) {
		return nil
	}
	out := t.Output
	if isParent && out == "" {
		return nil // failed because a case failed
	}
	if t.Unfinished {
		return []string{fmt.Sprintf("%s did not finish.\n%s", name, out)}
	}
	return []string{fmt.Sprintf("%s failed.\n%s", name, out)}
}

// packageProblems reports build errors, non-JSON lines and packages that
// failed outside any test (TestMain, init, panics and timeouts).
func (in *inputs) packageProblems() []string {
	ev := in.events
	var out []string
	if ev.exec == nil {
		return nil
	}
	if build := ev.exec.Errors(); len(build) > 0 {
		out = append(out, "Build output:\n"+strings.TrimRight(strings.Join(build, "\n"), "\n"))
	}
	for _, name := range ev.exec.Packages() {
		text := ev.packageOutput(name)
		if ev.exec.Package(name).Result() == testjson.ActionFail || strings.Contains(text, "panic: ") {
			if s := strings.TrimSpace(text); s != "" && !onlyRoutineLines(s) {
				out = append(out, fmt.Sprintf("Package %s failed:\n%s", name, s))
			}
		}
	}
	if len(ev.stray) > 0 {
		out = append(out, "Lines that are not test events:\n"+strings.Join(ev.stray, "\n"))
	}
	return out
}

// onlyRoutineLines reports whether package output holds only go test's
// closing "FAIL" and "PASS" lines and the suite's own notices ("mcpeval: ..." but not
// "mcpeval: error: ..."), which say nothing the cases do not.
func onlyRoutineLines(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "FAIL", strings.HasPrefix(l, "FAIL\t"), l == "PASS": // PASS: a shard that passed, of a merged run
		case strings.HasPrefix(l, "mcpeval: ") && !strings.HasPrefix(l, "mcpeval: error:"):
		default:
			return false
		}
	}
	return true
}

func (c *Case) setRecord(r *eval.Record) {
	c.Record = r
	c.Repeat = r.Repeat
	c.Name = r.Name
	c.Category = r.Category
	if c.Test == "" {
		c.Test = r.Test
	}
	c.Status = r.Status
	switch r.Status {
	case eval.Pass, eval.Fail, eval.Error, eval.TokenLimit, eval.Cut, eval.Undecided:
	case eval.NotRun: // the budget was spent, the run stopped, or no shard of a split run ran it
	default:
		c.Status = eval.Error
		c.Reason = fmt.Sprintf("record has unknown status %q. ", r.Status)
	}
	c.Reason += r.Reason
	c.Seconds = r.Seconds
	if c.Seconds == 0 {
		c.Seconds = c.Event.Elapsed
	}
}

// maxEventReason bounds the reason of a case known only from its events.
const maxEventReason = 4000

// setFromEvent fills a case that has no record from its test's events.
func (c *Case) setFromEvent(parentCategory map[string]string) {
	name, err := testname.Parse(c.Test)
	if err != nil { // not a case run's name: its last level is the case
		parent := testjson.TestName(c.Test).Parent()
		name = testname.Name{Func: parent, Case: strings.TrimPrefix(c.Test, parent+"/")}
	}
	c.Name, c.Arm = name.Case, name.Arm
	c.Category = cmp.Or(parentCategory[name.Parent()], name.Category, name.Func)
	c.Seconds = c.Event.Elapsed
	out := c.Event.Output
	if len(out) > maxEventReason {
		out = "…" + out[len(out)-maxEventReason:]
	}
	switch {
	case c.Event.Unfinished:
		c.Status = eval.Error
		c.Reason = "The run ended before this case finished; no record was written."
		if out != "" {
			c.Reason += "\n" + out
		}
	case c.Event.Action == string(testjson.ActionPass):
		c.Status = eval.Pass
		c.Reason = out
	case c.Event.Action == string(testjson.ActionSkip) && notRunSkip(out):
		// A case run the run did not run, without its record (the run
		// stopped before any case ran, or its records file refused it).
		c.Status = eval.NotRun
		c.Reason = out
	case c.Event.Action == string(testjson.ActionSkip):
		c.Status = Skip
		c.Reason = out
	default:
		c.Status = eval.Error
		c.Reason = "The test failed without writing a record."
		if out != "" {
			c.Reason += "\n" + out
		}
	}
}

// notRunSkip reports whether a skipped case test's output says the case
// run did not run, as the suite words it ("not run: the run stopped ...",
// or a not-run record's reason, "not started: ..." or "not finished:
// ..."): it is not run, not skipped.
func notRunSkip(out string) bool {
	out = strings.TrimSpace(out)
	for _, p := range []string{"not run: ", "not started: ", "not finished: "} {
		if strings.HasPrefix(out, p) {
			return true
		}
	}
	return false
}

// sortCases orders cases by category, then case file position, then name,
// then repeat.
func sortCases(cases []Case) {
	pos := func(c Case) (string, int) {
		if c.Record == nil {
			return "", 0
		}
		return c.Record.File, c.Record.Line
	}
	sort.SliceStable(cases, func(i, j int) bool {
		a, b := cases[i], cases[j]
		if a.Category != b.Category {
			return a.Category < b.Category
		}
		af, al := pos(a)
		bf, bl := pos(b)
		if af != bf {
			return af < bf
		}
		if al != bl {
			return al < bl
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Repeat < b.Repeat
	})
}

func count(cases []Case) (Totals, []CategoryTotals) {
	var all Totals
	index := map[string]int{}
	var cats []CategoryTotals
	for _, c := range cases {
		all.count(c)
		i, ok := index[c.Category]
		if !ok {
			i = len(cats)
			index[c.Category] = i
			cats = append(cats, CategoryTotals{Name: c.Category})
		}
		cats[i].count(c)
	}
	return all, cats
}

// run fills the header from summary.json, or from records and events.
func (in *inputs) run() (r eval.Summary, fromSummary bool) {
	if s := in.summary; s != nil {
		r := *s
		if r.Seconds == 0 {
			r.Seconds = in.events.seconds()
		}
		if r.Judge == nil {
			r.Judge = stats.Judge(in.records)
		}
		if r.User == nil {
			r.User = stats.User(in.records)
		}
		return r, true
	}
	r = eval.Summary{Started: in.events.first, Seconds: in.events.seconds()}
	span, ran := runSpan(in.records)
	if ran && (r.Started.IsZero() || span.first.Before(r.Started)) {
		r.Started = span.first
	}
	if r.Seconds == 0 && ran {
		r.Seconds = span.end.Sub(r.Started).Seconds()
	}
	for _, rec := range in.records {
		if r.Model == "" {
			r.Model = rec.Model
		}
		if r.JudgeModel == "" {
			r.JudgeModel = rec.JudgeModel
		}
		r.Reference = r.Reference || rec.Reference
		if !rec.Cached { // as in summary.json: an earlier run spent these
			r.Usage.Add(rec.Usage)
		}
	}
	r.CostUSD = r.Usage.CostUSD
	r.Judge, r.User, r.Leaks = stats.Judge(in.records), stats.User(in.records), stats.Leaks(in.records)
	return r, false
}

// span is when the cases of a run started and ended.
type span struct {
	// first and last are the earliest and latest start of a case.
	first, last time.Time
	// end is when the last case to finish ended.
	end time.Time
}

// runSpan is the span of the records' cases that ran in this run. Cached
// records keep the start time of the run that made them and are left out;
// ok is false when no record that ran has a start time.
func runSpan(recs []eval.Record) (s span, ok bool) {
	for _, r := range recs {
		if r.Cached || r.StartedAt.IsZero() {
			continue
		}
		if !ok || r.StartedAt.Before(s.first) {
			s.first = r.StartedAt
		}
		if !ok || r.StartedAt.After(s.last) {
			s.last = r.StartedAt
		}
		if end := r.StartedAt.Add(time.Duration(r.Seconds * float64(time.Second))); !ok || end.After(s.end) {
			s.end = end
		}
		ok = true
	}
	return s, ok
}

// dropForeignSummaries leaves out summary.json, and metrics_summary.json
// with it, when the summary cannot be of the run that wrote the records:
// it started after the first case started or finished before the last case
// started. A run killed before writing its summaries leaves the previous
// run's beside its own records. A re-judged run's records keep the times
// of the run they came from.
func (in *inputs) dropForeignSummaries() {
	s := in.summary
	if s == nil || s.Rejudged != nil {
		return
	}
	cases, ok := runSpan(in.records)
	if !ok {
		return
	}
	startedLater := s.Started.After(cases.first)
	finishedEarlier := !s.Finished.IsZero() && s.Finished.Before(cases.last)
	if !startedLater && !finishedEarlier {
		return
	}
	const layout = "2006-01-02 15:04:05.000 MST"
	problem := fmt.Sprintf("%s belongs to another run\n"+
		"It covers %s to %s, but the cases in %s started from %s to %s. "+
		"The header is derived from the records and test events",
		eval.SummaryFile, s.Started.UTC().Format(layout), s.Finished.UTC().Format(layout),
		eval.RecordsFile, cases.first.UTC().Format(layout), cases.last.UTC().Format(layout))
	if in.metricsSummary != nil {
		problem += "; " + eval.MetricsSummaryFile + ", written with it, is left out"
		in.metricsSummary = nil
	}
	in.summary = nil
	in.problems = append(in.problems, problem+".")
}

// modelNames are the models (arms) of the records and the summary, the
// first up to most of them.
func modelNames(records []eval.Record, summary *eval.Summary, most int) []string {
	var names []string
	add := func(name string) bool {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
		return len(names) >= most
	}
	if summary != nil {
		for _, m := range summary.Models {
			if add(m.Model) {
				return names
			}
		}
	}
	for i := range records {
		if add(records[i].ArmName()) {
			return names
		}
	}
	return names
}

// recordsOf returns the records of the cases that have one.
func recordsOf(cases []Case) []eval.Record {
	var records []eval.Record
	for _, c := range cases {
		if c.Record != nil {
			records = append(records, *c.Record)
		}
	}
	return records
}

// modelsOf compares the models of the records, in the order the summary
// gives; nothing with fewer than two models.
func modelsOf(records []eval.Record, summary *eval.Summary) ([]eval.ModelResult, []eval.ModelPair) {
	if len(modelNames(records, summary, 2)) < 2 {
		return nil, nil
	}
	var order []string
	if summary != nil {
		for _, m := range summary.Models {
			order = append(order, m.Model)
		}
	}
	models, pairs := stats.Models(records, order)
	if len(models) < 2 {
		return nil, nil
	}
	// What the records do not hold: the arm each variant is, and its tool
	// surface.
	if summary != nil {
		for i := range models {
			for _, m := range summary.Models {
				if m.Model == models[i].Model {
					models[i].Arm, models[i].Tools, models[i].ToolTokens = m.Arm, m.Tools, m.ToolTokens
				}
			}
		}
	}
	return models, pairs
}
