// Package suite runs evaluation cases: it connects the MCP servers and the
// model once per run, and for each case consults the cache, runs the agent
// (or the offline reference agent), applies the deterministic checks and the
// judge, scores the result, removes the run's secrets from it and appends
// it to results.jsonl as it finishes. Package evaltest wires it to go test.
package suite

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpeval/mcpeval/cache"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/dialect"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/grading"
	"github.com/mcpeval/mcpeval/internal/labelled"
	"github.com/mcpeval/mcpeval/internal/llm"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/prices"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/recordings"
	"github.com/mcpeval/mcpeval/internal/redact"
	"github.com/mcpeval/mcpeval/internal/replay"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/stats"
	"github.com/mcpeval/mcpeval/internal/suggest"
	"github.com/mcpeval/mcpeval/internal/testname"
	"github.com/mcpeval/mcpeval/internal/tokens"
	"github.com/mcpeval/mcpeval/internal/toolstats"
	"github.com/mcpeval/mcpeval/internal/tracing"
	"github.com/mcpeval/mcpeval/internal/usersim"
	"github.com/mcpeval/mcpeval/scoring"
)

// Run is one run's shared state: the servers, the provider, the cache and the
// records file, and what the run has counted so far. evaltest.Suite drives
// one from go test.
type Run struct {
	Settings settings.Settings
	Cases    []eval.Case
	// RunDir is the run's own directory (Settings.Out/runs/<id>).
	RunDir string
	// Names holds each case's subtest name, by case name.
	Names map[string]string
	// selected names the cases the run selects (see Select); nil: every
	// loaded case.
	selected map[string]bool

	tools *mcpconn.Set
	// store keeps every tool result (see package recordings); replay,
	// when set, answers the tool calls from an earlier run's (with live,
	// when set, answering the calls no recording matches).
	store  *recordings.Store
	replay *replay.Source
	live   *mcpconn.Set
	// storeWarned prints the first failure to keep a result, once.
	storeWarned sync.Once
	// storeDamaged says once that the recordings pack had damaged entries.
	storeDamaged sync.Once
	// arms are what the cases run with side by side (see arm).
	arms     []*arm
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
	commit       func() string // the module's git commit, asked once ("" outside git)
	log          io.Writer
	servers      []string // display names
	aborted      atomic.Pointer[string]
	// running counts the cases being evaluated.
	running  atomic.Int64
	toolHash string
	// dialect is the provider dialect the offered tools' input schemas are
	// adapted to; schemas holds the adapted ones, by offered name.
	dialect dialect.Dialect
	schemas map[string]json.RawMessage
	// warned holds the provider warnings said, each once a run.
	warned sync.Map
	// liveDown is set when the live servers of a replay could not start.
	liveDown bool
	// toolStats gathers the statistics of the tool calls as records are
	// written; toolChanges is how the surface differs from the previous
	// run's (nil: it does not, or there was none).
	toolStats   *toolstats.Collector
	toolChanges *eval.ToolChanges
	// definitionsCounted waits until the tool definitions are counted
	// (see countDefinitions): call it before reading the counts.
	definitionsCounted func()
	// prior is the previous run of the same servers in the output
	// directory (see lastRunOfSameServers), found before the tools are
	// counted; its Summary is nil when there is none.
	prior runs.Run
	// cacheWarned counts the cache warnings already printed.
	cacheWarned int

	// FailFast stops the run at the first case that fails (go test
	// -failfast): cases not started yet are not run.
	FailFast   bool
	failedFast atomic.Pointer[string]

	runID  string
	skipMu sync.Mutex
	skips  map[eval.CaseRun]bool // the case runs skipped (see SkipError), by planKey

	// planned are the case runs this process is to run and repeats the
	// repeats asked for (see Plan); planned nil: every selected case with
	// every arm, in each repeat.
	planned []eval.CaseRun
	repeats int

	budget budget // the spend against -budget-usd (see budget.go)

	// checkProvider checks the provider once, before the first case that
	// needs it; a failure stops the run.
	checkProvider func(ctx context.Context) error
	// codeReady runs the bundled server's CodeCheck once, on first need.
	codeReady func() error
	// checksCal measures the checks that decide a run without a judge, on
	// the labels of the selected cases (see checksCalibration).
	checksCal     *eval.ChecksCalibration
	checksCalOnce sync.Once

	// traces exports each case run as a trace (see spans.go); nil: off.
	// traceURL is the template of links to the traces, "" when they are
	// not exported.
	traces   *tracing.Exporter
	traceURL string

	// keys holds the cache key of each case run asked for (a keyRun), so
	// that the checks before a run and the run itself derive it once.
	keys sync.Map
}

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
func New(ctx context.Context, st settings.Settings, cases []eval.Case, bundled Server, log io.Writer) (*Run, error) {
	s, err := newRun(st, cases, log)
	if err != nil {
		return nil, err
	}
	go s.commit() // git answers while the servers start, not at the summary
	if s.store, err = recordings.Open(recordings.DirBeside(st.Cache)); err == nil {
		err = s.store.Register(st.Out)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	if err := s.startTraces(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if st.Shard.Split() {
		s.shardGroup = shardGroup(os.Getenv, st.Cache) // the cache as every shard starts from it, before it opens
	}
	// The cache opens while the servers start: neither needs the other,
	// and a server's start is mostly waiting.
	type openedCache struct {
		c   *cache.Cache
		err error
	}
	cacheOpened := make(chan openedCache, 1)
	go func() {
		c, err := cache.Open(st.Cache)
		cacheOpened <- openedCache{c, err}
	}()
	if st.ReplayTools != "" {
		err = s.replayServers(ctx, bundled)
	} else {
		s.tools, err = s.connectServers(ctx, bundled)
	}
	opened := <-cacheOpened
	if err != nil {
		if opened.c != nil {
			opened.c.Close()
		}
		s.Close()
		return nil, err
	}
	s.cache = opened.c
	if err := s.tools.CheckToolCount(st.MaxTools); err != nil && !st.Reference {
		s.Close()
		return nil, fmt.Errorf("%s: no case was run. Choose the tools to offer with EVAL_TOOLS (or -tools), patterns such as 'memory/*,get_gene_*,!fs/write_*' (a server's tools by its short name: %s), or set EVAL_MAX_TOOLS (or -max-tools) to the provider's own limit",
			s.redactor.String(err.Error()), strings.Join(s.tools.ServerNames(), ", "))
	}
	if err := s.adaptSchemas(log); err != nil {
		s.Close()
		return nil, err
	}
	s.toolHash = s.tools.Hash()
	s.prior = s.lastRunOfSameServers()
	if err := s.makeArms(); err != nil {
		s.Close()
		return nil, err
	}
	s.toolStats = toolstats.New(s.toolServers(), st.MaxTokens, s.limitCounter)
	for _, a := range s.arms {
		s.toolStats.SetOverridden(a.name, a.overridden)
	}
	if s.definitionsCounted, err = s.countDefinitions(); err != nil {
		s.Close()
		return nil, err
	}
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

	if opened.err != nil {
		s.Close()
		return nil, opened.err
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
	if err := s.openRunDir(log, s.toolStats); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.traceRun(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// openRunDir creates the run's directory under the output directory,
// holds it while the run goes on, and creates its records file, whose
// records tools, when not nil, counts. Results that cannot be saved are
// not paid for: nothing starts once one could not be written (a full
// disk).
func (s *Run) openRunDir(log io.Writer, tools *toolstats.Collector) error {
	var err error
	if s.RunDir, err = runs.Create(s.Settings.Out, s.runID); err == nil {
		s.releaseRun, err = runs.Hold(s.RunDir)
	}
	if err == nil {
		s.records, err = createRecords(s.RunDir, log, tools)
	}
	if err != nil {
		return err
	}
	s.records.onFail = func(err error) {
		s.Stop(fmt.Sprintf("the results cannot be saved (%v): no case was started after that", err))
	}
	return nil
}

// newRun returns a run of the cases under st with what every run needs
// before it meets a server: the redactor, the token counters, the prices,
// and the measure of the checks when no judge runs.
func newRun(st settings.Settings, cases []eval.Case, log io.Writer) (*Run, error) {
	s := &Run{Settings: st, Cases: cases, started: time.Now(), log: log, Names: map[string]string{},
		commit:   sync.OnceValue(func() string { return gitCommit(st.Root) }),
		skips:    map[eval.CaseRun]bool{},
		budget:   budget{held: map[string]int{}, paid: map[string]int{}, paidUSD: map[string]float64{}, estimated: map[string]float64{}, refused: map[string]int{}},
		redactor: st.Redactor(os.Environ()), counters: map[string]*tokens.Counter{}}
	caseNames := make([]string, len(cases))
	for i, c := range cases {
		caseNames[i] = c.Name
	}
	for i, name := range testname.Subtests(caseNames) {
		s.Names[cases[i].Name] = name
		// The user's own questions and answers are data, never rewritten.
		s.redactor.Keep(cases[i].Name, cases[i].Category, cases[i].Input, cases[i].Expected)
		for _, t := range cases[i].Turns {
			s.redactor.Keep(t.User, t.Expected)
		}
		if r := cases[i].FirstReply; r != nil {
			s.redactor.Keep(r.Expected)
		}
	}
	var err error
	if s.limitCounter, err = tokens.New(tokens.Default); err != nil {
		return nil, err
	}
	for _, model := range append(append([]string{st.Model, st.UserModel}, st.Models...), st.JudgeModels()...) {
		counter, err := tokens.ForModel(model)
		if err != nil {
			return nil, err
		}
		s.counters[model] = counter
	}
	if s.prices, err = prices.Load(st.Prices); err != nil {
		return nil, err
	}
	return s, nil
}

// connectServers connects the run's servers, or the bundled one when the
// settings name none.
func (s *Run) connectServers(ctx context.Context, bundled Server) (*mcpconn.Set, error) {
	st := s.Settings
	specs, opts := st.Servers, mcpconn.Options{CallTimeout: st.ToolTimeout, ReconnectFor: st.CaseTimeout, Tools: st.Tools, Roots: st.Roots}
	s.servers = nil
	for _, spec := range specs {
		s.servers = append(s.servers, spec.Display())
	}
	if len(specs) == 0 {
		spec, err := mcpconn.ParseSpec(bundled.Spec)
		if err != nil {
			return nil, fmt.Errorf("bundled server: %w", err)
		}
		specs, opts.Env, s.servers = []mcpconn.Spec{spec}, bundled.Env, []string{bundled.Display}
		if slices.Contains(tracing.Exporters(st.Traces, os.Getenv), tracing.OTLP) {
			// The bundled server's spans join the suite's traces, at the
			// same collector.
			opts.Env = append(slices.Clone(opts.Env), tracing.ServerVariables...)
		}
		if bundled.CodeCheck != nil {
			s.codeReady = sync.OnceValue(bundled.CodeCheck)
		}
	}
	specs = slices.Clone(specs)
	for i := range specs {
		specs[i].Protocol = cmp.Or(specs[i].Protocol, st.ServerProtocol)
	}
	ctx, connected := s.startConnectSpan(ctx)
	set, err := mcpconn.ConnectSpecs(ctx, specs, opts)
	connected(err)
	if err != nil {
		return nil, fmt.Errorf("MCP server failed to start, no case was run: %s", s.redactor.String(mcpconn.Describe(err)))
	}
	return set, nil
}

// replayServers loads the run whose recordings answer this run's tool
// calls (Settings.ReplayTools): its tool surface is offered, and no server
// is started unless the calls no recording matches go to the live ones.
func (s *Run) replayServers(ctx context.Context, bundled Server) error {
	st := s.Settings
	dir, err := replay.Resolve(st.Out, st.ReplayTools)
	if err != nil {
		return fmt.Errorf("-replay-tools %s: %w", st.ReplayTools, err)
	}
	if s.replay, err = replay.Load(dir, s.store); err != nil {
		return fmt.Errorf("-replay-tools %s: %w", st.ReplayTools, err)
	}
	if s.tools, err = mcpconn.Offline(s.replay.Servers, st.Tools); err != nil {
		return fmt.Errorf("-replay-tools %s: %w", st.ReplayTools, err)
	}
	if st.ReplayUnmatched == replay.UnmatchedLive {
		// The recordings answer what they match whatever the live
		// servers do: servers that cannot start leave the run a replay
		// whose unmatched calls are told so.
		if s.live, err = s.connectServers(ctx, bundled); err != nil {
			s.live, s.liveDown = nil, true
			fmt.Fprintf(s.log, "mcpeval: warning: -replay-unmatched live: the live servers did not start (%s); the calls no recording matches are told so, as with -replay-unmatched error\n", strings.TrimPrefix(err.Error(), "MCP server failed to start, no case was run: "))
		}
	}
	s.servers = nil
	for _, srv := range s.replay.Servers {
		s.servers = append(s.servers, fmt.Sprintf("%s, replayed from run %s", srv.Name, s.replay.ID))
	}
	return nil
}

// toolBox returns what a case run calls its tools through, and the
// function that ends the case's use of it: the arm's servers (a fresh
// process of a server isolated per case, see mcpconn.Set.ForCase), or, in
// a replay, the recordings with the arm's tool surface.
func (s *Run) toolBox(a *arm, run eval.CaseRun) (agent.ToolBox, func()) {
	box, end := agent.ToolBox(nil), func() {}
	if s.replay == nil {
		box, end = a.tools.ForCase()
	} else {
		box = s.replay.Box(a.tools, run, s.live)
	}
	return box, end
}

// record keeps a tool result in the recordings store, without the run's
// secrets, and returns its fingerprint. A result that cannot be kept is
// said once; the run goes on.
func (s *Run) record(result string) string {
	fp, err := s.store.Put(s.redactor.String(result))
	if err != nil {
		s.storeWarned.Do(func() { fmt.Fprintln(s.log, "warning: recordings:", err) })
	}
	if n := s.store.Skipped(); n > 0 {
		s.storeDamaged.Do(func() {
			fmt.Fprintf(s.log, "warning: recordings: %d bytes of damaged entries in %s passed over: their results are lost, every other entry is kept\n", n, s.store.Dir())
		})
	}
	return fp
}

// replayKey is the cache key's part that keeps a replay's results apart:
// the run replayed and what unmatched calls get; "" for a live run.
func (s *Run) replayKey() string {
	if s.replay == nil {
		return ""
	}
	// Keyed by what is replayed, not by the run's id: a copy of the run
	// directory with other results (a downloaded artifact) has its own.
	return fmt.Sprintf("replay of the records %s, unmatched calls: %s", s.replay.Digest, s.Settings.ReplayUnmatched)
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
		SchemaDialect:   st.SchemaDialect,
	})
}

// Panel returns the judges the settings configure (no model when the judge
// is off).
func Panel(st settings.Settings) grading.Panel {
	return grading.Panel{Models: st.JudgeModels(), Mode: st.JudgeMode}
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
	return strings.Join(set, ","), mode, grading.JudgePrompt
}

// Recorded returns how many records of this run were written to
// results.jsonl, and how many could not be (the run stopped at the first).
func (s *Run) Recorded() (saved, unsaved int) { return s.records.counts() }

// Discard ends a run that started no case: it is closed and its directory
// removed, so that no empty run is kept.
func (s *Run) Discard() error {
	err := s.Close()
	if s.RunDir != "" {
		err = errors.Join(err, os.RemoveAll(s.RunDir))
	}
	return err
}

// Close ends the servers and closes the records file and the cache.
func (s *Run) Close() error {
	if s.tools != nil {
		s.tools.Close()
	}
	if s.live != nil {
		s.live.Close()
	}
	var errs []error
	if s.store != nil {
		errs = append(errs, s.store.Close())
	}
	if s.records != nil {
		errs = append(errs, s.records.Close())
	}
	if s.cache != nil {
		errs = append(errs, s.cache.Close())
		s.printCacheWarnings()
	}
	// The spans not sent yet go out before the run's directory is
	// released; a collector that is down delays the end by at most the
	// bound, and costs a warning.
	if err := s.traces.Shutdown(5 * time.Second); err != nil {
		fmt.Fprintln(s.log, "warning:", s.redactor.String(err.Error()))
	}
	s.traces = nil
	if s.releaseRun != nil {
		s.releaseRun()
		s.releaseRun = nil
	}
	return errors.Join(errs...)
}

// printCacheWarnings prints the cache's warnings not printed yet.
func (s *Run) printCacheWarnings() {
	warnings := s.cache.Warnings()
	for _, w := range warnings[min(s.cacheWarned, len(warnings)):] {
		fmt.Fprintln(s.log, "warning:", s.redactor.String(w))
	}
	s.cacheWarned = len(warnings)
}

// key returns the cache key of a case's repeat with a model under this
// run's settings.
func (s *Run) key(c eval.Case, a *arm, repeat int) (string, error) {
	return s.keyWith(c, a, repeat, a.hash)
}

// keyWith returns the cache key of a case's repeat with an arm under this
// run's settings and the tool surface toolsHash: the arm's model, system
// prompt and surface decide, not its name, so an arm whose surface a
// changed override does not touch keeps its cached passes.
func (s *Run) keyWith(c eval.Case, a *arm, repeat int, toolsHash string) (string, error) {
	run := keyRun{name: c.Name, file: c.File, line: c.Line, arm: a.label, repeat: repeat, toolsHash: toolsHash}
	if key, ok := s.keys.Load(run); ok {
		return key.(string), nil
	}
	in, _ := s.keyInput(c, a, repeat, toolsHash)
	key, err := cache.Key(in)
	if err == nil {
		s.keys.Store(run, key)
	}
	return key, err
}

// keyRun identifies a case run whose cache key keyWith derived: the case
// (by its name and place), the arm, the repeat and the tool surface; the
// rest of the key is the run's settings, the same throughout.
type keyRun struct {
	name, file string
	line       int
	arm        string
	repeat     int
	toolsHash  string
}

// keyInput returns what the cache key of a case run holds: what makes the
// answer (the question, the model, its prompt, tools and limits) and what
// it is graded against (the expected answer, the checks, the claims, the
// judges). The rules of grading and the judge prompt are not in it: a
// record holds the grading version it was decided by, and one decided by
// another is graded again when it holds a graded answer (see
// regradeCached); a stored token-limit result of the model has none.
func (s *Run) keyInput(c eval.Case, a *arm, repeat int, toolsHash string) (cache.KeyInput, expectations) {
	st := s.Settings
	e := expectations{Kind: c.Kind, Checks: c.Checks, Tools: c.Tools, Budget: c.Budget, MaxRecovery: s.maxRecovery(c),
		Elicitation: c.Elicitation, LinksShownOnly: !st.FollowLinks, Claims: c.Claims, PassCoverage: c.PassCoverage, Turns: c.Turns, FirstReply: c.FirstReply, User: c.User}
	in := cache.KeyInput{
		Question: c.Input, Expected: c.Expected, Expectations: e,
		// The key holds no secret: the URL's credentials are left out.
		Model: a.model, BaseURL: s.redactor.String(st.BaseURL), SystemPrompt: s.systemPrompt(c, a),
		MaxIterations: st.MaxIterations, TokenLimit: st.MaxTokens, ToolsHash: toolsHash, Repeat: repeat,
		Replay: s.replayKey(),
	}
	in.JudgeModel, in.JudgeMode, _ = JudgeKey(st)
	if c.User != nil {
		in.UserModel, in.UserPrompt = st.UserModel, usersim.Instructions
	}
	return in, e
}

// expectations are the parts of a case a cache key holds besides its
// question and expected answer.
type expectations struct {
	Kind        eval.Kind          `json:"kind"`
	Checks      eval.Checks        `json:"checks"`
	Tools       eval.ToolExpect    `json:"tools"`
	Budget      eval.Budget        `json:"budget"`
	MaxRecovery int                `json:"max_recovery,omitempty"`
	Elicitation []eval.ElicitReply `json:"elicitation,omitempty"`
	// LinksShownOnly: the model is not offered to read linked resources
	// (-follow-links=false).
	LinksShownOnly bool         `json:"links_shown_only,omitempty"`
	Claims         []eval.Claim `json:"claims,omitempty"`
	PassCoverage   float64      `json:"pass_coverage,omitempty"`
	// Turns are the user's later messages and what each reply must do.
	Turns []eval.Turn `json:"turns,omitempty"`
	// FirstReply is what the reply to the question must do.
	FirstReply *eval.ReplyExpect `json:"first_reply,omitempty"`
	// User is the case's simulated user.
	User *eval.User `json:"user,omitempty"`
}

// cached returns the cached result of a case run under the tool surface
// toolsHash, its record without its large texts (see cache.Hit), and the
// key it was found under: the current key, or that of an entry written
// before records held their grading version.
func (s *Run) cached(c eval.Case, a *arm, repeat int, toolsHash string) (cache.Hit, string, bool) {
	for key := range s.cacheKeys(c, a, repeat, toolsHash) {
		if hit, ok := s.cache.Lookup(key); ok {
			return hit, key, true
		}
	}
	return cache.Hit{}, "", false
}

// isCached reports whether the cache holds an entry of the case run (see
// cached) without reading it: what the checks before a run need (the
// provider check, the budget's estimate). An entry that then cannot be
// read is a miss when the case runs, which checks the provider first.
func (s *Run) isCached(c eval.Case, a *arm, repeat int, toolsHash string) bool {
	for key := range s.cacheKeys(c, a, repeat, toolsHash) {
		if s.cache.Has(key) {
			return true
		}
	}
	return false
}

// cacheKeys yields the keys a case run's result may be cached under: the
// current key, then that of an entry written before records held their
// grading version. A key that cannot be derived ends them.
func (s *Run) cacheKeys(c eval.Case, a *arm, repeat int, toolsHash string) iter.Seq[string] {
	return func(yield func(string) bool) {
		key, err := s.keyWith(c, a, repeat, toolsHash)
		if err != nil || !yield(key) || len(c.Turns) > 0 || c.User != nil {
			return // no entry of those days was of a conversation
		}
		in, e := s.keyInput(c, a, repeat, toolsHash)
		if key, err := cache.Key(legacyKeyInput(in, c, e)); err == nil {
			yield(key)
		}
	}
}

// serveCached writes and returns the record of a case run the cache
// serves from hit. A pass graded by the current rules is written from the
// whole record's JSON as stored, its identity fields set to this run's
// (see cachedLine), without decoding it; any other (a token-limit result,
// one to grade again, one whose texts a secret of this run is in, an arm
// of another name) is read whole first.
func (s *Run) serveCached(ctx context.Context, c eval.Case, hit cache.Hit, key, at, test string, rec eval.Record) eval.Record {
	cached := hit.Record
	regrade := answered(cached) && cached.Grading != grading.Version
	var stored []byte
	var err error
	if !hit.Whole() && cached.Status == eval.Pass && !regrade && cached.Arm == rec.Arm {
		if stored, err = hit.JSON(); err == nil && s.redactor.MayChangeJSON(stored) {
			stored = nil
		}
	}
	if stored == nil && err == nil && !hit.Whole() {
		cached, err = hit.Full()
	}
	if err != nil {
		// The outcome stands without the texts (a cache file copied
		// without the recordings beside it): nothing is paid again, and
		// nothing is graded again without the answer.
		fmt.Fprintf(s.log, "warning: cache: case %q: %v; its outcome is used without its texts\n", c.Name, s.redactor.String(err.Error()))
		regrade = false
	}
	if regrade {
		cached = s.regradeCached(ctx, c, cached, key, at)
	}
	cached.Name, cached.Category, cached.Test, cached.File, cached.Line = c.Name, c.Category, test, c.File, c.Line
	cached.Repeat, cached.Arm, cached.TraceID = rec.Repeat, rec.Arm, rec.TraceID
	s.redactor.Value(&cached)
	s.records.WriteCached(cached, stored)
	return cached
}

// systemPrompt returns the agent's system prompt for a case.
func (s *Run) systemPrompt(c eval.Case, a *arm) string {
	switch {
	case a.systemPrompt != "":
		return a.systemPrompt
	case s.Settings.SystemPrompt != "":
		return s.Settings.SystemPrompt
	case c.Kind == eval.KindCode:
		return agent.CodeSystemPrompt
	}
	return agent.DefaultSystemPrompt
}

// maxRecovery returns the recovery budget of a code case (0 for others).
func (s *Run) maxRecovery(c eval.Case) int {
	if c.Kind != eval.KindCode {
		return 0
	}
	return s.Settings.MaxRecovery
}

// Aborted returns why the run was stopped (e.g. the provider rejected the
// key), or "".
func (s *Run) Aborted() string {
	if p := s.aborted.Load(); p != nil {
		return *p
	}
	return ""
}

// skip counts a run of a case the run cannot evaluate and returns the
// *SkipError that says why.
func (s *Run) skip(c eval.Case, a *arm, repeat int, reason string) error {
	s.skipMu.Lock()
	s.skips[planKey(c.Name, a.label, repeat)] = true
	s.skipMu.Unlock()
	return &SkipError{Reason: reason}
}

// Stop stops the run for the given reason: cases not started yet are not
// run (Run returns ErrStopped). The first reason given stays.
func (s *Run) Stop(reason string) { s.aborted.CompareAndSwap(nil, &reason) }

// FailedFast names the case whose failure stopped the run under FailFast,
// or gives "".
func (s *Run) FailedFast() string {
	if p := s.failedFast.Load(); p != nil {
		return *p
	}
	return ""
}

// ErrStopped is returned for cases not run because the run was stopped
// (see Aborted).
var ErrStopped = errors.New("run stopped")

// notStarted records rec as not run because the run was stopped, and
// returns it with ErrStopped. A run stopped before any case started (the
// provider check refused it) records nothing, as it is not kept, and
// neither does one whose results file refuses records.
func (s *Run) notStarted(rec eval.Record) (eval.Record, error) {
	rec.Status, rec.Reason = eval.NotRun, "not started: run stopped: "+s.Aborted()
	if s.records.keepsNotStarted() {
		s.records.Write(rec)
	}
	return rec, ErrStopped
}

// Case evaluates one case in one of its repeats (go test -count) with
// each of the arms (see Arms: of an arms file, or one per model), side by
// side, and records each run; tests are the runs' go test names, in the
// order of arms. The arms start together, and a budget admits or
// refuses them together, so that whatever it cuts, they stay compared on
// the same runs. Every problem with a model, the
// tools or the case becomes its record's status and reason; the only
// errors are ErrStopped and a *SkipError, for runs that did not happen. A
// run that does not start because the budget is spent is a record with
// status NotRun. The records returned, like everything written, hold no
// secret of the run.
func (s *Run) Case(ctx context.Context, c eval.Case, repeat int, arms, tests []string) ([]eval.Record, []error) {
	g := newCaseGroup(arms...)
	recs, errs := make([]eval.Record, len(arms)), make([]error, len(arms))
	if len(arms) == 1 {
		recs[0], errs[0] = s.runIn(ctx, g, c, s.armOf(arms[0]), repeat, tests[0])
		return recs, errs
	}
	var wg sync.WaitGroup
	for i, v := range arms {
		wg.Go(func() { recs[i], errs[i] = s.runIn(ctx, g, c, s.armOf(v), repeat, tests[i]) })
	}
	wg.Wait()
	return recs, errs
}

// runIn runs one arm of a case group, as a trace of its own when traces
// are exported.
func (s *Run) runIn(ctx context.Context, g *caseGroup, c eval.Case, a *arm, repeat int, test string) (eval.Record, error) {
	ctx, span := s.startCase(ctx, c, a, repeat)
	rec, err := s.runCase(ctx, g, c, a, repeat, test, traceID(span))
	s.endCase(span, rec, err)
	return rec, err
}

// runCase runs one arm of a case group; its records carry the trace ID.
func (s *Run) runCase(ctx context.Context, g *caseGroup, c eval.Case, a *arm, repeat int, test, trace string) (eval.Record, error) {
	st := s.Settings
	model := a.model
	groupModel, left := a.label, false
	defer func() {
		if !left { // it did not run: nothing to pay
			s.leave(g, groupModel, 0, false)
		}
	}()
	if st.Reference {
		model = st.Model
		if len(c.AllReference()) == 0 {
			return eval.Record{}, s.skip(c, a, repeat, "reference run: the case has no reference trajectory to replay (add `reference:` tool calls to the case, or configure a model to evaluate it)")
		}
	}
	if s.replay != nil && !s.replay.Ran(c.Name) {
		return eval.Record{}, s.skip(c, a, repeat, fmt.Sprintf("replay: run %s has no record of this case, so no recorded tool results to answer it from", s.replay.ID))
	}
	rec := eval.Record{
		Name: c.Name, Category: c.Category, Test: test, File: c.File, Line: c.Line, Kind: c.Kind,
		Question: c.Input, Expected: c.Expected, Reference: st.Reference,
		Model: model, Arm: a.name, StartedAt: time.Now().UTC(), Repeat: repeat, TraceID: trace,
	}
	rec.JudgeModel = strings.Join(st.JudgeModels(), ",")
	if s.Aborted() != "" {
		return s.notStarted(rec)
	}
	key, keyErr := s.key(c, a, rec.Repeat)
	if keyErr != nil {
		fmt.Fprintf(s.log, "warning: case %q cannot be cached: %v\n", c.Name, keyErr)
	}
	if keyErr == nil && !st.Force && !st.Reference {
		if hit, at, ok := s.cached(c, a, rec.Repeat, a.hash); ok {
			return s.serveCached(ctx, c, hit, key, at, test, rec), nil
		}
	}

	if s.checkProvider != nil {
		if err := s.checkProvider(ctx); err != nil {
			if s.Aborted() != "" {
				return s.notStarted(rec)
			}
			rec.Status, rec.Reason = eval.Error, "not started: "+describeCtx(ctx, err)
			s.records.Write(rec)
			return rec, nil
		}
	}
	if err := s.limiter.Acquire(ctx); err != nil {
		if s.Aborted() != "" {
			return s.notStarted(rec)
		}
		rec.Status, rec.Reason = eval.Error, "not started: "+describeCtx(ctx, err)
		s.records.Write(rec)
		return rec, nil
	}
	if s.Aborted() != "" {
		s.limiter.Release()
		return s.notStarted(rec)
	}
	if c.Kind == eval.KindCode && s.codeReady != nil {
		if err := s.codeReady(); err != nil {
			s.limiter.Release()
			return rec, s.skip(c, a, repeat, "code case: the bundled server cannot run pandas: "+err.Error())
		}
	}
	spent, ok := s.admit(g, groupModel)
	if !ok {
		s.limiter.Release()
		rec.Status = eval.NotRun
		rec.Reason = fmt.Sprintf("not started: the budget of $%.4f is spent ($%.4f, with the runs under way)", st.BudgetUSD, spent)
		s.records.Write(rec)
		return rec, nil
	}
	start := time.Now()
	caseCtx, cancel := context.WithTimeoutCause(ctx, st.CaseTimeout,
		fmt.Errorf("timed out: the case took longer than EVAL_CASE_TIMEOUT (%s)", st.CaseTimeout))
	s.running.Add(1)
	tr := s.evaluate(caseCtx, c, &rec)
	s.running.Add(-1)
	if errors.Is(context.Cause(caseCtx), ErrInterrupted) {
		// Cut short, it says nothing of the model.
		rec.Status, rec.Reason = eval.NotRun, notFinished+ErrInterrupted.Error()
	}
	cancel()
	// The spend counts before the slot is free: the next case to take it
	// sees this one's cost.
	s.leave(g, groupModel, rec.Usage.CostUSD, true)
	left = true
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
	if rec.Status != eval.Error && rec.Status != eval.Undecided && rec.Status != eval.NotRun {
		m := s.score(c, rec, tr)
		s.redactor.Value(&m)
		rec.Metrics = &m
	}

	// A reference run is not a model result: it neither adds to nor removes
	// from the cache. An error (a provider or server failure) or an
	// undecided judge says nothing of the model either, so it leaves an
	// earlier pass in place; a fail removes it.
	if keyErr == nil && !st.Reference && rec.Status != eval.Error && rec.Status != eval.Undecided && rec.Status != eval.NotRun {
		if err := s.cache.Put(key, rec); err != nil {
			fmt.Fprintln(s.log, "warning: cache:", err)
		}
	}
	s.records.Write(rec)
	return rec, nil
}

// score computes the metrics of a finished case, once the checks and the
// judge have decided its status.
func (s *Run) score(c eval.Case, rec eval.Record, tr *agent.Transcript) eval.Metrics {
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
func (s *Run) evaluate(ctx context.Context, c eval.Case, rec *eval.Record) *agent.Transcript {
	st := s.Settings
	a := s.armOf(rec.ArmName())
	cfg := agent.Config{Model: rec.Model, SystemPrompt: cmp.Or(a.systemPrompt, st.SystemPrompt), MaxIterations: st.MaxIterations, TokenLimit: st.MaxTokens,
		LimitCounter: s.limitCounter, Counter: s.counters[rec.Model], Prices: s.prices, Recorder: s.record, FollowLinks: st.FollowLinks}
	tools, end := s.toolBox(a, rec.CaseRun())
	defer end()
	tools = s.traced(tools)
	if replies := evalcase.Replies(c.Elicitation); replies != nil {
		ctx = mcpconn.WithReplier(ctx, replies)
	}
	if len(c.Turns) > 0 || c.User != nil {
		return s.converse(ctx, c, rec, cfg, tools)
	}
	var tr *agent.Transcript
	var err error
	switch {
	case c.Kind == eval.KindCode: // pandas code cases and their recovery loop
		tr, err = agent.RunCode(ctx, s.chat, tools, agent.CodeConfig{Config: cfg, MaxRecovery: st.MaxRecovery, Reference: st.Reference}, c)
	case st.Reference:
		tr = agent.Reference(ctx, tools, cfg, c)
		err = tr.Fault
	default:
		tr, err = agent.Run(ctx, s.chat, tools, cfg, c.Input)
	}
	s.take(c, rec, tr)
	if s.ended(ctx, rec, tr, err) {
		return tr
	}
	s.grade(ctx, c, rec, cfg, tr.Answer, tr.ToolCalls)
	if st.Reference && c.Kind != eval.KindCode {
		supported(c, rec, tr.Results)
	}
	return tr
}

// take puts what the agent's transcript holds so far into rec: the
// answer, the conversation, the tool calls (their failures marked as the
// case asks) and the usage. It says the transcript's warnings, each once
// a run.
func (s *Run) take(c eval.Case, rec *eval.Record, tr *agent.Transcript) {
	for _, w := range tr.Warnings {
		if _, said := s.warned.LoadOrStore(w, true); !said {
			fmt.Fprintf(s.log, "mcpeval: warning: case %q: %s\n", c.Name, s.redactor.String(w))
		}
	}
	rec.Response, rec.Conversation, rec.ToolCalls, rec.Usage = tr.Answer, tr.Conversation, tr.ToolCalls, tr.Usage
	if rec.ToolCalls == nil {
		rec.ToolCalls = []eval.ToolCall{}
	}
	markExpectedErrors(c, rec.ToolCalls)
}

// ended sets rec's status and reason when the agent's run (or its turn of
// a conversation) ended without an answer to grade: err, a server fault,
// a provider failure or the context's end; a limit; a reply cut off; no
// final answer, or an empty one. It reports whether it did.
func (s *Run) ended(ctx context.Context, rec *eval.Record, tr *agent.Transcript, err error) bool {
	var fault *mcpconn.ServerError
	var tooLarge *llm.ResponseTooLargeError
	switch {
	case errors.As(err, &fault):
		rec.Status, rec.Reason = eval.Error, "MCP server fault: "+err.Error()
		rec.ServerStderr = fault.Stderr
	case errors.As(err, &tooLarge) && ctx.Err() == nil:
		// A reply no model gives: the model's fault, not the provider's.
		rec.Status, rec.Reason = eval.Fail, "the model's reply was not read: "+tooLarge.Error()
		rec.ResponseBytes = int(tooLarge.Bytes)
	case err != nil && llm.ExceedsContext(err):
		rec.Status = eval.TokenLimit
		rec.Reason = "the request is longer than the model's context window (" + llm.Describe(err) + "): on a local server, " + agent.RaiseContext +
			"; else fewer or shorter tool definitions, or a lower EVAL_TOKEN_LIMIT for tool results"
	case err != nil:
		rec.Status, rec.Reason = eval.Error, s.providerError(ctx, err)
	case tr.TokenLimit != "":
		rec.Status, rec.Reason = eval.TokenLimit, tr.TokenLimit
	case tr.Cut != "":
		rec.Status, rec.Reason = eval.Cut, tr.Cut
	case tr.Incomplete != "":
		rec.Status, rec.Reason = eval.Fail, tr.Incomplete
	case strings.TrimSpace(tr.Answer) == "":
		rec.Status, rec.Reason = eval.Fail, "the model gave an empty answer"
	default:
		return false
	}
	return true
}

// supported records which facts of a reference answer (the case's expected
// answer) the reference trajectory's results hold, and fails a case whose
// answer the checks passed but the results no longer support: its server's
// data changed, or the case is wrong.
func supported(c eval.Case, rec *eval.Record, results []string) {
	if len(c.Claims) > 0 {
		if rec.Status == eval.Fail && len(rec.Claims) == 0 || rec.Status == eval.Error {
			return // a case check failed
		}
		rec.Claims, rec.Status, rec.Coverage, rec.Reason, rec.Facts = grading.SupportClaims(c, rec.Claims, results)
		return
	}
	rec.Facts = grading.Facts(rec.Response, c.Input, results)
	rec.Facts = append(rec.Facts, grading.TermFacts(c.Checks, c.Input, results, rec.Facts)...)
	missing := grading.Missing(rec.Facts)
	if len(missing) == 0 || rec.Status != eval.Pass {
		return
	}
	rec.Status = eval.Fail
	rec.Reason = fmt.Sprintf("the reference trajectory's results do not hold %s of the expected answer (found nowhere, nor computed from them): %s; the server's data changed, or the case is wrong",
		prose.Plural(len(missing), "facts"), strings.Join(missing, ", "))
}

// markExpectedErrors marks the calls whose failure the case asks for
// (see grading.ExpectedError).
func markExpectedErrors(c eval.Case, calls []eval.ToolCall) {
	for i := range calls {
		calls[i].ExpectedError = grading.ExpectedError(c, calls[i])
	}
}

// grade decides a non-empty answer and the tool calls that led to it
// (see grading.Grader), adding the judges' requests to rec's usage. It
// sets rec's checks, verdicts, claims, status and reason, and the grading
// version.
func (s *Run) grade(ctx context.Context, c eval.Case, rec *eval.Record, cfg agent.Config, answer string, calls []eval.ToolCall) {
	ctx, span := s.judgeSpan(ctx)
	d, err := s.grader(cfg).Grade(ctx, c, answer, calls)
	span.End()
	s.decided(ctx, c, rec, d, err)
}

// grader is the run's grader: its judges, if any, bounded and priced by
// cfg.
func (s *Run) grader(cfg agent.Config) grading.Grader {
	g := grading.Grader{Config: cfg}
	if s.Settings.JudgeEnabled() {
		g.Panel, g.Chat = Panel(s.Settings), s.chat
		g.Panel.Counters = s.counters
	}
	return g
}

// decided sets rec's checks, verdicts, claims, status and reason, and the
// grading version, from a decision on its answer, adding the judges'
// requests to its usage; err is the decision's (a judge's provider
// failure).
func (s *Run) decided(ctx context.Context, c eval.Case, rec *eval.Record, d grading.Graded, err error) {
	rec.Checks, rec.Claims, rec.Coverage, rec.Grading = d.Checks, d.Claims, d.Coverage, grading.Version
	rec.Status, rec.Reason = d.Status, d.Reason
	if !d.Judged {
		return
	}
	rec.Usage.Add(d.Usage)
	judgeUsage := d.Usage
	rec.JudgeUsage = &judgeUsage
	v := d.Verdict
	rec.Judges, rec.JudgeDisagreement = v.Judges, v.Disagreement
	rec.JudgePrompt, rec.JudgeReply = v.Prompt, v.Reply
	if len(rec.Claims) > 0 || d.Prompt != "" {
		rec.JudgePrompt, rec.JudgeReply, rec.JudgeRaw = d.Prompt, d.Reply, d.Raw
	}
	if len(rec.Judges) == 1 {
		rec.Judges[0].Reply = "" // JudgeReply holds it
	}
	switch {
	case err != nil:
		rec.Status, rec.Reason = eval.Error, "judge: "+s.providerError(ctx, err)
	case d.Status == eval.TokenLimit:
	case len(c.Claims) == 0:
		rec.Verdict, rec.JudgeRaw = v.Verdict, v.Raw
	}
}

// providerCheck returns the check of the provider that runs before the
// first case needing it: once, whichever case comes first, the others
// waiting for its outcome. A provider that cannot be reached, refuses the
// key or does not serve the model stops the run with one message that
// names the setting to fix.
func (s *Run) providerCheck(client *llm.Client) func(ctx context.Context) error {
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
			if s.simulatesUsers() && !slices.Contains(models, st.UserModel) {
				models = append(models, st.UserModel)
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

// simulatesUsers reports whether a case the run selects has a simulated
// user (eval.User), whom the user model plays.
func (s *Run) simulatesUsers() bool {
	for _, c := range s.Cases {
		if c.User != nil && (s.selected == nil || s.selected[c.Name]) {
			return true
		}
	}
	return false
}

// CheckProvider asks the provider, before any case starts, whether it
// takes the run's key and knows its models and judges, when a case run of
// cases (in repeats) will ask it: one not cached, or -force. A refusal
// stops the run (Aborted says why) and is returned, so that the run ends
// before go test runs a case.
func (s *Run) CheckProvider(ctx context.Context, cases []eval.Case, repeats int) error {
	if s.checkProvider == nil {
		return nil
	}
	if s.anyToRun(cases, repeats) {
		return s.checkProvider(ctx)
	}
	return nil
}

// anyToRun reports whether a run of the cases will ask the model: any
// with -force, else any the cache lacks. It derives their keys (which the
// runs then find derived) one case per core at a time, and stops at the
// first it lacks.
func (s *Run) anyToRun(cases []eval.Case, repeats int) bool {
	var next atomic.Int64
	var found atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(cases)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(cases) && !found.Load(); i = int(next.Add(1) - 1) {
				for _, a := range s.arms {
					for r := range repeats {
						if s.Settings.Force || !s.isCached(cases[i], a, r, a.hash) {
							found.Store(true)
							return
						}
					}
				}
			}
		})
	}
	wg.Wait()
	return found.Load()
}

// describeCheck says what a failed provider check means and which setting
// to fix.
func (s *Run) describeCheck(err error) string {
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
	case errors.As(err, &unknown) && unknown.Model == st.UserModel && !slices.Contains(st.JudgeModels(), unknown.Model):
		return fmt.Sprintf("%v at %s. Check EVAL_USER_MODEL (or -user-model), the model that plays the simulated users: no case was run", err, st.BaseURL)
	case errors.As(err, &unknown):
		return fmt.Sprintf("%v at %s. Check EVAL_JUDGE_MODEL (or -judge-model): no case was run", err, st.BaseURL)
	}
	return err.Error()
}

// providerError describes a provider failure; an authentication failure
// stops the run.
func (s *Run) providerError(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return describeCtx(ctx, err)
	}
	msg := llm.Describe(err)
	var unreachable *llm.UnreachableError
	switch {
	case llm.IsAuthError(err):
		stop := s.redactor.String(fmt.Sprintf("the provider rejected the API key (%s): %s. Check %s.",
			s.Settings.BaseURL, msg, orDefault(s.Settings.KeyVar, "the API key")))
		s.aborted.CompareAndSwap(nil, &stop)
	case errors.As(err, &unreachable):
		// Every case after it would fail the same way.
		stop := s.redactor.String(fmt.Sprintf("the provider at %s stopped answering mid-run (%v); the cases not started are not run: start it again and run again, the results kept are reused",
			unreachable.URL, unreachable.Err))
		s.aborted.CompareAndSwap(nil, &stop)
	}
	return msg
}

func describeCtx(ctx context.Context, err error) string { return grading.DescribeContext(ctx, err) }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Summary builds the run summary from the records written so far. It holds
// no secret: the provider's URL is shown without its credentials.
func (s *Run) Summary() eval.Summary {
	st := s.Settings
	sum := eval.Summary{
		RunID: s.runID, Started: s.started.UTC(), Finished: time.Now().UTC(), Model: st.Model, CaseFiles: st.Cases,
		Servers: s.servers, Reference: st.Reference, Provider: st.BaseURL, GitCommit: s.commit(),
		MinPassRate: st.MinPassRate, MinRunPassRate: st.MinRunPassRate, BudgetUSD: st.BudgetUSD,
		Stopped: s.Aborted(), Prices: s.prices.Describe(), TraceURL: s.traceURL,
	}
	if sum.Stopped == "" {
		sum.Stopped = s.budgetStop()
	}
	s.describeVerdicts(&sum)
	sum.Seconds = sum.Finished.Sub(sum.Started).Seconds()
	records := s.records.records()
	ran := map[eval.CaseRun]bool{}
	for _, r := range records {
		sum.Count(r)
		if r.Status != eval.NotRun {
			ran[planKey(r.Name, r.ArmName(), r.Repeat)] = true
		}
	}
	s.skipMu.Lock()
	skipped := maps.Clone(s.skips)
	s.skipMu.Unlock()
	sum.Skipped = len(skipped)
	// Not run: the case runs planned that neither ran nor were skipped,
	// each case run once (a case with an arm in a repeat), by case and
	// arm (planKey's series).
	notRun, notRunByArm, plannedArms := map[eval.CaseRun]int{}, map[string]int{}, map[string]bool{}
	for _, p := range s.plannedRuns() {
		k := planKey(p.Name, p.ArmName(), p.Repeat)
		plannedArms[k.Arm] = true
		if !ran[k] && !skipped[k] {
			notRun[k.Series()]++
			notRunByArm[k.Arm]++
			sum.NotRun++
		}
	}
	var evaluated []string // the arms with a planned run, in the run's order
	for _, a := range s.arms {
		if plannedArms[a.label] {
			evaluated = append(evaluated, a.label)
		}
	}
	if st.Arms == "" && len(evaluated) > 0 && !st.Reference {
		// An arm -run leaves out is not part of the run: the run's model
		// is the first one it evaluated.
		sum.Model = s.armOf(evaluated[0]).model
	}
	if st.Reference {
		evaluated = nil // no model was evaluated
	}
	stats.Summarize(&sum, records, evaluated)
	sum.Repeats = max(sum.Repeats, s.repeats)
	for i := range sum.Cases {
		c := &sum.Cases[i]
		c.NotRun = notRun[planKey(c.Name, c.Model, 0)]
	}
	for i := range sum.Models {
		sum.Models[i].NotRun = notRunByArm[sum.Models[i].Model]
	}
	s.describeArms(sum.Models)
	sum.ArmEffects = stats.ArmEffects(sum.Models, sum.ModelPairs)
	sum.ArmVerdicts = stats.Verdicts(records, sum.Models)
	if st.Arms != "" {
		sum.Arms = sum.Models
	}
	sum.ServerRestarts = s.tools.Restarts()
	if s.live != nil {
		sum.ServerRestarts += s.live.Restarts()
	}
	sum.Tools = s.toolSummary()
	sum.Replay = s.replayInfo(records)
	s.redactor.Value(&sum)
	return sum
}

// Select narrows the run to the cases named (those -run and -skip
// select): the case runs not run and the tools' coverage count them alone.
// Without it every loaded case counts.
//
// A tool that a selected case must call (tools.must_call) or replays
// (reference) and no server offers is an error, before any request: the
// case could never pass, or never be replayed.
func (s *Run) Select(names map[string]bool) error {
	s.selected = names
	// must_call names a tool by its name on its server (as the records do),
	// or as server/tool, whatever name the model is offered it under.
	var offered []string
	for _, t := range s.tools.Entries() {
		if !slices.Contains(offered, t.Name) {
			offered = append(offered, t.Name)
		}
		offered = append(offered, t.Server+"/"+t.Name)
	}
	var errs []error
	for _, c := range s.Cases {
		if names != nil && !names[c.Name] {
			continue
		}
		for k := range len(c.Turns) + 1 {
			mustCall, refs, field := c.Tools.MustCall, c.Reference, ""
			if k > 0 {
				mustCall, refs, field = c.Turns[k-1].Tools.MustCall, c.Turns[k-1].Reference, fmt.Sprintf("turns[%d].", k-1)
			}
			if k == 0 && c.FirstReply != nil {
				errs = append(errs, s.unoffered(c, c.FirstReply.Tools.MustCall, "first_reply.", offered)...)
			}
			errs = append(errs, s.unoffered(c, mustCall, field, offered)...)
			for i, ref := range refs {
				if !slices.Contains(offered, ref.Tool) && ref.Tool != eval.ReadResourceTool { // the suite's own tool is always there
					errs = append(errs, fmt.Errorf("%s: case %q: %sreference[%d]: no server offers the tool %q%s, so its reference trajectory cannot be replayed: correct the name, or the servers (EVAL_SERVER, EVAL_TOOLS)",
						c.WhereField(fmt.Sprintf("%sreference[%d]", field, i)), c.Name, field, i, ref.Tool, suggest.DidYouMean(ref.Tool, offered)))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// unoffered returns an error for each tool of mustCall, c's must_call
// at field ("", "turns[1].", "first_reply."), that no server offers.
func (s *Run) unoffered(c eval.Case, mustCall []string, field string, offered []string) []error {
	var errs []error
	for i, tool := range mustCall {
		if !slices.Contains(offered, tool) {
			errs = append(errs, fmt.Errorf("%s: case %q: %stools.must_call: no server offers the tool %q%s, so the case could never pass: correct the name, or the servers (EVAL_SERVER, EVAL_TOOLS)",
				c.WhereField(fmt.Sprintf("%stools.must_call[%d]", field, i)), c.Name, field, tool, suggest.DidYouMean(tool, offered)))
		}
	}
	return errs
}

// selectedCount counts the loaded cases the run selects.
func (s *Run) selectedCount() int {
	if s.selected == nil {
		return len(s.Cases)
	}
	n := 0
	for _, c := range s.Cases {
		if s.selected[c.Name] {
			n++
		}
	}
	return n
}

// Plan tells the run which case runs this process is to run (each case
// -run and -skip select with each arm they select, in each repeat, of this
// process's shard; see CaseRunOf) and how many repeats were asked (go test
// -count). The summary counts those that neither ran nor were skipped as
// not run, each case run once, and compares the arms among them alone: an
// arm -run leaves out is not part of the run, and so not "not run".
// Without a plan every selected case runs with every arm, once.
func (s *Run) Plan(runs []eval.CaseRun, repeats int) {
	s.planned, s.repeats = slices.Clone(runs), repeats
	if s.planned == nil {
		s.planned = []eval.CaseRun{}
	}
}

// plannedRuns are the case runs the run is to run: those Plan gave, else
// every selected case with every arm in each repeat.
func (s *Run) plannedRuns() []eval.CaseRun {
	if s.planned != nil {
		return s.planned
	}
	var out []eval.CaseRun
	for _, c := range s.Cases {
		if s.selected != nil && !s.selected[c.Name] {
			continue
		}
		for _, a := range s.arms {
			for r := range max(s.repeats, 1) {
				out = append(out, s.CaseRunOf(c.Name, a.label, r))
			}
		}
	}
	return out
}

// planKey identifies a case run by its case, arm (its label: the arm's
// name, else the model's; see eval.CaseRun.ArmName) and repeat, however
// its record names the model.
func planKey(name, arm string, repeat int) eval.CaseRun {
	return eval.CaseRun{Name: name, Arm: arm, Repeat: repeat}
}

// describeVerdicts says in the summary what decided the verdicts: the
// judges (their models, mode and prompt) or the checks, measured.
func (s *Run) describeVerdicts(sum *eval.Summary) {
	sum.Verdicts = eval.VerdictsByJudge
	if !s.Settings.JudgeEnabled() {
		sum.Verdicts, sum.ChecksCalibration = eval.VerdictsByChecks, s.checksCalibration()
	}
	if models := s.Settings.JudgeModels(); len(models) > 0 {
		sum.JudgeModel, sum.JudgePromptHash = strings.Join(models, ","), grading.JudgePromptHash()
		if len(models) > 1 {
			sum.JudgeMode = s.Settings.JudgeMode
		}
	}
}

// checksCalibration measures the checks on the labelled answers of the
// cases the run selects, once.
func (s *Run) checksCalibration() *eval.ChecksCalibration {
	s.checksCalOnce.Do(func() {
		var chosen []eval.Case
		for _, c := range s.Cases {
			if s.selected == nil || s.selected[c.Name] {
				chosen = append(chosen, c)
			}
		}
		st := s.Settings
		s.checksCal = labelled.ChecksCalibration(st.Cases, st.Labels, st.Root, chosen)
	})
	return s.checksCal
}

// gitCommit returns the short commit of the git checkout at root, "" if
// it is none.
func gitCommit(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// WriteSummary writes summary.json into the run directory and marks the
// run as the latest finished one.
func (s *Run) writeSummary(sum eval.Summary) error {
	if err := writeJSONFile(s.RunDir, eval.SummaryFile, sum); err != nil {
		return err
	}
	return runs.MarkLatest(s.Settings.Out, s.RunDir)
}

// Finish ends the run with its summary: it writes metrics.json,
// metrics_summary.json and summary.json, marks the run as the latest
// finished one, and closes the servers, the records file and the cache.
// Every step is tried; the errors are those of the steps that failed.
func (s *Run) Finish(sum eval.Summary) []error {
	var errs []error
	for _, err := range []error{s.writeMetrics(), s.writeSummary(sum), s.Close()} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Gates returns, for a run's summary, one line for each gate it does not
// pass: the cases whose pass rate is below MinPassRate, the run's pass
// rate (each compared model's or arm's) below MinRunPassRate, and each server whose tool coverage is below
// MinToolCoverage (naming the tools never called). No line: every gate
// passed.
func Gates(sum eval.Summary, st settings.Settings) []string {
	var out []string
	if st.MinPassRate > 0 {
		var low []string
		for _, c := range sum.Cases {
			if c.PassRate < st.MinPassRate {
				name := fmt.Sprintf("%q", c.Name)
				if len(sum.OverallByArm) > 1 {
					name += " [" + c.Model + "]"
				}
				low = append(low, fmt.Sprintf("%s %d/%d", name, c.Passes, c.Runs))
			}
		}
		if len(low) > 0 {
			out = append(out, fmt.Sprintf("%s below the minimum pass rate %g: %s", prose.Plural(len(low), "cases"), st.MinPassRate, strings.Join(low, ", ")))
		}
	}
	// Each model or arm compared is held to the run's minimum on its own:
	// a mix of them is no one's pass rate.
	switch {
	case st.MinRunPassRate <= 0:
	case len(sum.OverallByArm) > 1:
		what := "model"
		if len(sum.Arms) > 0 {
			what = "arm"
		}
		for _, g := range sum.OverallByArm {
			if g.Cases > 0 && g.PassRate < st.MinRunPassRate {
				out = append(out, fmt.Sprintf("the pass rate of %s %s, %.3f, is below the minimum %g", what, g.Name, g.PassRate, st.MinRunPassRate))
			}
		}
	case sum.Overall.PassRate < st.MinRunPassRate:
		out = append(out, fmt.Sprintf("the run's pass rate %.3f is below the minimum %g", sum.Overall.PassRate, st.MinRunPassRate))
	}
	return append(out, toolGates(sum, st)...)
}

// WriteMetrics writes metrics.json (one entry per scored case) and
// metrics_summary.json into the output directory.
func (s *Run) writeMetrics() error {
	summary, err := s.records.writeMetrics(s.RunDir)
	if err != nil {
		return err
	}
	return writeJSONFile(s.RunDir, eval.MetricsSummaryFile, eval.MetricsFileSummary{Summary: summary})
}
