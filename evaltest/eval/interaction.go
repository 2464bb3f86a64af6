package eval

// ReadResourceTool is the tool the suite offers the model, once a tool
// result returned a resource link, to read a linked resource by its URI.
// Its calls are recorded under this name with the server that returned
// the link.
const ReadResourceTool = "read_resource_link"

// The user's answers to an elicitation request (MCP's actions).
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// Elicitation is one round trip of a server's request for input from the
// user during a tool call: what it asked, and the reply it got.
type Elicitation struct {
	Message string `json:"message"`
	// Mode is "url" for a request to open a URL (URL names it); "" for a
	// form.
	Mode string `json:"mode,omitempty"`
	URL  string `json:"url,omitempty"`
	// Fields are the properties the form asks for, in the order of the
	// requested schema.
	Fields []string `json:"fields,omitempty"`
	// Action is the reply: accept (with Content), decline or cancel.
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
	// Scripted is true when the case scripted the reply; an elicitation
	// no case scripted is declined.
	Scripted bool `json:"scripted"`
	// Note says how the request was tied to the call when the server did
	// not say (several calls in flight on a connection that cannot tell).
	Note string `json:"note,omitempty"`
}

// ElicitReply is one scripted reply of a case to elicitation requests:
// with Field, it answers every request that asks for that field; without,
// the next request in order that no reply by field answers.
type ElicitReply struct {
	Field string `yaml:"field" json:"field,omitempty"`
	// Action is accept, decline or cancel; accept when Content is given
	// and Action is not.
	Action  string         `yaml:"action" json:"action,omitempty"`
	Content map[string]any `yaml:"content" json:"content,omitempty"`
}

// Elicited asks that a call of Tool met an elicitation request that got
// the reply Action (any reply when empty).
type Elicited struct {
	Tool   string `yaml:"tool" json:"tool"`
	Action string `yaml:"action" json:"action,omitempty"`
}

// TaskRun is how a tool call that ran as a task went: the task's id, its
// last status and how often it was polled.
type TaskRun struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Polls  int    `json:"polls"`
}

// ResourceLink is a link to a resource a tool result returned.
type ResourceLink struct {
	URI      string `json:"uri"`
	Name     string `json:"name,omitempty"`
	MIMEType string `json:"mime_type,omitempty"`
}
