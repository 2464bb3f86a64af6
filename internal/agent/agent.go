// Package agent runs the tool-using agent loop of one case: the model gets
// the question and the MCP servers' tools, its tool calls are executed, and
// the loop ends with its final answer, the iteration limit or the token
// limit. It also holds the offline reference agent.
package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llm"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/prices"
	"github.com/mcpeval/mcpeval/internal/tokens"
)

// DefaultSystemPrompt tells the model to answer from the tools, not from memory.
const DefaultSystemPrompt = `You are a research assistant with access to tools from one or more MCP servers (for example genetics databases).
Answer the user's question by calling the tools; do not guess and do not answer from memory.
If a tool returns an error, read it, correct the call and try again.
If the tools return no data for what was asked, say clearly that the data is unavailable.
End with a concise final answer that states the key facts and values.`

// maxCallsPerReply bounds the tool calls executed from one model reply; the
// rest are answered with an error so the conversation stays valid.
const maxCallsPerReply = 32

// Config configures the loop.
type Config struct {
	Model         string
	SystemPrompt  string
	MaxIterations int // default 10
	// TokenLimit bounds every tool result (and the judge prompt); 0 disables
	// it. LimitCounter counts for it: cl100k_base, as upstream did, whatever
	// the model.
	TokenLimit   int
	LimitCounter *tokens.Counter
	// Counter estimates the usage of a request the provider reported none
	// for, in the encoding of the model asked (Model).
	Counter *tokens.Counter
	// Prices costs the requests whose provider reports no cost; nil prices
	// nothing.
	Prices *prices.Table
	// Recorder keeps the result of each call that reached a server, whole,
	// as it arrives (before a token limit cuts it), and returns its
	// fingerprint (see package recordings); nil keeps nothing.
	Recorder func(result string) (fingerprint string)
	// FollowLinks offers the model eval.ReadResourceTool once a tool
	// result returned a resource link.
	FollowLinks bool
}

// ToolBox is what the agent calls tools through: the live servers
// (*mcpconn.Set), or a replay of an earlier run's recorded results
// (replay.Box), which offers the tools that run was offered.
type ToolBox interface {
	// Tools are the tools offered to the model, by the names it calls.
	Tools() []eval.Tool
	// Lookup finds the tool offered under a name; Has says whether one is.
	Lookup(name string) (mcpconn.Tool, bool)
	Has(name string) bool
	// Call executes a call of the tool offered under name.
	Call(ctx context.Context, name string, args map[string]any) (mcpconn.Result, error)
	// ReadResource reads a resource a result of the server linked to.
	ReadResource(ctx context.Context, server, uri string) (mcpconn.Result, error)
}

// Transcript is what one run of the loop produced.
type Transcript struct {
	Answer       string
	Conversation []eval.Message
	ToolCalls    []eval.ToolCall
	Usage        eval.Usage
	// TokenLimit, when set, says which tool result exceeded the limit; the
	// loop stopped there.
	TokenLimit string
	// Incomplete, when set, says why the model gave no final answer.
	Incomplete string
	// Cut, when set, says how the provider cut the model's reply off (see
	// llm.Response.Cut); the loop stopped there, and the reply is not
	// graded.
	Cut string
	// Fault is a server fault that ended a reference run; Results are the
	// texts of a reference run's results that were not errors.
	Fault   error
	Results []string
	// Attempts, Columns and Values describe a code case (RunCode): the
	// executions that led to its final code, the columns of that code's
	// datasets, and the values list_datasets lists for their text columns
	// with few distinct values, by column.
	Attempts []eval.Attempt
	Columns  []string
	Values   map[string][]string
	// Warnings say what of the provider's responses was left out as
	// unreadable (usage numbers that are not finite), each once.
	Warnings []string

	// links and seen carry over from one turn of a conversation to the
	// next (see Continue): the resources linked so far, and the tokens of
	// the messages counted so far.
	links *links
	seen  *shown
}

// Run runs the loop for one question. The error is a provider failure, a
// server fault (*mcpconn.ServerError) or the context ending; every other tool
// failure goes back to the model.
func Run(ctx context.Context, chat llm.Chatter, tools ToolBox, cfg Config, question string) (*Transcript, error) {
	if cfg.SystemPrompt == "" {
		cfg.SystemPrompt = DefaultSystemPrompt
	}
	tr := &Transcript{Conversation: []eval.Message{{Role: "system", Content: cfg.SystemPrompt}}}
	return tr, tr.Continue(ctx, chat, tools, cfg, question)
}

// Continue sends the user's next message in the conversation tr holds and
// runs the loop again, with MaxIterations of its own, until the model
// replies without calling a tool: a turn of a conversation. Answer,
// TokenLimit, Incomplete and Cut then say how this turn ended; the
// conversation, the tool calls, the usage and the warnings go on growing.
// The error is Run's.
func (tr *Transcript) Continue(ctx context.Context, chat llm.Chatter, tools ToolBox, cfg Config, message string) error {
	if cfg.MaxIterations <= 0 {
		cfg.MaxIterations = 10
	}
	tr.start(cfg)
	tr.Conversation = append(tr.Conversation, eval.Message{Role: "user", Content: message})
	l, seen := tr.links, tr.seen
	for iter := 0; iter < cfg.MaxIterations; iter++ {
		req := llm.Request{Model: cfg.Model, Messages: tr.Conversation, Tools: l.tools(tools)}
		resp, err := chat.Chat(ctx, req)
		if err != nil {
			tr.Usage.Retries += resp.Retries
			return err
		}
		tr.Usage.Add(UsageOf(cfg, resp, req))
		if resp.Warning != "" && !slices.Contains(tr.Warnings, resp.Warning) {
			tr.Warnings = append(tr.Warnings, resp.Warning)
		}
		msg := resp.Message
		tr.Conversation = append(tr.Conversation, msg)
		if cfg.Counter != nil && resp.HasUsage {
			if cut := promptCut(resp, seen.of(req.Messages), cfg.Counter.Encoding); cut != "" {
				tr.TokenLimit = cut
				return nil
			}
		}
		if resp.Cut() {
			tr.Cut = cutReason(resp.FinishReason)
			return nil
		}
		if len(msg.ToolCalls) == 0 {
			tr.Answer = msg.Content
			return nil
		}
		for i, call := range msg.ToolCalls {
			if i >= maxCallsPerReply {
				tr.reply(call, notRun(fmt.Sprintf("not executed: at most %d tool calls in one reply", maxCallsPerReply)))
				continue
			}
			rec, err := execute(ctx, tools, l, call)
			exact := measure(cfg, &rec)
			if err != nil {
				tr.reply(call, rec)
				return err
			}
			if tr.stopAtLimit(cfg, call, rec, exact) {
				return nil
			}
			tr.reply(call, rec)
		}
	}
	tr.Incomplete = fmt.Sprintf("no final answer after %d iterations", cfg.MaxIterations)
	return nil
}

// start readies the transcript for a turn: what carries over from the
// turns before is kept (made at the first), what says how a turn ended is
// cleared.
func (tr *Transcript) start(cfg Config) {
	if tr.links == nil {
		tr.links, tr.seen = newLinks(cfg.FollowLinks), &shown{counter: cfg.Counter}
	}
	tr.Answer, tr.TokenLimit, tr.Incomplete, tr.Cut = "", "", "", ""
}

// reply records a tool call and appends its tool message.
func (tr *Transcript) reply(call eval.MessageToolCall, rec eval.ToolCall) {
	named(&rec, call)
	tr.ToolCalls = append(tr.ToolCalls, rec)
	tr.Conversation = append(tr.Conversation, toolMessage(call, rec.Result))
}

// toolMessage is the tool message answering call.
func toolMessage(call eval.MessageToolCall, content string) eval.Message {
	if content == "" {
		content = "(the tool returned no content)" // providers reject tool messages without content
	}
	return eval.Message{Role: "tool", ToolCallID: call.ID, Name: call.Function.Name, Content: content}
}

// measure takes a tool result as it arrives: it keeps the result of a call
// that reached a server (Config.Recorder) unless it came from the
// recordings (its fingerprint is set), and counts its tokens once,
// into its ResultTokens, in the token limit's encoding. It reports whether
// the count is exact (see tokens.Counter.Measure).
func measure(cfg Config, rec *eval.ToolCall) (exact bool) {
	if cfg.Recorder != nil && rec.ResultFingerprint == "" && !rec.NotRun && !rec.Refused && rec.Replay != eval.ReplayUnmatched {
		rec.ResultFingerprint = cfg.Recorder(rec.Result)
	}
	if cfg.LimitCounter == nil {
		return true
	}
	rec.ResultTokens, exact = cfg.LimitCounter.Measure(rec.Result)
	return exact
}

// stopAtLimit records a tool result over the token limit, cut short, and
// reports whether it was over: the case then ends as token_limit. The
// result's tokens are counted already (measure); exact says whether the
// count is exact.
func (tr *Transcript) stopAtLimit(cfg Config, call eval.MessageToolCall, rec eval.ToolCall, exact bool) bool {
	if cfg.TokenLimit <= 0 || rec.ResultTokens <= cfg.TokenLimit {
		return false
	}
	n := tokens.Grouped(rec.ResultTokens)
	if !exact {
		n = "about " + n
	}
	named(&rec, call)
	tr.TokenLimit = fmt.Sprintf("token count exceeded: %s > %s (result of tool %s)", n, tokens.Grouped(cfg.TokenLimit), rec.Name)
	rec.ResultBytes = len(rec.Result)
	rec.Result = truncate(rec.Result, 2000) + fmt.Sprintf("\n[... result cut: %s tokens]", n)
	tr.ToolCalls = append(tr.ToolCalls, rec)
	return true
}

// named gives the record of a call its id and arguments, and the name
// the model called it by unless execute found the tool's own.
func named(rec *eval.ToolCall, call eval.MessageToolCall) {
	rec.ID, rec.Arguments = call.ID, call.Function.Arguments
	if rec.Name == "" {
		rec.Name = call.Function.Name
	}
}

// notRun is the record of a call that never reached a server.
func notRun(why string) eval.ToolCall {
	return eval.ToolCall{Result: errorJSON(why), IsError: true, NotRun: true}
}

type callIDKey struct{}

// CallID is the id the model gave the tool call a ToolBox's Call runs
// for, "" outside one.
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

// execute runs one tool call: of a server's tool, or of readTool. Every
// failure of the call itself becomes an error result the model can read;
// the error is a server fault (*mcpconn.ServerError: the server crashed or
// hung) or the end of the case's context, either of which ends the case.
func execute(ctx context.Context, tools ToolBox, l *links, call eval.MessageToolCall) (eval.ToolCall, error) {
	name := call.Function.Name
	if l.reads(tools, name) {
		return l.read(ctx, tools, call)
	}
	tool, ok := tools.Lookup(name)
	if !ok {
		return notRun(fmt.Sprintf("unknown tool %q; use one of the tools offered", name)), nil
	}
	args := map[string]any{}
	if raw := strings.TrimSpace(call.Function.Arguments); raw != "" {
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			rec := notRun("invalid JSON arguments: " + err.Error())
			rec.Name, rec.Server = tool.Name, tool.Server
			return rec, nil
		}
	}
	start := time.Now()
	res, err := tools.Call(context.WithValue(ctx, callIDKey{}, call.ID), name, args)
	rec := eval.ToolCall{Name: tool.Name, Server: tool.Server, DurationMS: float64(time.Since(start).Microseconds()) / 1000,
		Replay: res.Replay, ResultFingerprint: res.Fingerprint}
	rec, err = finish(ctx, rec, res, err)
	l.add(rec)
	return rec, err
}

// cutReason says why a reply was cut off, by its finish_reason.
func cutReason(finish string) string {
	if finish == "content_filter" {
		return "the provider's content filter stopped the model's reply (finish_reason content_filter); a cut reply is not graded"
	}
	return "the provider cut the model's reply off at its output token limit (finish_reason length); a cut reply is not graded"
}

// UsageOf returns the usage of one request: as the API reported it, or a
// tiktoken estimate of everything sent and received when it reported none;
// its retries; and its cost: the provider's figure, else the tokens at the
// model's price, else unpriced.
func UsageOf(cfg Config, resp llm.Response, req llm.Request) eval.Usage {
	u := tokenUsage(resp, req, cfg.Counter)
	u.Retries = resp.Retries
	switch usd, ok := cfg.Prices.Cost(cfg.Model, u); {
	case resp.CostReported:
		u.CostUSD = resp.CostUSD
	case ok:
		u.CostUSD = usd
	default:
		u.Unpriced = u.Requests
	}
	return u
}

// tokenUsage returns the tokens the API reported, or, when it reported
// none, an estimate in the model's encoding of what the request sent (its
// messages, with the fields the provider attached to them, and its tool
// definitions) and what the reply holds.
func tokenUsage(resp llm.Response, req llm.Request, counter *tokens.Counter) eval.Usage {
	if resp.HasUsage || counter == nil {
		u := resp.Usage
		u.Requests = 1
		return u
	}
	prompt := promptTokens(counter, req)
	completion := messageTokens(counter, resp.Message)
	return eval.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion, Requests: 1, Estimated: true}
}

// messageTokens counts a message's text, tool calls and the fields the
// provider attached to it.
func messageTokens(counter *tokens.Counter, m eval.Message) int {
	n := 0
	if m.Extra["content"] == nil {
		n += counter.Count(m.Content)
	}
	for _, tc := range m.ToolCalls {
		n += counter.Count(tc.Function.Name) + counter.Count(tc.Function.Arguments) + 3
		for _, v := range tc.Extra {
			n += counter.Count(string(v))
		}
	}
	for _, v := range m.Extra {
		n += counter.Count(string(v))
	}
	return n
}

// Exceeds reports whether text is over the token limit, with its token
// count written out ("123,456", or "about 123,456" when a long run without
// a place to split it was counted in parts, see tokens.Counter.Measure).
func Exceeds(cfg Config, text string) (bool, string) {
	if cfg.LimitCounter == nil {
		return false, ""
	}
	over, n, exact := cfg.LimitCounter.Exceeds(text, cfg.TokenLimit)
	if !exact {
		return over, "about " + tokens.Grouped(n)
	}
	return over, tokens.Grouped(n)
}

func errorJSON(msg string) string {
	return eval.ArgumentsJSON(map[string]string{"error": msg})
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
