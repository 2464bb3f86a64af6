package mcpconn

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// modeTasksExtension is a stdio server of revision 2026-07-28 with the
// tasks extension, written out as the extension's specification has it
// (mcp-go's server has the tasks of 2025-11-25 only): its survey tool
// answers with a task when the request declares the extension, and with
// error -32021 when it does not; the task asks the user a question
// (input_required, answered with tasks/update) and then completes with
// the answer. Its plain tool answers at once.
const modeTasksExtension = "tasks-extension"

func serveTasksExtension() int {
	out := &lockedWriter{w: os.Stdout}
	reply := func(id json.RawMessage, result any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
		out.Write(append(b, '\n'))
	}
	fail := func(id json.RawMessage, code int, msg string) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
		out.Write(append(b, '\n'))
	}
	var mu sync.Mutex
	polls, tasks := map[string]int{}, 0
	answers := map[string]json.RawMessage{}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name           string                     `json:"name"`
				TaskID         string                     `json:"taskId"`
				InputResponses map[string]json.RawMessage `json:"inputResponses"`
				Meta           map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || len(msg.ID) == 0 {
			continue
		}
		declared := strings.Contains(string(msg.Params.Meta[mcp.MetaKeyClientCapabilities]), tasksExtensionID)
		mu.Lock()
		switch msg.Method {
		case "server/discover":
			reply(msg.ID, map[string]any{
				"supportedVersions": []string{mcp.LATEST_PROTOCOL_VERSION},
				"capabilities":      map[string]any{"tools": map[string]any{}, "extensions": map[string]any{tasksExtensionID: map[string]any{}}},
				"_meta":             map[string]any{mcp.MetaKeyServerInfo: map[string]any{"name": "tasks-extension-test", "version": "1.0.0"}},
			})
		case "tools/list":
			reply(msg.ID, map[string]any{"tools": []any{
				map[string]any{"name": "survey", "description": "Asks the user, as a task.", "inputSchema": map[string]any{"type": "object"}},
				map[string]any{"name": "plain", "description": "Answers at once.", "inputSchema": map[string]any{"type": "object"}},
			}})
		case "tools/call":
			switch {
			case msg.Params.Name == "plain":
				reply(msg.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("plain, extension declared: %v", declared)}}})
			case !declared:
				fail(msg.ID, -32021, "Missing required client capability")
			default:
				tasks++
				id := fmt.Sprintf("task-%d", tasks)
				reply(msg.ID, map[string]any{"resultType": "task", "taskId": id, "status": "working", "pollIntervalMs": 10,
					"createdAt": "2026-11-25T10:00:00Z", "lastUpdatedAt": "2026-11-25T10:00:00Z", "ttlMs": 60000})
			}
		case "tasks/get":
			id := msg.Params.TaskID
			polls[id]++
			task := map[string]any{"resultType": "complete", "taskId": id, "pollIntervalMs": 10,
				"createdAt": "2026-11-25T10:00:00Z", "lastUpdatedAt": "2026-11-25T10:00:00Z", "ttlMs": 60000}
			switch answer, answered := answers[id]; {
			case polls[id] == 1:
				task["status"] = "working"
			case !answered:
				task["status"] = "input_required"
				task["inputRequests"] = map[string]any{"colour": map[string]any{"method": "elicitation/create", "params": map[string]any{
					"message": "Which colour?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"colour": map[string]any{"type": "string"}}}}}}
			default:
				task["status"] = "completed"
				task["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "answered " + string(answer)}}}
			}
			reply(msg.ID, task)
		case "tasks/update":
			answers[msg.Params.TaskID] = msg.Params.InputResponses["colour"]
			reply(msg.ID, map[string]any{"resultType": "complete"})
		case "tasks/cancel":
			reply(msg.ID, map[string]any{"resultType": "complete"})
		default:
			fail(msg.ID, -32601, "Method not found")
		}
		mu.Unlock()
	}
	return 0
}
