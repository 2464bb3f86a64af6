package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpeval/mcpeval/internal/eval"
)

const key = "sk-planted-4f9c2e71"

func TestStringReplacesEverySecret(t *testing.T) {
	r := New(key, "x", "", "true")
	assert.Equal(t, "a [REDACTED] b [REDACTED]", r.String("a "+key+" b "+key))
	assert.Equal(t, "x true", r.String("x true"), "values too short to be secrets stay")
	var none *Redactor
	assert.Equal(t, key, none.String(key))
}

func TestLongestSecretFirst(t *testing.T) {
	r := New("secret-abc", "secret-abc-123456")
	assert.Equal(t, "[REDACTED]", r.String("secret-abc-123456"))
}

func TestURLCredentials(t *testing.T) {
	r := New()
	r.AddURL("http://alice:hunter2-pass@127.0.0.1:8080/v1?api_key=query-secret-9&model=gpt")
	assert.Equal(t, "http://alice:[REDACTED]@127.0.0.1:8080/v1?api_key=[REDACTED]&model=gpt",
		r.String("http://alice:hunter2-pass@127.0.0.1:8080/v1?api_key=query-secret-9&model=gpt"))
	r = New()
	r.AddURL("http://bob:p%40ss%2Fword99@host/v1")
	assert.Equal(t, "[REDACTED] in [REDACTED]", r.String("p@ss/word99 in p%40ss%2Fword99"),
		"the password as given and as escaped inside a URL")
}

func TestEnvSecrets(t *testing.T) {
	r := New()
	r.AddEnv([]string{"GITHUB_TOKEN=ghp_abcdefgh1234", "AWS_SECRET_ACCESS_KEY=aws-secret-value", "HOME=/home/someone-long", "SESSION_ID=short", "PATH=/usr/bin:/bin"})
	assert.Equal(t, "[REDACTED] [REDACTED] /home/someone-long short",
		r.String("ghp_abcdefgh1234 aws-secret-value /home/someone-long short"))
	for _, name := range []string{"OPENAI_API_KEY", "Authorization", "X-Api-Key", "DB_PASSWORD", "github_token", "api_key", "apikey", "access_token", "HF_TOKEN"} {
		assert.True(t, SecretName(name), name)
	}
	for _, name := range []string{"HOME", "PATH", "EVAL_MODEL", "LANG", "PWD", "OLDPWD", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "KEYBOARD_LAYOUT"} {
		assert.False(t, SecretName(name), name)
	}
}

// Value reaches every string of a record: texts, tool calls, conversation,
// checks and the metrics' details.
func TestValueRedactsAWholeRecord(t *testing.T) {
	rec := eval.Record{
		Name: "case", Question: "q " + key, Response: key, Reason: "because " + key, JudgeRaw: key,
		Checks:    []eval.CheckResult{{Check: "contains " + key, Detail: key}},
		ToolCalls: []eval.ToolCall{{Name: key, Arguments: `{"k":"` + key + `"}`, Result: "error: " + key}},
		Conversation: []eval.Message{{Role: "assistant", Content: key, Name: key,
			ToolCalls: []eval.MessageToolCall{{ID: "1", Function: eval.FunctionCall{Name: key, Arguments: key}}}}},
		ServerStderr: key,
		Metrics: &eval.Metrics{
			RequirementCoverage: eval.CoverageMetric{ToolDetails: &eval.ToolCoverageDetails{CalledTools: []string{key}}},
			ErrorRecovery:       eval.RecoveryMetric{ErrorMessage: key, RecoveryDetails: []eval.RecoveryAttempt{{Tool: key, Error: ptr(key)}}},
			Overall:             eval.OverallMetric{Weights: map[string]float64{key: 1}},
		},
	}
	New(key).Value(&rec)
	data, err := json.Marshal(rec)
	assert.NoError(t, err)
	assert.NotContains(t, string(data), key)
	assert.Contains(t, string(data), Mark)
	assert.Equal(t, "case", rec.Name)
	assert.Equal(t, 1.0, rec.Metrics.Overall.Weights[Mark])
}

func TestValueRedactsRawJSONAndInterfaces(t *testing.T) {
	v := struct {
		Raw   json.RawMessage
		Any   any
		Items map[string]any
	}{json.RawMessage(`{"a":"` + key + `"}`), key, map[string]any{"k": key}}
	New(key).Value(&v)
	data, _ := json.Marshal(v)
	assert.NotContains(t, string(data), key)
}

func ptr(s string) *string { return &s }
