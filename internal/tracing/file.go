package tracing

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// fileClient is an otlptrace.Client that writes each batch as one line of
// OTLP JSON, the JSON encoding of an ExportTraceServiceRequest, as a
// collector's file exporter writes it and an OTLP/HTTP JSON receiver
// reads it. The spans are converted to OTLP by the SDK's OTLP exporter
// (otlptrace.New); the encoding is protojson's, with the one difference
// OTLP JSON makes: trace and span ids in hex, not base64. Its file may be
// named after the export started (a run's directory is made once its
// servers are connected): batches exported before are kept until then.
type fileClient struct {
	mu      sync.Mutex
	path    string
	f       *os.File
	pending [][]byte // lines exported before the file was named
	stopped bool
}

func (c *fileClient) Start(context.Context) error { return nil }

// open names the file, creates it, and writes what was exported before.
func (c *fileClient) open(path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.f != nil:
		return fmt.Errorf("the traces file %s: already writing %s", path, c.path)
	case c.stopped:
		return fmt.Errorf("the traces file %s: the export has ended", path)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("the traces file: %w", err)
	}
	c.path, c.f = path, f
	for _, line := range c.pending {
		if _, err := f.Write(line); err != nil {
			return fmt.Errorf("the traces file: %w", err)
		}
	}
	c.pending = nil
	return nil
}

func (c *fileClient) Stop(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped, c.pending = true, nil
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}

var jsonOptions = protojson.MarshalOptions{UseEnumNumbers: true}

func (c *fileClient) UploadTraces(_ context.Context, spans []*tracepb.ResourceSpans) error {
	line, err := EncodeJSON(spans)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.stopped:
		return fmt.Errorf("the traces file %s is closed", c.path)
	case c.f == nil:
		c.pending = append(c.pending, line)
		return nil
	}
	if _, err := c.f.Write(line); err != nil {
		return fmt.Errorf("the traces file: %w", err)
	}
	return nil
}

// EncodeJSON encodes resource spans as OTLP JSON: an
// ExportTraceServiceRequest in protojson's encoding with lowerCamelCase
// names, enums as numbers, and ids in hex.
func EncodeJSON(spans []*tracepb.ResourceSpans) ([]byte, error) {
	b, err := jsonOptions.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: spans})
	if err != nil {
		return nil, fmt.Errorf("encoding spans as OTLP JSON: %w", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("encoding spans as OTLP JSON: %w", err)
	}
	hexIDs(doc)
	return json.Marshal(doc)
}

// idFields are the fields of OTLP's spans, span links and log records
// that hold ids: protojson writes them in base64, OTLP JSON in hex.
var idFields = map[string]bool{"traceId": true, "spanId": true, "parentSpanId": true}

func hexIDs(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && idFields[k] {
				if b, err := base64.StdEncoding.DecodeString(s); err == nil {
					v[k] = hex.EncodeToString(b)
				}
				continue
			}
			hexIDs(x)
		}
	case []any:
		for _, x := range v {
			hexIDs(x)
		}
	}
}
