package eval

// User is a case's simulated user: a model (EVAL_USER_MODEL) plays them
// after the case's Input, which is their first message, answering each
// of the agent's replies until they are done (see UserStop) or MaxTurns
// is reached. The agent's last reply is the final answer, graded by the
// case's own Expected, Checks or Claims, its tool expectations over
// every turn's calls.
type User struct {
	// Instructions say who the user is and what they want, in the words
	// the model playing them is given.
	Instructions string `yaml:"instructions" json:"instructions"`
	// Knows are facts the user gives only when the agent asks for them.
	Knows []UserFact `yaml:"knows" json:"knows,omitempty"`
	// Stop says when the conversation ends: StopUser (the default) or
	// StopAnswer.
	Stop string `yaml:"stop" json:"stop,omitempty"`
	// MaxTurns bounds the user's messages, the first included; 0 means
	// DefaultMaxTurns.
	MaxTurns int `yaml:"max_turns" json:"max_turns,omitempty"`
}

// The ways a conversation with a simulated user ends (User.Stop).
const (
	// StopUser: the simulated user says they are done.
	StopUser = "user"
	// StopAnswer: the agent replies without asking anything (no sentence
	// of its reply ends in "?"): that reply is the final answer. The
	// simulated user may also end it before.
	StopAnswer = "answer"
)

// Bounds of User.MaxTurns.
const (
	DefaultMaxTurns = 6
	MaxTurns        = 20
)

// Turns returns the most turns of a conversation with the user.
func (u User) Turns() int {
	if u.MaxTurns == 0 {
		return DefaultMaxTurns
	}
	return u.MaxTurns
}

// StopRule returns how the conversation ends: Stop, or StopUser.
func (u User) StopRule() string {
	if u.Stop == "" {
		return StopUser
	}
	return u.Stop
}

// UserFact is something a simulated user knows and gives only when the
// agent asks for it. A message of the user that states it (any of its
// spellings) when the agent's message before it names none of When is
// a leak: the agent got the fact without asking.
type UserFact struct {
	// Fact is what the user knows, in their words.
	Fact string `yaml:"fact" json:"fact"`
	// Any lists the words that state the fact in a message, whole words in
	// any case (a final "*" matches the rest of a word); none: the fact
	// itself.
	Any Spellings `yaml:"any" json:"any,omitempty"`
	// When lists the words of an agent's message that ask for the fact,
	// matched alike.
	When Spellings `yaml:"when" json:"when"`
}

// Spellings returns the words that state the fact: Any, or the fact.
func (f UserFact) Spellings() []string {
	if len(f.Any) > 0 {
		return f.Any
	}
	return []string{f.Fact}
}
