package suite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/toolstats"
	"github.com/mcpeval/mcpeval/scoring"
)

// recordWriter appends one JSON line per finished case to results.jsonl,
// written through at once so that a killed run keeps every finished case.
type recordWriter struct {
	mu   sync.Mutex
	log  io.Writer
	f    *os.File
	slim []summaryRecord // what the summary needs of each record
	// metrics holds the scored records' metrics, for metrics.json, and
	// their summary.
	metrics *metricsSpool
	// tools counts each record's tool calls; nil: none.
	tools *toolstats.Collector
	err   error
	// size is how much of the file holds whole records; saved and unsaved
	// count the records written and those that could not be.
	size           int64
	saved, unsaved int
	// started is whether a record of a run that started was written (a
	// status other than not_run).
	started bool
	// onFail, when set, is called once, with the first write error.
	onFail func(error)
}

// createRecords creates results.jsonl in the run directory dir; a run
// directory holds one run, so the file must not exist yet. tools, when not
// nil, counts the tool calls of every record written.
func createRecords(dir string, log io.Writer, tools *toolstats.Collector) (*recordWriter, error) {
	path := filepath.Join(dir, eval.RecordsFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &recordWriter{f: f, log: log, tools: tools, metrics: newMetricsSpool()}, nil
}

// lineBuffers are the buffers records are encoded into before they are
// written.
var lineBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Write appends rec. The first write error is printed to log at once and
// returned by Close.
//
// The record is written before its tool calls are counted (which checks
// their arguments against the tools' input schemas): no check holds up
// the record.
func (w *recordWriter) Write(rec eval.Record) {
	w.write(rec)
	if w.tools != nil {
		w.tools.Add(rec)
	}
}

// WriteCached appends the record of a case run the cache served: rec,
// or, when stored is not nil, the whole record's JSON as the cache stored
// it with rec's identity fields (see cachedLine), rec being the same
// record without its large texts. The summary, metrics and tool
// statistics count rec.
func (w *recordWriter) WriteCached(rec eval.Record, stored []byte) {
	w.writeLine(rec, func(buf *bytes.Buffer) error {
		if stored != nil && cachedLine(buf, rec, stored) {
			return nil
		}
		buf.Reset()
		return json.NewEncoder(buf).Encode(rec)
	})
	if w.tools != nil {
		w.tools.Add(rec)
	}
}

// storedFields starts the fields of a record's JSON that a cached run
// writes as the cache stored them: every field a cached run sets (the
// case's name, category, test, file and line, the repeat, cached, the
// trace) comes before it, except the arm, whose name the caller checks.
var storedFields = []byte(`,"question":`)

// cachedLine writes to buf the results.jsonl line of a cached record:
// rec's fields up to the question, then the stored record's from there.
// It reports false when either has no question field where it should.
func cachedLine(buf *bytes.Buffer, rec eval.Record, stored []byte) bool {
	buf.Reset()
	head := eval.Record{Name: rec.Name, Category: rec.Category, Test: rec.Test, File: rec.File, Line: rec.Line, Kind: rec.Kind,
		Status: rec.Status, Cached: rec.Cached, Regraded: rec.Regraded, Reference: rec.Reference, Repeat: rec.Repeat, TraceID: rec.TraceID}
	if err := json.NewEncoder(buf).Encode(head); err != nil {
		return false
	}
	i, j := bytes.Index(buf.Bytes(), storedFields), bytes.Index(stored, storedFields)
	if i < 0 || j < 0 || stored[len(stored)-1] != '}' {
		return false
	}
	buf.Truncate(i)
	buf.Write(stored[j:])
	buf.WriteByte('\n')
	return true
}

func (w *recordWriter) write(rec eval.Record) {
	w.writeLine(rec, func(buf *bytes.Buffer) error {
		return json.NewEncoder(buf).Encode(rec) // a line: JSON and a newline
	})
}

// writeLine appends the line encode writes for rec, and keeps what the
// summary and metrics need of rec.
func (w *recordWriter) writeLine(rec eval.Record, encode func(*bytes.Buffer) error) {
	buf := lineBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 1<<20 { // a record of a large tool result is not kept
			lineBuffers.Put(buf)
		}
	}()
	buf.Reset()
	err := encode(buf)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil {
		_, err = w.f.Write(buf.Bytes())
	}
	if err == nil {
		w.size += int64(buf.Len())
		w.saved++
	} else {
		w.unsaved++
		w.f.Truncate(w.size) // no partial line before the next record
	}
	if err != nil && w.err == nil {
		w.err = err // an *os.PathError: it names the file
		fmt.Fprintln(w.log, "mcpeval: error:", w.err)
		if w.onFail != nil {
			w.onFail(w.err)
		}
	}
	w.slim = append(w.slim, slim(rec))
	// A case that ran, or began to run before an interrupt cancelled it.
	w.started = w.started || rec.Status != eval.NotRun || strings.HasPrefix(rec.Reason, notFinished)
	if rec.Metrics != nil {
		w.metrics.add(eval.MetricsEntry{Case: rec.Name, Category: rec.Category, Kind: rec.Kind,
			Model: rec.ArmName(), Metrics: *rec.Metrics})
	}
}

// writeMetrics writes the metrics of the records written so far that were
// scored to metrics.json in the run directory dir and returns their
// summary.
func (w *recordWriter) writeMetrics(dir string) (eval.MetricsSummary, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.metrics.summarizer.Summary(), w.metrics.writeTo(filepath.Join(dir, eval.MetricsFile))
}

// summaryRecord is what the run summary needs of a record: its outcome,
// counters and identity, not its texts, conversation or metrics. It takes
// a third of the memory of an eval.Record holding the same (a record is
// kept for each case run until the run ends).
type summaryRecord struct {
	name, category, file, model, arm, judgeModel, userModel string
	kind                                                    eval.Kind
	status                                                  eval.Status
	cached, reference, judgeDisagreement                    bool
	repeat, line                                            int
	seconds                                                 float64
	usage                                                   eval.Usage
	judgeUsage, userUsage                                   *eval.Usage
	calls                                                   []summaryCall
	// turns are the turns whose simulated user leaked a fact, with their
	// number and leaks alone.
	turns []eval.TurnResult
}

// summaryCall is what the summary counts of a tool call: its name, outcome
// and duration, not its arguments or result.
type summaryCall struct {
	name, replay    string
	durationMS      float64
	isError, notRun bool
}

// slim keeps what the run summary needs of a record.
func slim(r eval.Record) summaryRecord {
	s := summaryRecord{
		name: r.Name, category: r.Category, file: r.File, model: r.Model, arm: r.Arm, judgeModel: r.JudgeModel, userModel: r.UserModel,
		kind: r.Kind, status: r.Status, cached: r.Cached, reference: r.Reference, judgeDisagreement: r.JudgeDisagreement,
		repeat: r.Repeat, line: r.Line, seconds: r.Seconds, usage: r.Usage, judgeUsage: r.JudgeUsage, userUsage: r.UserUsage,
	}
	if len(r.ToolCalls) > 0 {
		s.calls = make([]summaryCall, len(r.ToolCalls))
		for i, c := range r.ToolCalls {
			s.calls[i] = summaryCall{name: c.Name, replay: c.Replay, durationMS: c.DurationMS, isError: c.IsError, notRun: c.NotRun}
		}
	}
	for _, t := range r.Turns {
		if len(t.Leaks) > 0 {
			s.turns = append(s.turns, eval.TurnResult{Turn: t.Turn, Leaks: t.Leaks})
		}
	}
	return s
}

// record is the record the summary reads: r's fields, the others empty.
func (s summaryRecord) record() eval.Record {
	calls := make([]eval.ToolCall, len(s.calls))
	for i, c := range s.calls {
		calls[i] = eval.ToolCall{Name: c.name, IsError: c.isError, NotRun: c.notRun, DurationMS: c.durationMS, Replay: c.replay}
	}
	return eval.Record{
		Name: s.name, Category: s.category, Kind: s.kind, Status: s.status, Cached: s.cached, Model: s.model, Arm: s.arm,
		Repeat: s.repeat, File: s.file, Line: s.line, ToolCalls: calls,
		Reference: s.reference, Usage: s.usage, JudgeUsage: s.judgeUsage, JudgeModel: s.judgeModel, Seconds: s.seconds,
		JudgeDisagreement: s.judgeDisagreement, UserUsage: s.userUsage, UserModel: s.userModel, Turns: s.turns,
	}
}

// keepsNotStarted reports whether the runs a stop left unstarted are
// recorded: once a run that started was written, and while the file
// takes records.
func (w *recordWriter) keepsNotStarted() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started && w.err == nil
}

// counts returns how many records were written, and how many could not be.
func (w *recordWriter) counts() (saved, unsaved int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.saved, w.unsaved
}

// records returns the records written so far, reduced to their outcome and
// counters.
func (w *recordWriter) records() []eval.Record {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]eval.Record, len(w.slim))
	for i, s := range w.slim {
		out[i] = s.record()
	}
	return out
}

// Close closes the file.
func (w *recordWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.metrics.close()
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = err
	}
	return w.err
}

// metricsSpool keeps the metrics entries of a run out of memory until
// metrics.json is written: each is encoded, as metrics.json holds it, into
// a temporary file as it comes, and summarized. A run of many cases keeps
// no entry in memory.
type metricsSpool struct {
	summarizer *scoring.Summarizer
	entries    int
	// f is the temporary file, nil before the first entry, written
	// through w (the file is read only once, to write metrics.json);
	// removed is whether it was removed already (it stays readable while
	// open), else close removes it.
	f       *os.File
	w       *bufio.Writer
	removed bool
	// err is the first error of the spool: metrics.json is then not
	// written.
	err error
}

func newMetricsSpool() *metricsSpool { return &metricsSpool{summarizer: scoring.NewSummarizer()} }

// add encodes e into the file and summarizes it.
func (m *metricsSpool) add(e eval.MetricsEntry) {
	m.summarizer.Add(e)
	if m.err != nil {
		return
	}
	if m.f == nil {
		if m.f, m.err = os.CreateTemp("", "mcpeval-metrics-*.json"); m.err != nil {
			m.err = fmt.Errorf("metrics: %w", m.err)
			return
		}
		m.removed = os.Remove(m.f.Name()) == nil
		m.w = bufio.NewWriterSize(m.f, 64<<10)
	}
	// As an item of json.Encoder's indented list: indented one level
	// further, after a comma but for the first.
	// encoding/json's output (for valid UTF-8: invalid bytes become
	// U+FFFD itself, not \ufffd), in a third of its time.
	data, err := jsonv1.MarshalIndent(e, "  ", "  ")
	if err == nil && m.entries > 0 {
		_, err = m.w.WriteString(",\n  ")
	}
	if err == nil {
		_, err = m.w.Write(data)
	}
	if err != nil {
		m.err = fmt.Errorf("metrics: %w", err)
		return
	}
	m.entries++
}

// writeTo writes the entries to path as an indented JSON list, the bytes
// of files.WriteJSON of them.
func (m *metricsSpool) writeTo(path string) error {
	if m.err != nil {
		return m.err
	}
	return files.WriteAtomic(path, 0o644, func(w io.Writer) error {
		if m.entries == 0 {
			_, err := io.WriteString(w, "[]\n")
			return err
		}
		if _, err := io.WriteString(w, "[\n  "); err != nil {
			return err
		}
		if err := m.w.Flush(); err != nil {
			return err
		}
		if _, err := m.f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.Copy(w, m.f); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n]\n")
		return err
	})
}

// close closes and removes the file.
func (m *metricsSpool) close() {
	if m.f == nil {
		return
	}
	m.f.Close()
	if !m.removed {
		os.Remove(m.f.Name())
	}
	m.f = nil
}

// writeJSONFile writes v as indented JSON to dir/name, atomically.
func writeJSONFile(dir, name string, v any) error {
	return files.WriteJSON(filepath.Join(dir, name), v)
}
