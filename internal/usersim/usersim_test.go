package usersim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

var geneticist = eval.User{
	Instructions: "A clinical geneticist who wants the gene at a position of their VCF.",
	Knows: []eval.UserFact{
		{Fact: "The VCF is on GRCh38 (hg38).", Any: eval.Spellings{"GRCh38", "hg38"}, When: eval.Spellings{"build", "assembly", "GRCh*", "hg19", "hg38"}},
		{Fact: "female", When: eval.Spellings{"sex"}},
	},
}

func TestPromptAndMessages(t *testing.T) {
	p := Prompt(geneticist)
	assert.True(t, strings.HasPrefix(p, PromptStart))
	assert.Contains(t, p, "Who you are and what you want:\nA clinical geneticist who wants the gene at a position of their VCF.\n")
	assert.Contains(t, p, "- The VCF is on GRCh38 (hg38).\n- female\n")
	assert.Contains(t, p, Stop+" alone")
	assert.NotContains(t, Prompt(eval.User{Instructions: "x"}), "What you know", "a user who knows nothing is told nothing of it")

	msgs := Messages(geneticist, []eval.TurnResult{
		{User: "Which gene is at chr17:7675088?", Reply: "Which build do you mean?"},
		{User: "GRCh38.", Reply: "TP53."},
	})
	require.Len(t, msgs, 5)
	assert.True(t, Plays(msgs))
	assert.Equal(t, []string{"system", "assistant", "user", "assistant", "user"},
		[]string{msgs[0].Role, msgs[1].Role, msgs[2].Role, msgs[3].Role, msgs[4].Role}, "the user's messages are the model's own, the agent's replies are put to it")
	assert.Equal(t, "Which build do you mean?", msgs[2].Content)
	assert.False(t, Plays([]eval.Message{{Role: "system", Content: "You are a research assistant"}, {Role: "user", Content: "x"}}))
	assert.False(t, Plays(nil))
}

func TestRead(t *testing.T) {
	tests := []struct {
		reply, message string
		done           bool
	}{
		{"  GRCh38, sorry.\n", "GRCh38, sorry.", false},
		{Stop, "", true},
		{"Thanks, that is all. " + Stop, "", true},
		{"", "", false},
	}
	for _, tt := range tests {
		message, done := Read(tt.reply)
		assert.Equal(t, tt.message, message, tt.reply)
		assert.Equal(t, tt.done, done, tt.reply)
	}
}

func TestLeaks(t *testing.T) {
	tests := []struct {
		name          string
		users         []string
		agent, answer string
		want          []string
	}{
		{"asked for", []string{"Which gene?"}, "Which build do you mean?", "hg38", nil},
		{"asked with a word's prefix", []string{"Which gene?"}, "Is that GRCh37?", "No, GRCh38.", nil},
		{"given unasked", []string{"Which gene?"}, "Let me look.", "It is on GRCh38, by the way.", []string{"The VCF is on GRCh38 (hg38)."}},
		{"given again, once told", []string{"Which gene?", "GRCh38."}, "TP53.", "Thanks, on GRCh38 then.", nil},
		{"inside another word is not given", []string{"Which gene?"}, "Let me look.", "See xhg38y.", nil},
		{"two facts, one asked for", []string{"Which gene?"}, "Which build?", "hg38, and she is female.", []string{"female"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Leaks(geneticist, tt.users, tt.agent, tt.answer))
		})
	}
}

func TestOffline(t *testing.T) {
	tests := []struct {
		name    string
		turns   []eval.TurnResult
		message string
		done    bool
	}{
		{"asked for a fact", []eval.TurnResult{{User: "Which gene is at chr17:7675088?", Reply: "Which build do you mean?"}}, "The VCF is on GRCh38 (hg38).", false},
		{"asked for both", []eval.TurnResult{{User: "Which gene?", Reply: "Which build, and which sex?"}}, "The VCF is on GRCh38 (hg38).\nfemale", false},
		{"answered without asking", []eval.TurnResult{{User: "Which gene?", Reply: "TP53."}}, "", true},
		{"asked again for what was given", []eval.TurnResult{{User: "Which gene?", Reply: "Which build?"}, {User: "GRCh38.", Reply: "TP53 on GRCh38."}}, "", true},
		{"no turn", nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			message, done := Offline(geneticist, tt.turns)
			assert.Equal(t, tt.message, message)
			assert.Equal(t, tt.done, done)
		})
	}
}

func TestQuestion(t *testing.T) {
	assert.Equal(t, "Which build do you mean? Which sex do you mean?", Question(geneticist, []string{"Which gene?"}))
	assert.Equal(t, "Which sex do you mean?", Question(geneticist, []string{"Which gene?", "hg38"}))
	assert.Equal(t, "", Question(geneticist, []string{"hg38, female"}))
	message, done := Offline(geneticist, []eval.TurnResult{{User: "Which gene?", Reply: Question(geneticist, []string{"Which gene?"})}})
	assert.False(t, done)
	assert.Empty(t, Leaks(geneticist, []string{"Which gene?"}, Question(geneticist, []string{"Which gene?"}), message), "the question asks for every fact the offline user gives")
}

func TestReadElicit(t *testing.T) {
	tests := []struct {
		reply   string
		action  string
		content map[string]any
	}{
		{`{"action": "accept", "content": {"interpretation": "programming"}}`, eval.ElicitAccept, map[string]any{"interpretation": "programming"}},
		{"Sure:\n```json\n{\"action\":\"Accept\",\"content\":{\"n\":2}}\n```", eval.ElicitAccept, map[string]any{"n": float64(2)}},
		{`{"action": "cancel", "content": {"x": 1}}`, eval.ElicitCancel, nil},
		{`{"action": "maybe"}`, eval.ElicitDecline, nil},
		{"I would rather not.", eval.ElicitDecline, nil},
	}
	for _, tt := range tests {
		action, content := ReadElicit(tt.reply)
		assert.Equal(t, tt.action, action, tt.reply)
		assert.Equal(t, tt.content, content, tt.reply)
	}
	msgs := ElicitMessages(geneticist, []eval.TurnResult{{User: "Which gene?", Reply: ""}}, "Which interpretation?", []string{"interpretation"})
	assert.True(t, Plays(msgs))
	assert.True(t, Elicits(msgs))
	assert.False(t, Elicits(msgs[:2]))
	require.Len(t, msgs, 3, "the turn under way has no reply yet: it is left out")
	assert.Equal(t, "assistant", msgs[1].Role)
	assert.Contains(t, msgs[len(msgs)-1].Content, `"Which interpretation?"`)
	assert.Contains(t, msgs[len(msgs)-1].Content, "The fields it asks for: interpretation.")
}
