package mcpconn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// legacyVersions are the revisions of the initialize era.
func legacyVersions() []string {
	var out []string
	for _, v := range mcp.ValidProtocolVersions {
		if !mcp.IsModernProtocol(v) {
			out = append(out, v)
		}
	}
	return out
}

// eraServer is the test server in one era over one transport, with what
// mcp-go's server (v1.2.1) cannot do there: ask a client of the initialize
// era over SSE (its SSE sessions send no requests), send roots/list over
// streamable HTTP in that era (it goes to a stream the client does not
// open), run tasks on the current revision (it has the tasks of 2025-11-25
// only, whose tasks/result that revision removed).
type eraServer struct {
	name, spec, protocol string
	opts                 Options
	noAsking, noRoots    bool
	noTasks              bool
}

// eraServers are the test tools served in both eras over every transport.
func eraServers(t *testing.T) []eraServer {
	stdio, stdioOpts := stdioSpec(t, modeTools, Options{})
	legacy, legacyOpts := stdioSpec(t, modeLegacy, Options{})
	serve := func(h http.Handler) string {
		hs := httptest.NewServer(h)
		t.Cleanup(hs.Close)
		return hs.URL
	}
	sseLegacy := server.NewSSEServer(newTestServer(modeTools, false, refuseDiscover()))
	return []eraServer{
		{name: "stdio, current", spec: stdio, protocol: mcp.LATEST_PROTOCOL_VERSION, opts: stdioOpts, noTasks: true},
		{name: "stdio, initialize era", spec: legacy, protocol: mcp.LATEST_LEGACY_PROTOCOL_VERSION, opts: legacyOpts},
		{name: "streamable HTTP, current", spec: serve(server.NewStreamableHTTPServer(newTestServer(modeTools, false))) + "/mcp",
			protocol: mcp.LATEST_PROTOCOL_VERSION, noTasks: true},
		{name: "streamable HTTP, initialize era", spec: serve(server.NewStreamableHTTPServer(newTestServer(modeTools, false), server.WithStateful(true),
			server.WithStreamableHTTPProtocolVersions(legacyVersions()...))) + "/mcp", protocol: mcp.LATEST_LEGACY_PROTOCOL_VERSION, noRoots: true},
		{name: "streamable HTTP, stateless, initialize era", spec: serve(server.NewStreamableHTTPServer(newTestServer(modeTools, false),
			server.WithStreamableHTTPProtocolVersions(legacyVersions()...))) + "/mcp", protocol: mcp.LATEST_LEGACY_PROTOCOL_VERSION, noRoots: true, noAsking: true},
		{name: "SSE, current", spec: "sse:" + serve(server.NewSSEServer(newTestServer(modeTools, false))) + "/sse",
			protocol: mcp.LATEST_PROTOCOL_VERSION, noTasks: true},
		// mcp-go's SSE server asks a client nothing: its sessions support
		// neither elicitation nor roots (the Go SDK's and npm's SSE
		// servers do: see the suite's tests).
		{name: "SSE, initialize era", spec: "sse:" + serve(sseLegacy) + "/sse", protocol: mcp.LATEST_LEGACY_PROTOCOL_VERSION,
			noAsking: true, noRoots: true},
	}
}

// Each era over each transport: the connection settles on the server's
// revision, and calls, elicitations, roots, tasks, output schemas and
// resources work the same.
func TestEras(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range eraServers(t) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := tc.opts
			opts.Roots = []string{dir}
			set := connect(t, []string{tc.spec}, opts)
			assert.Equal(t, tc.protocol, set.Servers[0].Protocol())
			assert.Equal(t, "ab", call(t, set, "echo", map[string]any{"text": "ab"}).Text)

			if !tc.noAsking {
				replied := WithReplier(context.Background(), func(message string, fields []string) (string, map[string]any, bool) {
					assert.Equal(t, "What is your colour?", message)
					assert.Equal(t, []string{"colour", "remember"}, fields, "in the schema's order")
					return eval.ElicitAccept, map[string]any{"colour": "teal"}, true
				})
				res, err := set.Call(replied, "ask", map[string]any{"field": "colour"})
				require.NoError(t, err)
				assert.Equal(t, `accept {"colour":"teal"}`, res.Text)
				assert.Equal(t, []eval.Elicitation{{Message: "What is your colour?", Fields: []string{"colour", "remember"},
					Action: eval.ElicitAccept, Content: map[string]any{"colour": "teal"}, Scripted: true}}, res.Elicitations)

				res = call(t, set, "ask", map[string]any{"field": "name"})
				assert.Equal(t, "decline null", res.Text, "an elicitation nothing scripted is declined")
				require.Len(t, res.Elicitations, 1)
				assert.False(t, res.Elicitations[0].Scripted)
			}

			if !tc.noRoots {
				root := (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
				assert.Equal(t, root, call(t, set, "whereami", nil).Text, "the roots offered")
			}
			if tc.noTasks {
				assert.False(t, set.Has("research"))
				require.Len(t, set.Notices(), 1)
				assert.Contains(t, set.Notices()[0], "research requires to run as a task, and the server does not declare the tasks extension")
			} else {
				res := call(t, set, "research", map[string]any{"topic": "tides"})
				assert.Equal(t, "report on tides", res.Text)
				require.NotNil(t, res.Task, "the tool requires to run as a task")
				assert.Equal(t, string(mcp.TaskStatusCompleted), res.Task.Status)
				assert.NotEmpty(t, res.Task.ID)
			}

			assert.Empty(t, call(t, set, "weather", nil).OutputError)
			res := call(t, set, "weather", map[string]any{"broken": true})
			assert.Contains(t, res.Text, `"temperature":"warm"`, "the model sees the content as a host shows it")
			assert.Contains(t, res.OutputError, "at /temperature:")

			res = call(t, set, "link", nil)
			assert.Equal(t, []eval.ResourceLink{{URI: docURI, Name: "readme", MIMEType: "text/plain"}}, res.Links)
			read, err := set.ReadResource(context.Background(), set.ServerNames()[0], docURI)
			require.NoError(t, err)
			assert.Equal(t, "[resource readme.txt <test://docs/readme.txt>, text/plain, 14 bytes]\nRead me first.", read.Text)
		})
	}
}

// A server that ignores server/discover costs the probe's timeout once:
// its restarts go straight to the handshake.
func TestSilentLegacyServerIsProbedOnce(t *testing.T) {
	t.Parallel()
	start := time.Now()
	set := connectStdio(t, modeLegacySilent, Options{})
	assert.GreaterOrEqual(t, time.Since(start), discoverTimeout, "the probe waited")
	assert.Equal(t, mcp.LATEST_LEGACY_PROTOCOL_VERSION, set.Servers[0].Protocol())

	_, err := set.Call(context.Background(), "exit", nil)
	var serverErr *ServerError
	require.ErrorAs(t, err, &serverErr)
	start = time.Now()
	assert.Equal(t, "x", call(t, set, "echo", map[string]any{"text": "x"}).Text)
	assert.Less(t, time.Since(start), discoverTimeout, "the restart did not probe again")
}

// A hung server of the current revision, which has no ping, is found by
// asking it server/discover.
func TestHungServerOfTheCurrentRevisionRestarts(t *testing.T) {
	t.Parallel()
	// The call timeout also bounds the ping after it: long enough for a
	// live server to answer one on a loaded machine.
	set := connectStdio(t, modeTools, Options{CallTimeout: 2 * time.Second})
	require.Equal(t, mcp.LATEST_PROTOCOL_VERSION, set.Servers[0].Protocol())
	_, err := set.Call(context.Background(), "hang", nil)
	require.Error(t, err)
	var serverErr *ServerError
	assert.False(t, errors.As(err, &serverErr), "a slow tool on a live server is no fault: %v", err)

	_, err = set.Call(context.Background(), "freeze", nil)
	require.ErrorAs(t, err, &serverErr, "a frozen server fails server/discover")
	assert.Equal(t, 1, set.Restarts())
}

// Elicitations on a connection that cannot tie a request to its call
// (stdio, initialize era) reach the right case: a call whose case
// scripted replies runs alone.
func TestScriptedElicitationsReachTheirCall(t *testing.T) {
	t.Parallel()
	set := connectStdio(t, modeLegacy, Options{})
	require.True(t, set.Servers[0].conn.sharedStream)
	const n = 8
	results := make(chan string, 2*n)
	for i := range n {
		colour := strings.Repeat("x", i+1)
		go func() {
			ctx := WithReplier(context.Background(), func(string, []string) (string, map[string]any, bool) {
				return eval.ElicitAccept, map[string]any{"colour": colour}, true
			})
			res, err := set.Call(ctx, "ask", map[string]any{"field": "colour"})
			if err != nil {
				results <- err.Error()
				return
			}
			results <- strings.TrimSuffix(strings.TrimPrefix(res.Text, `accept {"colour":"`), `"}`) + "=" + colour
		}()
		go func() {
			res, err := set.Call(context.Background(), "slow", map[string]any{"ms": 20})
			if err != nil {
				results <- err.Error()
				return
			}
			results <- res.Text
		}()
	}
	for range 2 * n {
		got := <-results
		if got == "slept" {
			continue
		}
		want, have, _ := strings.Cut(got, "=")
		assert.Equal(t, have, want, "each call got its own case's reply")
	}
}

// A case's simulated user answers the elicitations its case scripts no
// reply to: its replies are recorded as the simulated user's, not the
// script's; a reply it cannot give (ok false) declines the request.
func TestSimulatedUserRepliesToElicitations(t *testing.T) {
	t.Parallel()
	set := connectStdio(t, modeLegacy, Options{})
	for _, tt := range []struct {
		name    string
		replier Replier
		want    eval.Elicitation
	}{
		{"accepted", func(message string, fields []string) (string, map[string]any, bool) {
			return eval.ElicitAccept, map[string]any{"colour": "teal"}, true
		}, eval.Elicitation{Action: eval.ElicitAccept, Content: map[string]any{"colour": "teal"}, Simulated: true}},
		{"not given", func(string, []string) (string, map[string]any, bool) { return "", nil, false },
			eval.Elicitation{Action: eval.ElicitDecline}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := set.Call(WithSimulatedUser(context.Background(), tt.replier), "ask", map[string]any{"field": "colour"})
			require.NoError(t, err)
			require.Len(t, res.Elicitations, 1)
			got := res.Elicitations[0]
			got.Message, got.Fields = "", nil
			assert.Equal(t, tt.want, got)
		})
	}
}

// A tool that requires tasks on a server that does not run tool calls as
// tasks is left out, with a notice naming it.
func TestTaskToolWithoutTaskSupportIsLeftOut(t *testing.T) {
	t.Parallel()
	set := connectStdio(t, modeNoTasks, Options{})
	assert.False(t, set.Has("research"))
	assert.True(t, set.Has("echo"))
	notices := set.Notices()
	require.Len(t, notices, 1)
	assert.Contains(t, notices[0], "research requires to run as a task")
}

// A server of the tasks extension of 2026-07-28 answers with a task,
// which is polled, asks the user through tasks/get and gets the answer
// with tasks/update, then completes with the result; the extension is
// declared on the suite's requests, so plain calls are answered at once.
func TestTasksExtension(t *testing.T) {
	t.Parallel()
	set := connectStdio(t, modeTasksExtension, Options{})
	require.Equal(t, mcp.LATEST_PROTOCOL_VERSION, set.Servers[0].Protocol())
	assert.Equal(t, "plain, extension declared: true", call(t, set, "plain", nil).Text)

	ctx := WithReplier(context.Background(), func(message string, fields []string) (string, map[string]any, bool) {
		return eval.ElicitAccept, map[string]any{"colour": "teal"}, true
	})
	res, err := set.Call(ctx, "survey", nil)
	require.NoError(t, err)
	assert.Equal(t, `answered {"action":"accept","content":{"colour":"teal"}}`, res.Text)
	require.NotNil(t, res.Task)
	assert.Equal(t, eval.TaskRun{ID: "task-1", Status: "completed", Polls: 3}, *res.Task, "working, input required, completed")
	assert.Equal(t, []eval.Elicitation{{Message: "Which colour?", Fields: []string{"colour"}, Action: eval.ElicitAccept,
		Content: map[string]any{"colour": "teal"}, Scripted: true}}, res.Elicitations)
}

// An elicitation no case scripted, on a connection that does not say which
// call asks, belongs to the call still waiting once the others have ended;
// when several still wait, it is recorded on each, saying so.
func TestUnscriptedElicitationFindsItsCall(t *testing.T) {
	t.Parallel()
	set := connectStdio(t, modeLegacy, Options{})
	cn, err := set.Servers[0].current(t.Context())
	require.NoError(t, err)
	// slowCall starts a slow call and waits until it is in flight.
	slowCall := func(ms int) <-chan Result {
		slow := make(chan Result, 1)
		go func() {
			res, err := set.Call(context.Background(), "slow", map[string]any{"ms": ms})
			assert.NoError(t, err)
			slow <- res
		}()
		require.Eventually(t, func() bool {
			cn.calls.mu.Lock()
			defer cn.calls.mu.Unlock()
			return len(cn.calls.active) == 1
		}, 10*time.Second, time.Millisecond)
		return slow
	}

	slow := slowCall(300)
	res := call(t, set, "ask", map[string]any{"field": "name"})
	require.Len(t, res.Elicitations, 1)
	assert.Empty(t, res.Elicitations[0].Note, "tied to the call once the slow one ended")
	assert.Empty(t, (<-slow).Elicitations)

	// A call that outlasts the wait for attribution: both still wait when
	// it ends, and each records the request.
	slow = slowCall(int((attributionWait + 3*time.Second).Milliseconds()))
	res = call(t, set, "ask", map[string]any{"field": "name"})
	const note = "asked while 2 calls were in flight on a connection that does not say which call asks"
	require.Len(t, res.Elicitations, 1)
	assert.Equal(t, note, res.Elicitations[0].Note)
	assert.Equal(t, eval.ElicitDecline, res.Elicitations[0].Action, "declined: nobody can say whose it is")
	waited := <-slow
	require.Len(t, waited.Elicitations, 1)
	assert.Equal(t, note, waited.Elicitations[0].Note)
}

// A server that refuses a resource read by ending the session (HTTP 404,
// as some servers without sessions do for a link of an earlier call) is a
// refusal the model reads, not a fault that ends the case: the connection
// starts again and the next call works.
func TestResourceReadRefusedWithA404(t *testing.T) {
	t.Parallel()
	inner := server.NewStreamableHTTPServer(newTestServer(modeTools, false), server.WithStreamableHTTPProtocolVersions(legacyVersions()...))
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"resources/read"`) {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	set := connect(t, []string{hs.URL + "/mcp"}, Options{})
	res := call(t, set, "link", nil)
	require.Len(t, res.Links, 1)
	_, err := set.ReadResource(context.Background(), set.ServerNames()[0], docURI)
	var refused *CallError
	require.ErrorAs(t, err, &refused)
	var fault *ServerError
	assert.False(t, errors.As(err, &fault), "not a fault of the server")
	assert.Contains(t, err.Error(), "resource test://docs/readme.txt: the server refused the read (HTTP 404: its session ended)")
	assert.Equal(t, "ab", call(t, set, "echo", map[string]any{"text": "ab"}).Text, "the server still answers")
}

// A server held to a revision is spoken to in it; one that cannot speak
// it says so in the set's notices, not silently.
func TestServerHeldToARevision(t *testing.T) {
	t.Parallel()
	connectHeld := func(mode, protocol string) *Set {
		spec, opts := stdioSpec(t, mode, Options{})
		parsed, err := ParseSpec(spec)
		require.NoError(t, err)
		parsed.Protocol = protocol
		set, err := ConnectSpecs(context.Background(), []Spec{parsed}, opts.withDefaults())
		require.NoError(t, err)
		t.Cleanup(set.Close)
		return set
	}
	set := connectHeld(modeTools, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	assert.Equal(t, mcp.LATEST_LEGACY_PROTOCOL_VERSION, set.Servers[0].Protocol(), "a server of 2026-07-28 held to the handshake")
	assert.Empty(t, set.Notices())

	set = connectHeld(modeLegacy, mcp.LATEST_PROTOCOL_VERSION)
	assert.Equal(t, mcp.LATEST_LEGACY_PROTOCOL_VERSION, set.Servers[0].Protocol())
	require.Len(t, set.Notices(), 1)
	assert.Contains(t, set.Notices()[0], "held to revision 2026-07-28, but the server answered on 2025-11-25: spoken to on 2025-11-25")
}

// A server that asks without end is cancelled past the bound, and the
// call's record stays bounded, saying how many were cancelled.
func TestElicitationRoundsBounded(t *testing.T) {
	p := &pending{replier: func(string, []string) (string, map[string]any, bool) {
		return eval.ElicitAccept, map[string]any{"x": "y"}, true
	}}
	var actions []mcp.ElicitationResponseAction
	for range maxRounds + 8 {
		actions = append(actions, p.answer(mcp.ElicitationParams{Message: "again?"}, "").Action)
	}
	assert.Equal(t, mcp.ElicitationResponseActionAccept, actions[maxRounds-1])
	assert.Equal(t, mcp.ElicitationResponseActionCancel, actions[maxRounds])
	rounds := p.elicitations()
	require.Len(t, rounds, maxRounds+1)
	assert.Equal(t, "8 more requests cancelled: a call answers at most 32", rounds[maxRounds].Note)
}
