package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpeval/mcpeval/evaltest/eval"
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

// A secret is found however it is written: as given, inside a URL, or
// JSON-escaped by a model inside a tool call's arguments.
func TestStringFindsEscapedSecrets(t *testing.T) {
	r := New(key, `quote"secret-77`, "path/secret-88")
	tests := []struct{ in, want string }{
		{`{"k":"\u0073k-planted-4f9c2e71"}`, `{"k":"[REDACTED]"}`},
		{`{"k":"sk-pl\u0061nted-4f9c2e71","n":"caf\u00e9"}`, `{"k":"[REDACTED]","n":"café"}`},
		{`{"k":"\ud83d\ude00 sk-planted-4f9c2e7\u0031 \"x\" \u0022"}`, `{"k":"😀 [REDACTED] \"x\" \u0022"}`},
		{`{"k":"quote\"secret-77"}`, `{"k":"[REDACTED]"}`},
		{`a literal \\u0073k-planted-4f9c2e71`, `a literal \\u0073k-planted-4f9c2e71`},
		{`no secret \u0041 here`, `no secret \u0041 here`},
		{`{"k":"path\/secret-88","u":"a\/b"}`, `{"k":"[REDACTED]","u":"a/b"}`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, r.String(tt.in), tt.in)
	}
}

// A header's bare credentials are secrets too: "Bearer T" gives T, and a
// Basic pair its password.
func TestHeaderSecrets(t *testing.T) {
	assert.Equal(t, []string{"Bearer tok-0f9e8d7c", "tok-0f9e8d7c"}, HeaderSecrets("Bearer tok-0f9e8d7c"))
	assert.Equal(t, []string{"Basic YWxpY2U6YmFzaWMtcHctOTk=", "YWxpY2U6YmFzaWMtcHctOTk=", "basic-pw-99"}, HeaderSecrets("Basic YWxpY2U6YmFzaWMtcHctOTk="))
	assert.Equal(t, []string{"plain-header-value"}, HeaderSecrets("plain-header-value"))
	r := New(HeaderSecrets("Bearer tok-0f9e8d7c")...)
	assert.Equal(t, "the tool said [REDACTED]", r.String("the tool said tok-0f9e8d7c"))
}

// The user's own questions and expected answers are never rewritten, even
// where they hold a text that is also a secret.
func TestKeptTextsAreNotRewritten(t *testing.T) {
	r := New("GRCh38-secret")
	r.Keep("Which position on GRCh38-secret?", "GRCh38-secret position chr17:7673802")
	rec := eval.Record{Question: "Which position on GRCh38-secret?", Expected: "GRCh38-secret position chr17:7673802", Response: "GRCh38-secret"}
	r.Value(&rec)
	assert.Equal(t, "Which position on GRCh38-secret?", rec.Question)
	assert.Equal(t, "GRCh38-secret position chr17:7673802", rec.Expected)
	assert.Equal(t, Mark, rec.Response)
}

func TestLooksLikeCredential(t *testing.T) {
	for _, v := range []string{"sk-proj-0123456789abcdef", "ghp_0123456789abcdefghij", "AKIAIOSFODNN7EXAMPLE", "postgres://u:pw@db/x",
		"3f9a7c1e2b4d6f8a0c1e3b5d7f9a1c3e5b7d9f1a"} {
		assert.True(t, LooksLikeCredential(v), v)
	}
	for _, v := range []string{"GRCh38", "warning", "/srv/data/genomes", "ENSG00000141510", "http://localhost:8000/mcp", "a long sentence with 12 words and digits 1234567890"} {
		assert.False(t, LooksLikeCredential(v), v)
	}
}

// MayChangeJSON answers false only for JSON whose value Value leaves as it
// is: each record that holds a secret, however it is written, is flagged,
// and for each one flagged false, Value changes nothing.
func TestMayChangeJSONFlagsEveryRecordValueWouldChange(t *testing.T) {
	r := New(key, `quote"secret-77`, "<html>&secret")
	tests := []struct {
		name string
		rec  eval.Record
		may  bool
	}{
		{"no secret", eval.Record{Name: "n", Response: "the answer is <b>7157</b> & more", Reason: `a "quoted" reason`}, false},
		{"secret as it is", eval.Record{Response: "here " + key}, true},
		{"secret with a quote", eval.Record{Reason: `quote"secret-77`}, true},
		{"secret JSON escapes", eval.Record{Response: "<html>&secret"}, true},
		{"secret inside JSON text", eval.Record{ToolCalls: []eval.ToolCall{{Arguments: `{"k":"quote\"secret-77"}`}}}, true},
		{"secret in escapes of a text", eval.Record{ToolCalls: []eval.ToolCall{{Arguments: `{"k":"\u0073k-planted-4f9c2e71"}`}}}, true},
		{"escaped solidus", eval.Record{Response: `a\/b`}, true},
		{"secret in a map key", eval.Record{Metrics: &eval.Metrics{Overall: eval.OverallMetric{Weights: map[string]float64{key: 1}}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.rec)
			assert.NoError(t, err)
			assert.Equal(t, tt.may, r.MayChangeJSON(data))
			if !tt.may {
				redacted := tt.rec
				r.Value(&redacted)
				after, err := json.Marshal(redacted)
				assert.NoError(t, err)
				assert.Equal(t, string(data), string(after), "Value changes nothing")
			}
		})
	}
	assert.False(t, (*Redactor)(nil).MayChangeJSON([]byte(key)), "a nil Redactor replaces nothing")
}
