package eval

// ToolSummary is the tool surface a run saw and how its cases used it:
// per server, each tool's description and input schema, which tools were
// called (coverage) and how each fared (health); the calls to tools no
// server offers; and how the surface differs from the previous run's.
type ToolSummary struct {
	// Hash identifies the surface (tools and servers); it is part of
	// every cache key.
	Hash    string        `json:"hash"`
	Servers []ServerTools `json:"servers"`
	// Unknown holds the calls to tool names no server offers; each of
	// them failed (Errors is Calls).
	Unknown []ToolStats `json:"unknown,omitempty"`
	// Overridden holds the calls each arm made to a tool whose definition
	// it replaces (an arms file's override): they are the arm's, not the
	// server's, and not in the server's Stats.
	Overridden []ArmToolStats `json:"overridden,omitempty"`
	// ByArm holds, when the run compares arms, each arm's calls to each
	// server tool it called, overridden or not: the tool health of each
	// arm, where Servers' Stats hold the servers' (an arm's overridden
	// calls left out).
	ByArm []ArmToolStats `json:"by_arm,omitempty"`
	// TokenLimit is the run's token limit for a tool result (0: none);
	// ToolStats.OverLimit counts the results above it.
	TokenLimit int `json:"token_limit"`
	// MinCoverage is the run's coverage gate in percent (0: none).
	MinCoverage float64 `json:"min_coverage,omitempty"`
	// Changes says how the surface differs from the previous run's; nil
	// when there was none to compare with.
	Changes *ToolChanges `json:"changes,omitempty"`
	// SelectedCases and LoadedCases are set when the run selected some of
	// the loaded cases (-run, -skip): coverage is then of the selected
	// cases' calls.
	SelectedCases int `json:"selected_cases,omitempty"`
	LoadedCases   int `json:"loaded_cases,omitempty"`
	// DefinitionTokens is the size of every tool definition the model is
	// offered, as the provider receives them with every request, counted
	// in Encoding, the evaluated model's encoding, as DefinitionMethod
	// says; MaxDefinitionTokens is the run's limit on it (0: none).
	DefinitionTokens    int    `json:"definition_tokens"`
	Encoding            string `json:"encoding,omitempty"`
	DefinitionMethod    string `json:"definition_method,omitempty"`
	MaxDefinitionTokens int    `json:"max_definition_tokens,omitempty"`
	// Dialect names the provider dialect the input schemas were adapted
	// to, and why ("" when they went as the servers wrote them); Adapted
	// holds each tool whose schema it changed, by the name the model is
	// offered it under, with the schema the model was sent.
	Dialect string `json:"dialect,omitempty"`
	Adapted []Tool `json:"adapted,omitempty"`
}

// ServerTools is one server's tool surface and its coverage.
type ServerTools struct {
	// Server is the server as the run names it (its command line, URL or
	// the bundled server's name); Name and Version come from its
	// serverInfo.
	Server string `json:"server"`
	// ID is the server's short name: its name in the servers file, else
	// its serverInfo name (the name tool calls carry, ToolCall.Server).
	ID      string `json:"id,omitempty"`
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
	// Tools counts the tools the server offers, Exercised those the run
	// called at least once; Coverage is Exercised in percent of Tools.
	Tools     int     `json:"tools"`
	Exercised int     `json:"exercised"`
	Coverage  float64 `json:"coverage"`
	// NeverCalled lists the tools no case called, by name.
	NeverCalled []string `json:"never_called"`
	// Surface holds each tool as the server listed it, sorted by name;
	// Stats holds each tool's health, in the same order.
	Surface []Tool      `json:"surface"`
	Stats   []ToolStats `json:"stats"`
	// Protocol is the MCP revision the server was reached on.
	Protocol string `json:"protocol,omitempty"`
	// Roots are the roots the server was offered (file:// URIs); none
	// when none were configured for it.
	Roots []string `json:"roots,omitempty"`
	// Isolation says how the server's cases were kept apart: "" (one
	// process for the run), "per case" (a fresh process and state for each
	// case) or "reset" (a reset command before each case that calls it,
	// one case at a time).
	Isolation string `json:"isolation,omitempty"`
	// DefinitionTokens is the size of the server's tool definitions as the
	// provider receives them (see ToolSummary.DefinitionTokens).
	DefinitionTokens int `json:"definition_tokens"`
	// Parameters counts the parameters of the server's tools (each input
	// schema's top-level properties), ParametersPassed those some call
	// passed; ParameterCoverage is the second in percent of the first.
	Parameters        int     `json:"parameters"`
	ParametersPassed  int     `json:"parameters_passed"`
	ParameterCoverage float64 `json:"parameter_coverage"`
	// ResourceReads counts the calls that read a resource a tool of the
	// server linked to (ReadResourceTool).
	ResourceReads int `json:"resource_reads,omitempty"`
}

// ToolStats is the health of one tool over a run's cases.
type ToolStats struct {
	Name string `json:"name"`
	// Calls counts every call the model made to the tool; Cases the cases
	// (by name, repeats once) that made at least one.
	Calls int `json:"calls"`
	Cases int `json:"cases"`
	// Errors counts the calls that failed in any of the ways below (a call
	// counted once); ErrorRate is Errors / Calls.
	Errors    int     `json:"errors"`
	ErrorRate float64 `json:"error_rate"`
	// ErrorResults counts results the tool flagged as errors (isError);
	// Refused the calls the server answered with an error instead of a
	// result (a protocol error, a timeout, a crash); ArgumentErrors the
	// calls whose arguments were not a JSON object or did not match the
	// tool's input schema.
	ErrorResults int `json:"error_results"`
	// ExpectedErrors counts the failed calls a case asked for (see
	// ToolCall.ExpectedError): not errors, not in ErrorRate, and in none of
	// the kinds below.
	ExpectedErrors int `json:"expected_errors,omitempty"`
	Refused        int `json:"refused"`
	ArgumentErrors int `json:"argument_errors"`
	// NotRun counts the calls that never reached the server (arguments
	// that are not JSON, one call too many in a turn).
	NotRun int `json:"not_run,omitempty"`
	// LatencyP50MS and LatencyP95MS are the server's time per call that
	// reached it, in milliseconds.
	LatencyP50MS float64 `json:"latency_p50_ms"`
	LatencyP95MS float64 `json:"latency_p95_ms"`
	// ResultTokensP50 and ResultTokensMax measure the results in tokens;
	// OverLimit counts those above the token limit.
	ResultTokensP50 int `json:"result_tokens_p50"`
	ResultTokensMax int `json:"result_tokens_max"`
	OverLimit       int `json:"over_limit"`
	// PassShare is the share of the calls whose case passed.
	PassShare float64 `json:"pass_share"`
	// SchemaProblem says why the arguments could not be checked against
	// the tool's input schema (it does not compile, or was too costly to
	// check against some); "" when they were.
	SchemaProblem string `json:"schema_problem,omitempty"`
	// Unchecked counts the calls whose arguments or result were too
	// costly to check against the tool's schema (a hostile schema's): kept,
	// and counted as no error.
	Unchecked int `json:"unchecked,omitempty"`
	// OutputErrors counts the results whose structuredContent broke the
	// tool's output schema (each also an error); OutputProblems says how,
	// with the path that failed, the first few distinct ones.
	OutputErrors   int      `json:"output_errors,omitempty"`
	OutputProblems []string `json:"output_problems,omitempty"`
	// Elicitations counts the requests for the user's input the calls met;
	// Unscripted those no case scripted a reply to (declined).
	Elicitations int `json:"elicitations,omitempty"`
	Unscripted   int `json:"unscripted_elicitations,omitempty"`
	// DefinitionTokens is the size of the tool's definition (name,
	// description, input schema) as the provider receives it.
	DefinitionTokens int `json:"definition_tokens"`
	// Parameters are the tool's parameters, in its schema's order, each
	// with the calls that passed it.
	Parameters []ParameterUse `json:"parameters,omitempty"`
}

// ParameterUse is one parameter of a tool (a top-level property of its
// input schema) and how many calls that reached the server passed it.
type ParameterUse struct {
	Name     string `json:"name"`
	Required bool   `json:"required,omitempty"`
	Calls    int    `json:"calls"`
}

// ToolChanges is how a run's tool surface differs from an earlier run's.
type ToolChanges struct {
	// Since is the id of the earlier run.
	Since string `json:"since"`
	// Added and Removed are tools offered by one run only.
	Added   []ToolRef `json:"added,omitempty"`
	Removed []ToolRef `json:"removed,omitempty"`
	// Changed are the tools offered by both whose description or input
	// schema differ.
	Changed []ToolChange `json:"changed,omitempty"`
	// Servers are the servers (by serverInfo name) that one run had and
	// the other had not, or that changed version.
	Servers []ServerChange `json:"servers,omitempty"`
	// InvalidatedPasses counts the cached passes of the loaded cases that
	// the change made unusable: the tool surface is part of the cache key,
	// so those cases run again. Reference runs use no cache: 0.
	InvalidatedPasses int `json:"invalidated_passes"`
	// Tokens is how the size of the tool definitions changed; nil when a
	// run did not count it, or the runs counted in other encodings.
	Tokens *TokenChange `json:"tokens,omitempty"`
}

// Empty reports whether nothing changed.
func (c *ToolChanges) Empty() bool {
	return c == nil || len(c.Added)+len(c.Removed)+len(c.Changed)+len(c.Servers) == 0 && !c.Tokens.Changed()
}

// TokenChange is the size of the tool definitions in two runs, in tokens
// of one encoding, in all and for each tool whose definition grew.
type TokenChange struct {
	Encoding string `json:"encoding"`
	Before   int    `json:"before"`
	Now      int    `json:"now"`
	// Grew are the tools whose definitions grew (new tools included), the
	// largest growth first.
	Grew []ToolTokens `json:"grew,omitempty"`
}

// Changed reports whether the size changed.
func (t *TokenChange) Changed() bool { return t != nil && t.Before != t.Now }

// Growth reports whether the definitions grew: the context tax of every
// request went up.
func (t *TokenChange) Growth() bool { return t != nil && t.Now > t.Before }

// ToolTokens is the size of one tool's definition in two runs.
type ToolTokens struct {
	Tool   string `json:"tool"`
	Before int    `json:"before"`
	Now    int    `json:"now"`
}

// ToolRef names a tool and the server that offers it.
type ToolRef struct {
	Tool   string `json:"tool"`
	Server string `json:"server"`
}

// ToolChange is a tool whose description or input schema changed.
type ToolChange struct {
	ToolRef
	// OldDescription and NewDescription are set when the description
	// changed.
	OldDescription     string `json:"old_description,omitempty"`
	NewDescription     string `json:"new_description,omitempty"`
	DescriptionChanged bool   `json:"description_changed,omitempty"`
	// SchemaDiff is a unified diff of the two input schemas, indented
	// JSON with sorted keys; "" when the schema did not change.
	SchemaDiff string `json:"schema_diff,omitempty"`
}

// ServerChange is a server that appeared, disappeared or changed version.
type ServerChange struct {
	Name       string `json:"name"`
	OldVersion string `json:"old_version,omitempty"`
	NewVersion string `json:"new_version,omitempty"`
	// Added and Removed say the server is in one run only.
	Added   bool `json:"added,omitempty"`
	Removed bool `json:"removed,omitempty"`
}

// ArmToolStats are an arm's calls to a tool it overrides, on the server of
// short name Server.
type ArmToolStats struct {
	Arm    string `json:"arm"`
	Server string `json:"server"`
	ToolStats
}
