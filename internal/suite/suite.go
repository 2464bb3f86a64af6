// Package suite runs evaluation cases: it connects the MCP servers and the
// model once per run, and for each case consults the cache, runs the agent
// (or the offline reference agent), applies the deterministic checks and the
// judge, scores the result, removes the run's secrets from it and appends
// it to results.jsonl as it finishes. Package evaltest wires it to go test.
package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpeval/mcpeval/cache"
	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/labelled"
	"github.com/mcpeval/mcpeval/internal/llm"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/prices"
	"github.com/mcpeval/mcpeval/internal/redact"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/stats"
	"github.com/mcpeval/mcpeval/internal/tokens"
	"github.com/mcpeval/mcpeval/internal/toolstats"
	"github.com/mcpeval/mcpeval/scoring"
)

// Suite is one run's shared state.
type Suite struct {
	Settings settings.Settings
	Cases    []eval.Case
	// RunDir is the run's own directory (Settings.Out/runs/<id>).
	RunDir string
	// Names holds each case's subtest name, by case name.
	Names map[string]string

	tools    *mcpconn.Set
	chat     llm.Chatter
	limiter  *llm.Limiter
	counters map[string]*tokens.Counter // by model: usage the provider did not report is estimated in its encoding
	// limitCounter counts for the token limit: cl100k_base, as upstream
	// did, whatever the model.
	limitCounter *tokens.Counter
	prices       *prices.Table
	cache        *cache.Cache
	records      *recordWriter
	redactor     *redact.Redactor
	releaseRun   func() // ends the hold on RunDir (see runs.Hold)
	shardGroup   string // see eval.Shard.Group
	started      time.Time
	log          io.Writer
	servers      []string // display names
	aborted      atomic.Pointer[string]
	toolHash     string
	// toolStats gathers the statistics of the tool calls as records are
	// written; toolChanges is how the surface differs from the previous
	// run's (nil: it does not, or there was none).
	toolStats   *toolstats.Collector
	toolChanges *eval.ToolChanges
	// cacheWarned counts the cache warnings already printed.
	cacheWarned int

	// FailFast stops the run at the first case that fails (go test
	// -failfast): cases not started yet are not run.
	FailFast   bool
	failedFast atomic.Pointer[string]

	runID    string
	repeatMu sync.Mutex
	repeats  map[repeatKey]int // runs so far, by case and model
	skips    map[repeatKey]int // runs skipped (see SkipError), by case and model

	spendMu sync.Mutex
	spent   float64 // US dollars this run's finished cases cost

	// checkProvider checks the provider once, before the first case that
	// needs it; a failure stops the run.
	checkProvider func(ctx context.Context) error
	// codeReady runs the bundled server's CodeCheck once, on first need.
	codeReady func() error
	// checksCal measures the checks that decide a run without a judge.
	checksCal *eval.ChecksCalibration
}

// repeatKey names a case's runs with one model.
type repeatKey struct{ name, model string }

// Server describes how to start the MCP servers when Settings.Servers is
// empty: the bundled sample server.
type Server struct {
	Spec    string
	Env     []string
	Display string
	// CodeCheck, when set, tells whether the server can run code cases; an
	// error skips them with its message. It runs once per run, for the
	// first code case that is not served from the cache, within the
	// concurrency limit.
	CodeCheck func() error
}

// SkipError is the error of a case that was not run because the run cannot
// run it (a reference run without a reference trajectory, a code case
// without pandas); the case is skipped, not failed, and counted as skipped.
type SkipError struct {
	Reason string
}

func (e *SkipError) Error() string { return e.Reason }

// New connects the servers and the provider, opens the cache and the
// records file. log receives notices (cache warnings, the reference-run
// banner). bundled is used when no server is configured.
func New(ctx context.Context, st settings.Settings, cases []eval.Case, bundled Server, log io.Writer) (*Suite, error) {
	s := &Suite{Settings: st, Cases: cases, started: time.Now(), log: log, Names: map[string]string{},
		repeats: map[repeatKey]int{}, skips: map[repeatKey]int{},
		redactor: st.Redactor(os.Environ()), counters: map[string]*tokens.Counter{}}
	for i, name := range evalcase.SubtestNames(cases) {
		s.Names[cases[i].Name] = name
		// The user's own questions and answers are data, never rewritten.
		s.redactor.Keep(cases[i].Name, cases[i].Category, cases[i].Input, cases[i].Expected)
	}
	var err error
	if s.limitCounter, err = tokens.New(tokens.Default); err != nil {
		return nil, err
	}
	for _, model := range append(append([]string{st.Model}, st.Models...), st.JudgeModels()...) {
		counter, err := tokens.ForModel(model)
		if err != nil {
			return nil, err
		}
		s.counters[model] = counter
	}
	if s.prices, err = prices.Load(st.Prices); err != nil {
		return nil, err
	}
	if !st.JudgeEnabled() {
		s.checksCal = labelled.ChecksCalibration(st.Cases, st.Labels, st.Root, cases)
	}

	specs, opts := st.Servers, mcpconn.Options{CallTimeout: st.ToolTimeout, ReconnectFor: st.CaseTimeout, Tools: st.Tools, Roots: st.Roots}
	for _, spec := range specs {
		s.servers = append(s.servers, spec.Display())
	}
	if len(specs) == 0 {
		spec, err := mcpconn.ParseSpec(bundled.Spec)
		if err != nil {
			return nil, fmt.Errorf("bundled server: %w", err)
		}
		specs, opts.Env, s.servers = []mcpconn.Spec{spec}, bundled.Env, []string{bundled.Display}
		if bundled.CodeCheck != nil {
			s.codeReady = sync.OnceValue(bundled.CodeCheck)
		}
	}
	if s.tools, err = mcpconn.ConnectSpecs(ctx, specs, opts); err != nil {
		return nil, fmt.Errorf("MCP server failed to start, no case was run: %s", s.redactor.String(err.Error()))
	}
	if err := s.tools.CheckToolCount(st.MaxTools); err != nil && !st.Reference {
		s.Close()
		return nil, fmt.Errorf("%s: no case was run. Choose the tools to offer with EVAL_TOOLS (or -tools), patterns such as 'memory/*,get_gene_*,!fs/write_*' (a server's tools by its short name: %s), or set EVAL_MAX_TOOLS (or -max-tools) to the provider's own limit",
			s.redactor.String(err.Error()), strings.Join(s.tools.ServerNames(), ", "))
	}
	s.toolHash = s.tools.Hash()
	s.toolStats = toolstats.New(s.toolServers(s.definitionCounter()), st.MaxTokens, s.limitCounter)
	if err := s.checkDefinitionTokens(); err != nil {
		s.Close()
		return nil, err
	}
	for _, n := range s.tools.Notices() {
		fmt.Fprintln(log, "mcpeval: notice:", s.redactor.String(n))
	}

	s.limiter = llm.NewLimiter(st.Concurrency)
	if !st.Reference {
		client := NewChat(st, s.limiter)
		s.chat = client
		s.checkProvider = s.providerCheck(client)
	}

	if st.Shard.Split() {
		s.shardGroup = shardGroup(os.Getenv, st.Cache) // the cache as every shard starts from it
	}
	if s.cache, err = cache.Open(st.Cache); err != nil {
		s.Close()
		return nil, err
	}
	if st.Clear {
		if err := s.cache.Clear(); err != nil {
			s.Close()
			return nil, err
		}
	}
	s.printCacheWarnings()
	s.runID = st.RunID
	if s.runID == "" {
		s.runID = runs.NewID(s.started)
	}
	s.compareSurface() // before this run can become the latest
	if s.RunDir, err = runs.Create(st.Out, s.runID); err == nil {
		s.releaseRun, err = runs.Hold(s.RunDir)
	}
	if err == nil {
		s.records, err = createRecords(s.RunDir, log, s.toolStats)
	}
	if err == nil {
		// Results that cannot be saved are not paid for: no case starts
		// once one could not be written (a full disk).
		s.records.onFail = func(err error) {
			s.Stop(fmt.Sprintf("the results cannot be saved (%v): no case was started after that", err))
		}
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// NewChat returns the provider client the settings describe; limiter, when
// set, slows the run down on throttling.
func NewChat(st settings.Settings, limiter *llm.Limiter) *llm.Client {
	retries := st.MaxRetries
	if retries == 0 {
		retries = -1 // RetryPolicy: negative means none, zero means the default
	}
	return llm.New(llm.Config{
		BaseURL: st.BaseURL, APIKey: st.APIKey, Headers: st.Headers, Limiter: limiter, Timeout: st.RequestTimeout,
		Retry:           llm.RetryPolicy{MaxRetries: retries, Initial: st.RetryWait, Max: st.RetryMaxWait},
		UsageAccounting: st.Provider == "openrouter" || strings.Contains(st.BaseURL, "openrouter.ai"),
	})
}

// Panel returns the judges the settings configure (no model when the judge
// is off).
func Panel(st settings.Settings) agent.Panel {
	return agent.Panel{Models: st.JudgeModels(), Mode: st.JudgeMode}
}

// JudgeKey returns the judge part of a cache key: the judge models as a set
// (sorted: their order does not change a verdict), the mode when several
// decide, and the judge prompt; all empty when no judge runs.
func JudgeKey(st settings.Settings) (models, mode, prompt string) {
	set := slices.Sorted(slices.Values(st.JudgeModels()))
	if len(set) == 0 {
		return "", "", ""
	}
	if len(set) > 1 {
		mode = st.JudgeMode
	}
	return strings.Join(set, ","), mode, agent.JudgePrompt
}

// Recorded returns how many records of this run were written to
// results.jsonl, and how many could not be (the run stopped at the first).
func (s *Suite) Recorded() (saved, unsaved int) { return s.records.counts() }

// Discard ends a run that started no case: it is closed and its directory
// removed, so that no empty run is kept.
func (s *Suite) Discard() error {
	err := s.Close()
	if s.RunDir != "" {
		err = errors.Join(err, os.RemoveAll(s.RunDir))
	}
	return err
}

// Close ends the servers and closes the records file and the cache.
func (s *Suite) Close() error {
	if s.tools != nil {
		s.tools.Close()
	}
	var errs []error
	if s.records != nil {
		errs = append(errs, s.records.Close())
	}
	if s.cache != nil {
		errs = append(errs, s.cache.Close())
		s.printCacheWarnings()
	}
	if s.releaseRun != nil {
		s.releaseRun()
		s.releaseRun = nil
	}
	return errors.Join(errs...)
}

// printCacheWarnings prints the cache's warnings not printed yet.
func (s *Suite) printCacheWarnings() {
	warnings := s.cache.Warnings()
	for _, w := range warnings[min(s.cacheWarned, len(warnings)):] {
		fmt.Fprintln(s.log, "warning:", s.redactor.String(w))
	}
	s.cacheWarned = len(warnings)
}

// key returns the cache key of a case's repeat with a model under this
// run's settings.
func (s *Suite) key(c eval.Case, model string, repeat int) (string, error) {
	return s.keyWith(c, model, repeat, s.toolHash)
}

// keyWith returns the cache key of a case's repeat with a model under this
// run's settings and the tool surface toolsHash.
func (s *Suite) keyWith(c eval.Case, model string, repeat int, toolsHash string) (string, error) {
	st := s.Settings
	in := cache.KeyInput{
		Question: c.Input, Expected: c.Expected,
		Expectations: struct {
			Kind        eval.Kind          `json:"kind"`
			Checks      eval.Checks        `json:"checks"`
			CheckRules  int                `json:"check_rules"`
			Tools       eval.ToolExpect    `json:"tools"`
			Budget      eval.Budget        `json:"budget"`
			MaxRecovery int                `json:"max_recovery,omitempty"`
			Elicitation []eval.ElicitReply `json:"elicitation,omitempty"`
		}{c.Kind, c.Checks, evalcase.CheckVersion, c.Tools, c.Budget, s.maxRecovery(c), c.Elicitation},
		// The key holds no secret: the URL's credentials are left out.
		Model: model, BaseURL: s.redactor.String(st.BaseURL), SystemPrompt: s.systemPrompt(c),
		MaxIterations: st.MaxIterations, TokenLimit: st.MaxTokens, ToolsHash: toolsHash, Repeat: repeat,
	}
	in.JudgeModel, in.JudgeMode, in.JudgePrompt = JudgeKey(st)
	return cache.Key(in)
}

// systemPrompt returns the agent's system prompt for a case.
func (s *Suite) systemPrompt(c eval.Case) string {
	switch {
	case s.Settings.SystemPrompt != "":
		return s.Settings.SystemPrompt
	case c.Kind == eval.KindCode:
		return agent.CodeSystemPrompt
	}
	return agent.DefaultSystemPrompt
}

// nextRepeat returns how many times the case ran before with the model in
// this process: go test -count=N runs every case N times, and each repeat
// is an independent run with its own cache entry, not a replay of the
// first.
func (s *Suite) nextRepeat(name, model string) int {
	s.repeatMu.Lock()
	defer s.repeatMu.Unlock()
	k := repeatKey{name, model}
	n := s.repeats[k]
	s.repeats[k] = n + 1
	return n
}

// maxRecovery returns the recovery budget of a code case (0 for others).
func (s *Suite) maxRecovery(c eval.Case) int {
	if c.Kind != eval.KindCode {
		return 0
	}
	return s.Settings.MaxRecovery
}

// Aborted returns why the run was stopped (e.g. the provider rejected the
// key), or "".
func (s *Suite) Aborted() string {
	if p := s.aborted.Load(); p != nil {
		return *p
	}
	return ""
}

// skip counts a run of a case the run cannot evaluate and returns the
// *SkipError that says why.
func (s *Suite) skip(c eval.Case, model, reason string) error {
	s.repeatMu.Lock()
	s.skips[repeatKey{c.Name, model}]++
	s.repeatMu.Unlock()
	return &SkipError{Reason: reason}
}

// Stop stops the run for the given reason: cases not started yet are not
// run (Run returns ErrStopped). The first reason given stays.
func (s *Suite) Stop(reason string) { s.aborted.CompareAndSwap(nil, &reason) }

// FailedFast names the case whose failure stopped the run under FailFast,
// or gives "".
func (s *Suite) FailedFast() string {
	if p := s.failedFast.Load(); p != nil {
		return *p
	}
	return ""
}

// ErrStopped is returned for cases not run because the run was stopped
// (see Aborted).
var ErrStopped = errors.New("run stopped")

// Run evaluates one case with one model and records it. test is the go
// test name of the case's subtest. Every problem with the model, the tools
// or the case becomes the record's status and reason; the only errors are
// ErrStopped and a *SkipError, for cases that were not run. A case that
// does not start because the budget is spent is a record with status
// NotRun. The record returned, like everything written, holds no secret of
// the run.
func (s *Suite) Run(ctx context.Context, c eval.Case, model, test string) (eval.Record, error) {
	st := s.Settings
	if st.Reference {
		model = st.Model
		if len(c.Reference) == 0 {
			return eval.Record{}, s.skip(c, model, "reference run: the case has no reference trajectory to replay (add `reference:` tool calls to the case, or configure a model to evaluate it)")
		}
	}
	rec := eval.Record{
		Name: c.Name, Category: c.Category, Test: test, File: c.File, Line: c.Line, Kind: c.Kind,
		Question: c.Input, Expected: c.Expected, Reference: st.Reference,
		Model: model, StartedAt: time.Now().UTC(), Repeat: s.nextRepeat(c.Name, model),
	}
	rec.JudgeModel = strings.Join(st.JudgeModels(), ",")
	key, keyErr := s.key(c, model, rec.Repeat)
	if keyErr != nil {
		fmt.Fprintf(s.log, "warning: case %q cannot be cached: %v\n", c.Name, keyErr)
	}
	if keyErr == nil && !st.Force && !st.Reference {
		if cached, ok := s.cache.Get(key); ok {
			cached.Name, cached.Category, cached.Test, cached.File, cached.Line = c.Name, c.Category, test, c.File, c.Line
			cached.Repeat = rec.Repeat
			s.redactor.Value(&cached)
			s.records.Write(cached)
			return cached, nil
		}
	}

	if s.checkProvider != nil {
		if err := s.checkProvider(ctx); err != nil {
			if s.Aborted() != "" {
				return rec, ErrStopped
			}
			rec.Status, rec.Reason = eval.Error, "not started: "+describeCtx(ctx, err)
			s.records.Write(rec)
			return rec, nil
		}
	}
	if err := s.limiter.Acquire(ctx); err != nil {
		rec.Status, rec.Reason = eval.Error, "not started: "+describeCtx(ctx, err)
		s.records.Write(rec)
		return rec, nil
	}
	if s.Aborted() != "" {
		s.limiter.Release()
		return rec, ErrStopped
	}
	if spent, over := s.overBudget(); over {
		s.limiter.Release()
		rec.Status = eval.NotRun
		rec.Reason = fmt.Sprintf("not started: the budget of $%.4f is spent ($%.4f)", st.BudgetUSD, spent)
		s.records.Write(rec)
		return rec, nil
	}
	if c.Kind == eval.KindCode && s.codeReady != nil {
		if err := s.codeReady(); err != nil {
			s.limiter.Release()
			return rec, s.skip(c, model, "code case: the bundled server cannot run pandas: "+err.Error())
		}
	}
	start := time.Now()
	caseCtx, cancel := context.WithTimeoutCause(ctx, st.CaseTimeout,
		fmt.Errorf("timed out: the case took longer than EVAL_CASE_TIMEOUT (%s)", st.CaseTimeout))
	tr := s.evaluate(caseCtx, c, &rec)
	cancel()
	// The spend counts before the slot is free: the next case to take it
	// sees this one's cost.
	s.spend(rec.Usage.CostUSD)
	// Before the slot goes to a waiting case.
	if s.FailFast && rec.Status != eval.Pass && !st.Gated() && s.failedFast.CompareAndSwap(nil, &c.Name) {
		s.Stop(fmt.Sprintf("-failfast: case %q failed", c.Name))
	}
	s.limiter.Release()
	rec.Seconds = time.Since(start).Seconds()
	s.redactor.Value(&rec)
	// Stored texts are bounded (redaction came first, so that no cut
	// leaves part of a secret behind), and so is the work of scoring them.
	rec.Limit(eval.MaxStoredText)
	// Metrics judge the model: a harness or provider error, or a judge
	// that could not decide, says nothing of it.
	if rec.Status != eval.Error && rec.Status != eval.Undecided {
		m := s.score(c, rec, tr)
		s.redactor.Value(&m)
		rec.Metrics = &m
	}

	// A reference run is not a model result: it neither adds to nor removes
	// from the cache. An error (a provider or server failure) or an
	// undecided judge says nothing of the model either, so it leaves an
	// earlier pass in place; a fail removes it.
	if keyErr == nil && !st.Reference && rec.Status != eval.Error && rec.Status != eval.Undecided {
		if err := s.cache.Put(key, rec); err != nil {
			fmt.Fprintln(s.log, "warning: cache:", err)
		}
	}
	s.records.Write(rec)
	return rec, nil
}

// score computes the metrics of a finished case, once the checks and the
// judge have decided its status.
func (s *Suite) score(c eval.Case, rec eval.Record, tr *agent.Transcript) eval.Metrics {
	if c.Kind != eval.KindCode {
		return scoring.ScoreTool(c, rec)
	}
	return scoring.ScoreCode(scoring.CodeCase{
		Question: c.Input, Columns: tr.Columns, Values: tr.Values, Attempts: tr.Attempts,
		ResultMatches: rec.Status == eval.Pass,
		// Every attempt made counts: the model may have fixed its code
		// within its own loop more often than the recovery budget allows.
		MaxRecoveryAttempts: max(s.Settings.MaxRecovery, len(tr.Attempts)-1),
	})
}

// evaluate runs the agent, checks and judge and fills rec. It returns the
// agent's transcript.
func (s *Suite) evaluate(ctx context.Context, c eval.Case, rec *eval.Record) *agent.Transcript {
	st := s.Settings
	cfg := agent.Config{Model: rec.Model, SystemPrompt: st.SystemPrompt, MaxIterations: st.MaxIterations, TokenLimit: st.MaxTokens,
		LimitCounter: s.limitCounter, Counter: s.counters[rec.Model], Prices: s.prices, FollowLinks: st.FollowLinks}
	if replies := evalcase.Replies(c.Elicitation); replies != nil {
		ctx = mcpconn.WithReplier(ctx, replies)
	}
	var tr *agent.Transcript
	var err error
	switch {
	case c.Kind == eval.KindCode: // pandas code cases and their recovery loop
		tr, err = agent.RunCode(ctx, s.chat, s.tools, agent.CodeConfig{Config: cfg, MaxRecovery: st.MaxRecovery, Reference: st.Reference}, c)
	case st.Reference:
		tr = agent.Reference(ctx, s.tools, cfg, c)
		err = tr.Fault
	default:
		tr, err = agent.Run(ctx, s.chat, s.tools, cfg, c.Input)
	}
	var fault *mcpconn.ServerError
	var tooLarge *llm.ResponseTooLargeError
	rec.Response, rec.Conversation, rec.ToolCalls, rec.Usage = tr.Answer, tr.Conversation, tr.ToolCalls, tr.Usage
	if rec.ToolCalls == nil {
		rec.ToolCalls = []eval.ToolCall{}
	}
	switch {
	case errors.As(err, &fault):
		rec.Status, rec.Reason = eval.Error, "MCP server fault: "+err.Error()
		rec.ServerStderr = fault.Stderr
		return tr
	case errors.As(err, &tooLarge) && ctx.Err() == nil:
		// A reply no model gives: the model's fault, not the provider's.
		rec.Status, rec.Reason = eval.Fail, "the model's reply was not read: "+tooLarge.Error()
		rec.ResponseBytes = int(tooLarge.Bytes)
		return tr
	case err != nil:
		rec.Status, rec.Reason = eval.Error, s.providerError(ctx, err)
		return tr
	case tr.TokenLimit != "":
		rec.Status, rec.Reason = eval.TokenLimit, tr.TokenLimit
		return tr
	case tr.Cut != "":
		rec.Status, rec.Reason = eval.Cut, tr.Cut
		return tr
	case tr.Incomplete != "":
		rec.Status, rec.Reason = eval.Fail, tr.Incomplete
		return tr
	}

	if strings.TrimSpace(tr.Answer) == "" {
		rec.Status, rec.Reason = eval.Fail, "the model gave an empty answer"
		return tr
	}
	answerChecks, err := evalcase.CheckAnswerWithin(ctx, c, tr.Answer)
	if err != nil {
		rec.Status, rec.Reason = eval.Error, describeCtx(ctx, err)+" (in the deterministic checks)"
		return tr
	}
	rec.Checks = append(answerChecks, evalcase.CheckTools(c, tr.ToolCalls)...)
	if failed := evalcase.Failed(rec.Checks); len(failed) > 0 {
		rec.Status, rec.Reason = eval.Fail, describeChecks(failed)
		return tr
	}
	if !st.JudgeEnabled() {
		if len(rec.Checks) == 0 {
			rec.Status, rec.Reason = eval.Fail, "no judge model and no deterministic checks: nothing can decide this case (add checks: to the case)"
			return tr
		}
		rec.Status, rec.Reason = eval.Pass, fmt.Sprintf("all %d deterministic checks hold", len(rec.Checks))
		return tr
	}
	panel := Panel(st)
	panel.Counters = s.counters
	v, err := panel.Judge(ctx, s.chat, cfg, c.Input, c.Expected, tr.Answer)
	rec.Usage.Add(v.Usage)
	rec.Judges, rec.JudgeDisagreement = v.Judges, v.Disagreement
	switch {
	case err != nil:
		rec.Status, rec.Reason = eval.Error, "judge: "+s.providerError(ctx, err)
	case v.Skipped != "":
		rec.Status, rec.Reason = eval.TokenLimit, v.Skipped
	default:
		rec.Verdict, rec.JudgeRaw = v.Verdict, v.Raw
		switch {
		case v.Undecided: // neither the model's pass nor its failure
			rec.Status, rec.Reason = eval.Undecided, v.Reason
		case v.Pass:
			rec.Status, rec.Reason = eval.Pass, v.Reason
		default:
			rec.Status, rec.Reason = eval.Fail, v.Reason
		}
	}
	return tr
}

// providerCheck returns the check of the provider that runs before the
// first case needing it: once, whichever case comes first, the others
// waiting for its outcome. A provider that cannot be reached, refuses the
// key or does not serve the model stops the run with one message that
// names the setting to fix.
func (s *Suite) providerCheck(client *llm.Client) func(ctx context.Context) error {
	var once sync.Once
	var failed error
	done := make(chan struct{})
	return func(ctx context.Context) error {
		once.Do(func() {
			defer close(done)
			st := s.Settings
			models := slices.Clone(st.Models)
			for _, judge := range st.JudgeModels() {
				if !slices.Contains(models, judge) {
					models = append(models, judge)
				}
			}
			// The check is the run's, not the case's: it is not cut short
			// by the first case's time limit.
			err := client.Check(context.WithoutCancel(ctx), models...)
			if err == nil {
				return
			}
			failed = err
			stop := s.redactor.String(s.describeCheck(err))
			s.aborted.CompareAndSwap(nil, &stop)
		})
		select {
		case <-done:
			return failed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// describeCheck says what a failed provider check means and which setting
// to fix.
func (s *Suite) describeCheck(err error) string {
	st := s.Settings
	var unreachable *llm.UnreachableError
	var rejected *llm.RejectedKeyError
	var unknown *llm.UnknownModelError
	switch {
	case errors.As(err, &unreachable) && st.Provider == "custom":
		return fmt.Sprintf("%v. Check OPENAI_BASE_URL (or -base-url): no case was run", err)
	case errors.As(err, &unreachable) && st.Provider == "azure":
		return fmt.Sprintf("%v. Check OPENAI_BASE_URL or AZURE_OPENAI_ENDPOINT: no case was run", err)
	case errors.As(err, &unreachable):
		return fmt.Sprintf("%v. Check the network connection (the endpoint comes with %s; OPENAI_BASE_URL sets another): no case was run", err, st.KeyVar)
	case errors.As(err, &rejected):
		return fmt.Sprintf("%v. Check %s: no case was run", err, orDefault(st.KeyVar, "the API key"))
	case errors.As(err, &unknown) && slices.Contains(st.Models, unknown.Model) && len(st.Models) > 1:
		return fmt.Sprintf("%v at %s. Check EVAL_MODELS (or -models): no case was run", err, st.BaseURL)
	case errors.As(err, &unknown) && unknown.Model == st.Model:
		return fmt.Sprintf("%v at %s. Check EVAL_MODEL (or -model): no case was run", err, st.BaseURL)
	case errors.As(err, &unknown):
		return fmt.Sprintf("%v at %s. Check EVAL_JUDGE_MODEL (or -judge-model): no case was run", err, st.BaseURL)
	}
	return err.Error()
}

// providerError describes a provider failure; an authentication failure
// stops the run.
func (s *Suite) providerError(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return describeCtx(ctx, err)
	}
	msg := llm.Describe(err)
	if llm.IsAuthError(err) {
		stop := s.redactor.String(fmt.Sprintf("the provider rejected the API key (%s): %s. Check %s.",
			s.Settings.BaseURL, msg, orDefault(s.Settings.KeyVar, "the API key")))
		s.aborted.CompareAndSwap(nil, &stop)
	}
	return msg
}

func describeCtx(ctx context.Context, err error) string {
	if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
		return cause.Error()
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return "timed out: the case exceeded its time limit (EVAL_CASE_TIMEOUT)"
	}
	return err.Error()
}

func describeChecks(failed []eval.CheckResult) string {
	parts := make([]string, len(failed))
	for i, f := range failed {
		parts[i] = f.Check + ": " + f.Detail
	}
	return "deterministic check failed: " + strings.Join(parts, "; ")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Summary builds the run summary from the records written so far. It holds
// no secret: the provider's URL is shown without its credentials.
func (s *Suite) Summary() eval.Summary {
	st := s.Settings
	sum := eval.Summary{
		RunID: s.runID, Started: s.started.UTC(), Finished: time.Now().UTC(), Model: st.Model, CaseFiles: st.Cases,
		Servers: s.servers, Reference: st.Reference, Provider: st.BaseURL, GitCommit: gitCommit(st.Root),
		MinPassRate: st.MinPassRate, MinRunPassRate: st.MinRunPassRate, BudgetUSD: st.BudgetUSD,
		Stopped: s.Aborted(),
	}
	sum.Verdicts, sum.ChecksCalibration = eval.VerdictsByJudge, s.checksCal
	if s.checksCal != nil {
		sum.Verdicts = eval.VerdictsByChecks
	}
	if models := st.JudgeModels(); len(models) > 0 {
		sum.JudgeModel, sum.JudgePromptHash = strings.Join(models, ","), agent.JudgePromptHash()
		if len(models) > 1 {
			sum.JudgeMode = st.JudgeMode
		}
	}
	sum.Seconds = sum.Finished.Sub(sum.Started).Seconds()
	records := s.records.records()
	ran := map[repeatKey]bool{}
	for _, r := range records {
		sum.Count(r)
		if r.Status != eval.NotRun {
			ran[repeatKey{r.Name, r.Model}] = true
		}
	}
	models := len(st.Models)
	if st.Reference || models == 0 {
		models = 1
	}
	sum.NotRun = len(s.Cases)*models - len(ran)
	stats.Summarize(&sum, records, st.Models)
	s.repeatMu.Lock()
	for k, n := range s.skips {
		sum.Skipped += n
		if !ran[k] {
			ran[k] = true
			sum.NotRun--
		}
	}
	s.repeatMu.Unlock()
	sum.ServerRestarts = s.tools.Restarts()
	sum.Tools = s.toolSummary()
	s.redactor.Value(&sum)
	return sum
}

func gitCommit(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// WriteSummary writes summary.json into the run directory and marks the
// run as the latest finished one.
func (s *Suite) WriteSummary(sum eval.Summary) error {
	if err := writeJSONFile(s.RunDir, eval.SummaryFile, sum); err != nil {
		return err
	}
	return runs.MarkLatest(s.Settings.Out, s.RunDir)
}

// overBudget reports whether the run's budget is spent, and what was
// spent.
func (s *Suite) overBudget() (float64, bool) {
	s.spendMu.Lock()
	defer s.spendMu.Unlock()
	return s.spent, s.Settings.BudgetUSD > 0 && s.spent >= s.Settings.BudgetUSD
}

// spend adds a finished case's cost to the run's spend.
func (s *Suite) spend(usd float64) {
	s.spendMu.Lock()
	defer s.spendMu.Unlock()
	s.spent += usd
}

// Gates returns, for a run's summary, one line for each gate it does not
// pass: the cases whose pass rate is below MinPassRate, the run's pass
// rate below MinRunPassRate, and each server whose tool coverage is below
// MinToolCoverage (naming the tools never called). No line: every gate
// passed.
func Gates(sum eval.Summary, st settings.Settings) []string {
	var out []string
	if st.MinPassRate > 0 {
		var low []string
		for _, c := range sum.Cases {
			if c.PassRate < st.MinPassRate {
				low = append(low, fmt.Sprintf("%q %d/%d", c.Name, c.Passes, c.Runs))
			}
		}
		if len(low) > 0 {
			out = append(out, fmt.Sprintf("%d cases below the minimum pass rate %g: %s", len(low), st.MinPassRate, strings.Join(low, ", ")))
		}
	}
	if st.MinRunPassRate > 0 && sum.Overall.PassRate < st.MinRunPassRate {
		out = append(out, fmt.Sprintf("the run's pass rate %.3f is below the minimum %g", sum.Overall.PassRate, st.MinRunPassRate))
	}
	return append(out, toolGates(sum, st)...)
}

// WriteMetrics writes metrics.json (one entry per scored case) and
// metrics_summary.json into the output directory.
func (s *Suite) WriteMetrics() error {
	entries := s.records.metricsEntries()
	if err := writeJSONFile(s.RunDir, eval.MetricsFile, entries); err != nil {
		return err
	}
	return writeJSONFile(s.RunDir, eval.MetricsSummaryFile, eval.MetricsFileSummary{Summary: scoring.Summarize(entries)})
}

// The usage a case never run before is estimated at: an agent's requests
// and, with a judge, the judge's request.
var (
	estimateAgent = eval.Usage{PromptTokens: 8000, CompletionTokens: 800, Requests: 3}
	estimateJudge = eval.Usage{PromptTokens: 1500, CompletionTokens: 100, Requests: 1}
)

// Estimate returns what running the cases repeats times with every model
// is expected to cost, before any request: nothing for a run the cache
// holds, the case's mean cost in the newest kept run that ran it with the
// model, else the default usage (estimateAgent and, with a judge,
// estimateJudge) at the models' prices. A model needed at its price that
// has none is an error naming it and the price table.
func (s *Suite) Estimate(cases []eval.Case, repeats int) (usd float64, err error) {
	st := s.Settings
	history := map[repeatKey]float64{}
	if kept, _ := runs.List(st.Out); kept != nil {
		for i := len(kept) - 1; i >= 0; i-- { // oldest first: newer runs win
			if sum := kept[i].Summary; sum != nil {
				for _, c := range sum.Cases {
					history[repeatKey{c.Name, c.Model}] = c.CostUSD
				}
			}
		}
	}
	for _, c := range cases {
		for _, model := range st.Models {
			for r := range repeats {
				if key, err := s.key(c, model, r); err == nil && !st.Force {
					if _, ok := s.cache.Get(key); ok {
						continue
					}
				}
				if h, ok := history[repeatKey{c.Name, model}]; ok {
					usd += h
					continue
				}
				agentUSD, ok := s.prices.Cost(model, estimateAgent)
				if !ok {
					return 0, fmt.Errorf("cannot estimate the cost of case %q with model %s: it never ran and %s has no price for the model; add one (USD per million input and output tokens)", c.Name, model, st.Prices)
				}
				usd += agentUSD
				for _, judge := range st.JudgeModels() {
					judgeUSD, ok := s.prices.Cost(judge, estimateJudge)
					if !ok {
						return 0, fmt.Errorf("cannot estimate the judge's cost: %s has no price for the judge model %s; add one", st.Prices, judge)
					}
					usd += judgeUSD
				}
			}
		}
	}
	return usd, nil
}
