package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/toolstats"
)

// recordWriter appends one JSON line per finished case to results.jsonl,
// written through at once so that a killed run keeps every finished case.
type recordWriter struct {
	mu   sync.Mutex
	log  io.Writer
	f    *os.File
	slim []eval.Record // records without conversation, for the summary
	// metrics are the scored records' metrics, for metrics.json.
	metrics []eval.MetricsEntry
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
	return &recordWriter{f: f, log: log, tools: tools}, nil
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
		w.metrics = append(w.metrics, eval.MetricsEntry{Case: rec.Name, Category: rec.Category, Kind: rec.Kind,
			Model: rec.ArmName(), Metrics: *rec.Metrics})
	}
}

// metricsEntries returns the metrics of the records written so far that
// were scored.
func (w *recordWriter) metricsEntries() []eval.MetricsEntry {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]eval.MetricsEntry{}, w.metrics...)
}

// slim keeps what the run summary needs of a record: outcome, counters and
// identity, not its texts, conversation or metrics.
func slim(r eval.Record) eval.Record {
	return eval.Record{
		Name: r.Name, Category: r.Category, Kind: r.Kind, Status: r.Status, Cached: r.Cached, Model: r.Model, Arm: r.Arm,
		Repeat: r.Repeat, File: r.File, Line: r.Line, ToolCalls: slimCalls(r.ToolCalls),
		Reference: r.Reference, Usage: r.Usage, JudgeUsage: r.JudgeUsage, JudgeModel: r.JudgeModel, Seconds: r.Seconds,
		JudgeDisagreement: r.JudgeDisagreement, UserUsage: r.UserUsage, UserModel: r.UserModel, Turns: slimTurns(r.Turns),
	}
}

// slimTurns keeps of a conversation's turns those whose simulated user
// leaked a fact, with their number and leaks alone.
func slimTurns(turns []eval.TurnResult) []eval.TurnResult {
	var out []eval.TurnResult
	for _, t := range turns {
		if len(t.Leaks) > 0 {
			out = append(out, eval.TurnResult{Turn: t.Turn, Leaks: t.Leaks})
		}
	}
	return out
}

// slimCalls keeps of tool calls what the summary counts: names, outcomes
// and durations, not arguments or results.
func slimCalls(calls []eval.ToolCall) []eval.ToolCall {
	out := make([]eval.ToolCall, len(calls))
	for i, c := range calls {
		out[i] = eval.ToolCall{Name: c.Name, IsError: c.IsError, NotRun: c.NotRun, DurationMS: c.DurationMS, Replay: c.Replay}
	}
	return out
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
	return append([]eval.Record(nil), w.slim...)
}

// Close closes the file.
func (w *recordWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = err
	}
	return w.err
}

// writeJSONFile writes v as indented JSON to dir/name, atomically.
func writeJSONFile(dir, name string, v any) error {
	return files.WriteJSON(filepath.Join(dir, name), v)
}
