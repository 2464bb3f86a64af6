package suite

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/llm"
	"github.com/mcpeval/mcpeval/internal/usersim"
)

// chatFunc is an llm.Chatter of a function.
type chatFunc func(llm.Request) (llm.Response, error)

func (f chatFunc) Chat(_ context.Context, req llm.Request) (llm.Response, error) { return f(req) }

// replying answers every request with text, reporting 10 prompt and 2
// completion tokens.
func replying(text, finish string) chatFunc {
	return func(llm.Request) (llm.Response, error) {
		return llm.Response{Message: eval.Message{Role: "assistant", Content: text}, FinishReason: finish, HasUsage: true,
			Usage: eval.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}}, nil
	}
}

var buildUser = eval.User{Instructions: "A geneticist.", Knows: []eval.UserFact{{Fact: "GRCh38", When: eval.Spellings{"build"}}}}

func TestSimulatedUser(t *testing.T) {
	earlier := []eval.TurnResult{{Turn: 1, User: "Which gene is at chr17:7675088?", Reply: "Which build?"}}
	tests := []struct {
		name    string
		chat    chatFunc
		message string
		done    bool
		err     string
		usage   eval.Usage
	}{
		{"a message", replying(" GRCh38. ", "stop"), "GRCh38.", false, "", eval.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12, Requests: 1, Unpriced: 1}},
		{"done", replying("Thanks. "+usersim.Stop, "stop"), "", true, "", eval.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12, Requests: 1, Unpriced: 1}},
		{"an empty message", replying("  ", "stop"), "", false, "the model playing the user gave an empty message, without the stop token", eval.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12, Requests: 1, Unpriced: 1}},
		{"a cut reply", replying("GRCh", "length"), "", false, "the provider cut the reply of the model playing the user off (finish_reason length)", eval.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12, Requests: 1, Unpriced: 1}},
		{"a provider down", func(llm.Request) (llm.Response, error) {
			return llm.Response{Retries: 5}, errors.New("HTTP 500")
		}, "", false, "HTTP 500", eval.Usage{Retries: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sent []eval.Message
			chat := func(req llm.Request) (llm.Response, error) {
				sent = req.Messages
				assert.Equal(t, "user-model", req.Model)
				return tt.chat(req)
			}
			u := &simulated{chat: chatFunc(chat), user: buildUser, cfg: agent.Config{Model: "user-model"}}
			_, asked := u.spent()
			assert.False(t, asked)
			message, done, err := u.Next(context.Background(), earlier)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.message, message)
			assert.Equal(t, tt.done, done)
			assert.Equal(t, usersim.Messages(buildUser, earlier), sent)
			usage, asked := u.spent()
			assert.True(t, asked)
			assert.Equal(t, tt.usage, usage)
		})
	}
}

func TestSimulatedUserReplier(t *testing.T) {
	turns := []eval.TurnResult{{Turn: 1, User: "Research python."}}
	u := &simulated{chat: replying(`{"action": "accept", "content": {"interpretation": "programming"}}`, "stop"), user: buildUser,
		cfg: agent.Config{Model: "user-model"}, turns: func() []eval.TurnResult { return turns }}
	action, content, ok := u.replier(context.Background())("Which python?", []string{"interpretation"})
	assert.True(t, ok)
	assert.Equal(t, eval.ElicitAccept, action)
	assert.Equal(t, map[string]any{"interpretation": "programming"}, content)
	usage, _ := u.spent()
	assert.Equal(t, 1, usage.Requests, "the reply is the simulated user's request")

	down := &simulated{chat: chatFunc(func(llm.Request) (llm.Response, error) { return llm.Response{}, errors.New("HTTP 500") }),
		user: buildUser, turns: func() []eval.TurnResult { return turns }}
	_, _, ok = down.replier(context.Background())("Which python?", []string{"interpretation"})
	assert.False(t, ok, "a user who cannot reply declines")
}

func TestSources(t *testing.T) {
	turns := func(users ...string) []eval.TurnResult {
		out := make([]eval.TurnResult, len(users))
		for i, u := range users {
			out[i] = eval.TurnResult{Turn: i + 1, User: u, Reply: "Which build?"}
		}
		return out
	}
	tests := []struct {
		name    string
		src     source
		earlier []eval.TurnResult
		message string
		done    bool
	}{
		{"a written turn", scripted{{User: "second"}, {User: "third"}}, turns("first"), "second", false},
		{"the last written turn", scripted{{User: "second"}, {User: "third"}}, turns("first", "second"), "third", false},
		{"past the written turns", scripted{{User: "second"}}, turns("first", "second"), "", true},
		{"a replayed message", replayed{"GRCh38"}, turns("first"), "GRCh38", false},
		{"past the replayed messages", replayed{"GRCh38"}, turns("first", "GRCh38"), "", true},
		{"a user done at once, replayed", replayed{}, turns("first"), "", true},
		{"the offline user", offline{user: buildUser}, turns("first"), "GRCh38", false},
		{"the offline user, told", offline{user: buildUser}, turns("first", "GRCh38"), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			message, done, err := tt.src.Next(context.Background(), tt.earlier)
			require.NoError(t, err)
			assert.Equal(t, tt.message, message)
			assert.Equal(t, tt.done, done)
		})
	}
}

func TestAsksNothing(t *testing.T) {
	for reply, want := range map[string]bool{
		"TP53 lies there.":                          true,
		"Which build do you mean?":                  false,
		"I can look it up. Which build do you use?": false,
		"": true,
	} {
		assert.Equal(t, want, asksNothing(reply), reply)
	}
}
