package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/files"
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
	err     error
}

// createRecords creates (or truncates) results.jsonl in dir and removes the
// previous run's summary and metrics, so that the directory never mixes
// two runs even when this one is killed before writing its own.
func createRecords(dir string, log io.Writer) (*recordWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	for _, name := range []string{eval.SummaryFile, eval.MetricsFile, eval.MetricsSummaryFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("remove the previous run's %s: %w", name, err)
		}
	}
	path := filepath.Join(dir, eval.RecordsFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &recordWriter{f: f, log: log}, nil
}

// Write appends rec. The first write error is printed to log at once and
// returned by Close.
func (w *recordWriter) Write(rec eval.Record) {
	line, err := json.Marshal(rec)
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil {
		_, err = w.f.Write(line)
	}
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("write %s: %w", w.f.Name(), err)
		fmt.Fprintln(w.log, "mcpeval: error:", w.err)
	}
	w.slim = append(w.slim, slim(rec))
	if rec.Metrics != nil {
		w.metrics = append(w.metrics, eval.MetricsEntry{Case: rec.Name, Category: rec.Category, Kind: rec.Kind,
			Model: rec.Model, Metrics: *rec.Metrics})
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
		Name: r.Name, Category: r.Category, Kind: r.Kind, Status: r.Status, Cached: r.Cached,
		Reference: r.Reference, Usage: r.Usage, Seconds: r.Seconds, Retries: r.Retries,
		JudgeDisagreement: r.JudgeDisagreement,
	}
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
