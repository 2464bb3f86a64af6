package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// A tool call may run as a task: the call answers at once with a task,
// which the client polls until it ends. The two eras do it differently.
// Revision 2025-11-25 has tasks in its core: the client asks for a task
// (the call's "task" parameter, for a tool whose execution.taskSupport
// allows it), polls tasks/get, and takes the result with tasks/result,
// during which the server sends the requests for input it queued for the
// task. From 2026-07-28 tasks are an extension (io.modelcontextprotocol/
// tasks): a client that declares it on a request may get a task instead of
// the result, at the server's choice; tasks/get carries the result once
// the task ends, and the requests for input while it waits, which the
// client answers with tasks/update. mcp-go's client takes neither answer,
// so these requests go through the transport.

// taskMode says how the calls of a tool run.
type taskMode int

const (
	plainCall      taskMode = iota // mcp-go's CallTool
	coreTask                       // a task of revision 2025-11-25
	tasksExtension                 // a call that may become a task of the 2026-07-28 extension
)

// methodTasksUpdate answers a task's requests for input (2026-07-28).
const methodTasksUpdate mcp.MCPMethod = "tasks/update"

// tasksExtensionID names the tasks extension of revision 2026-07-28.
const tasksExtensionID = "io.modelcontextprotocol/tasks"

// taskTTL is how long a server is asked to keep a task's result.
const taskTTL = 5 * time.Minute

// Polling: the server's interval, else defaultPoll, within these bounds.
const (
	defaultPoll = 500 * time.Millisecond
	minPoll     = 20 * time.Millisecond
	maxPoll     = 5 * time.Second
)

// maxInputRounds bounds the retries of a call that keeps asking for input.
const maxInputRounds = 10

// requestIDs numbers the suite's own requests on all connections; its ids
// are strings, which the client's numeric ids never equal.
var requestIDs atomic.Int64

// request sends a request of the suite's own through the transport and
// returns its result. On the current revision it carries the protocol
// metadata, with the tasks extension declared, and over HTTP the standard
// headers (Mcp-Name set to name when given).
func (cn *conn) request(ctx context.Context, method mcp.MCPMethod, params map[string]any, name string) (json.RawMessage, error) {
	var header http.Header
	if mcp.IsModernProtocol(cn.protocol) {
		caps := clientCapabilities
		caps.Extensions = map[string]any{tasksExtensionID: map[string]any{}}
		params["_meta"] = map[string]any{
			mcp.MetaKeyProtocolVersion:    cn.protocol,
			mcp.MetaKeyClientInfo:         clientInfo,
			mcp.MetaKeyClientCapabilities: caps,
		}
		encoded, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		header = http.Header{}
		for k, v := range mcp.StandardHeaders(cn.protocol, method, encoded) {
			header.Set(k, v)
		}
		if name != "" {
			header.Set("Mcp-Name", name)
		}
	}
	req := transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(fmt.Sprintf("mcpeval-%d", requestIDs.Add(1))),
		Method: string(method), Params: params, Header: header,
	}
	resp, err := cn.client.GetTransport().SendRequest(ctx, req)
	if err != nil {
		return nil, transport.NewError(err)
	}
	if resp.Error != nil {
		return nil, resp.Error.AsError()
	}
	return resp.Result, nil
}

// callCoreTask runs a call as a task of revision 2025-11-25 and returns
// its result once the task has ended, and how the task went. ctx bounds
// all of it; when it ends first the task is cancelled.
func (s *Server) callCoreTask(ctx context.Context, cn *conn, p *pending, name string, args map[string]any) (*mcp.CallToolResult, *eval.TaskRun, error) {
	params := map[string]any{"name": name, "arguments": args, "task": mcp.TaskParams{TTL: ptr(taskTTL.Milliseconds())}}
	raw, err := cn.request(ctx, mcp.MethodToolsCall, params, "")
	if err != nil {
		return nil, nil, err
	}
	var created struct {
		Task *mcp.Task `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil {
		return nil, nil, fmt.Errorf("task: %w", err)
	}
	if created.Task == nil { // the server ran it as a plain call after all
		res, err := mcp.ParseCallToolResult(&raw)
		return res, nil, err
	}
	run := &eval.TaskRun{ID: created.Task.TaskId, Status: string(created.Task.Status)}
	cn.calls.task(run.ID, p)
	defer cancelUnfinished(ctx, cn, run)
	task := *created.Task
	for !task.Status.IsTerminal() && task.Status != mcp.TaskStatusInputRequired {
		if err := sleep(ctx, pollInterval(task.PollInterval)); err != nil {
			return nil, run, err
		}
		got, err := cn.client.GetTask(ctx, mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: run.ID}})
		run.Polls++
		if err != nil {
			return nil, run, err
		}
		task = got.Task
		run.Status = string(task.Status)
	}
	// For a task that needs input this waits for its end, while the
	// server sends its requests.
	res, err := cn.client.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: run.ID}})
	if err != nil {
		if task.Status == mcp.TaskStatusFailed || task.Status == mcp.TaskStatusCancelled {
			return mcp.NewToolResultError(fmt.Sprintf("the task %s: %s", task.Status, task.StatusMessage)), run, nil
		}
		return nil, run, err
	}
	if !task.Status.IsTerminal() {
		run.Status = string(mcp.TaskStatusCompleted)
	}
	return &mcp.CallToolResult{Result: res.Result, Content: res.Content, StructuredContent: res.StructuredContent, IsError: res.IsError}, run, nil
}

// detailedTask is a task as tasks/get of the 2026-07-28 extension gives
// it (and as a call that became a task answers): its state, and by its
// status the result, the error, or the requests for input.
type detailedTask struct {
	ResultType     mcp.ResultType  `json:"resultType"`
	TaskID         string          `json:"taskId"`
	Status         mcp.TaskStatus  `json:"status"`
	StatusMessage  string          `json:"statusMessage"`
	PollIntervalMS *int64          `json:"pollIntervalMs"`
	Result         json.RawMessage `json:"result"`
	Error          *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	InputRequests mcp.InputRequests `json:"inputRequests"`
	RequestState  string            `json:"requestState"`
}

// callWithTasksExtension makes a call to a server of the tasks extension:
// the answer is the result, a request for input (answered, and the call
// retried with the answers), or a task, polled until it ends.
func (s *Server) callWithTasksExtension(ctx context.Context, cn *conn, p *pending, name string, args map[string]any) (*mcp.CallToolResult, *eval.TaskRun, error) {
	params := map[string]any{"name": name, "arguments": args}
	for round := 0; ; round++ {
		raw, err := cn.request(ctx, mcp.MethodToolsCall, params, "")
		if err != nil {
			return nil, nil, err
		}
		var head detailedTask
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, nil, fmt.Errorf("tool result: %w", err)
		}
		switch head.ResultType {
		case "task":
			return s.pollExtensionTask(ctx, cn, p, head)
		case mcp.ResultTypeInputRequired:
			if round >= maxInputRounds {
				return nil, nil, fmt.Errorf("the server asked for input %d times", round+1)
			}
			responses, err := cn.fulfil(ctx, p, head.InputRequests)
			if err != nil {
				return nil, nil, err
			}
			params["inputResponses"], params["requestState"] = responses, head.RequestState
			continue
		}
		res, err := mcp.ParseCallToolResult(&raw)
		return res, nil, err
	}
}

// pollExtensionTask polls a task of the 2026-07-28 extension until it
// ends, answering its requests for input (each once), and returns its
// result.
func (s *Server) pollExtensionTask(ctx context.Context, cn *conn, p *pending, task detailedTask) (*mcp.CallToolResult, *eval.TaskRun, error) {
	run := &eval.TaskRun{ID: task.TaskID, Status: string(task.Status)}
	defer cancelUnfinished(ctx, cn, run)
	answered := map[string]bool{}
	for {
		switch task.Status {
		case mcp.TaskStatusCompleted:
			res, err := mcp.ParseCallToolResult(&task.Result)
			return res, run, err
		case mcp.TaskStatusFailed:
			if task.Error != nil {
				return nil, run, fmt.Errorf("the task failed: %s (code %d)", task.Error.Message, task.Error.Code)
			}
			return nil, run, fmt.Errorf("the task failed: %s", task.StatusMessage)
		case mcp.TaskStatusCancelled:
			return nil, run, fmt.Errorf("the server cancelled the task: %s", task.StatusMessage)
		case mcp.TaskStatusInputRequired:
			open := mcp.InputRequests{}
			for key, req := range task.InputRequests {
				if !answered[key] {
					open[key] = req
				}
			}
			if len(open) > 0 {
				responses, err := cn.fulfil(ctx, p, open)
				if err != nil {
					return nil, run, err
				}
				if _, err := cn.request(ctx, methodTasksUpdate, map[string]any{"taskId": run.ID, "inputResponses": responses}, run.ID); err != nil {
					return nil, run, err
				}
				for key := range open {
					answered[key] = true
				}
			}
		}
		if err := sleep(ctx, pollInterval(task.PollIntervalMS)); err != nil {
			return nil, run, err
		}
		raw, err := cn.request(ctx, mcp.MethodTasksGet, map[string]any{"taskId": run.ID}, run.ID)
		run.Polls++
		if err != nil {
			return nil, run, err
		}
		task = detailedTask{}
		if err := json.Unmarshal(raw, &task); err != nil {
			return nil, run, fmt.Errorf("tasks/get: %w", err)
		}
		run.Status = string(task.Status)
	}
}

// fulfil answers a server's requests for input: elicitations with the
// call's replies, roots with the client's roots.
func (cn *conn) fulfil(ctx context.Context, p *pending, requests mcp.InputRequests) (mcp.InputResponses, error) {
	out := mcp.InputResponses{}
	for key, req := range requests {
		switch {
		case req.Method == mcp.MethodElicitationCreate && req.Elicitation != nil:
			out[key] = mcp.NewElicitationInputResponse(*p.answer(*req.Elicitation, ""))
		case req.Method == mcp.MethodListRoots:
			roots, err := cn.roots.ListRoots(ctx, mcp.ListRootsRequest{})
			if err != nil {
				return nil, err
			}
			out[key] = mcp.NewRootsInputResponse(*roots)
		default:
			return nil, fmt.Errorf("the server asks for %s, which the suite does not answer", req.Method)
		}
	}
	return out, nil
}

// cancelUnfinished asks the server to cancel a task the call gave up on
// (its time ran out), without waiting long.
func cancelUnfinished(ctx context.Context, cn *conn, run *eval.TaskRun) {
	if ctx.Err() == nil || mcp.TaskStatus(run.Status).IsTerminal() {
		return
	}
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	if mcp.IsModernProtocol(cn.protocol) {
		cn.request(stop, mcp.MethodTasksCancel, map[string]any{"taskId": run.ID}, run.ID)
		return
	}
	cn.client.CancelTask(stop, mcp.CancelTaskRequest{Params: mcp.CancelTaskParams{TaskId: run.ID}})
}

// pollInterval is the server's suggested interval (in milliseconds),
// bounded, or defaultPoll.
func pollInterval(ms *int64) time.Duration {
	if ms == nil || *ms <= 0 {
		return defaultPoll
	}
	return min(max(time.Duration(*ms)*time.Millisecond, minPoll), maxPoll)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func ptr[T any](v T) *T { return &v }
