// Package usersim holds what a case's simulated user (eval.User) is,
// whoever plays it: the prompt and messages of the model that plays the
// user, how its reply is read (a message, or the stop token), the facts
// it knows and whether a message asks for them, gives them, or leaks
// them, and the user played offline, without a model, by those rules
// alone (the reference run's user, and the stub model's).
//
// It depends on package eval alone, so that the stub model (package
// llmstub) can play the user as the suite does.
package usersim

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Stop is what the model playing the user writes when the user is done.
const Stop = "###STOP###"

// PromptStart begins the system prompt of every request to the model
// playing a user: a request is told from the agent's and the judges' by
// it.
const PromptStart = "You are playing a user who talks to an AI assistant"

// Instructions are the rules the model playing a user is given, around
// the case's description of the user (see Prompt). The cache key holds
// them: other rules are another user.
const Instructions = PromptStart + `, so that the assistant can be tested. You are the user, never the assistant: write only the user's next message, short and plain, as a person types it.

Who you are and what you want:
%s
%s
Never make up anything you were not told: if the assistant asks for something you do not know, say that you do not know.
When the assistant has given you what you wanted, or clearly cannot, reply with ` + Stop + ` alone.`

// knowsHeading introduces the facts the user knows in the prompt.
const knowsHeading = "\nWhat you know, and say only when the assistant asks for it (never offer it before):\n"

// Prompt is the system prompt of the model playing the user u.
func Prompt(u eval.User) string {
	knows := ""
	if len(u.Knows) > 0 {
		var b strings.Builder
		b.WriteString(knowsHeading)
		for _, f := range u.Knows {
			b.WriteString("- " + strings.TrimSpace(f.Fact) + "\n")
		}
		knows = b.String()
	}
	return fmt.Sprintf(Instructions, strings.TrimSpace(u.Instructions), knows)
}

// Messages are the messages of a request to the model playing the user u
// for its next message, after the turns of the conversation so far (the
// user's message and the agent's reply at each): the prompt, then the
// conversation as the user sees it, the user's own messages as the
// assistant's and the agent's replies as the user's. The last turn's
// reply is left out while there is none (a tool call of the agent's is
// under way).
func Messages(u eval.User, turns []eval.TurnResult) []eval.Message {
	out := make([]eval.Message, 0, 1+2*len(turns))
	out = append(out, eval.Message{Role: "system", Content: Prompt(u)})
	for i, t := range turns {
		out = append(out, eval.Message{Role: "assistant", Content: t.User})
		if t.Reply != "" || i < len(turns)-1 {
			out = append(out, eval.Message{Role: "user", Content: t.Reply})
		}
	}
	return out
}

// Plays reports whether a request's messages ask the model to play a
// user: its system prompt begins with PromptStart.
func Plays(messages []eval.Message) bool {
	return len(messages) > 0 && messages[0].Role == "system" && strings.HasPrefix(messages[0].Content, PromptStart)
}

// Read reads the reply of the model playing the user: the message to
// send to the agent, and whether the user is done (the reply holds
// Stop; what it says besides is not sent).
func Read(reply string) (message string, done bool) {
	if strings.Contains(reply, Stop) {
		return "", true
	}
	return strings.TrimSpace(reply), false
}

// Mentions reports whether text names one of spellings, as a whole
// word in any case (a final "*" matches the rest of a word).
func Mentions(text string, spellings []string) bool {
	return slices.ContainsFunc(spellings, func(sp string) bool { return wordRE(sp).MatchString(text) })
}

// wordRE matches a spelling as a whole word, in any case.
func wordRE(sp string) *regexp.Regexp {
	sp = strings.TrimSpace(sp)
	prefix := strings.HasSuffix(sp, "*")
	expr := `(?i)(?:^|[^\p{L}\p{N}_])` + regexp.QuoteMeta(strings.TrimSpace(strings.TrimSuffix(sp, "*")))
	if !prefix {
		expr += `(?:$|[^\p{L}\p{N}_])`
	}
	return regexp.MustCompile(expr)
}

// States reports whether text states the fact f (one of its spellings).
func States(f eval.UserFact, text string) bool { return Mentions(text, f.Spellings()) }

// Asks reports whether an agent's message asks for the fact f: it names
// one of f's When words.
func Asks(f eval.UserFact, text string) bool { return Mentions(text, f.When) }

// told reports which facts of u the user's messages so far state.
func told(u eval.User, users []string) []bool {
	out := make([]bool, len(u.Knows))
	for i, f := range u.Knows {
		out[i] = slices.ContainsFunc(users, func(m string) bool { return States(f, m) })
	}
	return out
}

// Leaks returns the facts of u that the user's message gives though the
// agent's message before it (agent) asked for none of them: those it
// states that none of the user's earlier messages (users) stated, each
// as the fact says it.
func Leaks(u eval.User, users []string, agent, message string) []string {
	var out []string
	for i, was := range told(u, users) {
		if f := u.Knows[i]; !was && States(f, message) && !Asks(f, agent) {
			out = append(out, strings.TrimSpace(f.Fact))
		}
	}
	return out
}

// Offline plays the user u without a model, after the turns so far: its
// next message gives the facts the agent's last reply asks for that the
// user has not given yet, one a line; the user is done when it asks for
// none.
func Offline(u eval.User, turns []eval.TurnResult) (message string, done bool) {
	if len(turns) == 0 {
		return "", true
	}
	users := make([]string, len(turns))
	for i, t := range turns {
		users[i] = t.User
	}
	agent := turns[len(turns)-1].Reply
	var facts []string
	for i, was := range told(u, users) {
		if f := u.Knows[i]; !was && Asks(f, agent) {
			facts = append(facts, strings.TrimSpace(f.Fact))
		}
	}
	if len(facts) == 0 {
		return "", true
	}
	return strings.Join(facts, "\n"), false
}

// Question is what an agent that asks before it answers says to the user
// u, whose messages so far are users: a question for each fact the user
// has not given, naming its first When word ("Which build do you
// mean?"); "" when the user gave them all.
func Question(u eval.User, users []string) string {
	var qs []string
	for i, was := range told(u, users) {
		if f := u.Knows[i]; !was && len(f.When) > 0 {
			qs = append(qs, fmt.Sprintf("Which %s do you mean?", strings.TrimSuffix(strings.TrimSpace(f.When[0]), "*")))
		}
	}
	return strings.Join(qs, " ")
}

// ElicitMessages are the messages of a request to the model playing the
// user u for its reply to a server's request for input (MCP
// elicitation) during the agent's tool call: the prompt, the
// conversation so far, and the server's message with the fields it
// asks for.
func ElicitMessages(u eval.User, turns []eval.TurnResult, message string, fields []string) []eval.Message {
	msgs := Messages(u, turns)
	ask := fmt.Sprintf(ElicitStart+`: %q. The fields it asks for: %s.
Reply with a JSON object alone: {"action": "accept", "content": {"field": "value", ...}} to give them, or {"action": "decline"} to refuse.`,
		message, strings.Join(fields, ", "))
	return append(msgs, eval.Message{Role: "user", Content: ask})
}

// ElicitStart begins the last message of a request to the model playing
// a user for its reply to a request for input (see ElicitMessages).
const ElicitStart = "A tool the assistant is running asks you for input"

// Elicits reports whether a request's messages ask the model playing a
// user for its reply to a request for input.
func Elicits(messages []eval.Message) bool {
	return Plays(messages) && strings.HasPrefix(messages[len(messages)-1].Content, ElicitStart)
}

// ReadElicit reads the reply of the model playing the user to a request
// for input: its action and content. A reply that is no such JSON
// object, or names another action, is a decline.
func ReadElicit(reply string) (action string, content map[string]any) {
	var r struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	start, end := strings.Index(reply, "{"), strings.LastIndex(reply, "}")
	if start < 0 || end < start || json.Unmarshal([]byte(reply[start:end+1]), &r) != nil {
		return eval.ElicitDecline, nil
	}
	switch r.Action = strings.ToLower(strings.TrimSpace(r.Action)); r.Action {
	case eval.ElicitAccept:
		return r.Action, r.Content
	case eval.ElicitCancel:
		return r.Action, nil
	}
	return eval.ElicitDecline, nil
}
