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
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpeval/mcpeval/cache"
	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/llm"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/redact"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/stats"
	"github.com/mcpeval/mcpeval/internal/tokens"
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
	counter  *tokens.Counter
	cache    *cache.Cache
	records  *recordWriter
	redactor *redact.Redactor
	started  time.Time
	log      io.Writer
	servers  []string // display names
	aborted  atomic.Pointer[string]
	toolHash string
	// cacheWarned counts the cache warnings already printed.
	cacheWarned int

	// FailFast stops the run at the first case that fails (go test
	// -failfast): cases not started yet are not run.
	FailFast   bool
	failedFast atomic.Pointer[string]

	runID    string
	repeatMu sync.Mutex
	repeats  map[string]int // runs so far, by case name
}

// Server describes how to start the MCP servers when Settings.Servers is
// empty: the bundled sample server.
type Server struct {
	Spec    string
	Env     []string
	Display string
}

// New connects the servers and the provider, opens the cache and the
// records file. log receives notices (cache warnings, the reference-run
// banner). bundled is used when no server is configured.
func New(ctx context.Context, st settings.Settings, cases []eval.Case, bundled Server, log io.Writer) (*Suite, error) {
	s := &Suite{Settings: st, Cases: cases, started: time.Now(), log: log, Names: map[string]string{}, repeats: map[string]int{},
		redactor: st.Redactor(os.Environ())}
	for i, name := range evalcase.SubtestNames(cases) {
		s.Names[cases[i].Name] = name
	}
	counter, err := tokens.ForModel(st.Model)
	if err != nil {
		return nil, err
	}
	s.counter = counter

	specs, opts := st.Servers, mcpconn.Options{CallTimeout: st.ToolTimeout}
	for _, spec := range specs {
		s.servers = append(s.servers, spec.Display())
	}
	if len(specs) == 0 {
		spec, err := mcpconn.ParseSpec(bundled.Spec)
		if err != nil {
			return nil, fmt.Errorf("bundled server: %w", err)
		}
		specs, opts.Env, s.servers = []mcpconn.Spec{spec}, bundled.Env, []string{bundled.Display}
	}
	if s.tools, err = mcpconn.ConnectSpecs(ctx, specs, opts); err != nil {
		return nil, fmt.Errorf("MCP server failed to start, no case was run: %s", s.redactor.String(err.Error()))
	}
	s.toolHash = s.tools.Hash()

	s.limiter = llm.NewLimiter(st.Concurrency)
	if !st.Reference {
		retries := st.MaxRetries
		if retries == 0 {
			retries = -1 // RetryPolicy: negative means none, zero means the default
		}
		s.chat = llm.New(llm.Config{
			BaseURL: st.BaseURL, APIKey: st.APIKey, Headers: st.Headers, Limiter: s.limiter, Timeout: st.RequestTimeout,
			Retry: llm.RetryPolicy{MaxRetries: retries, Initial: st.RetryWait, Max: st.RetryMaxWait},
		})
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
	if s.RunDir, err = runs.Create(st.Out, s.runID); err == nil {
		s.records, err = createRecords(s.RunDir, log)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
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

// key returns the cache key of a case's repeat under this run's settings.
func (s *Suite) key(c eval.Case, repeat int) (string, error) {
	st := s.Settings
	in := cache.KeyInput{
		Question: c.Input, Expected: c.Expected,
		Expectations: struct {
			Kind        eval.Kind       `json:"kind"`
			Checks      eval.Checks     `json:"checks"`
			Tools       eval.ToolExpect `json:"tools"`
			Budget      eval.Budget     `json:"budget"`
			MaxRecovery int             `json:"max_recovery,omitempty"`
		}{c.Kind, c.Checks, c.Tools, c.Budget, s.maxRecovery(c)},
		// The key holds no secret: the URL's credentials are left out.
		Model: st.Model, BaseURL: s.redactor.String(st.BaseURL), SystemPrompt: s.systemPrompt(c),
		MaxIterations: st.MaxIterations, TokenLimit: st.MaxTokens, ToolsHash: s.toolHash, Repeat: repeat,
	}
	if st.JudgeEnabled() {
		in.JudgeModel, in.JudgePrompt = st.Judge, agent.JudgePrompt
	}
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

// nextRepeat returns how many times the case ran before in this process:
// go test -count=N runs every case N times, and each repeat is an
// independent run with its own cache entry, not a replay of the first.
func (s *Suite) nextRepeat(name string) int {
	s.repeatMu.Lock()
	defer s.repeatMu.Unlock()
	n := s.repeats[name]
	s.repeats[name] = n + 1
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

// Run evaluates one case and records it. test is the go test name of the
// case's subtest. Every problem with the model, the tools or the case
// becomes the record's status and reason; the only error is ErrStopped.
// The record returned, like everything written, holds no secret of the run.
func (s *Suite) Run(ctx context.Context, c eval.Case, test string) (eval.Record, error) {
	st := s.Settings
	rec := eval.Record{
		Name: c.Name, Category: c.Category, Test: test, File: c.File, Line: c.Line, Kind: c.Kind,
		Question: c.Input, Expected: c.Expected, Reference: st.Reference,
		Model: st.Model, StartedAt: time.Now().UTC(), Repeat: s.nextRepeat(c.Name),
	}
	if st.JudgeEnabled() {
		rec.JudgeModel = st.Judge
	}
	key, keyErr := s.key(c, rec.Repeat)
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

	if err := s.limiter.Acquire(ctx); err != nil {
		rec.Status, rec.Reason = eval.Error, "not started: "+describeCtx(ctx, err)
		s.records.Write(rec)
		return rec, nil
	}
	if s.Aborted() != "" {
		s.limiter.Release()
		return rec, ErrStopped
	}
	start := time.Now()
	caseCtx, cancel := context.WithTimeoutCause(ctx, st.CaseTimeout,
		fmt.Errorf("timed out: the case took longer than EVAL_CASE_TIMEOUT (%s)", st.CaseTimeout))
	tr := s.evaluate(caseCtx, c, &rec)
	cancel()
	// Before the slot goes to a waiting case.
	if s.FailFast && rec.Status != eval.Pass && !st.Gated() && s.failedFast.CompareAndSwap(nil, &c.Name) {
		s.Stop(fmt.Sprintf("-failfast: case %q failed", c.Name))
	}
	s.limiter.Release()
	rec.Seconds = time.Since(start).Seconds()
	// Metrics judge the model: a harness or provider error says nothing of it.
	if rec.Status != eval.Error {
		m := s.score(c, rec, tr)
		rec.Metrics = &m
	}
	s.redactor.Value(&rec)

	// A reference run is not a model result: it neither adds to nor removes
	// from the cache. An error (a provider or server failure) says nothing
	// of the model either, so it leaves an earlier pass in place; a fail
	// removes it.
	if keyErr == nil && !st.Reference && rec.Status != eval.Error {
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
		Question: c.Input, Columns: tr.Columns, Attempts: tr.Attempts,
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
	cfg := agent.Config{Model: st.Model, SystemPrompt: st.SystemPrompt, MaxIterations: st.MaxIterations, TokenLimit: st.MaxTokens, Counter: s.counter}
	var retries atomic.Int64
	ctx = llm.WithRetryCounter(ctx, &retries)
	defer func() { rec.Retries = int(retries.Load()) }()

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
	rec.Response, rec.Conversation, rec.ToolCalls, rec.Usage = tr.Answer, tr.Conversation, tr.ToolCalls, tr.Usage
	if rec.ToolCalls == nil {
		rec.ToolCalls = []eval.ToolCall{}
	}
	switch {
	case errors.As(err, &fault):
		rec.Status, rec.Reason = eval.Error, "MCP server fault: "+err.Error()
		rec.ServerStderr = fault.Stderr
		return tr
	case err != nil:
		rec.Status, rec.Reason = eval.Error, s.providerError(ctx, err)
		return tr
	case tr.TokenLimit != "":
		rec.Status, rec.Reason = eval.TokenLimit, tr.TokenLimit
		return tr
	case tr.Incomplete != "":
		rec.Status, rec.Reason = eval.Fail, tr.Incomplete
		return tr
	}

	if strings.TrimSpace(tr.Answer) == "" {
		rec.Status, rec.Reason = eval.Fail, "the model gave an empty answer"
		return tr
	}
	rec.Checks = append(evalcase.CheckAnswer(c, tr.Answer), evalcase.CheckTools(c, tr.ToolCalls)...)
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
	jcfg := cfg
	jcfg.Model = st.Judge
	v, err := agent.Judge(ctx, s.chat, jcfg, c.Input, c.Expected, tr.Answer)
	rec.Usage.Add(v.Usage)
	switch {
	case err != nil:
		rec.Status, rec.Reason = eval.Error, "judge: "+s.providerError(ctx, err)
	case v.Skipped != "":
		rec.Status, rec.Reason = eval.TokenLimit, v.Skipped
	default:
		rec.Verdict, rec.JudgeRaw = v.Verdict, v.Raw
		if v.Pass {
			rec.Status, rec.Reason = eval.Pass, v.Reason
		} else {
			rec.Status, rec.Reason = eval.Fail, v.Reason
		}
	}
	return tr
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
		MinPassRate: st.MinPassRate, MinRunPassRate: st.MinRunPassRate,
	}
	if st.JudgeEnabled() {
		sum.JudgeModel = st.Judge
	}
	sum.Seconds = sum.Finished.Sub(sum.Started).Seconds()
	records := s.records.records()
	ran := map[string]bool{}
	for _, r := range records {
		sum.Count(r)
		ran[r.Name] = true
	}
	sum.NotRun = len(s.Cases) - len(ran)
	sum.Overall, sum.Categories, sum.Cases = stats.Tally(records)
	sum.CaseSet = stats.CaseSet(sum.Cases)
	for _, c := range sum.Cases {
		sum.Repeats = max(sum.Repeats, c.Runs)
	}
	sum.ServerRestarts = s.tools.Restarts()
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

// Gates returns, for a run's summary, one line for each gate it does not
// pass: the cases whose pass rate is below MinPassRate, and the run's pass
// rate below MinRunPassRate. No line: every gate passed.
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
	return out
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
