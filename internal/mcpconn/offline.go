package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Recorded is a server as an earlier run recorded it (its summary's tool
// surface): its short name, the name and version of its serverInfo, and
// the tools it listed.
type Recorded struct {
	Name        string
	InfoName    string
	InfoVersion string
	Tools       []eval.Tool
}

// Offline returns the set of the recorded servers, with no server behind
// it: it offers their tools as ConnectSpecs offers a live server's (under
// the same names, selected by the patterns tools), its Hash is what the
// live servers' would be, and every call is an error. A replay (package
// replay) answers the calls from recordings and takes the tool surface
// from such a set.
func Offline(servers []Recorded, tools []string) (*Set, error) {
	list := make([]*Server, len(servers))
	for i, r := range servers {
		// A summary stores the schemas indented: offered as listed, they
		// are compact again, as a live server's are.
		tools := make([]eval.Tool, len(r.Tools))
		for j, t := range r.Tools {
			t.Parameters, t.Output = compactJSON(t.Parameters), compactJSON(t.Output)
			tools[j] = t
		}
		list[i] = &Server{Spec: r.Name, spec: Spec{Name: r.Name, FromFile: true}, tools: tools,
			info: mcp.Implementation{Name: r.InfoName, Version: r.InfoVersion}, recorded: true,
			stderr: newTailBuffer(0), stop: func() {}, life: context.Background()}
	}
	return newSet(list, tools)
}

// CallOn executes a call of the tool name on the server whose short name
// is server (see ServerNames), whatever the set offers.
func (s *Set) CallOn(ctx context.Context, server, name string, args map[string]any) (Result, error) {
	for i, n := range s.names {
		if n == server {
			return s.Servers[i].Call(ctx, name, args)
		}
	}
	return Result{}, fmt.Errorf("no server is named %q (the servers: %v)", server, s.names)
}

// compactJSON is raw without insignificant space; raw itself when it is
// empty or not JSON.
func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if len(raw) == 0 || json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
