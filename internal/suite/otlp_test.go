package suite_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// otlpSpan is a span of an OTLP JSON file (the suite's file exporter's,
// or a collector's), its attributes and its events' flattened.
type otlpSpan struct {
	Name, TraceID, SpanID, ParentSpanID, Service string
	Kind                                         int
	Attrs                                        map[string]any
	Events                                       []otlpEvent
}

type otlpEvent struct {
	Name  string
	Attrs map[string]any
}

type otlpKeyValue struct {
	Key   string `json:"key"`
	Value struct {
		StringValue *string  `json:"stringValue"`
		IntValue    *string  `json:"intValue"`
		DoubleValue *float64 `json:"doubleValue"`
		BoolValue   *bool    `json:"boolValue"`
		ArrayValue  *struct {
			Values []json.RawMessage `json:"values"`
		} `json:"arrayValue"`
	} `json:"value"`
}

func otlpAttrs(kvs []otlpKeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		v := kv.Value
		switch {
		case v.StringValue != nil:
			m[kv.Key] = *v.StringValue
		case v.IntValue != nil:
			m[kv.Key] = *v.IntValue // OTLP JSON writes 64-bit integers as strings
		case v.DoubleValue != nil:
			m[kv.Key] = *v.DoubleValue
		case v.BoolValue != nil:
			m[kv.Key] = *v.BoolValue
		case v.ArrayValue != nil:
			var items []string
			for _, raw := range v.ArrayValue.Values {
				var s struct{ StringValue string }
				_ = json.Unmarshal(raw, &s)
				items = append(items, s.StringValue)
			}
			m[kv.Key] = items
		}
	}
	return m
}

// readOTLP reads every span of a file of OTLP JSON lines.
func readOTLP(t *testing.T, path string) []otlpSpan {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var spans []otlpSpan
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var req struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []otlpKeyValue `json:"attributes"`
				} `json:"resource"`
				ScopeSpans []struct {
					Spans []struct {
						Name         string         `json:"name"`
						TraceID      string         `json:"traceId"`
						SpanID       string         `json:"spanId"`
						ParentSpanID string         `json:"parentSpanId"`
						Kind         int            `json:"kind"`
						Attributes   []otlpKeyValue `json:"attributes"`
						Events       []struct {
							Name       string         `json:"name"`
							Attributes []otlpKeyValue `json:"attributes"`
						} `json:"events"`
					} `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &req), "a line of OTLP JSON in %s", path)
		for _, rs := range req.ResourceSpans {
			service, _ := otlpAttrs(rs.Resource.Attributes)["service.name"].(string)
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					sp := otlpSpan{Name: s.Name, TraceID: s.TraceID, SpanID: s.SpanID, ParentSpanID: s.ParentSpanID,
						Service: service, Kind: s.Kind, Attrs: otlpAttrs(s.Attributes)}
					for _, e := range s.Events {
						sp.Events = append(sp.Events, otlpEvent{Name: e.Name, Attrs: otlpAttrs(e.Attributes)})
					}
					spans = append(spans, sp)
				}
			}
		}
	}
	require.NoError(t, sc.Err())
	return spans
}

// spanTree indexes spans by id, and their children by parent id.
type spanTree struct {
	byID     map[string]otlpSpan
	children map[string][]otlpSpan
}

func newSpanTree(spans []otlpSpan) spanTree {
	tr := spanTree{byID: map[string]otlpSpan{}, children: map[string][]otlpSpan{}}
	for _, s := range spans {
		tr.byID[s.SpanID] = s
		tr.children[s.ParentSpanID] = append(tr.children[s.ParentSpanID], s)
	}
	return tr
}

// named returns the spans of that name among spans.
func named(spans []otlpSpan, name string) []otlpSpan {
	var out []otlpSpan
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// below returns every span beneath root, depth first.
func (tr spanTree) below(root otlpSpan) []otlpSpan {
	var out []otlpSpan
	for _, c := range tr.children[root.SpanID] {
		out = append(out, c)
		out = append(out, tr.below(c)...)
	}
	return out
}
