package suite

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/grading"
	"github.com/mcpeval/mcpeval/internal/llm"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/usersim"
)

// source gives the user's messages of a conversation after the case's
// input: the case's turns as written, or those of its simulated user
// (eval.User), played by a model, offline, or replayed from a run that
// recorded them.
type source interface {
	// Next returns the user's message after the turns so far (each with
	// the user's message and the agent's reply), or done when the user
	// has no more. An error is the simulated user's failure, not the
	// agent's.
	Next(ctx context.Context, earlier []eval.TurnResult) (message string, done bool, err error)
}

// scripted gives the case's turns as written.
type scripted []eval.Turn

func (s scripted) Next(_ context.Context, earlier []eval.TurnResult) (string, bool, error) {
	if k := len(earlier) - 1; k < len(s) {
		return s[k].User, false, nil
	}
	return "", true, nil
}

// offline plays a simulated user without a model, by the rules of
// usersim.Offline: the reference run's user.
type offline struct{ user eval.User }

func (o offline) Next(_ context.Context, earlier []eval.TurnResult) (string, bool, error) {
	msg, done := usersim.Offline(o.user, earlier)
	return msg, done, nil
}

// replayed gives the messages a simulated user gave in the run a replay
// answers from (-replay-tools), in order, then is done: the model playing
// the user is asked nothing.
type replayed []string

func (r replayed) Next(_ context.Context, earlier []eval.TurnResult) (string, bool, error) {
	if k := len(earlier) - 1; k < len(r) {
		return r[k], false, nil
	}
	return "", true, nil
}

// simulated is a simulated user played by a model (EVAL_USER_MODEL): each
// of its messages is the model's reply to the conversation so far, as the
// user sees it (see usersim.Messages); it also answers the servers'
// requests for input that the case scripts no reply to. Its requests'
// usage is kept apart from the agent's and the judges'.
type simulated struct {
	chat llm.Chatter
	// cfg prices and counts the requests of the user's model (cfg.Model).
	cfg  agent.Config
	user eval.User

	mu    sync.Mutex
	usage eval.Usage
	asked bool
	// turns are the turns so far, for the replies to requests for input
	// during a turn.
	turns func() []eval.TurnResult
}

func (u *simulated) Next(ctx context.Context, earlier []eval.TurnResult) (string, bool, error) {
	reply, err := u.ask(ctx, usersim.Messages(u.user, earlier))
	if err != nil {
		return "", false, err
	}
	msg, done := usersim.Read(reply)
	if !done && msg == "" {
		return "", false, errors.New("the model playing the user gave an empty message, without the stop token")
	}
	return msg, done, nil
}

// ask sends one request to the user's model and returns its reply's text,
// its usage added to the user's.
func (u *simulated) ask(ctx context.Context, msgs []eval.Message) (string, error) {
	req := llm.Request{Model: u.cfg.Model, Messages: msgs}
	resp, err := u.chat.Chat(ctx, req)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.asked = true
	if err != nil {
		u.usage.Retries += resp.Retries
		return "", err
	}
	u.usage.Add(agent.UsageOf(u.cfg, resp, req))
	if resp.Cut() {
		return "", fmt.Errorf("the provider cut the reply of the model playing the user off (finish_reason %s)", resp.FinishReason)
	}
	return resp.Message.Content, nil
}

// replier answers a server's request for input during the agent's tool
// call as the user would: the model playing the user is shown the
// conversation so far and the request. A failed request declines it.
func (u *simulated) replier(ctx context.Context) mcpconn.Replier {
	return func(message string, fields []string) (string, map[string]any, bool) {
		reply, err := u.ask(ctx, usersim.ElicitMessages(u.user, u.turns(), message, fields))
		if err != nil {
			return "", nil, false
		}
		action, content := usersim.ReadElicit(reply)
		return action, content, true
	}
}

// spent returns the usage of the user's requests so far, and whether any
// was made.
func (u *simulated) spent() (eval.Usage, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.usage, u.asked
}

// userSource returns where the user's messages of a conversation of c
// come from: its turns, or its simulated user, played offline in a
// reference run, replayed in a replay of a run that recorded it, else
// played by the user model (returned too, nil otherwise). The
// simulated user's turns are read from rec as they come.
func (s *Run) userSource(c eval.Case, rec *eval.Record) (source, *simulated) {
	st := s.Settings
	switch {
	case c.User == nil:
		return scripted(c.Turns), nil
	case st.Reference:
		return offline{user: *c.User}, nil
	case s.replay != nil:
		return replayed(s.replay.Users(rec.CaseRun())), nil
	}
	u := &simulated{chat: userChat(s.chat), user: *c.User, turns: func() []eval.TurnResult { return rec.Turns },
		cfg: agent.Config{Model: st.UserModel, Counter: s.counters[st.UserModel], Prices: s.prices}}
	return u, u
}

// asksNothing reports whether a reply asks the user nothing: no sentence
// of it ends in "?".
func asksNothing(reply string) bool {
	for _, tok := range grading.Parse(reply).Tokens {
		if tok.Question {
			return false
		}
	}
	return true
}
