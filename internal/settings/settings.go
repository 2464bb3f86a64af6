// Package settings resolves the configuration of a run: every setting is a
// flag (after the package on the go test command line) and an environment
// variable; a flag given on the command line wins over the environment,
// which wins over a .env file in the project root. It also chooses the
// provider, and knows the run's secrets.
package settings

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hbollon/go-edlib"
	"github.com/joho/godotenv"

	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/redact"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/shard"
)

// Settings is the configuration of a run. Every setting is a flag and an
// environment variable; a flag given on the command line wins over the
// environment, which wins over a .env file in the project root.
type Settings struct {
	Root string // the module root; relative paths are resolved against it

	Cases string
	// Servers are the MCP servers to evaluate; empty means the bundled
	// sample server. ServersFile is the client configuration file they
	// came from, if any.
	Servers     []mcpconn.Spec
	ServersFile string
	// Tools selects the tools offered to the model (mcpconn.Options.Tools);
	// MaxTools is the most a request may offer (0: no limit).
	Tools    []string
	MaxTools int
	// MaxToolTokens bounds the tokens of the tool definitions a request
	// sends (0: no limit); Roots are the directories offered to the
	// servers as the client's roots (none: a stdio server's working
	// directory); FollowLinks offers the model a tool to read the
	// resources tool results link to.
	MaxToolTokens int
	Roots         []string
	FollowLinks   bool
	Out           string
	Cache         string
	Model         string
	// Models are the models to evaluate, side by side (-models); one model
	// when only Model is named. Model is the first.
	Models []string
	// Judge names the judge model, or several separated by commas; "" means
	// the first model, "none" disables the judge.
	Judge string
	// JudgeMode says how several judges decide: "majority" or "unanimous".
	JudgeMode string
	// Labels is the file or directory of the labelled answers that
	// calibrate the judge, besides those next to the cases.
	Labels  string
	BaseURL string
	APIKey  string `json:"-"`
	// secrets are the values Redactor removes besides the environment's.
	secrets []string
	// lookup reads a variable from the environment, else the .env file.
	lookup   func(string) (string, bool)
	KeyVar   string // which variable the key came from
	Headers  map[string]string
	Provider string // "openrouter", "openai", "azure", "custom" or "" for the reference run

	MaxTokens      int
	MaxIterations  int
	CaseTimeout    time.Duration
	Concurrency    int
	MaxRetries     int
	MaxRecovery    int
	RetryWait      time.Duration
	RetryMaxWait   time.Duration
	RequestTimeout time.Duration
	ToolTimeout    time.Duration
	SystemPrompt   string

	Clear     bool
	Force     bool
	Reference bool // the offline reference run: no model is evaluated

	// Prices is the price table (prices.yaml) that costs requests whose
	// provider reports no cost; BudgetUSD bounds the run's spend (0: none).
	Prices    string
	BudgetUSD float64

	// RunID names the run's directory under Out/runs; empty: a new one.
	RunID string
	// MinPassRate fails a case whose pass rate over its repeats is below
	// it; MinRunPassRate fails the run below it overall. 0: no gate.
	MinPassRate    float64
	MinRunPassRate float64
	// MinToolCoverage fails the run when some server has fewer of its
	// tools called, in percent. 0: no gate.
	MinToolCoverage float64

	// Progress is how a run shows its progress: ProgressAuto (a live line
	// on the terminal, else a line every 30 s), ProgressOff, or a line
	// every ProgressEvery.
	Progress      string
	ProgressEvery time.Duration

	// Shard is this process's part of a split run (the zero Spec: the
	// whole run); ShardBalance how case runs go to shards (shard.Hash or
	// shard.History).
	Shard        shard.Spec
	ShardBalance string
}

// The progress modes (see Settings.Progress). ProgressLive draws the live
// line on the terminal even when go test writes JSON for a consumer that
// leaves the terminal to it (make eval).
const (
	ProgressAuto  = "auto"
	ProgressLive  = "live"
	ProgressOff   = "off"
	ProgressLines = "lines"
)

// setting is one configurable value: its flag, its variable, its default.
type setting struct {
	flag, env, def, usage string
}

var settings = []setting{
	{"cases", "EVAL_CASES", "cases", "case file or directory (relative to the project root)"},
	{"server", "EVAL_SERVER", "", "MCP server(s), separated by ';': a command line (stdio), an http(s) URL (streamable HTTP) or sse:URL; with -servers-file, names of its servers; default: the bundled sample server"},
	{"servers-file", "EVAL_SERVERS_FILE", "", "MCP servers from a client configuration file (.mcp.json, claude_desktop_config.json: the mcpServers object); -server names the ones to use (default: all)"},
	{"tools", "EVAL_TOOLS", "", "tools offered to the model, comma-separated patterns: get_gene_* (by name), memory/* (a server's tools, by its short name), !pattern leaves tools out (default: every tool of every server)"},
	{"max-tools", "EVAL_MAX_TOOLS", "128", "most tools a request may offer (OpenAI's limit is 128); a run offering more stops before its first case, naming the servers (0: no limit)"},
	{"max-tool-tokens", "EVAL_MAX_TOOL_TOKENS", "0", "most tokens the tool definitions sent with every request may take, in the evaluated model's encoding; a run above it stops before its first case, naming the largest tools (0: no limit)"},
	{"roots", "EVAL_ROOTS", "", "directories offered to the MCP servers as the client's roots, comma-separated (relative to the project root); default: a stdio server's working directory (its servers-file cwd)"},
	{"follow-links", "EVAL_FOLLOW_LINKS", "true", "offer the model a read_resource_link tool once a tool result returned a resource link (false: links are only shown)"},
	{"out", "EVAL_OUT", DefaultOut, "output directory: each run writes into <out>/runs/<id>, and <out>/latest names the newest finished one"},
	{"cache", "EVAL_CACHE", defaultCache, "result cache file"},
	{"model", "EVAL_MODEL", "", "model to evaluate (default: google/gemini-2.5-flash on OpenRouter, gpt-4.1-mini on OpenAI)"},
	{"models", "EVAL_MODELS", "", "models to evaluate side by side, comma-separated: every case runs once per model (replaces -model)"},
	{"judge-model", "EVAL_JUDGE_MODEL", "", "judge model, or an odd number of them separated by commas, whose majority decides (default: the evaluated model, the first of -models; 'none' leaves the verdict to the deterministic checks)"},
	{"judge-mode", "EVAL_JUDGE_MODE", "majority", "how several judges decide: 'majority' or 'unanimous' (every judge must accept)"},
	{"labels", "EVAL_LABELS", "testdata/calibration", "labelled answers (*.labels.yaml file or directory) that make calibrate measures the judge on, besides those next to the cases"},
	{"base-url", "OPENAI_BASE_URL", "", "OpenAI-compatible base URL (Ollama, vLLM, llama.cpp server, LM Studio, a proxy)"},
	{"max-tokens", "EVAL_MAX_TOKENS", "100000", "token limit for every tool result and the judge prompt (0 disables)"},
	{"max-iterations", "EVAL_MAX_ITERATIONS", "10", "model turns per case"},
	{"case-timeout", "EVAL_CASE_TIMEOUT", "300s", "time limit per case"},
	{"concurrency", "EVAL_CONCURRENCY", "4", "cases run at once"},
	{"max-recovery", "EVAL_MAX_RECOVERY", "2", "recovery attempts for a code case whose final code fails"},
	{"max-retries", "EVAL_MAX_RETRIES", "5", "retries of a throttled or failed provider request"},
	{"retry-wait", "EVAL_RETRY_WAIT", "2s", "first backoff before retrying a provider request; it doubles up to -retry-max-wait (a Retry-After header wins)"},
	{"retry-max-wait", "EVAL_RETRY_MAX_WAIT", "30s", "longest backoff between two attempts"},
	{"request-timeout", "EVAL_REQUEST_TIMEOUT", "120s", "time limit for one model request"},
	{"tool-timeout", "EVAL_TOOL_TIMEOUT", "120s", "time limit for one tool call; a server that does not answer in time is restarted"},
	{"system-prompt", "EVAL_SYSTEM_PROMPT", "", "system prompt for the agent (default: a built-in prompt)"},
	{"clear", "EVAL_CLEAR", "false", "remove the result cache before the run, then run every case"},
	{"force", "EVAL_FORCE", "false", "ignore cached results and run every case (new results are still cached)"},
	{"reference", "EVAL_REFERENCE", "false", "offline reference run: execute each case's reference trajectory instead of a model"},
	{"prices", "EVAL_PRICES", "prices.yaml", "price table (model, USD per million input and output tokens) for requests whose provider reports no cost"},
	{"budget-usd", "EVAL_BUDGET_USD", "0", "spend at most this many US dollars: a run estimated above it does not start, and no case starts once it is spent (0: no budget)"},
	{"run-id", "EVAL_RUN_ID", "", "name of the run's directory under <out>/runs (default: the UTC start time and a random suffix)"},
	{"min-pass-rate", "EVAL_MIN_PASS_RATE", "0", "fail every case whose pass rate over its repeats (go test -count=N) is below this rate, from 0 to 1"},
	{"min-run-pass-rate", "EVAL_MIN_RUN_PASS_RATE", "0", "fail the run when its pass rate over all cases is below this rate, from 0 to 1"},
	{"min-tool-coverage", "EVAL_MIN_TOOL_COVERAGE", "0", "fail the run when some server has less than this percentage of its tools called, from 0 to 100, naming the tools never called"},
	{"progress", "EVAL_PROGRESS", ProgressAuto, "progress while the run goes: auto (a live line on the terminal, else a line every 30s), live (the live line also under go test -json), off, or a duration (a line at that interval)"},
	{"shard", "EVAL_SHARD", "", "run only shard k of n of the selected case runs, k/n from 1 (merge the shards' runs with evalreport -merge)"},
	{"shards", "EVAL_SHARDS", "", "number of shards when JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's, from 0) names this one"},
	{"shard-balance", "EVAL_SHARD_BALANCE", "hash", "how case runs go to shards: hash (by identity: adding a case moves no other) or history (balanced by the durations the cache remembers)"},
}

// otherVars are the suite's variables that are not settings of the table.
var otherVars = []string{DotEnvVar, ServeVar}

// ServeVar, set to 1, makes a suite's test binary serve its bundled MCP
// server over stdio instead of running tests.
const ServeVar = "EVAL_SERVE_SAMPLE"

// Default paths, relative to the module root.
const (
	DefaultOut   = "evaltest/out"
	defaultCache = "evaltest/.cache/test_results_cache.json"
)

// Provider endpoints and default models.
const (
	openRouterURL     = "https://openrouter.ai/api/v1"
	openRouterDefault = "google/gemini-2.5-flash"
	openAIDefault     = "gpt-4.1-mini"
)

// RegisterFlags adds the settings' flags to fs. Values are resolved by
// Resolve after fs is parsed.
func RegisterFlags(fs *flag.FlagSet) {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage of %s:\n", fs.Name())
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), `
Provider (environment or .env in the project root):
  OPENROUTER_API_KEY   use OpenRouter (default model google/gemini-2.5-flash)
  OPENAI_API_KEY       use OpenAI (default model gpt-4.1-mini), or authenticate to OPENAI_BASE_URL
  OPENAI_BASE_URL      any OpenAI-compatible endpoint (-base-url); name the model with EVAL_MODEL
  AZURE_OPENAI_API_KEY the key of an Azure OpenAI resource, with OPENAI_BASE_URL (a deployment URL) or
                       AZURE_OPENAI_ENDPOINT (the resource; EVAL_MODEL names the deployment)
With none of them the run is the offline reference run.
`)
	}
	for _, s := range settings {
		usage := fmt.Sprintf("%s (env %s)", s.usage, s.env)
		if isBool(s) {
			fs.Bool(s.flag, false, usage)
			continue
		}
		fs.String(s.flag, "", usage+defaultNote(s.def))
	}
}

func defaultNote(def string) string {
	if def == "" {
		return ""
	}
	return fmt.Sprintf(" (default %q)", def)
}

// Resolve reads the settings from fs (parsed), the environment and the
// .env file in the project root.
func Resolve(fs *flag.FlagSet) (Settings, error) {
	root, err := files.ModuleRoot()
	if err != nil {
		return Settings{}, err
	}
	return resolve(fs, root, os.Environ())
}

// ResolveArgs resolves the settings as the suite does when its go test
// command line has args after the package: the settings' flags among them
// count, go test's own flags (-run, -count, -v, ...) are left alone.
func ResolveArgs(args []string) (Settings, error) {
	fs := flag.NewFlagSet("mcpeval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	RegisterFlags(fs)
	if err := fs.Parse(SettingsArgs(args)); err != nil {
		return Settings{}, err
	}
	return Resolve(fs)
}

// SettingsArgs returns the settings' flags (with their values) among the
// arguments of a go test command line.
func SettingsArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") {
			continue
		}
		j := slices.IndexFunc(settings, func(s setting) bool { return s.flag == name })
		if j < 0 {
			continue
		}
		switch {
		case hasValue:
			out = append(out, "-"+name+"="+value)
		case isBool(settings[j]):
			out = append(out, "-"+name)
		case i+1 < len(args):
			out = append(out, "-"+name+"="+args[i+1])
			i++
		}
	}
	return out
}

func isBool(s setting) bool { return s.def == "true" || s.def == "false" }

// DotEnvVar names the .env file to read instead of the project root's
// .env; "off" reads none (tests use it to stay clear of a developer's keys).
const DotEnvVar = "EVAL_DOTENV"

// resolve is Resolve with the project root and the environment (NAME=value
// entries) given.
func resolve(fs *flag.FlagSet, root string, environ []string) (Settings, error) {
	env, dotenv, dotenvPath, lookup, err := variables(root, environ)
	if err != nil {
		return Settings{}, err
	}
	if err := unknownVariables(env, dotenv, dotenvPath); err != nil {
		return Settings{}, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	values := map[string]string{}
	origin := map[string]string{}
	for _, s := range settings {
		v, from := s.def, "default"
		if env, ok := lookup(s.env); ok && env != "" {
			v, from = env, s.env
		}
		if given[s.flag] {
			v, from = fs.Lookup(s.flag).Value.String(), "-"+s.flag
		}
		values[s.flag], origin[s.flag] = v, from
	}
	st, err := build(root, values, origin, lookup)
	st.lookup = lookup
	for name, value := range dotenv {
		if redact.SecretName(name) {
			st.secrets = append(st.secrets, value)
		}
	}
	return st, err
}

func build(root string, v, origin map[string]string, lookup func(string) (string, bool)) (Settings, error) {
	st := Settings{Root: root, Model: v["model"], Judge: v["judge-model"], BaseURL: v["base-url"], SystemPrompt: v["system-prompt"]}
	var errs []error
	bad := func(name string, err error) {
		errs = append(errs, fmt.Errorf("%s: invalid value %q: %v", origin[name], v[name], err))
	}
	intSetting := func(name string, min int) int {
		n, err := strconv.Atoi(strings.TrimSpace(v[name]))
		if err == nil && n < min {
			err = fmt.Errorf("must be at least %d", min)
		}
		if err != nil {
			bad(name, err)
		}
		return n
	}
	boolSetting := func(name string) bool {
		b, err := strconv.ParseBool(strings.TrimSpace(v[name]))
		if err != nil {
			bad(name, err)
		}
		return b
	}
	st.MaxTokens = intSetting("max-tokens", 0)
	st.MaxIterations = intSetting("max-iterations", 1)
	st.Concurrency = intSetting("concurrency", 1)
	st.MaxRetries = intSetting("max-retries", 0)
	st.MaxRecovery = intSetting("max-recovery", 0)
	st.MaxTools = intSetting("max-tools", 0)
	st.MaxToolTokens = intSetting("max-tool-tokens", 0)
	st.FollowLinks = boolSetting("follow-links")
	for _, r := range strings.Split(v["roots"], ",") {
		switch r = strings.TrimSpace(r); {
		case strings.HasPrefix(r, "file://"):
			st.Roots = append(st.Roots, r)
		case r != "":
			st.Roots = append(st.Roots, abs(root, r))
		}
	}
	for _, p := range strings.Split(v["tools"], ",") {
		if p = strings.TrimSpace(p); p != "" {
			st.Tools = append(st.Tools, p)
		}
	}
	if err := mcpconn.CheckPatterns(st.Tools); err != nil {
		bad("tools", err)
	}
	durationSetting := func(name string) time.Duration {
		d, err := time.ParseDuration(strings.TrimSpace(v[name]))
		if err == nil && d <= 0 {
			err = errors.New("must be positive")
		}
		if err != nil {
			bad(name, err)
		}
		return d
	}
	st.CaseTimeout = durationSetting("case-timeout")
	st.RetryWait = durationSetting("retry-wait")
	st.RetryMaxWait = durationSetting("retry-max-wait")
	st.RequestTimeout = durationSetting("request-timeout")
	st.ToolTimeout = durationSetting("tool-timeout")
	st.Clear, st.Force, st.Reference = boolSetting("clear"), boolSetting("force"), boolSetting("reference")
	rateSetting := func(name string) float64 {
		r, err := strconv.ParseFloat(strings.TrimSpace(v[name]), 64)
		if err == nil && !(r >= 0 && r <= 1) {
			err = errors.New("must be a rate from 0 to 1")
		}
		if err != nil {
			bad(name, err)
		}
		return r
	}
	st.MinPassRate, st.MinRunPassRate = rateSetting("min-pass-rate"), rateSetting("min-run-pass-rate")
	st.Prices = abs(root, v["prices"])
	if b, err := strconv.ParseFloat(strings.TrimSpace(v["budget-usd"]), 64); err != nil || !(b >= 0) || math.IsInf(b, 0) {
		if err == nil {
			err = errors.New("must be a number of US dollars, 0 or more")
		}
		bad("budget-usd", err)
	} else {
		st.BudgetUSD = b
	}
	for _, m := range strings.Split(v["models"], ",") {
		if m = strings.TrimSpace(m); m != "" && !slices.Contains(st.Models, m) {
			st.Models = append(st.Models, m)
		}
	}
	if len(st.Models) > 0 {
		st.Model = st.Models[0] // -models names every model, the first is the main one
	}
	coverage, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v["min-tool-coverage"]), "%"), 64)
	if err == nil && !(coverage >= 0 && coverage <= 100) {
		err = errors.New("must be a percentage from 0 to 100")
	}
	if err != nil {
		bad("min-tool-coverage", err)
	}
	st.MinToolCoverage = coverage
	if st.RunID = strings.TrimSpace(v["run-id"]); st.RunID != "" && !runs.ValidID(st.RunID) {
		bad("run-id", errors.New("must have the form 20060102T150405Z-a1b2c3 (UTC time, six hex digits)"))
	}
	st.Cases = abs(root, v["cases"])
	st.Labels = abs(root, v["labels"])
	if err := st.setJudges(v["judge-mode"]); err != nil {
		errs = append(errs, err)
	}
	st.Out = abs(root, v["out"])
	st.Cache = abs(root, v["cache"])
	if err := st.chooseServers(v, origin, lookup); err != nil {
		errs = append(errs, err)
	}
	switch st.Progress = strings.TrimSpace(v["progress"]); st.Progress {
	case ProgressAuto, ProgressLive, ProgressOff:
	default:
		d, err := time.ParseDuration(st.Progress)
		if err == nil && d <= 0 {
			err = errors.New("must be positive")
		}
		if err != nil {
			bad("progress", fmt.Errorf("give auto, live, off or a duration such as 10s: %v", err))
		}
		st.Progress, st.ProgressEvery = ProgressLines, d
	}
	errs = append(errs, st.resolveShard(v, origin, lookup)...)
	if err := st.chooseProvider(lookup); err != nil {
		errs = append(errs, err)
	}
	return st, errors.Join(errs...)
}

// variables reads the environment (NAME=value entries) and the .env file
// of the project root (or EVAL_DOTENV's): lookup gives a variable's value
// from the environment, else from the .env file.
func variables(root string, environ []string) (env, dotenv map[string]string, dotenvPath string, lookup func(string) (string, bool), err error) {
	env = map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	dotenvPath = filepath.Join(root, ".env")
	if p := env[DotEnvVar]; p != "" {
		dotenvPath = abs(root, p)
		if p == "off" {
			dotenvPath = ""
		}
	}
	if dotenv, err = readDotEnv(dotenvPath); err != nil {
		return nil, nil, "", nil, err
	}
	lookup = func(name string) (string, bool) {
		if v, ok := env[name]; ok && v != "" {
			return v, true
		}
		v, ok := dotenv[name]
		return v, ok
	}
	return env, dotenv, dotenvPath, lookup, nil
}

// OutDir is the output directory as the suite resolves it when no flag
// gives one: EVAL_OUT from the environment (getenv) or the .env file, else
// the default, relative to the project root.
func OutDir(getenv func(string) string) (string, error) {
	root, err := files.ModuleRoot()
	if err != nil {
		return "", err
	}
	environ := []string{"EVAL_OUT=" + getenv("EVAL_OUT"), DotEnvVar + "=" + getenv(DotEnvVar)}
	_, _, _, lookup, err := variables(root, environ)
	if err != nil {
		return "", err
	}
	out, ok := lookup("EVAL_OUT")
	if !ok || out == "" {
		out = DefaultOut
	}
	return abs(root, out), nil
}

// chooseServers reads the MCP servers: command lines and URLs, or the
// servers of a servers file by name. The values of their environment and
// headers are secrets.
func (st *Settings) chooseServers(v, origin map[string]string, lookup func(string) (string, bool)) error {
	entries := mcpconn.SplitSpecs(v["server"])
	if v["servers-file"] == "" {
		specs, err := mcpconn.ParseSpecs(entries)
		if err != nil {
			return fmt.Errorf("%s: %w", origin["server"], err)
		}
		st.Servers = specs
		for _, s := range specs {
			st.secrets = append(st.secrets, s.Secrets()...)
		}
		return nil
	}
	st.ServersFile = abs(st.Root, v["servers-file"])
	f, err := mcpconn.LoadServersFile(st.ServersFile, lookup)
	if err != nil {
		return fmt.Errorf("%s: %w", origin["servers-file"], err)
	}
	var names []string
	for _, e := range entries {
		for _, name := range strings.Split(e, ",") {
			if name = strings.TrimSpace(name); name != "" {
				names = append(names, name)
			}
		}
	}
	if st.Servers, err = f.Select(names); err != nil {
		return fmt.Errorf("%s: %w", origin["server"], err)
	}
	for _, s := range st.Servers {
		st.secrets = append(st.secrets, s.Secrets()...)
	}
	return nil
}

// UseServersFile makes the servers of a servers file (path relative to the
// project root) the run's servers when none is configured: a suite's
// default (evaltest.Config.ServersFile). A configured server or servers
// file wins.
func (st *Settings) UseServersFile(path string) error {
	if len(st.Servers) > 0 || path == "" {
		return nil
	}
	st.ServersFile = abs(st.Root, path)
	f, err := mcpconn.LoadServersFile(st.ServersFile, st.lookup)
	if err == nil {
		st.Servers, err = f.Select(nil)
	}
	if err != nil {
		return fmt.Errorf("the suite's servers file (set EVAL_SERVER or EVAL_SERVERS_FILE to use others): %w", err)
	}
	for _, s := range st.Servers {
		st.secrets = append(st.secrets, s.Secrets()...)
	}
	return nil
}

// azureHost reports whether host is an Azure OpenAI resource's.
func azureHost(host string) bool {
	host = strings.ToLower(host)
	return strings.HasSuffix(host, ".openai.azure.com") || strings.HasSuffix(host, ".cognitiveservices.azure.com") ||
		strings.HasSuffix(host, ".services.ai.azure.com")
}

// chooseProvider picks the endpoint, key and default model: an explicit base
// URL first, then OpenRouter, then OpenAI; with none of them (or with
// -reference) the run is the offline reference run.
func (st *Settings) chooseProvider(lookup func(string) (string, bool)) error {
	get := func(name string) string { v, _ := lookup(name); return strings.TrimSpace(v) }
	orKey, oaKey, azKey := get("OPENROUTER_API_KEY"), get("OPENAI_API_KEY"), get("AZURE_OPENAI_API_KEY")
	st.secrets = append(st.secrets, orKey, oaKey, azKey)
	if azEndpoint := get("AZURE_OPENAI_ENDPOINT"); st.BaseURL == "" && azEndpoint != "" && azKey != "" && !st.Reference {
		st.BaseURL = azEndpoint
	}
	switch {
	case st.Reference:
		st.Provider = ""
		return nil
	case st.BaseURL != "":
		// Only OPENAI_API_KEY goes to an arbitrary endpoint; the OpenRouter
		// key goes to OpenRouter only.
		st.Provider = "custom"
		st.APIKey, st.KeyVar = oaKey, "OPENAI_API_KEY"
		u, err := url.Parse(st.BaseURL)
		switch {
		case err == nil && u.Hostname() == "openrouter.ai" && orKey != "":
			st.APIKey, st.KeyVar = orKey, "OPENROUTER_API_KEY"
		case err == nil && azureHost(u.Hostname()) && azKey != "":
			st.Provider, st.APIKey, st.KeyVar = "azure", azKey, "AZURE_OPENAI_API_KEY"
		}
		if st.Model == "" {
			return errors.New("OPENAI_BASE_URL is set but no model is named: set EVAL_MODEL (or -model) to a model the endpoint serves")
		}
	case orKey != "":
		st.Provider, st.BaseURL, st.APIKey, st.KeyVar = "openrouter", openRouterURL, orKey, "OPENROUTER_API_KEY"
		st.Headers = map[string]string{"X-Title": "mcpeval"}
		if st.Model == "" {
			st.Model = openRouterDefault
		}
	case oaKey != "":
		st.Provider, st.BaseURL, st.APIKey, st.KeyVar = "openai", "https://api.openai.com/v1", oaKey, "OPENAI_API_KEY"
		if st.Model == "" {
			st.Model = openAIDefault
		}
	case st.Model != "":
		return fmt.Errorf("EVAL_MODEL is %q but no provider is configured: set OPENROUTER_API_KEY (OpenRouter) or OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL for a local server, in the environment or in the .env file in the project root", st.Model)
	default:
		st.Reference = true
		return nil
	}
	if st.Judge == "" {
		st.Judge = st.Model
	}
	if len(st.Models) == 0 {
		st.Models = []string{st.Model}
	}
	return nil
}

// Gated reports whether a pass-rate gate decides the run's outcome: then a
// failed repeat does not fail its test, the case's rate over its repeats
// does.
func (st Settings) Gated() bool { return st.MinPassRate > 0 || st.MinRunPassRate > 0 }

// JudgeEnabled reports whether a judge model will be asked.
func (st Settings) JudgeEnabled() bool {
	return !st.Reference && st.Judge != "" && st.Judge != "none"
}

// JudgeModels returns the judge models, in the order given.
func (st Settings) JudgeModels() []string {
	if !st.JudgeEnabled() {
		return nil
	}
	var models []string
	for _, m := range strings.Split(st.Judge, ",") {
		if m = strings.TrimSpace(m); m != "" {
			models = append(models, m)
		}
	}
	return models
}

// The values of EVAL_JUDGE_MODE.
const (
	JudgeMajority  = "majority"
	JudgeUnanimous = "unanimous"
)

// setJudges checks the judge models and mode: several judges in majority
// mode must be an odd number, so that there is always a majority.
func (st *Settings) setJudges(mode string) error {
	st.JudgeMode = strings.ToLower(strings.TrimSpace(mode))
	if st.JudgeMode != JudgeMajority && st.JudgeMode != JudgeUnanimous {
		return fmt.Errorf("EVAL_JUDGE_MODE must be %q or %q, not %q", JudgeMajority, JudgeUnanimous, mode)
	}
	parts := strings.Split(st.Judge, ",")
	if len(parts) == 1 {
		return nil
	}
	for _, p := range parts {
		switch strings.TrimSpace(p) {
		case "":
			return fmt.Errorf("EVAL_JUDGE_MODEL %q names an empty judge model: separate model names with single commas", st.Judge)
		case "none":
			return fmt.Errorf("EVAL_JUDGE_MODEL %q: 'none' turns the judge off and cannot be one of several judges", st.Judge)
		}
	}
	if st.JudgeMode == JudgeMajority && len(parts)%2 == 0 {
		return fmt.Errorf("EVAL_JUDGE_MODEL names %d judge models: a majority needs an odd number (add or remove one, or set EVAL_JUDGE_MODE=unanimous)", len(parts))
	}
	return nil
}

// MissingKeyHelp explains how to evaluate a model; printed by reference runs.
const MissingKeyHelp = `To evaluate a model, set OPENROUTER_API_KEY (OpenRouter, default model google/gemini-2.5-flash) or OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL and EVAL_MODEL for any OpenAI-compatible server, in the environment or in a .env file in the project root.`

// unknownVariables is an error naming each EVAL_ variable of the
// environment or of the .env file that is not one of the suite's, with the
// closest real one: a misspelt setting would otherwise be ignored.
func unknownVariables(env, dotenv map[string]string, dotenvPath string) error {
	known := slices.Clone(otherVars)
	for _, s := range settings {
		known = append(known, s.env)
	}
	var errs []error
	check := func(names []string, where string) {
		slices.Sort(names)
		for _, name := range names {
			if strings.HasPrefix(name, "EVAL_") && !slices.Contains(known, name) {
				errs = append(errs, fmt.Errorf("%s (%s) is not a setting: did you mean %s? (go test ./evaltest -args -h lists them)", name, where, closest(name, known)))
			}
		}
	}
	check(slices.Collect(maps.Keys(env)), "environment")
	check(slices.Collect(maps.Keys(dotenv)), dotenvPath)
	return errors.Join(errs...)
}

// closest names the candidates most like name: those that start with name
// or that name starts with (EVAL_JUDGE: EVAL_JUDGE_MODE or
// EVAL_JUDGE_MODEL), else the one with the fewest edits from name.
func closest(name string, candidates []string) string {
	var related []string
	for _, c := range candidates {
		if strings.HasPrefix(c, name) || strings.HasPrefix(name, c) {
			related = append(related, c)
		}
	}
	if len(related) > 0 {
		slices.Sort(related)
		return strings.Join(related, " or ")
	}
	best, bestDistance := "", 0
	for _, c := range candidates {
		if d := edlib.LevenshteinDistance(name, c); best == "" || d < bestDistance {
			best, bestDistance = c, d
		}
	}
	return best
}

func abs(root, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

func readDotEnv(path string) (map[string]string, error) {
	if path == "" {
		return nil, nil
	}
	m, err := godotenv.Read(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return m, nil
}

// Redactor returns the redactor of the run's secrets: both provider keys
// (whichever is used), the secret-looking values of the .env file, the
// credentials inside the base URL, and the secret-looking variables of
// environ, which stdio servers inherit.
func (st Settings) Redactor(environ []string) *redact.Redactor {
	r := redact.New(st.secrets...)
	r.AddURL(st.BaseURL)
	r.AddEnv(environ)
	return r
}

// IsolatedEnv returns the process environment without the suite's settings
// (EVAL_*) and provider variables (OPENAI_*, OPENROUTER_*, AZURE_OPENAI_*), with the .env
// file and the progress line turned off: the starting point for running
// the suite as a subprocess whose configuration the caller sets entirely.
func IsolatedEnv() []string {
	out := []string{DotEnvVar + "=off", "EVAL_PROGRESS=" + ProgressOff}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "EVAL_") || strings.HasPrefix(name, "OPENAI_") || strings.HasPrefix(name, "OPENROUTER_") ||
			strings.HasPrefix(name, "AZURE_OPENAI_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}
