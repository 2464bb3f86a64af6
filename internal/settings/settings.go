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
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/redact"
	"github.com/mcpeval/mcpeval/internal/shard"
	"github.com/mcpeval/mcpeval/internal/suggest"
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
	// serverNames are the entries of EVAL_SERVER (-server) as names, for a
	// suite's own servers file (see UseServersFile).
	serverNames []string
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
	// SchemaDialect is the provider dialect the tools' input schemas are
	// adapted to (package dialect): "" to judge it from the base URL and
	// the model, "none" for none.
	SchemaDialect string
	// ServerProtocol holds the servers to one MCP protocol revision
	// (mcpconn.Spec.Protocol) unless a servers file gives theirs.
	ServerProtocol string
	FollowLinks    bool
	Out            string
	Cache          string
	Model          string
	// Models are the models to evaluate, side by side (-models); one model
	// when only Model is named. Model is the first.
	Models []string
	// Arms is the arms file (see package arms), "" for none: its arms
	// run side by side instead of Models.
	Arms string
	// Judge names the judge model, or several separated by commas; "" means
	// the first model, "none" disables the judge.
	Judge string
	// JudgeMode says how several judges decide: "majority" or "unanimous".
	JudgeMode string
	// UserModel is the model that plays the simulated user of a case that
	// has one (eval.User); a reference run, whose users are played
	// offline, asks no model. It defaults to the judge model (the first of several), else
	// the evaluated model.
	UserModel string
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

	// ReplayTools names the run whose recorded tool results answer this
	// run's tool calls (a run directory, an id, "latest" or "baseline"),
	// "" for the live servers; ReplayUnmatched is what a call no
	// recording matches gets: "error" or "live" (see package replay).
	ReplayTools     string
	ReplayUnmatched string
	// GateCauses limits the regression gate of a comparison with a
	// baseline to the flips of these causes (eval.Causes()); empty: all.
	// Attribute re-runs each flipped case AttributeRuns times on the
	// baseline's recorded tool results, to tell a model that changed from
	// data that moved it.
	GateCauses    []string
	Attribute     bool
	AttributeRuns int

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

	// Traces chooses the exporters of the run's traces (see
	// tracing.ParseExporters): auto, off, or otlp and file. TraceURL is
	// the template of a link to a trace, with {trace_id} in it; "" for
	// none. TraceContent puts prompts, answers and tool arguments and
	// results in the spans (the GenAI conventions' content capture).
	Traces       string
	TraceURL     string
	TraceContent bool

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

// resolve is Resolve with the project root and the environment (NAME=value
// entries) given.
func resolve(fs *flag.FlagSet, root string, environ []string) (Settings, error) {
	vars, err := readVariables(root, environ)
	if err != nil {
		return Settings{}, err
	}
	if err := vars.unknown(); err != nil {
		return Settings{}, err
	}
	st := Settings{Root: root, lookup: vars.lookup}
	var x linked
	var errs []error
	for _, s := range declare(&st, &x) {
		v := value{text: s.def}
		if text, ok := vars.lookup(s.env); ok && text != "" {
			v = value{text, vars.from(s.env)}
		}
		if f := fs.Lookup(s.flag).Value.(*flagText); f.text != "" {
			v = value{f.text, "-" + s.flag}
		}
		if v.text == "" {
			continue // no default: the zero value
		}
		if err := s.read(v); err != nil {
			errs = append(errs, fmt.Errorf("%s: invalid value %q: %v", v.from, v.text, err))
		}
	}
	if len(st.Models) > 0 {
		st.Model = st.Models[0] // -models names every model, the first is the main one
	}
	if st.Arms != "" && len(st.Models) > 1 {
		errs = append(errs, errors.New("-arms and -models (EVAL_ARMS, EVAL_MODELS) both name what to compare: give the models in the arms file (model: ...), or leave -arms out"))
	}
	for name, text := range vars.dotenv {
		if redact.SecretName(name) {
			st.secrets = append(st.secrets, text)
		}
	}
	errs = append(errs, st.checkJudges(), st.chooseServers(x), st.resolveShard(x), st.chooseProvider())
	return st, errors.Join(errs...)
}

// chooseServers reads the MCP servers: command lines and URLs, or the
// servers of a servers file by name. The values of their environment and
// headers are secrets.
func (st *Settings) chooseServers(x linked) error {
	entries := mcpconn.SplitSpecs(x.server)
	var names []string
	for _, e := range entries {
		for _, name := range strings.Split(e, ",") {
			if name = strings.TrimSpace(name); name != "" {
				names = append(names, name)
			}
		}
	}
	st.serverNames = names
	if st.ServersFile == "" {
		specs, err := mcpconn.ParseSpecs(entries)
		if err != nil {
			return fmt.Errorf("%s: %w", x.serverFrom, err)
		}
		st.useServers(specs)
		return nil
	}
	f, err := mcpconn.LoadServersFile(st.ServersFile, st.lookup)
	if err != nil {
		return fmt.Errorf("%s: %w", x.serversFileFrom, err)
	}
	st.secrets = append(st.secrets, f.Secrets...)
	specs, err := f.Select(names)
	if err != nil {
		return fmt.Errorf("%s: %w", x.serverFrom, err)
	}
	st.useServers(specs)
	return nil
}

// useServers makes specs the run's servers, and their secrets the run's.
func (st *Settings) useServers(specs []mcpconn.Spec) {
	st.Servers = specs
	for _, s := range specs {
		st.secrets = append(st.secrets, s.Secrets()...)
	}
}

// UseServersFile makes the servers of a servers file (path relative to the
// project root) the run's servers when no other servers file is
// configured: a suite's default (evaltest.Config.ServersFile). Without
// EVAL_SERVER, its servers that are not disabled; with EVAL_SERVER naming
// only servers of the file (EVAL_SERVER=memory), those; an EVAL_SERVER
// that is a command line or a URL wins over the file.
func (st *Settings) UseServersFile(path string) error {
	if path == "" || st.ServersFile != "" {
		return nil
	}
	file := abs(st.Root, path)
	f, err := mcpconn.LoadServersFile(file, st.lookup)
	if len(st.Servers) > 0 {
		if err != nil {
			return nil
		}
		if !allNamed(st.serverNames, f.Names()) {
			for _, name := range st.serverNames {
				if _, lookErr := exec.LookPath(name); lookErr != nil && !slices.Contains(f.Names(), name) && !strings.ContainsAny(name, " /:\\") {
					// A bare word that is neither a server of the file nor a command.
					return fmt.Errorf("EVAL_SERVER %q: the suite's servers file %s has no server %q%s (its servers: %s), and no command of that name is on PATH",
						strings.Join(st.serverNames, ","), file, name, suggest.DidYouMean(name, f.Names()), strings.Join(f.Names(), ", "))
				}
			}
			return nil // a command line or a URL, not a name of the file
		}
	} else if err != nil {
		return fmt.Errorf("the suite's servers file (set EVAL_SERVER or EVAL_SERVERS_FILE to use others): %w", err)
	}
	specs, err := f.Select(st.serverNames)
	if err != nil {
		return fmt.Errorf("the suite's servers file (set EVAL_SERVER or EVAL_SERVERS_FILE to use others): %w", err)
	}
	st.ServersFile = file
	st.secrets = append(st.secrets, f.Secrets...)
	st.useServers(specs)
	return nil
}

// allNamed reports whether names are some of the file's names.
func allNamed(names, file []string) bool {
	for _, n := range names {
		if !slices.Contains(file, n) {
			return false
		}
	}
	return len(names) > 0
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
func (st *Settings) chooseProvider() error {
	get := func(name string) string { v, _ := st.lookup(name); return strings.TrimSpace(v) }
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
		case err == nil && azKey != "" && (azureHost(u.Hostname()) || strings.Contains(u.Path, "/openai/deployments/")):
			// An Azure resource, or a deployment behind API Management, a
			// custom domain or a proxy (its path says so).
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
	if st.UserModel == "" {
		st.UserModel = st.Model
		if judges := st.JudgeModels(); len(judges) > 0 {
			st.UserModel = judges[0]
		}
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

// checkJudges checks the judge models: several judges in majority mode
// must be an odd number, so that there is always a majority.
func (st *Settings) checkJudges() error {
	parts := strings.Split(st.Judge, ",")
	if len(parts) == 1 {
		return nil
	}
	seen := map[string]bool{}
	for _, p := range parts {
		name := strings.TrimSpace(p)
		if seen[name] && name != "" {
			return fmt.Errorf("EVAL_JUDGE_MODEL %q names %s twice: a judge has one vote (asked twice at temperature 0 it answers the same), so name each judge model once", st.Judge, name)
		}
		seen[name] = true
		switch name {
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
