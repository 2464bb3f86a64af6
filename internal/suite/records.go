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

	"github.com/mcpeval/mcpeval/internal/result"
)

// RecordWriter appends one JSON line per finished case to results.jsonl,
// written through at once so that a killed run keeps every finished case.
type RecordWriter struct {
	mu   sync.Mutex
	log  io.Writer
	f    *os.File
	slim []result.Record // records without conversation, for the summary
	err  error
}

// CreateRecords creates (or truncates) results.jsonl in dir and removes the
// previous run's summary and metrics, so that the directory never mixes
// two runs even when this one is killed before writing its own.
func CreateRecords(dir string, log io.Writer) (*RecordWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	for _, name := range []string{result.SummaryFile, result.MetricsFile, result.MetricsSummaryFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("remove the previous run's %s: %w", name, err)
		}
	}
	path := filepath.Join(dir, result.RecordsFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &RecordWriter{f: f, log: log}, nil
}

// Write appends rec. The first write error is printed to log at once and
// returned by Close.
func (w *RecordWriter) Write(rec result.Record) {
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
}

// slim keeps what the run summary needs of a record: outcome, counters and
// identity, not its texts, conversation or metrics.
func slim(r result.Record) result.Record {
	return result.Record{
		Name: r.Name, Category: r.Category, Kind: r.Kind, Status: r.Status, Cached: r.Cached,
		Reference: r.Reference, Usage: r.Usage, Seconds: r.Seconds, Retries: r.Retries,
	}
}

// Records returns the records written so far, reduced to their outcome and
// counters.
func (w *RecordWriter) Records() []result.Record {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]result.Record(nil), w.slim...)
}

// Close closes the file.
func (w *RecordWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = err
	}
	return w.err
}

// writeJSONFile writes v as indented JSON to dir/name, atomically.
func writeJSONFile(dir, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	path := filepath.Join(dir, name)
	tmp, err := os.CreateTemp(dir, name+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
