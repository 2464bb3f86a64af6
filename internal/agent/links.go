package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
)

// readTool is the tool the suite offers once a result returned a resource
// link (see eval.ReadResourceTool).
var readTool = eval.Tool{
	Name:        eval.ReadResourceTool,
	Description: "Reads a resource that a tool result linked to (a resource link), by its URI, from the server that returned the link.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string","description":"the URI of the resource link"}},"required":["uri"]}`),
}

// links are the resource links a case's tool results returned, by URI,
// with the server each came from; the model may read them through
// readTool.
type links struct {
	follow bool
	server map[string]string
}

func newLinks(follow bool) *links { return &links{follow: follow, server: map[string]string{}} }

// add remembers the links a call of a server's tool returned.
func (l *links) add(rec eval.ToolCall) {
	if l == nil || rec.Name == eval.ReadResourceTool {
		return
	}
	for _, link := range rec.Links {
		if _, seen := l.server[link.URI]; !seen {
			l.server[link.URI] = rec.Server
		}
	}
}

// tools returns the tools offered: the servers', and readTool once a
// link is there to follow (unless a server offers a tool of its name).
func (l *links) tools(tools ToolBox) []eval.Tool {
	offered := tools.Tools()
	if l == nil || !l.follow || len(l.server) == 0 || tools.Has(readTool.Name) {
		return offered
	}
	return append(offered[:len(offered):len(offered)], readTool)
}

// reads reports whether a call is one of readTool.
func (l *links) reads(tools ToolBox, name string) bool {
	return l != nil && l.follow && name == readTool.Name && !tools.Has(name)
}

// read executes a call of readTool: the URI must be one a result of the
// case linked to, and is read from the server that returned it. Failures
// are those of execute.
func (l *links) read(ctx context.Context, tools ToolBox, call eval.MessageToolCall) (eval.ToolCall, error) {
	var args struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil || strings.TrimSpace(args.URI) == "" {
		return notRun(`give the resource's URI: {"uri": "..."}`), nil
	}
	rec := eval.ToolCall{Name: readTool.Name, Resource: args.URI}
	server, ok := l.server[args.URI]
	if !ok {
		rec.Result, rec.IsError, rec.NotRun = errorJSON(fmt.Sprintf("no tool result of this case linked to %q", args.URI)), true, true
		return rec, nil
	}
	rec.Server = server
	start := time.Now()
	res, err := tools.ReadResource(ctx, server, args.URI)
	rec.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	return finish(ctx, rec, res, err)
}

// finish fills the record of a call that reached a server from what it
// returned. Every failure of the call itself becomes an error result the
// model can read; the error is a server fault or the end of the case's
// context, which end the case.
func finish(ctx context.Context, rec eval.ToolCall, res mcpconn.Result, err error) (eval.ToolCall, error) {
	var fault *mcpconn.ServerError
	var refused *mcpconn.CallError
	if errors.As(err, &refused) {
		rec.Elicitations, rec.Stderr = refused.Elicitations, refused.Stderr
	}
	switch {
	case ctx.Err() != nil: // the case's time is up: the case ends, however the call failed
		rec.Result, rec.IsError, rec.Refused = errorJSON("the case ran out of time"), true, true
		return rec, ctx.Err()
	case errors.As(err, &fault):
		rec.Result, rec.IsError, rec.Refused = errorJSON(err.Error()), true, true
		return rec, err
	case err != nil:
		rec.Result, rec.IsError, rec.Refused = errorJSON(err.Error()), true, true
		return rec, nil
	}
	rec.Result, rec.IsError, rec.Execution = res.Text, res.IsError, res.Execution
	rec.Elicitations, rec.OutputError, rec.Task, rec.Links, rec.Stderr = res.Elicitations, res.OutputError, res.Task, res.Links, res.Stderr
	rec.Unchecked = res.Unchecked
	return rec, nil
}
