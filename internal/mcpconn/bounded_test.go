package mcpconn

import (
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBoundedReader(t *testing.T) {
	t.Parallel()
	const max = 64
	big := strings.Repeat("x", 200)
	tooLarge := string(errorResponse([]byte("7"), max))
	tests := []struct {
		name string
		end  messageEnd
		in   string
		want string
	}{
		{"lines pass", endOfLine, "{\"id\":1}\n{\"id\":2}\r\n", "{\"id\":1}\n{\"id\":2}\r\n"},
		{"a long line is answered by its id", endOfLine, `{"jsonrpc":"2.0","id":7,"result":"` + big + "\"}\n{\"id\":8}\n", tooLarge + "\n{\"id\":8}\n"},
		{"a long line without an id is dropped", endOfLine, `{"method":"notify","params":"` + big + "\"}\n{\"id\":8}\n", "{\"id\":8}\n"},
		{"a line without end", endOfLine, `{"id":7,"result":"` + big + big + big, tooLarge + "\n"},
		{"the last line without newline", endOfLine, "{\"id\":1}\n{\"id\":2}", "{\"id\":1}\n{\"id\":2}"},
		{"events pass", endOfEvent, "event: message\ndata: {\"id\":1}\n\ndata: {}\n\n", "event: message\ndata: {\"id\":1}\n\ndata: {}\n\n"},
		{"a long event", endOfEvent, "event: message\ndata: {\"id\":7,\"result\":\"" + big + "\"}\n\ndata: {}\n\n", "event: message\ndata: " + tooLarge + "\n\ndata: {}\n\n"},
		{"an event long over many lines", endOfEvent, "data: {\"id\":7,\ndata: " + strings.Repeat("\"x\":1,\ndata: ", 30) + "}\n\n", "event: message\ndata: " + tooLarge + "\n\n"},
		{"a body", endOfBody, "{\"id\":1,\n\"result\":{}}\n", "{\"id\":1,\n\"result\":{}}\n"},
		{"a long body", endOfBody, "{\"id\":7,\"result\":\"" + big + "\"}", tooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replace := replaceLine(max)
			if tt.end != endOfLine {
				replace = replaceHTTP(max, tt.end, nil)
			}
			r := newBoundedReader(io.NopCloser(strings.NewReader(tt.in)), max, tt.end, replace)
			got, err := io.ReadAll(r)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

// A tool result over the message limit fails its call, saying why, over
// every transport; the server goes on serving.
func TestOversizedToolResultIsNotRead(t *testing.T) {
	t.Parallel()
	for _, tt := range allTransports(t) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			opts.MaxMessageBytes = 1 << 20
			set := connect(t, []string{tt.spec}, opts)
			_, err := set.Call(context.Background(), "echo", map[string]any{"text": "abcdefgh", "repeat": 300_000})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "tool echo: the server's reply is larger than the 1 MiB an MCP message may have; it was not read")
			assert.Equal(t, Result{Text: "ok"}, call(t, set, "echo", map[string]any{"text": "ok"}), "the server still serves")
		})
	}
}

// A line that never ends is skipped as it comes, not buffered: the call
// times out and the server is restarted, with memory bounded.
func TestEndlessLineIsNotBuffered(t *testing.T) {
	set := connectStdio(t, modeTools, Options{CallTimeout: 2 * time.Second, MaxMessageBytes: 1 << 20})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := set.Call(context.Background(), "flood", nil)
	runtime.ReadMemStats(&after)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "timed out")
	allocated := after.TotalAlloc - before.TotalAlloc
	assert.Less(t, allocated, uint64(64<<20), "bytes allocated while the server wrote its endless line")
	assert.Equal(t, Result{Text: "ok"}, call(t, set, "echo", map[string]any{"text": "ok"}), "the restarted server serves")
}
