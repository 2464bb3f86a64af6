package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llm"
)

// CodeTool is the MCP tool that runs pandas code for code cases.
const CodeTool = "run_pandas"

// CodeSystemPrompt is the agent's system prompt for code cases (questions
// about a table answered with pandas code).
const CodeSystemPrompt = `You are a data analyst. Answer the user's question about a CSV dataset by writing pandas code and running it with the run_pandas tool; list_datasets shows the datasets with their columns and dtypes.
The dataset is loaded as df (a second one as df2); pd and np are imported. Assign the answer to a variable named result. Use read-only pandas: no files, no network, no plots.
If the code fails, read the error, fix the code and run it again.
End with a short final answer that states the result.`

// attempts returns the run_pandas calls among calls as attempts, in order.
func attempts(calls []eval.ToolCall) []eval.Attempt {
	var out []eval.Attempt
	for _, c := range calls {
		if c.Name != CodeTool {
			continue
		}
		var args struct {
			Code    string `json:"code"`
			Dataset string `json:"dataset"`
		}
		_ = json.Unmarshal([]byte(c.Arguments), &args) // unreadable arguments leave empty code; the call failed anyway
		out = append(out, eval.Attempt{Code: args.Code, Dataset: args.Dataset, Output: c.Result, Failed: c.IsError,
			Seconds: c.DurationMS / 1000, Execution: c.Execution})
	}
	return out
}

// recoveryInput is what the recovery loop starts from.
type recoveryInput struct {
	Question string
	// Schema describes the datasets for the model; it may be empty.
	Schema string
	// Failed is the failed execution to fix.
	Failed eval.Attempt
	// MaxAttempts bounds the attempts; 0 or less means none.
	MaxAttempts int
}

// recoveryRun is what the recovery loop did: one execution per attempt, and
// the record of each attempt (the prompt, the model's reply with its code
// as a run_pandas call, the tool's result) to append to a case's transcript.
type recoveryRun struct {
	Attempts     []eval.Attempt
	Prompts      []string
	Conversation []eval.Message
	ToolCalls    []eval.ToolCall
	Usage        eval.Usage
}

// recoverCode runs the error-recovery loop of the metrics guide after a failed
// execution: each attempt sends the model a new request (no tools, no
// earlier conversation) with the latest error, the question and the latest
// failed code, asks for corrected code only, and runs that code through
// run_pandas on the same dataset. It stops at the first success or after
// in.MaxAttempts attempts. The error is a provider failure or a server
// fault (*mcpconn.ServerError); the attempts made until then are returned
// with it.
func recoverCode(ctx context.Context, chat llm.Chatter, tools ToolBox, cfg Config, in recoveryInput) (*recoveryRun, error) {
	rec := &recoveryRun{}
	latest := in.Failed
	for i := 1; i <= in.MaxAttempts; i++ {
		prompt := recoveryPrompt(in.Question, in.Schema, latest)
		request := []eval.Message{{Role: "user", Content: prompt}}
		req := llm.Request{Model: cfg.Model, Messages: request}
		resp, err := chat.Chat(ctx, req)
		if err != nil {
			rec.Usage.Retries += resp.Retries
			return rec, err
		}
		rec.Usage.Add(UsageOf(cfg, resp, req))
		rec.Prompts = append(rec.Prompts, prompt)

		code := extractCode(resp.Message.Content)
		args := eval.ArgumentsJSON(map[string]string{"code": code, "dataset": latest.Dataset})
		call := eval.MessageToolCall{ID: fmt.Sprintf("recovery_%d", i), Type: "function",
			Function: eval.FunctionCall{Name: CodeTool, Arguments: args}}
		rec.Conversation = append(rec.Conversation, request[0],
			eval.Message{Role: "assistant", Content: resp.Message.Content, ToolCalls: []eval.MessageToolCall{call}})

		ran, fault := execute(ctx, tools, nil, call)
		measure(cfg, &ran)
		ran.ID, ran.Name, ran.Arguments = call.ID, call.Function.Name, call.Function.Arguments
		rec.ToolCalls = append(rec.ToolCalls, ran)
		rec.Conversation = append(rec.Conversation, toolMessage(call, ran.Result))
		if fault != nil {
			return rec, fault
		}

		latest = eval.Attempt{Code: code, Dataset: latest.Dataset, Output: ran.Result, Failed: ran.IsError,
			Seconds: ran.DurationMS / 1000, Execution: ran.Execution}
		rec.Attempts = append(rec.Attempts, latest)
		if !latest.Failed {
			break
		}
	}
	return rec, nil
}

// recoveryPrompt is the request of one recovery attempt: the latest error,
// the question and the latest failed code. Code and error are fenced so
// that their text cannot end the block early.
func recoveryPrompt(question, schema string, failed eval.Attempt) string {
	var b strings.Builder
	b.WriteString("Your pandas code failed when it ran. Fix it.\n\n")
	fmt.Fprintf(&b, "Question:\n%s\n\n", strings.TrimSpace(question))
	if schema = strings.TrimSpace(schema); schema != "" {
		fmt.Fprintf(&b, "Datasets:\n%s\n\n", schema)
	}
	fmt.Fprintf(&b, "Code that failed (dataset %q):\n%s\n\n", failed.Dataset, fenced("python", failed.Code))
	fmt.Fprintf(&b, "Error:\n%s\n\n", fenced("", failed.Output))
	b.WriteString("Reply with the corrected code only, in one ```python block. The dataset is loaded as df " +
		"(a second one as df2); pd and np are imported; the code must assign the answer to result.")
	return b.String()
}

// fenced wraps text in a Markdown code fence longer than any run of
// backticks inside it.
func fenced(lang, text string) string {
	longest := 0
	for _, run := range backticks.FindAllString(text, -1) {
		longest = max(longest, len(run))
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + fence
}

var backticks = regexp.MustCompile("`+")

// codeBlock is a fenced block of a Markdown reply.
type codeBlock struct {
	lang, body string
}

// codeBlocks returns the fenced blocks of text. A block opens with a line
// of three or more backticks (and an optional language) and closes with a
// line of at least as many backticks, or at the end of the text.
func codeBlocks(text string) []codeBlock {
	var blocks []codeBlock
	var body []string
	fence, lang := 0, ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		run := len(trimmed) - len(strings.TrimLeft(trimmed, "`"))
		switch {
		case fence == 0 && run >= 3:
			fence, lang, body = run, strings.ToLower(strings.TrimSpace(trimmed[run:])), nil
		case fence > 0 && run >= fence && run == len(trimmed):
			blocks = append(blocks, codeBlock{lang: lang, body: strings.Join(body, "\n")})
			fence = 0
		case fence > 0:
			body = append(body, line)
		}
	}
	if fence > 0 {
		blocks = append(blocks, codeBlock{lang: lang, body: strings.Join(body, "\n")})
	}
	return blocks
}

// extractCode returns the code of a model's reply: the body of the first
// fenced block marked python (or the first block), else the whole reply.
func extractCode(reply string) string {
	blocks := codeBlocks(reply)
	for _, b := range blocks {
		if b.lang == "python" || b.lang == "py" || b.lang == "python3" {
			return strings.TrimSpace(b.body)
		}
	}
	if len(blocks) > 0 {
		return strings.TrimSpace(blocks[0].body)
	}
	return strings.TrimSpace(reply)
}
