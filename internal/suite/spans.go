package suite

// The spans of a case run, as the OpenTelemetry GenAI semantic
// conventions (semconv v1.40.0) name them: a root span per case run, a
// chat span per model request (the agent's, the judge's, the simulated
// user's), an execute_tool span per tool call (with the MCP client span
// package mcpconn starts beneath it), and the case's evaluation results as
// gen_ai.evaluation.result events of the root span. With export off
// (package tracing) the tracer is a no-op and nothing is wrapped.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/llm"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/prices"
	"github.com/mcpeval/mcpeval/internal/tracing"
)

// The suite's own attributes (the conventions have none for these).
const (
	attrCase     = attribute.Key("mcpeval.case.name")
	attrCategory = attribute.Key("mcpeval.case.category")
	attrArm      = attribute.Key("mcpeval.arm")
	attrRepeat   = attribute.Key("mcpeval.repeat")
	attrStatus   = attribute.Key("mcpeval.status")
	attrCached   = attribute.Key("mcpeval.cached")
	attrReason   = attribute.Key("mcpeval.reason")
	attrCost     = attribute.Key("mcpeval.cost_usd")
	attrRetries  = attribute.Key("mcpeval.retries")
	attrRole     = attribute.Key("mcpeval.role")
	attrRunID    = attribute.Key("mcpeval.run.id")
)

// evaluationEvent is the conventions' event of an evaluation result.
const evaluationEvent = "gen_ai.evaluation.result"

// startCase starts the root span of a case run; off, a span that is not
// recorded, whose trace ID is "".
func (s *Run) startCase(ctx context.Context, c eval.Case, a *arm, repeat int) (context.Context, trace.Span) {
	if !s.traces.Enabled() {
		return ctx, trace.SpanFromContext(context.Background()) // not recording
	}
	// A case run is a trace of its own, whatever the caller's context
	// holds.
	return s.traces.Tracer().Start(ctx, "case "+c.Name, trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrCase.String(c.Name), attrCategory.String(c.Category), attrArm.String(a.name),
			attrRepeat.Int(repeat), attrRunID.String(s.runID)))
}

// traceID is the ID of span's trace in hex, "" when it has none.
func traceID(span trace.Span) string {
	if sc := span.SpanContext(); sc.IsValid() {
		return sc.TraceID().String()
	}
	return ""
}

// endCase ends the root span of a case run with what its record says:
// status, cache, usage, and the evaluation results as events.
func (s *Run) endCase(span trace.Span, rec eval.Record, err error) {
	if !span.IsRecording() {
		return
	}
	defer span.End()
	status := string(rec.Status)
	if err != nil {
		status = "skipped"
	}
	span.SetAttributes(attrStatus.String(status), attrCached.Bool(rec.Cached),
		semconv.GenAIRequestModel(rec.Model),
		semconv.GenAIUsageInputTokens(rec.Usage.PromptTokens), semconv.GenAIUsageOutputTokens(rec.Usage.CompletionTokens),
		attrCost.Float64(rec.Usage.CostUSD))
	if s.traces.Content() {
		span.SetAttributes(attrReason.String(s.redactor.String(rec.Reason)))
	}
	if rec.Status == eval.Error {
		span.SetStatus(codes.Error, s.redactor.String(rec.Reason))
	}
	if err != nil || rec.Status == eval.NotRun {
		return
	}
	s.evaluationEvents(span, rec)
}

// evaluationEvents adds a case's evaluation results to span: the verdict
// (the case's status), the judge's verdict, each check and each metric.
// Explanations, which may quote the answer, only with content capture.
func (s *Run) evaluationEvents(span trace.Span, rec eval.Record) {
	event := func(name, label string, score *float64, explanation string) {
		attrs := []attribute.KeyValue{semconv.GenAIEvaluationName(name)}
		if label != "" {
			attrs = append(attrs, semconv.GenAIEvaluationScoreLabel(label))
		}
		if score != nil {
			attrs = append(attrs, semconv.GenAIEvaluationScoreValue(*score))
		}
		if explanation != "" && s.traces.Content() {
			attrs = append(attrs, semconv.GenAIEvaluationExplanation(s.redactor.String(explanation)))
		}
		span.AddEvent(evaluationEvent, trace.WithAttributes(attrs...))
	}
	passed := 0.0
	if rec.Status == eval.Pass {
		passed = 1
	}
	event("verdict", string(rec.Status), &passed, rec.Reason)
	if rec.Verdict != "" {
		event("judge", rec.Verdict, nil, "")
	}
	for _, c := range rec.Checks {
		label := "passed"
		switch {
		case c.Undecided:
			label = "undecided"
		case !c.Passed:
			label = "failed"
		}
		event("check: "+c.Check, label, nil, c.Detail)
	}
	if rec.Metrics != nil {
		scores := rec.Metrics.Scores()
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for k := range scores {
				if !yield(k) {
					return
				}
			}
		}) {
			v := scores[name]
			event(name, "", &v, "")
		}
		overall := rec.Metrics.Overall.Score
		event("overall", "", &overall, "")
	}
}

// roleKey carries who a model request is made for: the agent (none), the
// judge or the simulated user.
type roleKey struct{}

func withRole(ctx context.Context, role string) context.Context {
	return context.WithValue(ctx, roleKey{}, role)
}

// judgeSpan starts the span the judge's requests nest under.
func (s *Run) judgeSpan(ctx context.Context) (context.Context, trace.Span) {
	if !s.traces.Enabled() || !s.Settings.JudgeEnabled() {
		return ctx, trace.SpanFromContext(context.Background())
	}
	ctx, span := s.traces.Tracer().Start(ctx, "judge", trace.WithAttributes(semconv.GenAIOperationNameKey.String("judge")))
	return withRole(ctx, "judge"), span
}

// tracedChat starts a chat span around each model request.
type tracedChat struct {
	llm.Chatter
	tracer   trace.Tracer
	provider string
	content  bool
	redact   func(string) string
	prices   *prices.Table
}

// providerName is gen_ai.provider.name for the settings' provider.
func providerName(provider string) string {
	switch provider {
	case "azure":
		return "azure.ai.openai"
	case "openai", "openrouter":
		return provider
	}
	return "openai" // an OpenAI-compatible server of the user's
}

func (c tracedChat) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	ctx, span := c.tracer.Start(ctx, "chat "+req.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		semconv.GenAIOperationNameChat, semconv.GenAIProviderNameKey.String(c.provider), semconv.GenAIRequestModel(req.Model)))
	defer span.End()
	if role, _ := ctx.Value(roleKey{}).(string); role != "" {
		span.SetAttributes(attrRole.String(role))
	}
	if req.MaxTokens > 0 {
		span.SetAttributes(semconv.GenAIRequestMaxTokens(req.MaxTokens))
	}
	if c.content {
		span.SetAttributes(semconv.GenAIInputMessagesKey.String(c.redact(messagesJSON(req.Messages))))
	}
	resp, err := c.Chatter.Chat(ctx, req)
	span.SetAttributes(attrRetries.Int(resp.Retries))
	if err != nil {
		span.SetAttributes(semconv.ErrorTypeKey.String(chatErrorType(err)))
		span.SetStatus(codes.Error, c.redact(llm.Describe(err)))
		return resp, err
	}
	if resp.Model != "" {
		span.SetAttributes(semconv.GenAIResponseModel(resp.Model))
	}
	if resp.ID != "" {
		span.SetAttributes(semconv.GenAIResponseID(resp.ID))
	}
	if resp.FinishReason != "" {
		span.SetAttributes(semconv.GenAIResponseFinishReasons(resp.FinishReason))
	}
	if resp.HasUsage {
		span.SetAttributes(semconv.GenAIUsageInputTokens(resp.Usage.PromptTokens), semconv.GenAIUsageOutputTokens(resp.Usage.CompletionTokens),
			semconv.GenAIUsageCacheReadInputTokens(resp.Usage.CachedTokens))
	}
	switch {
	case resp.CostReported:
		span.SetAttributes(attrCost.Float64(resp.CostUSD))
	case resp.HasUsage && c.prices != nil:
		if usd, ok := c.prices.Cost(req.Model, resp.Usage); ok {
			span.SetAttributes(attrCost.Float64(usd))
		}
	}
	if c.content {
		span.SetAttributes(semconv.GenAIOutputMessagesKey.String(c.redact(messagesJSON([]eval.Message{resp.Message}))))
	}
	return resp, nil
}

// chatErrorType is error.type for a failed model request: the provider's
// HTTP status, else the kind of failure.
func chatErrorType(err error) string {
	var pe *llm.ProviderError
	switch {
	case errors.As(err, &pe) && pe.Status > 0:
		return strconv.Itoa(pe.Status)
	case llm.ExceedsContext(err):
		return "context_length_exceeded"
	}
	return fmt.Sprintf("%T", err)
}

// messagesJSON is messages in the conventions' shape of
// gen_ai.input.messages: each a role and its parts.
func messagesJSON(messages []eval.Message) string {
	type part struct {
		Type      string `json:"type"`
		Content   string `json:"content,omitempty"`
		ID        string `json:"id,omitempty"`
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments,omitempty"`
		Response  string `json:"response,omitempty"`
	}
	type message struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	out := make([]message, 0, len(messages))
	for _, m := range messages {
		msg := message{Role: m.Role, Parts: []part{}}
		switch {
		case m.Role == "tool":
			msg.Parts = append(msg.Parts, part{Type: "tool_call_response", ID: m.ToolCallID, Response: m.Content})
		case m.Content != "":
			msg.Parts = append(msg.Parts, part{Type: "text", Content: m.Content})
		}
		for _, call := range m.ToolCalls {
			msg.Parts = append(msg.Parts, part{Type: "tool_call", ID: call.ID, Name: call.Function.Name, Arguments: call.Function.Arguments})
		}
		out = append(out, msg)
	}
	b, _ := json.Marshal(out) // strings only: it cannot fail
	return string(b)
}

// tracedTools starts an execute_tool span around each tool call; the MCP
// client span of the call (package mcpconn) nests beneath it.
type tracedTools struct {
	agent.ToolBox
	tracer  trace.Tracer
	content bool
	redact  func(string) string
}

func (t tracedTools) Call(ctx context.Context, name string, args map[string]any) (mcpconn.Result, error) {
	ctx, span := t.tracer.Start(ctx, "execute_tool "+name, trace.WithAttributes(
		semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(name), semconv.GenAIToolType("function")))
	defer span.End()
	if id := agent.CallID(ctx); id != "" {
		span.SetAttributes(semconv.GenAIToolCallID(id))
	}
	if t.content {
		b, _ := json.Marshal(args)
		span.SetAttributes(semconv.GenAIToolCallArgumentsKey.String(t.redact(string(b))))
	}
	res, err := t.ToolBox.Call(ctx, name, args)
	switch {
	case err != nil:
		span.SetAttributes(semconv.ErrorTypeKey.String(fmt.Sprintf("%T", err)))
		span.SetStatus(codes.Error, t.redact(err.Error()))
	case res.IsError:
		span.SetAttributes(semconv.ErrorTypeKey.String("tool_error"))
		span.SetStatus(codes.Error, "the tool reported an error")
	}
	if err == nil && t.content {
		span.SetAttributes(semconv.GenAIToolCallResultKey.String(t.redact(res.Text)))
	}
	return res, err
}

// traced wraps a case's tool box in execute_tool spans when export is on.
func (s *Run) traced(box agent.ToolBox) agent.ToolBox {
	if !s.traces.Enabled() {
		return box
	}
	return tracedTools{ToolBox: box, tracer: s.traces.Tracer(), content: s.traces.Content(), redact: s.redactor.String}
}

// startTraces starts the export of the run's traces the settings ask
// for, before the servers are connected; traceRun completes it once the
// run's directory and provider client exist.
func (s *Run) startTraces(ctx context.Context) error {
	var err error
	s.traces, err = tracing.Start(ctx, tracing.Config{
		Exporters: tracing.Exporters(s.Settings.Traces, os.Getenv), Content: s.Settings.TraceContent,
		Warn: func(msg string) { fmt.Fprintln(s.log, "warning:", s.redactor.String(msg)) },
	})
	return err
}

// startConnectSpan starts the span of the servers' start, a trace of its
// own: a server instrumented per the conventions nests the spans of its
// initialize and tools/list under it. end ends it with the start's error.
func (s *Run) startConnectSpan(ctx context.Context) (_ context.Context, end func(error)) {
	if !s.traces.Enabled() {
		return ctx, func(error) {}
	}
	ctx, span := s.traces.Tracer().Start(ctx, "connect MCP servers", trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindInternal))
	return ctx, func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, s.redactor.String(mcpconn.Describe(err)))
		}
		span.End()
	}
}

// traceRun names the run's directory to the file exporter and wraps the
// provider client in chat spans, when export is on.
func (s *Run) traceRun() error {
	if !s.traces.Enabled() {
		return nil
	}
	if err := s.traces.SetDir(s.RunDir); err != nil {
		return err
	}
	s.traceURL = s.Settings.TraceURL
	if s.chat == nil {
		return nil
	}
	s.chat = tracedChat{Chatter: s.chat, tracer: s.traces.Tracer(), provider: providerName(s.Settings.Provider),
		content: s.traces.Content(), redact: s.redactor.String, prices: s.prices}
	return nil
}

// roleChat makes its requests for a role (see withRole).
type roleChat struct {
	llm.Chatter
	role string
}

func (r roleChat) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	return r.Chatter.Chat(withRole(ctx, r.role), req)
}

// userChat is chat for the simulated user: its chat spans say so.
func userChat(chat llm.Chatter) llm.Chatter {
	if _, traced := chat.(tracedChat); !traced {
		return chat
	}
	return roleChat{Chatter: chat, role: "user"}
}
