package mcpconn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/gosdkprobe"
)

// modeWire serves the test tools and meta, which returns what its call
// brought the server, and records every line the server reads in the
// file framesEnv names.
const (
	modeWire  = "wire"
	framesEnv = "MCPCONN_TEST_FRAMES"
)

func serveWire() int {
	frames, err := os.OpenFile(os.Getenv(framesEnv), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer frames.Close()
	s := newTestServer(modeTools, true)
	s.AddTool(mcp.NewTool("meta", mcp.WithDescription("Returns the progress token, protocol revision and client of its call, and reports progress to a call with a token."),
		mcp.WithString("text")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			seen := map[string]any{"text": req.GetString("text", "")}
			if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
				token := req.Params.Meta.ProgressToken
				seen["progressToken"] = token
				err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress),
					map[string]any{"progressToken": token, "progress": 1, "total": 1})
				if err != nil {
					return nil, err
				}
			}
			if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
				seen["protocol"] = info.ProtocolVersion
				if info.ClientInfo != nil {
					seen["client"] = info.ClientInfo.Name
				}
			}
			b, err := json.Marshal(seen)
			return mcp.NewToolResultText(string(b)), err
		})
	stdio := server.NewStdioServer(s)
	if err := stdio.Listen(context.Background(), io.TeeReader(os.Stdin, frames), os.Stdout); err != nil && err != io.EOF {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}

// connectHeld connects to the server of spec held to a protocol revision.
func connectHeld(t *testing.T, spec, protocol string, opts Options) *Server {
	t.Helper()
	parsed, err := ParseSpec(spec)
	require.NoError(t, err)
	parsed.Protocol = protocol
	s, err := ConnectSpec(context.Background(), parsed, opts)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	require.Equal(t, protocol, s.Protocol())
	return s
}

// progressOf returns a channel that receives the progress notifications
// of the server's connection.
func progressOf(s *Server) <-chan mcp.JSONRPCNotification {
	ch := make(chan mcp.JSONRPCNotification, 8)
	s.conn.client.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			ch <- n
		}
	})
	return ch
}

// receiveProgress waits for a progress notification and returns its token.
func receiveProgress(t *testing.T, ch <-chan mcp.JSONRPCNotification) any {
	t.Helper()
	select {
	case n := <-ch:
		return n.Params.AdditionalFields["progressToken"]
	case <-time.After(10 * time.Second):
		t.Fatal("no progress notification")
		return nil
	}
}

// frame is a JSON-RPC message as a server reads it.
type frame struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  map[string]any  `json:"params"`
}

// readFrames returns the messages recorded in path, each a line of one
// JSON object and nothing else.
func readFrames(t *testing.T, path string) []frame {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []frame
	for line := range strings.Lines(string(data)) {
		require.True(t, strings.HasSuffix(line, "\n"), "a message ends its line: %q", line)
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var f frame
		require.NoError(t, dec.Decode(&f), "a message is a JSON object: %s", line)
		require.False(t, dec.More(), "a line holds one message: %s", line)
		require.Equal(t, "2.0", f.JSONRPC, line)
		out = append(out, f)
	}
	return out
}

// A plain call over stdio goes to the transport directly (see
// directCaller): on both revisions its tools/call request is the one
// mcp-go's CallTool sends, the id aside, a progress token in its _meta
// reaches the server beside the protocol's metadata, and a call whose
// context ends is cancelled with notifications/cancelled.
func TestDirectCallsOnTheWire(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{mcp.LATEST_PROTOCOL_VERSION, mcp.LATEST_LEGACY_PROTOCOL_VERSION} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			frames := filepath.Join(t.TempDir(), "frames")
			spec, opts := stdioSpec(t, modeWire, Options{})
			opts.Env = append(opts.Env, framesEnv+"="+frames)
			s := connectHeld(t, spec, protocol, opts)
			cn := s.conn
			require.NotNil(t, cn.direct, "stdio calls go to the transport")
			progress := progressOf(s)
			ctx := context.Background()

			args := map[string]any{"text": "a<b & \"c\" é"}
			res, err := s.Call(ctx, "echo", args)
			require.NoError(t, err)
			assert.Equal(t, args["text"], res.Text)
			viaMCPGo := mcp.CallToolRequest{}
			viaMCPGo.Params.Name, viaMCPGo.Params.Arguments = "echo", args
			_, err = cn.client.CallTool(ctx, viaMCPGo)
			require.NoError(t, err)

			withToken := mcp.CallToolRequest{}
			withToken.Params.Name, withToken.Params.Arguments = "meta", map[string]any{"text": "hi"}
			withToken.Params.Meta = &mcp.Meta{ProgressToken: "token-7", AdditionalFields: map[string]any{"trace": "t1"}}
			got, err := cn.callTool(ctx, withToken)
			require.NoError(t, err)
			seen := map[string]any{}
			require.NoError(t, json.Unmarshal([]byte(got.Content[0].(mcp.TextContent).Text), &seen))
			want := map[string]any{"text": "hi", "progressToken": "token-7"}
			if mcp.IsModernProtocol(protocol) {
				want["protocol"], want["client"] = protocol, clientInfo.Name
			}
			assert.Equal(t, want, seen, "what the server saw of the call")
			assert.Equal(t, "token-7", receiveProgress(t, progress), "the server reported progress on the token")
			_, err = cn.client.CallTool(ctx, withToken)
			require.NoError(t, err)
			assert.Equal(t, "token-7", receiveProgress(t, progress))

			// The caller gives up once the server has the call.
			cancelled, cancel := context.WithCancel(ctx)
			defer cancel()
			go func() {
				defer cancel()
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
					if data, _ := os.ReadFile(frames); bytes.Contains(data, []byte(`"name":"slow"`)) {
						return
					}
				}
			}()
			_, err = s.Call(cancelled, "slow", map[string]any{"ms": 30000})
			require.ErrorIs(t, err, context.Canceled)

			var calls []frame
			var cancels []frame
			require.Eventually(t, func() bool {
				calls, cancels = nil, nil
				for _, f := range readFrames(t, frames) {
					switch f.Method {
					case string(mcp.MethodToolsCall):
						calls = append(calls, f)
					case string(mcp.MethodNotificationCancelled):
						cancels = append(cancels, f)
					}
				}
				return len(cancels) > 0
			}, 10*time.Second, 20*time.Millisecond, "the cancelled call is cancelled on the wire")
			require.Len(t, calls, 5)
			ids := map[string]bool{}
			for _, f := range calls {
				var id int64
				require.NoError(t, json.Unmarshal(f.ID, &id), "an id is an integer: %s", f.ID)
				assert.Less(t, id, int64(1)<<53, "an id a JavaScript server reads exactly")
				assert.False(t, ids[string(f.ID)], "ids differ")
				ids[string(f.ID)] = true
			}
			assert.Equal(t, calls[1].Params, calls[0].Params, "a plain call as mcp-go sends it")
			assert.Equal(t, calls[3].Params, calls[2].Params, "a call with _meta as mcp-go sends it")
			meta, _ := calls[2].Params["_meta"].(map[string]any)
			assert.Equal(t, "token-7", meta["progressToken"])
			assert.Equal(t, "t1", meta["trace"])
			if mcp.IsModernProtocol(protocol) {
				assert.Equal(t, protocol, meta[mcp.MetaKeyProtocolVersion])
				assert.Equal(t, map[string]any{"name": "mcpeval", "version": "1"}, meta[mcp.MetaKeyClientInfo])
				assert.Contains(t, meta, mcp.MetaKeyClientCapabilities)
				plain, _ := calls[0].Params["_meta"].(map[string]any)
				assert.Equal(t, []string{mcp.MetaKeyClientCapabilities, mcp.MetaKeyClientInfo, mcp.MetaKeyProtocolVersion}, sortedKeys(plain))
			} else {
				assert.NotContains(t, calls[0].Params, "_meta", "no _meta before 2026-07-28 unless the call has one")
			}
			assert.Equal(t, map[string]any{"text": "a<b & \"c\" é"}, calls[0].Params["arguments"])
			require.Len(t, cancels, 1)
			assert.Equal(t, string(calls[4].ID), fmt.Sprint(cancels[0].Params["requestId"]), "the cancellation names the call")
			assert.Equal(t, context.Canceled.Error(), cancels[0].Params["reason"])
		})
	}
}

func sortedKeys(m map[string]any) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// The official Go SDK's server, which no one here wrote, accepts the
// direct calls on both revisions: it gets their arguments, and the
// progress token a call gives, beside the protocol's metadata on
// 2026-07-28, and reports progress on it.
func TestDirectCallsAcceptedByTheGoSDK(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a server on the official Go SDK")
	}
	bin := gosdkprobe.Build(t, "./progress")
	for _, protocol := range []string{mcp.LATEST_PROTOCOL_VERSION, mcp.LATEST_LEGACY_PROTOCOL_VERSION} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			s := connectHeld(t, shellQuote(bin), protocol, Options{})
			require.NotNil(t, s.conn.direct)
			progress := progressOf(s)
			type echoed struct {
				Text string         `json:"text"`
				Meta map[string]any `json:"meta"`
			}
			read := func(res *mcp.CallToolResult) echoed {
				t.Helper()
				require.False(t, res.IsError, "%+v", res.Content)
				var e echoed
				require.NoError(t, json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &e))
				return e
			}

			res, err := s.Call(context.Background(), "echo", map[string]any{"text": "a<b"})
			require.NoError(t, err)
			var plain echoed
			require.NoError(t, json.Unmarshal([]byte(res.Text), &plain))
			assert.Equal(t, "a<b", plain.Text)

			req := mcp.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = "echo", map[string]any{"text": "hi"}
			req.Params.Meta = &mcp.Meta{ProgressToken: 42}
			got, err := s.conn.callTool(context.Background(), req)
			require.NoError(t, err)
			withToken := read(got)
			assert.Equal(t, "hi", withToken.Text)
			assert.Equal(t, float64(42), withToken.Meta["progressToken"])
			assert.Equal(t, float64(42), receiveProgress(t, progress))
			for _, meta := range []map[string]any{plain.Meta, withToken.Meta} {
				if mcp.IsModernProtocol(protocol) {
					assert.Equal(t, protocol, meta[mcp.MetaKeyProtocolVersion])
					assert.Equal(t, map[string]any{"name": "mcpeval", "version": "1"}, meta[mcp.MetaKeyClientInfo])
				} else {
					assert.NotContains(t, meta, mcp.MetaKeyProtocolVersion)
				}
			}
		})
	}
}

// parseCallToolResult reads every result as mcp.ParseCallToolResult does:
// the same values, the same errors.
func TestParseCallToolResultAsMCPGo(t *testing.T) {
	t.Parallel()
	results := []string{
		`{"content":[{"type":"text","text":"a\n\"b\""}]}`,
		`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"content":[{"type":"text","text":"x"}],"resultType":"complete"}`,
		`{"content":[{"type":"text","text":"x","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":1}},{"type":"text","text":"y"}],"isError":true}`,
		`{"content":[{"type":"text","text":"{\"t\":1}"}],"structuredContent":{"t":1}}`,
		`{"content":[{"type":"text","text":"x"}],"structuredContent":null}`,
		`{"content":[{"type":"text","text":"x"},{"type":"image","data":"iVBO","mimeType":"image/png"}]}`,
		`{"content":[{"type":"resource_link","uri":"test://a","name":"a","mimeType":"text/plain"}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"test://a","text":"t"}}]}`,
		`{"content":[{"type":"audio","data":"AAAA","mimeType":"audio/wav"}]}`,
		`{"content":[]}`,
		`{"content":null}`,
		`{"content":null,"isError":true}`,
		`{}`,
		`{"isError":true}`,
		`{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}},"requestState":"s1"}`,
		`{"content":"text"}`,
		`{"content":[{"type":"video","text":"x"}]}`,
		`{"content":[{"text":"no type"}]}`,
		`{"content":[{"type":1,"text":"x"}]}`,
		`{"content":[{"type":"text","text":5}]}`,
		`{"content":[{"type":"text","text":"x","annotations":"loud"}]}`,
		`{"content":[{"type":"text","text":"x"}],"isError":"yes"}`,
		`{"isError":"yes"}`,
		`{"content":[{"type":"text","text":"x"}],"resultType":7}`,
		`{"content":[{"type":"text","text":"x"}],"_meta":[]}`,
		`{"content":[{"type":"text","text":"x"}]`,
		`[]`,
		`null`,
	}
	for _, raw := range results {
		want, wantErr := mcp.ParseCallToolResult(ptr(json.RawMessage(raw)))
		got, err := parseCallToolResult(json.RawMessage(raw))
		if wantErr != nil {
			assert.EqualError(t, err, wantErr.Error(), raw)
			assert.Nil(t, got, raw)
			continue
		}
		if assert.NoError(t, err, raw) {
			assert.Equal(t, want, got, raw)
		}
	}
}

// The messages the connection reads go where mcp-go's transport sends
// them, however they are written: answers to their requests (a number id
// or a string one, members in any order, extra members), the server's
// requests and notifications to their handlers; a line that is no
// message is skipped.
func TestJSONRPCStreamDispatch(t *testing.T) {
	t.Parallel()
	serverOut, clientIn := io.Pipe()
	clientOut, serverIn := io.Pipe()
	s := newJSONRPCStream(serverOut, serverIn)
	notes := make(chan mcp.JSONRPCNotification, 4)
	s.SetNotificationHandler(func(n mcp.JSONRPCNotification) { notes <- n })
	s.SetRequestHandler(func(_ context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		return transport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{"roots":[]}`)), nil
	})
	require.NoError(t, s.Start(context.Background()))
	defer s.Close()
	sent := bufio.NewReader(clientOut)

	type answer struct {
		resp *transport.JSONRPCResponse
		err  error
	}
	ask := func(id any) <-chan answer {
		ch := make(chan answer, 1)
		go func() {
			resp, err := s.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: "tools/call"})
			ch <- answer{resp, err}
		}()
		line, err := sent.ReadBytes('\n')
		require.NoError(t, err)
		require.Contains(t, string(line), `"method":"tools/call"`)
		return ch
	}
	write := func(line string) {
		_, err := io.WriteString(clientIn, line+"\n")
		require.NoError(t, err)
	}

	num := ask(int64(1) << 52)
	str := ask("s-1")
	write(`not json`)
	write(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`)
	write(`{"result":{"content":[]},"extra":{"x":1},"id":"s-1","jsonrpc":"2.0"}`)
	write(`{"jsonrpc":"2.0","id":4503599627370496,"error":{"code":-32602,"message":"bad"}}`)
	got := <-str
	require.NoError(t, got.err)
	assert.Equal(t, `{"content":[]}`, string(got.resp.Result))
	got = <-num
	require.NoError(t, got.err)
	require.NotNil(t, got.resp.Error)
	assert.Equal(t, "bad", got.resp.Error.Message)
	n := <-notes
	assert.Equal(t, "notifications/progress", n.Method)
	assert.Equal(t, "p", n.Params.AdditionalFields["progressToken"])

	write(`{"jsonrpc":"2.0","id":9,"method":"roots/list"}`)
	line, err := sent.ReadBytes('\n')
	require.NoError(t, err)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":9,"result":{"roots":[]}}`, string(bytes.TrimSpace(line)), "the server's request is answered")

	waiting := ask(int64(5))
	clientIn.Close() // the server is gone
	got = <-waiting
	assert.ErrorIs(t, got.err, transport.ErrTransportClosed)
}
