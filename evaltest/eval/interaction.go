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
	// Message is the server's message to the user, cut at 4 KiB.
	Message string `json:"message"`
	// Mode is "url" for a request to open a URL (URL names it); "" for a
	// form.
	Mode string `json:"mode,omitempty"`
	// URL is the URL a "url" request asks to open; "" for a form.
	URL string `json:"url,omitempty"`
	// Fields are the properties the form asks for, in the order of the
	// requested schema.
	Fields []string `json:"fields,omitempty"`
	// Action is the reply: accept (with Content), decline or cancel.
	Action string `json:"action"`
	// Content is the form's content the reply gave; nil when it gave none.
	Content map[string]any `json:"content,omitempty"`
	// Scripted is true when the case scripted the reply; an elicitation
	// no case scripted is declined, unless the case's simulated user
	// replies.
	Scripted bool `json:"scripted"`
	// Simulated is true when the case's simulated user gave the reply
	// (see User), the case scripting none.
	Simulated bool `json:"simulated,omitempty"`
	// Note says how the request was tied to the call when the server did
	// not say (several calls in flight on a connection that cannot tell).
	Note string `json:"note,omitempty"`
}

// ElicitReply is one scripted reply of a case to elicitation requests:
// with Field, it answers every request that asks for that field; without,
// the next request in order that no reply by field answers.
type ElicitReply struct {
	// Field is the property a request must ask for to get this reply; ""
	// for a reply given in order.
	Field string `yaml:"field" json:"field,omitempty"`
	// Action is accept, decline or cancel; accept when Content is given
	// and Action is not.
	Action string `yaml:"action" json:"action,omitempty"`
	// Content is the form's content an accept replies with.
	Content map[string]any `yaml:"content" json:"content,omitempty"`
}

// Elicited asks that a call of Tool met an elicitation request that got
// the reply Action (any reply when empty).
type Elicited struct {
	// Tool names the tool, as ToolExpect.MustCall does.
	Tool string `yaml:"tool" json:"tool"`
	// Action is the reply asked for (accept, decline, cancel); "" for any.
	Action string `yaml:"action" json:"action,omitempty"`
}

// TaskRun is how a tool call that ran as a task went: the task's id, its
// last status and how often it was polled.
type TaskRun struct {
	// ID is the task's id, as the server gave it.
	ID string `json:"id"`
	// Status is the task's last status the server reported ("completed",
	// "failed", ...).
	Status string `json:"status"`
	// Polls counts the task status requests the suite sent.
	Polls int `json:"polls"`
}

// ResourceLink is a link to a resource a tool result returned.
type ResourceLink struct {
	// URI is the resource's URI.
	URI string `json:"uri"`
	// Name is the resource's name, as the link gives it.
	Name string `json:"name,omitempty"`
	// MIMEType is the resource's MIME type (JSON "mime_type"); "" when the
	// link gives none.
	MIMEType string `json:"mime_type,omitempty"`
}
