package settings

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func resolveWith(t *testing.T, env map[string]string, dotenv string, args ...string) (Settings, error) {
	t.Helper()
	root := t.TempDir()
	if dotenv != "" {
		require.NoError(t, os.WriteFile(filepath.Join(root, ".env"), []byte(dotenv), 0o600))
	}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	RegisterFlags(fs)
	require.NoError(t, fs.Parse(args))
	var environ []string
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	return resolve(fs, root, environ)
}

func TestDefaultsAreTheReferenceRun(t *testing.T) {
	st, err := resolveWith(t, nil, "")
	require.NoError(t, err)
	assert.True(t, st.Reference)
	assert.False(t, st.JudgeEnabled())
	assert.Equal(t, 100_000, st.MaxTokens)
	assert.Equal(t, 10, st.MaxIterations)
	assert.Equal(t, 4, st.Concurrency)
	assert.Equal(t, 300*time.Second, st.CaseTimeout)
	assert.Equal(t, 5, st.MaxRetries)
	assert.Equal(t, 2*time.Second, st.RetryWait)
	assert.Equal(t, filepath.Join(st.Root, "cases"), st.Cases, "relative paths are relative to the project root")
	assert.Equal(t, filepath.Join(st.Root, "evaltest", ".cache", "test_results_cache.json"), st.Cache)
	assert.Empty(t, st.Servers)
}

func TestProviderChoice(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		provider string
		model    string
		url      string
	}{
		{"openrouter", map[string]string{"OPENROUTER_API_KEY": "or-key-123456"}, "openrouter", openRouterDefault, openRouterURL},
		{"openai", map[string]string{"OPENAI_API_KEY": "oa-key-123456"}, "openai", openAIDefault, "https://api.openai.com/v1"},
		{"both keys: OpenRouter first", map[string]string{"OPENAI_API_KEY": "a", "OPENROUTER_API_KEY": "b"}, "openrouter", openRouterDefault, openRouterURL},
		{"base URL wins", map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1", "EVAL_MODEL": "qwen3", "OPENROUTER_API_KEY": "b"}, "custom", "qwen3", "http://localhost:11434/v1"},
		{"model override", map[string]string{"OPENROUTER_API_KEY": "b", "EVAL_MODEL": "anthropic/claude"}, "openrouter", "anthropic/claude", openRouterURL},
		{"an Azure resource", map[string]string{"OPENAI_BASE_URL": "https://r.openai.azure.com/openai/deployments/g?api-version=2024-10-21", "EVAL_MODEL": "g",
			"AZURE_OPENAI_API_KEY": "az-key-123456", "OPENAI_API_KEY": "oa"}, "azure", "g", "https://r.openai.azure.com/openai/deployments/g?api-version=2024-10-21"},
		{"an Azure deployment behind API Management", map[string]string{"OPENAI_BASE_URL": "https://api.contoso.com/llm/openai/deployments/g?api-version=2024-10-21",
			"EVAL_MODEL": "g", "AZURE_OPENAI_API_KEY": "az-key-123456"}, "azure", "g", "https://api.contoso.com/llm/openai/deployments/g?api-version=2024-10-21"},
		{"another endpoint keeps the OpenAI key", map[string]string{"OPENAI_BASE_URL": "https://api.contoso.com/v1", "EVAL_MODEL": "g",
			"AZURE_OPENAI_API_KEY": "az-key-123456", "OPENAI_API_KEY": "oa"}, "custom", "g", "https://api.contoso.com/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := resolveWith(t, tt.env, "")
			require.NoError(t, err)
			assert.False(t, st.Reference)
			assert.Equal(t, tt.provider, st.Provider)
			assert.Equal(t, tt.model, st.Model)
			assert.Equal(t, tt.model, st.Judge, "the judge defaults to the evaluated model")
			assert.Equal(t, tt.url, st.BaseURL)
			if tt.provider == "azure" {
				assert.Equal(t, "AZURE_OPENAI_API_KEY", st.KeyVar)
				assert.Equal(t, "az-key-123456", st.APIKey)
			}
		})
	}
}

func TestPrecedenceFlagOverEnvOverDotEnv(t *testing.T) {
	dotenv := "OPENROUTER_API_KEY=from-dotenv-key\nEVAL_CONCURRENCY=7\nEVAL_MAX_TOKENS=5000\n"
	st, err := resolveWith(t, map[string]string{"EVAL_CONCURRENCY": "9"}, dotenv, "-concurrency", "11")
	require.NoError(t, err)
	assert.Equal(t, 11, st.Concurrency, "flag over environment")
	assert.Equal(t, 5000, st.MaxTokens, ".env when the environment is silent")
	assert.Equal(t, "from-dotenv-key", st.APIKey, "keys come from .env as upstream")
	assert.Equal(t, "openrouter", st.Provider)

	st, err = resolveWith(t, map[string]string{"EVAL_CONCURRENCY": "9"}, dotenv)
	require.NoError(t, err)
	assert.Equal(t, 9, st.Concurrency, "environment over .env")
}

func TestBadSettingsNameTheVariable(t *testing.T) {
	_, err := resolveWith(t, map[string]string{"EVAL_MAX_TOKENS": "lots", "EVAL_CASE_TIMEOUT": "-3s", "EVAL_CONCURRENCY": "0"}, "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `EVAL_MAX_TOKENS (environment): invalid value "lots"`)
	assert.Contains(t, err.Error(), `EVAL_CASE_TIMEOUT (environment): invalid value "-3s": must be positive`)
	assert.Contains(t, err.Error(), `EVAL_CONCURRENCY (environment): invalid value "0": must be at least 1`)

	_, err = resolveWith(t, nil, "", "-max-iterations", "x")
	require.ErrorContains(t, err, `-max-iterations: invalid value "x"`)

	_, err = resolveWith(t, map[string]string{"EVAL_SCHEMA_DIALECT": "openai", "EVAL_SERVER_PROTOCOL": "2025-13-01"}, "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `EVAL_SCHEMA_DIALECT (environment): invalid value "openai": want none or one of gemini`)
	assert.Contains(t, err.Error(), `EVAL_SERVER_PROTOCOL (environment): invalid value "2025-13-01"`)
	_, err = resolveWith(t, nil, "", "-schema-dialect", "openai")
	require.ErrorContains(t, err, `-schema-dialect: invalid value "openai": want none or one of gemini`)
}

func TestModelWithoutProviderIsOneClearMessage(t *testing.T) {
	_, err := resolveWith(t, map[string]string{"EVAL_MODEL": "gpt-4o"}, "")
	require.Error(t, err)
	for _, want := range []string{"OPENROUTER_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", ".env"} {
		assert.Contains(t, err.Error(), want)
	}
	_, err = resolveWith(t, map[string]string{"OPENAI_BASE_URL": "http://localhost:8000/v1"}, "")
	require.ErrorContains(t, err, "EVAL_MODEL")
}

func TestRedactAndServers(t *testing.T) {
	st, err := resolveWith(t, map[string]string{"OPENAI_API_KEY": "sk-secret-abcdef", "EVAL_SERVER": "python -m marrvel_mcp ; http://localhost:8000/mcp;"}, "")
	require.NoError(t, err)
	var names []string
	for _, spec := range st.Servers {
		names = append(names, spec.Name)
	}
	assert.Equal(t, []string{"python -m marrvel_mcp", "http://localhost:8000/mcp"}, names)
	assert.Equal(t, []string{"-m", "marrvel_mcp"}, st.Servers[0].Args)
	assert.Equal(t, "key [REDACTED] rejected", st.Redactor(nil).String("key sk-secret-abcdef rejected"))

	st, err = resolveWith(t, map[string]string{"OPENAI_API_KEY": "k", "EVAL_JUDGE_MODEL": "none"}, "")
	require.NoError(t, err)
	assert.False(t, st.JudgeEnabled())

	st, err = resolveWith(t, map[string]string{"EVAL_SERVER": "env MARRVEL_API_KEY=mk-cmdline-secret python -m marrvel_mcp"}, "")
	require.NoError(t, err)
	assert.Equal(t, "env MARRVEL_API_KEY=[REDACTED] python -m marrvel_mcp", st.Redactor(nil).String(st.Servers[0].Display()),
		"a key given on the command line does not reach the summary")
}

// The redactor knows every secret of the run: both keys, whichever is used,
// the .env file's secrets, the base URL's password and the environment's
// secret-looking variables.
func TestRedactorKnowsEverySecret(t *testing.T) {
	st, err := resolveWith(t, map[string]string{
		"OPENROUTER_API_KEY": "or-secret-key-1", "OPENAI_API_KEY": "oa-secret-key-2",
		"OPENAI_BASE_URL": "http://user:url-password-3@localhost:8000/v1", "EVAL_MODEL": "m",
	}, "HF_TOKEN=dotenv-token-4\nEVAL_MODEL=m\n")
	require.NoError(t, err)
	r := st.Redactor([]string{"GITHUB_TOKEN=env-token-5", "HOME=/home/a-long-home"})
	text := "or-secret-key-1 oa-secret-key-2 url-password-3 dotenv-token-4 env-token-5 /home/a-long-home"
	assert.Equal(t, "[REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED] /home/a-long-home", r.String(text))
}

func TestKeysGoOnlyWhereTheyBelong(t *testing.T) {
	st, err := resolveWith(t, map[string]string{"OPENROUTER_API_KEY": "or-secret-key", "OPENAI_BASE_URL": "http://localhost:8000/v1", "EVAL_MODEL": "m"}, "")
	require.NoError(t, err)
	assert.Empty(t, st.APIKey, "the OpenRouter key is not sent to another endpoint")

	st, err = resolveWith(t, map[string]string{"OPENROUTER_API_KEY": "or-secret-key", "OPENAI_BASE_URL": "https://openrouter.ai/api/v1", "EVAL_MODEL": "m"}, "")
	require.NoError(t, err)
	assert.Equal(t, "or-secret-key", st.APIKey)
}

func TestEmptyVariableFallsBackToDotEnv(t *testing.T) {
	st, err := resolveWith(t, map[string]string{"OPENROUTER_API_KEY": ""}, "OPENROUTER_API_KEY=from-dotenv-key\n")
	require.NoError(t, err)
	assert.Equal(t, "from-dotenv-key", st.APIKey)
}

func TestDotEnvCanBeMovedOrTurnedOff(t *testing.T) {
	st, err := resolveWith(t, map[string]string{DotEnvVar: "off"}, "OPENROUTER_API_KEY=from-dotenv-key\n")
	require.NoError(t, err)
	assert.True(t, st.Reference, "with EVAL_DOTENV=off the .env key is not read")

	other := filepath.Join(t.TempDir(), "keys.env")
	require.NoError(t, os.WriteFile(other, []byte("OPENAI_API_KEY=other-file-key\n"), 0o600))
	st, err = resolveWith(t, map[string]string{DotEnvVar: other}, "OPENROUTER_API_KEY=from-dotenv-key\n")
	require.NoError(t, err)
	assert.Equal(t, "other-file-key", st.APIKey)
}

func TestRunSettings(t *testing.T) {
	st, err := resolveWith(t, map[string]string{"EVAL_MIN_PASS_RATE": "0.8", "EVAL_RUN_ID": "20261124T084601Z-a1b2c3"}, "", "-min-run-pass-rate", "0.5")
	require.NoError(t, err)
	assert.Equal(t, 0.8, st.MinPassRate)
	assert.Equal(t, 0.5, st.MinRunPassRate)
	assert.Equal(t, "20261124T084601Z-a1b2c3", st.RunID)

	st, err = resolveWith(t, nil, "")
	require.NoError(t, err)
	assert.Zero(t, st.MinPassRate, "no gate by default")
	assert.Empty(t, st.RunID)

	for _, tt := range []struct{ env, value, msg string }{
		{"EVAL_MIN_PASS_RATE", "1.5", `EVAL_MIN_PASS_RATE (environment): invalid value "1.5": must be a rate from 0 to 1`},
		{"EVAL_MIN_RUN_PASS_RATE", "-0.1", `EVAL_MIN_RUN_PASS_RATE (environment): invalid value "-0.1": must be a rate from 0 to 1`},
		{"EVAL_MIN_PASS_RATE", "NaN", `EVAL_MIN_PASS_RATE (environment): invalid value "NaN"`},
		{"EVAL_MIN_PASS_RATE", "most", `EVAL_MIN_PASS_RATE (environment): invalid value "most"`},
		{"EVAL_RUN_ID", "../escape", `EVAL_RUN_ID (environment): invalid value "../escape": must have the form`},
	} {
		_, err := resolveWith(t, map[string]string{tt.env: tt.value}, "")
		require.ErrorContains(t, err, tt.msg, tt.value)
	}
}

func TestModelsPricesAndBudget(t *testing.T) {
	st, err := resolveWith(t, map[string]string{"OPENROUTER_API_KEY": "or-key-123456", "EVAL_MODELS": "a/x, b/y ,a/x"}, "", "-budget-usd", "2.5")
	require.NoError(t, err)
	assert.Equal(t, []string{"a/x", "b/y"}, st.Models, "trimmed, each once")
	assert.Equal(t, "a/x", st.Model)
	assert.Equal(t, "a/x", st.Judge, "the first model judges every model's answers")
	assert.Equal(t, 2.5, st.BudgetUSD)
	assert.Equal(t, filepath.Join(st.Root, "prices.yaml"), st.Prices)

	st, err = resolveWith(t, map[string]string{"OPENROUTER_API_KEY": "or-key-123456", "EVAL_MODEL": "m"}, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"m"}, st.Models, "one model without -models")

	for _, bad := range []string{"-1", "NaN", "lots", "+Inf"} {
		_, err := resolveWith(t, map[string]string{"EVAL_BUDGET_USD": bad}, "")
		require.ErrorContains(t, err, `EVAL_BUDGET_USD (environment): invalid value "`+bad+`"`, bad)
	}
}

func TestMinToolCoverage(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want float64
	}{
		{nil, nil, 0},
		{map[string]string{"EVAL_MIN_TOOL_COVERAGE": "80"}, nil, 80},
		{map[string]string{"EVAL_MIN_TOOL_COVERAGE": " 92.5% "}, nil, 92.5},
		{map[string]string{"EVAL_MIN_TOOL_COVERAGE": "50"}, []string{"-min-tool-coverage", "100"}, 100},
	} {
		st, err := resolveWith(t, tt.env, "", tt.args...)
		require.NoError(t, err)
		assert.Equal(t, tt.want, st.MinToolCoverage, "%v %v", tt.env, tt.args)
	}
	for _, tt := range []struct{ value, msg string }{
		{"101", `EVAL_MIN_TOOL_COVERAGE (environment): invalid value "101": must be a percentage from 0 to 100`},
		{"-1", `EVAL_MIN_TOOL_COVERAGE (environment): invalid value "-1": must be a percentage from 0 to 100`},
		{"0.8x", `EVAL_MIN_TOOL_COVERAGE (environment): invalid value "0.8x"`},
		{"NaN", `EVAL_MIN_TOOL_COVERAGE (environment): invalid value "NaN": must be a percentage`},
	} {
		_, err := resolveWith(t, map[string]string{"EVAL_MIN_TOOL_COVERAGE": tt.value}, "")
		require.ErrorContains(t, err, tt.msg, tt.value)
	}
	_, err := resolveWith(t, nil, "", "-min-tool-coverage", "all")
	require.ErrorContains(t, err, `-min-tool-coverage: invalid value "all"`)
}

func TestJudges(t *testing.T) {
	key := map[string]string{"OPENROUTER_API_KEY": "or-key-123456", "EVAL_MODEL": "m"}
	with := func(extra map[string]string) map[string]string {
		env := map[string]string{}
		for k, v := range key {
			env[k] = v
		}
		for k, v := range extra {
			env[k] = v
		}
		return env
	}
	tests := []struct {
		name   string
		env    map[string]string
		models []string
		mode   string
		err    string
	}{
		{"the evaluated model by default", with(nil), []string{"m"}, JudgeMajority, ""},
		{"one judge", with(map[string]string{"EVAL_JUDGE_MODEL": "j"}), []string{"j"}, JudgeMajority, ""},
		{"three judges", with(map[string]string{"EVAL_JUDGE_MODEL": " a, b ,c "}), []string{"a", "b", "c"}, JudgeMajority, ""},
		{"unanimous", with(map[string]string{"EVAL_JUDGE_MODEL": "a,b", "EVAL_JUDGE_MODE": "Unanimous"}), []string{"a", "b"}, JudgeUnanimous, ""},
		{"none", with(map[string]string{"EVAL_JUDGE_MODEL": "none"}), nil, JudgeMajority, ""},
		{"an even number for a majority", with(map[string]string{"EVAL_JUDGE_MODEL": "a,b"}), nil, "", "EVAL_JUDGE_MODEL names 2 judge models: a majority needs an odd number"},
		{"an empty name", with(map[string]string{"EVAL_JUDGE_MODEL": "a,,b"}), nil, "", "names an empty judge model"},
		{"none among others", with(map[string]string{"EVAL_JUDGE_MODEL": "a,none,b"}), nil, "", "'none' turns the judge off"},
		{"unknown mode", with(map[string]string{"EVAL_JUDGE_MODE": "average"}), nil, "", `EVAL_JUDGE_MODE (environment): invalid value "average": must be "majority" or "unanimous"`},
		{"reference run has no judge", map[string]string{"EVAL_JUDGE_MODEL": "a,b,c"}, nil, JudgeMajority, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := resolveWith(t, tt.env, "")
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.models, st.JudgeModels())
			assert.Equal(t, tt.mode, st.JudgeMode)
		})
	}
}

func TestUserModel(t *testing.T) {
	with := func(extra map[string]string) map[string]string {
		env := map[string]string{"OPENAI_API_KEY": "k", "EVAL_MODEL": "m"}
		for k, v := range extra {
			env[k] = v
		}
		return env
	}
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"the judge's by default", with(map[string]string{"EVAL_JUDGE_MODEL": "j"}), "j"},
		{"the first judge's", with(map[string]string{"EVAL_JUDGE_MODEL": "a,b,c"}), "a"},
		{"the evaluated model's, the judge being the model", with(nil), "m"},
		{"the evaluated model's, with the judge off", with(map[string]string{"EVAL_JUDGE_MODEL": "none"}), "m"},
		{"the first model's of several, with the judge off", with(map[string]string{"EVAL_JUDGE_MODEL": "none", "EVAL_MODELS": "x,y", "EVAL_MODEL": ""}), "x"},
		{"named", with(map[string]string{"EVAL_JUDGE_MODEL": "j", "EVAL_USER_MODEL": "u"}), "u"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := resolveWith(t, tt.env, "")
			require.NoError(t, err)
			assert.Equal(t, tt.want, st.UserModel)
		})
	}
}

// Ordinary values of a servers file's environment are data: only those
// secret by name or by being credentials, and header values (with a
// scheme's bare token), are redacted; credentials in a server's URL and
// two-word flags are too.
func TestServersFileSecretsAreSecretByNameHeaderOrShape(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"mcpServers": {
		"marrvel": {"command": "server", "args": ["--token", "argv-token-31"],
		            "env": {"GENOME_BUILD": "GRCh38", "LOG_LEVEL": "warning", "NCBI_API_KEY": "ncbi-key-9876"}},
		"remote": {"url": "https://u:url-pass-64@mcp.example.org/mcp?api_key=query-key-27", "headers": {"Authorization": "Bearer bare-token-55"}}
	}}`), 0o644))
	st, err := resolveWith(t, map[string]string{"EVAL_SERVERS_FILE": file}, "")
	require.NoError(t, err)
	r := st.Redactor(nil)
	assert.Equal(t, `"expected": "GRCh38 position chr17:7673802", level warning`, r.String(`"expected": "GRCh38 position chr17:7673802", level warning`))
	assert.Equal(t, "[REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED]",
		r.String("ncbi-key-9876 argv-token-31 url-pass-64 query-key-27 bare-token-55"))
	assert.Equal(t, "remote (https://u:[REDACTED]@mcp.example.org/mcp?api_key=[REDACTED])", st.Servers[1].Display())
	assert.Equal(t, "marrvel (server --token [REDACTED])", st.Servers[0].Display())
}

// A servers file gives the servers, selected by name; the values of their
// environment and headers are secrets.
func TestServersFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"mcpServers": {
		"marrvel": {"command": "python", "args": ["-m", "marrvel_mcp"], "env": {"MARRVEL_API_KEY": "${MARRVEL_KEY}"}},
		"remote": {"url": "https://mcp.example.org/mcp", "headers": {"X-Api-Key": "header-secret-42"}}
	}}`), 0o644))
	st, err := resolveWith(t, map[string]string{"EVAL_SERVERS_FILE": file}, "MARRVEL_KEY=config-secret-17\n")
	require.NoError(t, err)
	require.Len(t, st.Servers, 2)
	assert.Equal(t, []string{"MARRVEL_API_KEY=config-secret-17"}, st.Servers[0].Env, "${VAR} from the .env file")
	assert.Equal(t, "[REDACTED] [REDACTED]", st.Redactor(nil).String("config-secret-17 header-secret-42"))

	st, err = resolveWith(t, map[string]string{"EVAL_SERVERS_FILE": file, "EVAL_SERVER": "remote", "MARRVEL_KEY": "k-123456"}, "")
	require.NoError(t, err)
	require.Len(t, st.Servers, 1)
	assert.Equal(t, "remote", st.Servers[0].Name)

	_, err = resolveWith(t, map[string]string{"EVAL_SERVERS_FILE": file, "EVAL_SERVER": "marvel", "MARRVEL_KEY": "k-123456"}, "")
	assert.ErrorContains(t, err, `EVAL_SERVER (environment): `+file+` has no server "marvel"; its servers: marrvel, remote`)
	_, err = resolveWith(t, map[string]string{"EVAL_SERVERS_FILE": file}, "")
	assert.ErrorContains(t, err, "EVAL_SERVERS_FILE (environment): "+file+`: server "marrvel": ${MARRVEL_KEY} is not set`)

	// A suite's default servers file applies when no server is configured.
	st, err = resolveWith(t, map[string]string{"MARRVEL_KEY": "k-123456"}, "")
	require.NoError(t, err)
	require.NoError(t, st.UseServersFile(file))
	assert.Len(t, st.Servers, 2)
	st, err = resolveWith(t, map[string]string{"EVAL_SERVER": "python -m other"}, "")
	require.NoError(t, err)
	require.NoError(t, st.UseServersFile(file))
	require.Len(t, st.Servers, 1)
	assert.Equal(t, "python -m other", st.Servers[0].Name, "a configured server wins")
}

// A misspelt EVAL_ variable is an error that names the closest setting.
func TestUnknownVariablesNameTheClosestSetting(t *testing.T) {
	tests := []struct {
		env    map[string]string
		dotenv string
		want   []string
	}{
		{env: map[string]string{"EVAL_CONCURENCY": "8"}, want: []string{"EVAL_CONCURENCY (environment) is not a setting: did you mean EVAL_CONCURRENCY?"}},
		{env: map[string]string{"EVAL_OUTPUT": "x"}, want: []string{"did you mean EVAL_OUT?"}},
		{env: map[string]string{"EVAL_MODELSS": "a,b"}, want: []string{"did you mean EVAL_MODEL or EVAL_MODELS?"}},
		{dotenv: "EVAL_JUDGE=none\n", want: []string{".env:1: EVAL_JUDGE is not a setting: did you mean EVAL_JUDGE_MODE or EVAL_JUDGE_MODEL?"}},
		{env: map[string]string{"EVAL_FORCE_RUN": "1", "EVAL_CACHES": "c"}, want: []string{"EVAL_CACHES (environment) is not a setting: did you mean EVAL_CACHE?", "EVAL_FORCE_RUN (environment) is not a setting: did you mean EVAL_FORCE?"}},
	}
	for _, tt := range tests {
		_, err := resolveWith(t, tt.env, tt.dotenv)
		require.Error(t, err)
		for _, w := range tt.want {
			assert.Contains(t, err.Error(), w)
		}
	}
	for _, known := range []string{"EVAL_DOTENV", "EVAL_SERVE_SAMPLE", "EVAL_SERVERS_FILE", "EVAL_PROGRESS"} {
		_, err := resolveWith(t, map[string]string{known: "off"}, "")
		if err != nil {
			assert.NotContains(t, err.Error(), "is not a setting", known)
		}
	}
	_, err := resolveWith(t, map[string]string{"EVALUATION_MODE": "x", "MY_EVAL_X": "y"}, "")
	assert.NoError(t, err, "only the EVAL_ prefix is the suite's")
}

func TestProgressSetting(t *testing.T) {
	for _, tt := range []struct {
		value, mode string
		every       time.Duration
	}{
		{"", ProgressAuto, 0}, {"live", ProgressLive, 0}, {"off", ProgressOff, 0}, {"10s", ProgressLines, 10 * time.Second},
	} {
		env := map[string]string{}
		if tt.value != "" {
			env["EVAL_PROGRESS"] = tt.value
		}
		st, err := resolveWith(t, env, "")
		require.NoError(t, err)
		assert.Equal(t, tt.mode, st.Progress)
		assert.Equal(t, tt.every, st.ProgressEvery)
	}
	_, err := resolveWith(t, map[string]string{"EVAL_PROGRESS": "often"}, "")
	assert.ErrorContains(t, err, `EVAL_PROGRESS (environment): invalid value "often": must be auto, live, off or a duration`)
}

// The settings among a go test command line's arguments, as the suite
// would read them.
func TestSettingsArgs(t *testing.T) {
	args := []string{"-run", "Gene", "-force", "-out", "/tmp/o", "-v", "-count=2", "--concurrency=3", "-args", "-cases", "c.yaml", "-x"}
	assert.Equal(t, []string{"-force", "-out=/tmp/o", "-concurrency=3", "-cases=c.yaml"}, SettingsArgs(args))
}

// -h shows each setting's flag with its type, variable and default.
func TestHelpTypesTheFlags(t *testing.T) {
	fs := flag.NewFlagSet("suite", flag.ContinueOnError)
	var out strings.Builder
	fs.SetOutput(&out)
	RegisterFlags(fs)
	fs.Bool("test.v", false, "go test's own flag")
	require.ErrorIs(t, fs.Parse([]string{"-h"}), flag.ErrHelp)
	for _, want := range []string{
		"  -max-iterations int\n    \tmodel requests per answer (per turn of a conversation) (env EVAL_MAX_ITERATIONS) (default 10)\n",
		"  -case-timeout duration\n", "  -min-pass-rate float\n", "  -budget-usd float\n", "  -cases path\n",
		"  -judge-mode majority|unanimous\n", "  -shard k/n\n", "  -force\n    \tignore cached results",
		"  -test.v\n    \tgo test's own flag\n", "OPENROUTER_API_KEY",
		"(env EVAL_FOLLOW_LINKS) (default true)\n", // a bool's default when true, as package flag shows it
	} {
		assert.Contains(t, out.String(), want)
	}
	assert.Contains(t, out.String(), "(env EVAL_FORCE)\n", "a false bool shows no default")
}

// A value that cannot be read names where it came from: the environment,
// the flag, or the line of the .env file; so does a .env file that cannot
// be parsed, without quoting it.
func TestErrorsSayWhereTheValueCameFrom(t *testing.T) {
	_, err := resolveWith(t, nil, "# keys\nOPENAI_API_KEY=sk-abc\n\nEVAL_MAX_ITERATIONS=x\n")
	require.Error(t, err)
	assert.Regexp(t, `^/\S+/\.env:4: EVAL_MAX_ITERATIONS: invalid value "x": must be a whole number$`, err.Error())

	_, err = resolveWith(t, map[string]string{"EVAL_MAX_ITERATIONS": "0"}, "EVAL_MAX_ITERATIONS=x\n")
	require.EqualError(t, err, `EVAL_MAX_ITERATIONS (environment): invalid value "0": must be at least 1`)

	_, err = resolveWith(t, map[string]string{"EVAL_CASE_TIMEOUT": "x"}, "", "-case-timeout", "soon")
	require.EqualError(t, err, `-case-timeout: invalid value "soon": must be a duration such as 90s or 5m`)

	_, err = resolveWith(t, nil, "OPENAI_API_KEY=sk-secret-123\nEVAL-CASES=x\nOPENROUTER_API_KEY=sk-secret-456\n")
	require.Error(t, err)
	assert.Regexp(t, `\.env:2: not a NAME=value line`, err.Error())
	assert.NotContains(t, err.Error(), "sk-secret", "the file is not quoted: it holds keys")

	_, err = resolveWith(t, nil, "A=1\nB=\"two\nlines\"\nC=3\nD=\"open\nE=5\n")
	assert.ErrorContains(t, err, `.env:5: not a NAME=value line (its quoted value needs its closing quote)`)

	// The hint says what the line lacks, never quoting it.
	for _, tc := range []struct{ file, want string }{
		{"A=1\nOPENAI_API_KEY sk-secret-789\n", `.env:2: not a NAME=value line (it has no '=' between a name and a value)`},
		{"A=1\nMY-KEY=sk-secret-789\n", `.env:2: not a NAME=value line (the name before '=' may hold only letters, digits, '_' and '.')`},
		{"A=1\n=sk-secret-789\n", `.env:2: not a NAME=value line (it has no name before its =)`},
	} {
		_, err = resolveWith(t, nil, tc.file)
		require.Error(t, err, tc.file)
		assert.Contains(t, err.Error(), tc.want)
		assert.NotContains(t, err.Error(), "sk-secret")
	}
}

// A file or directory the run reads that is named but does not exist is an
// error naming the setting; the default may be absent.
func TestNamedInputsMustExist(t *testing.T) {
	_, err := resolveWith(t, map[string]string{"EVAL_CASES": "case"}, "")
	require.Error(t, err)
	assert.Regexp(t, `^EVAL_CASES \(environment\): invalid value "case": /\S+/case does not exist$`, err.Error())
	_, err = resolveWith(t, nil, "", "-prices", "nowhere.yaml", "-labels", "nolabels")
	assert.ErrorContains(t, err, `-prices: invalid value "nowhere.yaml"`)
	assert.ErrorContains(t, err, `-labels: invalid value "nolabels"`)

	st, err := resolveWith(t, nil, "")
	require.NoError(t, err, "the defaults need not exist")
	assert.NoDirExists(t, st.Cases)
	dir := t.TempDir()
	st, err = resolveWith(t, map[string]string{"EVAL_CASES": dir, "EVAL_OUT": filepath.Join(dir, "new")}, "")
	require.NoError(t, err, "an output directory is made by the run")
	assert.Equal(t, dir, st.Cases)
}

// Every setting has its own flag and variable, and its default reads.
func TestDeclarations(t *testing.T) {
	flags, envs := map[string]bool{}, map[string]bool{}
	for _, s := range table() {
		assert.False(t, flags[s.flag] || envs[s.env], "%s is declared twice", s.flag)
		flags[s.flag], envs[s.env] = true, true
		assert.NotEmpty(t, s.kind, s.flag)
		if s.def != "" {
			assert.NoError(t, s.read(value{text: s.def}), s.flag)
		}
	}
}

// The settings are documented once, in docs/settings.md (see
// TestReferenceIsCurrent): no other page keeps a table of them, and every
// EVAL_ variable the pages name is a setting, or the .env file's, or a
// misspelling shown as one.
func TestDocsNameOnlyRealSettings(t *testing.T) {
	known := map[string]bool{"EVAL_CONCURENCY": true} // the misspelling configuration.md shows
	for _, v := range otherVars {
		known[v] = true
	}
	for _, s := range table() {
		known[s.env] = true
	}
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	require.NoError(t, err)
	pages = append(pages, filepath.Join("..", "..", "README.md"))
	variable := regexp.MustCompile(`\bEVAL_[A-Z0-9_]+\b`)
	for _, page := range pages {
		data, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, v := range variable.FindAllString(string(data), -1) {
			assert.True(t, known[v], "%s names %s, which is not a setting", filepath.Base(page), v)
		}
		if filepath.Base(page) == "settings.md" {
			continue
		}
		for i, line := range strings.Split(string(data), "\n") {
			assert.False(t, strings.HasPrefix(line, "| `-"), "%s:%d: a table of flags: the settings are listed in docs/settings.md only", filepath.Base(page), i+1)
		}
	}
}

// EVAL_GATE_CAUSES reads as report's -gate-causes does: in any case, each
// cause once, an unknown one named.
func TestGateCauses(t *testing.T) {
	st, err := resolveWith(t, map[string]string{"EVAL_GATE_CAUSES": "Model, DATA,model"}, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"model", "data"}, st.GateCauses)
	fromFlag, err := ParseCauses("Model, DATA,model")
	require.NoError(t, err)
	assert.Equal(t, st.GateCauses, fromFlag)
	_, err = resolveWith(t, map[string]string{"EVAL_GATE_CAUSES": "model,weather"}, "")
	require.ErrorContains(t, err, `EVAL_GATE_CAUSES (environment): invalid value "model,weather": unknown cause "weather"`)
}

// A misspelt flag is refused with the nearest one, not answered with every
// flag there is.
func TestCheckFlags(t *testing.T) {
	fs := flag.NewFlagSet("evaltest.test", flag.ContinueOnError)
	RegisterFlags(fs)
	fs.String("test.run", "", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-test.run=Gene", "-model", "gpt-4o", "-force"}, ""},
		{[]string{"-modle", "x"}, "-modle is not a flag of the suite (did you mean -model?); go test ./evaltest -args -h lists them"},
		{[]string{"--judge-modell=x"}, "-judge-model?)"},
		{[]string{"-model", "-x"}, ""}, // -x is the model
		{[]string{"-force", "-x"}, "-x is not a flag of the suite"},
		{[]string{"-h"}, ""},
		{[]string{"--", "-anything"}, ""},
	} {
		err := CheckFlags(fs, tc.args)
		if tc.want == "" {
			assert.NoError(t, err, "%v", tc.args)
		} else {
			assert.ErrorContains(t, err, tc.want, "%v", tc.args)
		}
	}
}
