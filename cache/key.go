package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// FormatVersion is the version of the cache file format, written at the
// top of the cache file and on every journal line. Version 2 keeps each
// record's large texts in the recordings store beside the cache (see
// Hit); a cache of version 1 (whole records) is read and rewritten as
// version 2 when it is opened.
const FormatVersion = 2

// keyFormat is the version of the key derivation, hashed into every key:
// raising it retires every older entry at once. Version 2 of the file
// format left it at 1, so entries of version 1 keep their keys.
const keyFormat = 1

// KeyInput is everything that can change the outcome of one case run.
// [Key] hashes all of it; two inputs that differ in any field are two
// cache entries.
type KeyInput struct {
	// Question is the case's question.
	Question string
	// Expected is the case's expected answer ("" for a case graded by
	// claims, whose claims are in Expectations).
	Expected string
	// Expectations holds the case's deterministic checks, its tool
	// expectations and any other per-case setting that changes the outcome
	// (for example the case kind). It is encoded as JSON and canonicalised
	// (object keys sorted), so a struct and a map with the same JSON are
	// the same expectations. nil encodes as null, which differs from an
	// empty list or object.
	Expectations any
	// Model is the evaluated model.
	Model string
	// BaseURL is the provider's base URL, without credentials.
	BaseURL string
	// SystemPrompt is the agent's system message.
	SystemPrompt string
	// MaxIterations bounds the agent loop.
	MaxIterations int
	// JudgeModel names the judge model, or the judges' models joined by
	// commas; "" when no judge runs.
	JudgeModel string
	// JudgeMode says how several judges decide (majority, unanimous); ""
	// with one judge or none, and then left out of the key.
	JudgeMode string
	// JudgePrompt is the judge's prompt; a run's case keys leave it ""
	// (a record holds the grading version that decided it instead).
	JudgePrompt string
	// TokenLimit is the per-result token limit.
	TokenLimit int
	// ToolsHash identifies the tools offered to the model, with their
	// schemas, and the servers behind them.
	ToolsHash string
	// Repeat is the repeat index of the case (0 for the first run), so
	// repeats are independent entries instead of one replayed answer.
	Repeat int
	// Replay names the recorded tool results a replaying run answers its
	// calls from (-replay-tools), "" for the live servers: a replay is
	// cached apart from live runs and from replays of other runs.
	Replay string
	// UserModel is the model that plays a case's simulated user; "" for
	// a case without one, and then left out of the key.
	UserModel string
	// UserPrompt is the rules the simulated user's model is given around
	// the case's description of the user (which Expectations holds); ""
	// for a case without one, and then left out of the key.
	UserPrompt string
}

// Key returns the cache key of one case run: the hex SHA-256 of a JSON
// object holding, in this order,
//
//	format          the key derivation's version (1)
//	question        the case's question
//	expected        the case's expected answer
//	expectations    canonical JSON of the case's checks and tool expectations
//	model           the evaluated model
//	base_url        the provider's base URL
//	system_prompt   the agent's system prompt
//	max_iterations  the agent loop bound
//	judge_model     the judge model
//	judge_mode      how several judges decide (left out when empty)
//	judge_prompt    the judge prompt
//	token_limit     the token limit
//	tools_hash      the MCP servers' tool surface
//	repeat          the repeat index
//	replay          the recorded results replayed (left out when empty)
//	user_model      the model playing the simulated user (left out when empty)
//	user_prompt     the rules it is given (left out when empty)
//
// The case name is not in the key (a renamed case with the same content
// reuses its entry) and neither is the API key. Key fails only when
// Expectations cannot be encoded as JSON.
func Key(k KeyInput) (string, error) {
	expectations, err := canonicalJSON(k.Expectations)
	if err != nil {
		return "", fmt.Errorf("cache key: expectations: %w", err)
	}
	doc := struct {
		Format        int             `json:"format"`
		Question      string          `json:"question"`
		Expected      string          `json:"expected"`
		Expectations  json.RawMessage `json:"expectations"`
		Model         string          `json:"model"`
		BaseURL       string          `json:"base_url"`
		SystemPrompt  string          `json:"system_prompt"`
		MaxIterations int             `json:"max_iterations"`
		JudgeModel    string          `json:"judge_model"`
		JudgeMode     string          `json:"judge_mode,omitempty"`
		JudgePrompt   string          `json:"judge_prompt"`
		TokenLimit    int             `json:"token_limit"`
		ToolsHash     string          `json:"tools_hash"`
		Repeat        int             `json:"repeat"`
		Replay        string          `json:"replay,omitempty"`
		UserModel     string          `json:"user_model,omitempty"`
		UserPrompt    string          `json:"user_prompt,omitempty"`
	}{
		Format:        keyFormat,
		Question:      k.Question,
		Expected:      k.Expected,
		Expectations:  expectations,
		Model:         k.Model,
		BaseURL:       k.BaseURL,
		SystemPrompt:  k.SystemPrompt,
		MaxIterations: k.MaxIterations,
		JudgeModel:    k.JudgeModel,
		JudgeMode:     k.JudgeMode,
		JudgePrompt:   k.JudgePrompt,
		TokenLimit:    k.TokenLimit,
		ToolsHash:     k.ToolsHash,
		Repeat:        k.Repeat,
		Replay:        k.Replay,
		UserModel:     k.UserModel,
		UserPrompt:    k.UserPrompt,
	}
	encoded, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("cache key: %w", err)
	}
	return hashHex(encoded), nil
}

// canonicalJSON encodes v as JSON with every object's keys sorted and
// numbers kept as written, so equal JSON values give equal bytes whatever
// Go type carried them.
func canonicalJSON(v any) (json.RawMessage, error) {
	encoded, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	decoder := json.NewDecoder(bytes.NewReader(encoded))
	decoder.UseNumber()
	var generic any
	if err := decoder.Decode(&generic); err != nil {
		return nil, err
	}
	return json.Marshal(generic)
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
