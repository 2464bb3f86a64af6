package settings

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/dialect"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/shard"
	"github.com/mcpeval/mcpeval/internal/tracing"
)

// traceTemplate checks a trace link template: an http(s) URL with
// {trace_id} in it.
func traceTemplate(s string) error {
	if s == "" {
		return nil
	}
	if !strings.Contains(s, "{trace_id}") {
		return errors.New("must contain {trace_id}, which stands for the trace ID")
	}
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return errors.New("must be an http or https URL")
	}
	return nil
}

// A setting is one value of the configuration, declared once: its flag,
// its environment variable, its default and help, the type -h shows, and
// how a value is read into its field.
type setting struct {
	flag, env, kind, def, usage string
	read                        func(value) error // reads and checks a value into the field
}

// A value is a setting's text and where it came from: the flag, the
// environment, a line of the .env file; "" for the default.
type value struct{ text, from string }

// linked are the settings read together after the others, each with
// where its value came from, for their messages.
type linked struct {
	server, serverFrom, serversFileFrom string
	shard                               shard.Spec
	shards                              int
	shardFrom, shardsFrom               string
}

// declare lists the settings, each reading into its field of st, or of x
// for those read together afterwards. Relative paths are relative to
// st.Root.
func declare(st *Settings, x *linked) []setting {
	root := st.Root
	return []setting{
		inputSetting(&st.Cases, root, "cases", "EVAL_CASES", "cases", "case file or directory (relative to the project root)"),
		noting(&x.serverFrom, textSetting(&x.server, "servers", "server", "EVAL_SERVER", "", "MCP server(s), separated by ';': a command line (stdio), an http(s) URL (streamable HTTP) or sse:URL; a ';' inside quotes or after '\\' belongs to the command; with -servers-file, names of its servers; default: the bundled sample server")),
		noting(&x.serversFileFrom, pathSetting(&st.ServersFile, root, "servers-file", "EVAL_SERVERS_FILE", "", "MCP servers from a client configuration file (.mcp.json, claude_desktop_config.json: the mcpServers object); -server names the ones to use (default: all)")),
		typed(&st.ServerProtocol, "revision", "", mcpconn.ParseProtocol, "server-protocol", "EVAL_SERVER_PROTOCOL", "", "hold the MCP servers to one protocol revision (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, or handshake: the newest that starts with the initialize handshake; 2026-07-28), for servers whose tools need the handshake's flows (requests of their own during a call); a servers file's \"protocol\" wins for its server; a server that answers on another revision is spoken to on that one, and the run's first lines say so; default: negotiated, falling back to the handshake when a server refuses 2026-07-28"),
		typed(&st.SchemaDialect, "dialect", "", dialect.Parse, "schema-dialect", "EVAL_SCHEMA_DIALECT", "", "adapt the tools' input schemas to what a provider accepts: gemini (type lists, const, additionalProperties, $schema, $ref), or none; default: judged from the base URL's host and the model name"),
		listSetting(&st.Tools, "tools", "EVAL_TOOLS", "tools offered to the model, comma-separated patterns: get_gene_* (by name), memory/* (a server's tools, by its short name), !pattern leaves tools out (default: every tool of every server)", mcpconn.CheckPatterns),
		intSetting(&st.MaxTools, "max-tools", "EVAL_MAX_TOOLS", "128", "most tools a request may offer (OpenAI's limit is 128); a run offering more stops before its first case, naming the servers (0: no limit)", atLeast(0)),
		intSetting(&st.MaxToolTokens, "max-tool-tokens", "EVAL_MAX_TOOL_TOKENS", "0", "most tokens the tool definitions sent with every request may take, in the evaluated model's encoding; a run above it stops before its first case, naming the largest tools (0: no limit)", atLeast(0)),
		typed(&st.Roots, "list", "", rootsIn(root), "roots", "EVAL_ROOTS", "", "directories offered to the MCP servers as the client's roots, comma-separated (relative to the project root, or file:// URIs); a server of a servers file with roots of its own gets those; default: none (a servers file's server started in a cwd of its own is offered that directory)"),
		typed(&st.FollowLinks, "bool", "true or false", strconv.ParseBool, "follow-links", "EVAL_FOLLOW_LINKS", "true", "offer the model a read_resource_link tool once a tool result returned a resource link (false: links are only shown)"),
		pathSetting(&st.Out, root, "out", "EVAL_OUT", DefaultOut, "output directory: each run writes into <out>/runs/<id>, and <out>/latest names the newest finished one"),
		pathSetting(&st.Cache, root, "cache", "EVAL_CACHE", defaultCache, "result cache file"),
		textSetting(&st.Model, "string", "model", "EVAL_MODEL", "", "model to evaluate (default: google/gemini-2.5-flash on OpenRouter, gpt-4.1-mini on OpenAI)"),
		listSetting(&st.Models, "models", "EVAL_MODELS", "models to evaluate side by side, comma-separated: every case runs once per model (replaces -model)"),
		inputSetting(&st.Arms, root, "arms", "EVAL_ARMS", "", "arms file: named versions of what the model is given (model, servers or none, tool overrides, system prompt), each run on every case side by side (replaces -models)"),
		textSetting(&st.Judge, "list", "judge-model", "EVAL_JUDGE_MODEL", "", "judge model, or an odd number of them separated by commas, whose majority decides (default: the evaluated model, the first of -models; 'none' leaves the verdict to the deterministic checks)"),
		choiceSetting(&st.JudgeMode, "judge-mode", "EVAL_JUDGE_MODE", "how several judges decide: 'majority' or 'unanimous' (every judge must accept)", JudgeMajority, JudgeUnanimous),
		textSetting(&st.UserModel, "string", "user-model", "EVAL_USER_MODEL", "", "model that plays the simulated user of a case with user: (default: the judge model, the first of several; with the judge off, the evaluated model)"),
		inputSetting(&st.Labels, root, "labels", "EVAL_LABELS", "testdata/calibration", "labelled answers (*.labels.yaml file or directory) that make calibrate measures the judge and the checks on, besides those next to the cases; a run without a judge measures its checks on them"),
		textSetting(&st.BaseURL, "url", "base-url", "OPENAI_BASE_URL", "", "OpenAI-compatible base URL (Ollama, vLLM, llama.cpp server, LM Studio, a proxy)"),
		intSetting(&st.MaxTokens, "max-tokens", "EVAL_MAX_TOKENS", "100000", "token limit for every tool result and the judge prompt (0 disables)", atLeast(0)),
		intSetting(&st.MaxIterations, "max-iterations", "EVAL_MAX_ITERATIONS", "10", "model requests per answer (per turn of a conversation)", atLeast(1)),
		durationSetting(&st.CaseTimeout, "case-timeout", "EVAL_CASE_TIMEOUT", "300s", "time limit per case"),
		intSetting(&st.Concurrency, "concurrency", "EVAL_CONCURRENCY", "4", "cases run at once", atLeast(1)),
		intSetting(&st.MaxRecovery, "max-recovery", "EVAL_MAX_RECOVERY", "2", "recovery attempts for a code case whose final code fails", atLeast(0)),
		intSetting(&st.MaxRetries, "max-retries", "EVAL_MAX_RETRIES", "5", "retries of a throttled or failed provider request", atLeast(0)),
		durationSetting(&st.RetryWait, "retry-wait", "EVAL_RETRY_WAIT", "2s", "first backoff before retrying a provider request; it doubles up to -retry-max-wait (a Retry-After header wins)"),
		durationSetting(&st.RetryMaxWait, "retry-max-wait", "EVAL_RETRY_MAX_WAIT", "30s", "longest backoff between two attempts"),
		durationSetting(&st.RequestTimeout, "request-timeout", "EVAL_REQUEST_TIMEOUT", "120s", "time limit for one model request"),
		durationSetting(&st.ToolTimeout, "tool-timeout", "EVAL_TOOL_TIMEOUT", "120s", "time limit for one tool call; a server that does not answer in time is restarted"),
		textSetting(&st.SystemPrompt, "string", "system-prompt", "EVAL_SYSTEM_PROMPT", "", "system prompt for the agent (default: a built-in prompt)"),
		boolSetting(&st.Clear, "clear", "EVAL_CLEAR", "remove the result cache before the run, then run every case"),
		boolSetting(&st.Force, "force", "EVAL_FORCE", "ignore cached results and run every case (new results are still cached)"),
		boolSetting(&st.Reference, "reference", "EVAL_REFERENCE", "offline reference run: execute each case's reference trajectory instead of a model"),
		textSetting(&st.ReplayTools, "run", "replay-tools", "EVAL_REPLAY_TOOLS", "", "answer every tool call from the recorded results of this run (its directory, its id, latest, or baseline: the newest run whose results came from the servers) instead of the servers, matched by server, tool and arguments"),
		choiceSetting(&st.ReplayUnmatched, "replay-unmatched", "EVAL_REPLAY_UNMATCHED", "what a replayed call that no recording matches gets: 'error' (the model is told) or 'live' (the server answers, and the call is marked)", "error", "live"),
		typed(&st.GateCauses, "list", "", ParseCauses, "gate-causes", "EVAL_GATE_CAUSES", "", "limit the regression gate of a comparison with a baseline to the cases that flipped for these causes, comma-separated: model, surface, case, grading, data, judge, infrastructure (the others are reported and do not fail it; default: all)"),
		boolSetting(&st.Attribute, "attribute", "EVAL_ATTRIBUTE", "in a comparison with a baseline, re-run each flipped case on the baseline's recorded tool results, to tell the model changing from the data moving it"),
		intSetting(&st.AttributeRuns, "attribute-runs", "EVAL_ATTRIBUTE_RUNS", "3", "how many times -attribute re-runs each flipped case", atLeast(1)),
		inputSetting(&st.Prices, root, "prices", "EVAL_PRICES", "prices.yaml", "price table (model, USD per million input and output tokens) for requests whose provider reports no cost; without the file, the suite's bundled list"),
		floatSetting(&st.BudgetUSD, "budget-usd", "EVAL_BUDGET_USD", "spend at most this many US dollars: a run estimated above it does not start, and no case starts once it is spent (0: no budget)", within(0, math.MaxFloat64, "must be a number of US dollars, 0 or more")),
		textSetting(&st.RunID, "id", "run-id", "EVAL_RUN_ID", "", "name of the run's directory under <out>/runs, of the form 20060102T150405Z-a1b2c3: the UTC time, optionally with milliseconds (20060102T150405.000Z-a1b2c3), and six hex digits (default: the run's UTC start time and a random suffix)", validRunID),
		floatSetting(&st.MinPassRate, "min-pass-rate", "EVAL_MIN_PASS_RATE", "fail every case whose pass rate over its repeats (go test -count=N) is below this rate, from 0 to 1", rate),
		floatSetting(&st.MinRunPassRate, "min-run-pass-rate", "EVAL_MIN_RUN_PASS_RATE", "fail the run when its pass rate over all cases is below this rate, from 0 to 1", rate),
		typed(&st.MinToolCoverage, "percent", "a number", parsePercent, "min-tool-coverage", "EVAL_MIN_TOOL_COVERAGE", "0", "fail the run when some server has less than this percentage of its tools called, from 0 to 100, naming the tools never called", within[float64](0, 100, "must be a percentage from 0 to 100")),
		typed(&st.Traces, "auto|off|otlp,file", "", tracing.ParseExporters, "traces", "EVAL_TRACES", tracing.Auto, "export each case run as an OpenTelemetry trace: otlp (to the collector the standard OTEL_EXPORTER_OTLP_* variables name, over http/protobuf or grpc), file (OTLP JSON lines, traces.jsonl in the run's directory), both separated by a comma, or off; auto exports over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set"),
		textSetting(&st.TraceURL, "template", "trace-url", "EVAL_TRACE_URL", "", "link each case's trace ID in the report to this URL, {trace_id} standing for the ID (Jaeger: http://localhost:16686/trace/{trace_id})", traceTemplate),
		typed(&st.TraceContent, "bool", "true or false", strconv.ParseBool, "trace-content", tracing.ContentVariable, "false", "put prompts, answers and tool arguments and results in the exported spans, redacted like every output"),
		{"progress", "EVAL_PROGRESS", "auto|live|off|duration", ProgressAuto, "progress while the run goes: auto (a live line on the terminal, else a line every 30s), live (the live line also under go test -json), off, or a duration (a line at that interval)", st.readProgress},
		noting(&x.shardFrom, typed(&x.shard, "k/n", "", shard.Parse, "shard", "EVAL_SHARD", "", "run only shard k of n of the selected case runs, k/n from 1 (merge the shards' runs with mcpeval merge runs)")),
		noting(&x.shardsFrom, intSetting(&x.shards, "shards", "EVAL_SHARDS", "", "number of shards when JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's, from 0) names this one", shardCount)),
		typed(&st.ShardBalance, "hash|history", "", shard.ParseBalance, "shard-balance", "EVAL_SHARD_BALANCE", shard.Hash, "how case runs go to shards: hash (by identity: adding a case moves no other) or history (balanced by the durations the cache remembers)"),
	}
}

// table is the settings without fields to read into: their names,
// defaults and help.
func table() []setting { return declare(&Settings{}, &linked{}) }

// typed declares a setting whose text (trimmed) parse reads into *field,
// or else it must be want; each check then vets the result.
func typed[T any](field *T, kind, want string, parse func(string) (T, error), flag, env, def, usage string, checks ...func(T) error) setting {
	return setting{flag, env, kind, def, usage, func(v value) error {
		x, err := parse(strings.TrimSpace(v.text))
		if err != nil && want != "" {
			err = errors.New("must be " + want)
		}
		for _, check := range checks {
			if err == nil {
				err = check(x)
			}
		}
		if err == nil {
			*field = x
		}
		return err
	}}
}

func intSetting(field *int, flag, env, def, usage string, checks ...func(int) error) setting {
	return typed(field, "int", "a whole number", strconv.Atoi, flag, env, def, usage, checks...)
}

// floatSetting declares a number, 0 by default.
func floatSetting(field *float64, flag, env, usage string, checks ...func(float64) error) setting {
	return typed(field, "float", "a number", parseFloat, flag, env, "0", usage, checks...)
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

func parsePercent(s string) (float64, error) { return parseFloat(strings.TrimSuffix(s, "%")) }

// durationSetting declares a positive duration.
func durationSetting(field *time.Duration, flag, env, def, usage string) setting {
	return typed(field, "duration", "a duration such as 90s or 5m", time.ParseDuration, flag, env, def, usage, positive)
}

// boolSetting declares a switch, off by default.
func boolSetting(field *bool, flag, env, usage string) setting {
	return typed(field, "bool", "true or false", strconv.ParseBool, flag, env, "false", usage)
}

func textSetting(field *string, kind, flag, env, def, usage string, checks ...func(string) error) setting {
	return typed(field, kind, "", func(s string) (string, error) { return s, nil }, flag, env, def, usage, checks...)
}

// listSetting declares a comma-separated list, each item kept once.
func listSetting(field *[]string, flag, env, usage string, checks ...func([]string) error) setting {
	return typed(field, "list", "", func(s string) ([]string, error) { return splitList(s), nil }, flag, env, "", usage, checks...)
}

// splitList reads a comma-separated list: its items trimmed, each kept
// once, empty ones left out.
func splitList(s string) []string {
	var items []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" && !slices.Contains(items, item) {
			items = append(items, item)
		}
	}
	return items
}

// rootsIn reads a comma-separated list of directories, made absolute
// against root, and file:// URIs, kept as they are.
func rootsIn(root string) func(string) ([]string, error) {
	return func(s string) ([]string, error) {
		var roots []string
		for _, r := range strings.Split(s, ",") {
			switch r = strings.TrimSpace(r); {
			case strings.HasPrefix(r, "file://"):
				roots = append(roots, r)
			case r != "":
				roots = append(roots, abs(root, r))
			}
		}
		return roots, nil
	}
}

// choiceSetting declares one of two choices, the first by default, in any
// case.
func choiceSetting(field *string, flag, env, usage string, choices ...string) setting {
	return typed(field, strings.Join(choices, "|"), fmt.Sprintf("%q or %q", choices[0], choices[1]), func(s string) (string, error) {
		if s = strings.ToLower(s); !slices.Contains(choices, s) {
			return "", errors.New("not a choice")
		}
		return s, nil
	}, flag, env, choices[0], usage)
}

// pathSetting declares a file or directory, relative to root.
func pathSetting(field *string, root, flag, env, def, usage string) setting {
	return typed(field, "path", "", func(s string) (string, error) { return abs(root, s), nil }, flag, env, def, usage)
}

// inputSetting declares a file or directory the run reads: one named that
// does not exist is an error (the default may be absent).
func inputSetting(field *string, root, flag, env, def, usage string) setting {
	s := pathSetting(field, root, flag, env, def, usage)
	read := s.read
	s.read = func(v value) error {
		if err := read(v); err != nil || v.from == "" {
			return err
		}
		if _, err := os.Stat(*field); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s does not exist", *field)
		}
		return nil
	}
	return s
}

// noting makes s record in *from where its value came from.
func noting(from *string, s setting) setting {
	read := s.read
	s.read = func(v value) error { *from = v.from; return read(v) }
	return s
}

// within checks that a value is from low to high (NaN is not).
func within[T int | float64](low, high T, msg string) func(T) error {
	return func(x T) error {
		if x >= low && x <= high {
			return nil
		}
		return errors.New(msg)
	}
}

func atLeast(low int) func(int) error {
	return within(low, math.MaxInt, fmt.Sprintf("must be at least %d", low))
}

var rate = within[float64](0, 1, "must be a rate from 0 to 1")

func positive(d time.Duration) error {
	if d <= 0 {
		return errors.New("must be positive")
	}
	return nil
}

func validRunID(id string) error {
	if !runs.ValidID(id) {
		return errors.New("must have the form 20060102T150405Z-a1b2c3 (UTC time, optionally with milliseconds, and six hex digits)")
	}
	return nil
}

func shardCount(n int) error {
	_, err := shard.New(1, n)
	return err
}

// readProgress reads the progress mode, or the interval of a line.
func (st *Settings) readProgress(v value) error {
	mode := strings.TrimSpace(v.text)
	if mode == ProgressAuto || mode == ProgressLive || mode == ProgressOff {
		st.Progress = mode
		return nil
	}
	d, err := time.ParseDuration(mode)
	if err != nil {
		return errors.New("must be auto, live, off or a duration such as 10s")
	}
	st.Progress, st.ProgressEvery = ProgressLines, d
	return positive(d)
}

// flagText is a setting's flag: it keeps the text given, which resolve
// reads as it reads the environment's.
type flagText struct {
	text   string
	isBool bool
}

func (f *flagText) String() string     { return f.text }
func (f *flagText) Set(s string) error { f.text = s; return nil }
func (f *flagText) IsBoolFlag() bool   { return f.isBool }

// RegisterFlags adds the settings' flags to fs. Values are resolved by
// Resolve after fs is parsed (Resolve needs these flags).
func RegisterFlags(fs *flag.FlagSet) {
	fs.Usage = func() { usage(fs) }
	for _, s := range table() {
		fs.Var(&flagText{isBool: s.kind == "bool"}, s.flag, s.usage)
	}
}

// usage prints the settings' flags with their types, variables and
// defaults, then fs's other flags (go test's), then the providers.
func usage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprintf(w, "Usage of %s:\n", fs.Name())
	for _, s := range table() {
		kind, def := " "+s.kind, ""
		if s.kind == "bool" {
			kind = ""
		}
		if s.def != "" && (s.kind != "bool" || s.def != "false") {
			def = " (default " + s.def + ")" // as package flag shows a bool: only when true
		}
		fmt.Fprintf(w, "  -%s%s\n    \t%s (env %s)%s\n", s.flag, kind, s.usage, s.env, def)
	}
	others := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	others.SetOutput(w)
	fs.VisitAll(func(f *flag.Flag) {
		if _, ours := f.Value.(*flagText); !ours {
			others.Var(f.Value, f.Name, f.Usage)
			others.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	others.PrintDefaults()
	fmt.Fprint(w, `
Provider (environment or .env in the project root):
  OPENROUTER_API_KEY   use OpenRouter (default model google/gemini-2.5-flash)
  OPENAI_API_KEY       use OpenAI (default model gpt-4.1-mini), or authenticate to OPENAI_BASE_URL
  OPENAI_BASE_URL      any OpenAI-compatible endpoint (-base-url); name the model with EVAL_MODEL
  AZURE_OPENAI_API_KEY the key of an Azure OpenAI resource, with OPENAI_BASE_URL (a deployment URL, on
                       the resource's host or any other: .../openai/deployments/D) or
                       AZURE_OPENAI_ENDPOINT (the resource; EVAL_MODEL names the deployment)
With none of them the run is the offline reference run.
`)
}

// SettingsArgs returns the settings' flags (with their values) among the
// arguments of a go test command line.
func SettingsArgs(args []string) []string {
	settings := table()
	var out []string
	for i := 0; i < len(args); i++ {
		name, text, hasText := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		j := slices.IndexFunc(settings, func(s setting) bool { return s.flag == name })
		switch {
		case !strings.HasPrefix(args[i], "-") || j < 0:
		case hasText:
			out = append(out, "-"+name+"="+text)
		case settings[j].kind == "bool":
			out = append(out, "-"+name)
		case i+1 < len(args):
			out = append(out, "-"+name+"="+args[i+1])
			i++
		}
	}
	return out
}

// ParseCauses reads a comma-separated list of causes of a flip (see
// eval.Causes(), in any case), as -gate-causes and EVAL_GATE_CAUSES take it.
func ParseCauses(s string) ([]string, error) {
	causes := splitList(strings.ToLower(s))
	for _, c := range causes {
		if !slices.Contains(eval.Causes(), c) {
			return nil, fmt.Errorf("unknown cause %q: the causes are %s", c, strings.Join(eval.Causes(), ", "))
		}
	}
	return causes, nil
}
