package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/schemacheck"
)

// MCP has two eras. From revision 2026-07-28 the protocol is stateless: a
// client learns what a server supports with server/discover, and every
// request carries its protocol version; a server asks for input by
// answering "input required" (multi round-trip requests). Before it, a
// connection starts with the initialize handshake and the server sends
// requests of its own. A connection first probes server/discover and
// falls back to the handshake when the server does not answer it (mcp-go
// does both); a server that ignores unknown methods instead of refusing
// them costs the probe's timeout, once: its restarts go straight to the
// handshake.

// clientInfo is how the suite names itself to servers.
var clientInfo = mcp.Implementation{Name: "mcpeval", Version: "1"}

// clientCapabilities are what the suite declares it can do: give roots
// (to a server it has roots for) and answer elicitations (the replies a
// case scripted).
var clientCapabilities = mcp.ClientCapabilities{
	Roots: &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{},
	Elicitation: &mcp.ElicitationCapability{},
}

// discoverTimeout bounds the server/discover probe of a connection.
const discoverTimeout = 5 * time.Second

// ParseProtocol reads the revision a server is held to: "" (none: the
// suite negotiates), a revision mcp-go knows ("2025-11-25", "2026-07-28"),
// or "handshake" (the newest revision that starts with it).
func ParseProtocol(v string) (string, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return "", nil
	case strings.EqualFold(v, "handshake"), strings.EqualFold(v, "legacy"):
		return mcp.LATEST_LEGACY_PROTOCOL_VERSION, nil
	case mcp.IsValidProtocolVersion(v):
		return v, nil
	}
	return "", fmt.Errorf("%q is not a protocol revision: give one of %s, or \"handshake\" (%s)", v,
		strings.Join(mcp.ValidProtocolVersions, ", "), mcp.LATEST_LEGACY_PROTOCOL_VERSION)
}

// protocolOptions chooses the era of a new connection: the revision the
// server is held to; else the probe, unless the server's first connection
// found it answers only the handshake, or fell back to it.
func (s *Server) protocolOptions() []client.ClientOption {
	if s.spec.Protocol != "" {
		return []client.ClientOption{client.WithProtocolVersion(s.spec.Protocol)}
	}
	if s.protocol != "" && !mcp.IsModernProtocol(s.protocol) || s.fellBack.Load() {
		return []client.ClientOption{client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION)}
	}
	return []client.ClientOption{client.WithDiscoverTimeout(discoverTimeout)}
}

// alive asks the server for a sign of life: a ping before 2026-07-28,
// which removed it, and server/discover from then on.
func alive(ctx context.Context, cn *conn) error {
	if mcp.IsModernProtocol(cn.protocol) {
		_, err := cn.client.Discover(ctx, mcp.DiscoverRequest{})
		return err
	}
	return cn.client.Ping(ctx)
}

// toolMeta is what the suite needs to call a tool and to check its
// result: how its calls run (see taskMode), and its output schema.
type toolMeta struct {
	mode   taskMode
	output *schemacheck.Schema
}

// callable turns the listed tools into those the suite can call, with
// their metadata. On a server of the 2026-07-28 tasks extension every call
// may become a task; otherwise a tool that requires to run as a task runs
// as a task of revision 2025-11-25 when the server declares it runs tool
// calls as tasks, and is left out, with why, when it does not.
func callable(listed []mcp.Tool, caps mcp.ServerCapabilities, protocol string) (tools []eval.Tool, meta map[string]toolMeta, left []string) {
	meta = map[string]toolMeta{}
	_, extension := caps.Extensions[tasksExtensionID]
	extension = extension && mcp.IsModernProtocol(protocol)
	core := !mcp.IsModernProtocol(protocol) && caps.Tasks != nil && caps.Tasks.Requests != nil &&
		caps.Tasks.Requests.Tools != nil && caps.Tasks.Requests.Tools.Call != nil
	for _, t := range listed {
		var m toolMeta
		required := t.Execution != nil && t.Execution.TaskSupport == mcp.TaskSupportRequired
		switch {
		case extension:
			m.mode = tasksExtension
		case required && core:
			m.mode = coreTask
		case required && mcp.IsModernProtocol(protocol):
			left = append(left, fmt.Sprintf("%s requires to run as a task, and the server does not declare the tasks extension (%s) of revision %s", t.Name, tasksExtensionID, protocol))
			continue
		case required:
			left = append(left, fmt.Sprintf("%s requires to run as a task, and the server does not declare that it runs tool calls as tasks (capabilities.tasks.requests.tools.call)", t.Name))
			continue
		}
		tool := eval.Tool{Name: t.Name, Description: t.Description, Parameters: schemaJSON(t.RawInputSchema, t.InputSchema)}
		if len(t.RawOutputSchema) > 0 || t.OutputSchema.Type != "" {
			tool.Output = schemaJSON(t.RawOutputSchema, t.OutputSchema)
			m.output = schemacheck.New(tool.Output, "output schema")
			go m.output.Compile() // off the calls' path, bounded by the schema's size
		}
		tools = append(tools, tool)
		meta[t.Name] = m
	}
	return tools, meta, left
}

// schemaJSON is a tool's schema as the server sent it, else as mcp-go
// decoded it.
func schemaJSON(raw json.RawMessage, decoded any) json.RawMessage {
	if len(raw) > 0 {
		return raw
	}
	b, err := json.Marshal(decoded)
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return b
}

// checkOutput says how a result breaks the tool's output schema: a result
// that is not an error must carry structuredContent that matches it. ""
// when it does, the tool declares no schema, or the schema cannot check.
// unchecked is "output schema" when the result was too costly to check
// against it (schemacheck.ErrTooCostly).
func (m toolMeta) checkOutput(res *mcp.CallToolResult) (problem, unchecked string) {
	if m.output == nil || res.IsError {
		return "", ""
	}
	if res.StructuredContent == nil && len(res.RawStructuredContent) == 0 {
		return "no structuredContent, though the tool declares an output schema", ""
	}
	raw := res.RawStructuredContent
	if len(raw) == 0 {
		var err error
		if raw, err = json.Marshal(res.StructuredContent); err != nil {
			return "structuredContent is not JSON: " + err.Error(), ""
		}
	}
	v, err := schemacheck.Decode(bytes.NewReader(raw))
	if err != nil {
		return "structuredContent is not JSON: " + err.Error(), ""
	}
	switch err := m.output.Validate(v); {
	case errors.Is(err, schemacheck.ErrTooCostly):
		return "", "output schema"
	case err != nil:
		return "structuredContent does not match the output schema: " + schemacheck.Describe(err), ""
	}
	return "", ""
}
