package eval

// ToolSummary is the tool surface a run saw and how its cases used it:
// per server, each tool's description and input schema, which tools were
// called (coverage) and how each fared (health); the calls to tools no
// server offers; and how the surface differs from the previous run's.
type ToolSummary struct {
	// Hash identifies the surface (tools and servers); it is part of
	// every cache key.
	Hash string `json:"hash"`
	// Servers holds each server's tools, coverage and health, in the
	// order the run named the servers.
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
	// SelectedCases is set when the run selected some of the loaded cases
	// (-run, -skip): their number; coverage is then of their calls.
	SelectedCases int `json:"selected_cases,omitempty"`
	// LoadedCases is the number of loaded cases, set with SelectedCases.
	LoadedCases int `json:"loaded_cases,omitempty"`
	// DefinitionTokens is the size of every tool definition the model is
	// offered, as the provider receives them with every request, counted
	// in Encoding as DefinitionMethod says.
	DefinitionTokens int `json:"definition_tokens"`
	// Encoding is the tiktoken encoding of the evaluated model that
	// DefinitionTokens counts in ("cl100k_base", "o200k_base").
	Encoding string `json:"encoding,omitempty"`
	// DefinitionMethod says what a definition's count holds
	// ("name+description+parameters+8"); counts of other methods differ.
	DefinitionMethod string `json:"definition_method,omitempty"`
	// MaxDefinitionTokens is the run's limit on DefinitionTokens (0: none).
	MaxDefinitionTokens int `json:"max_definition_tokens,omitempty"`
	// Dialect names the provider dialect the input schemas were adapted
	// to, and why ("" when they went as the servers wrote them).
	Dialect string `json:"dialect,omitempty"`
	// Adapted holds each tool whose schema the dialect changed, by the
	// name the model is offered it under, with the schema the model was sent.
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
	ID string `json:"id,omitempty"`
	// Name is the server's serverInfo name.
	Name string `json:"name,omitempty"`
	// Version is the server's serverInfo version.
	Version string `json:"version,omitempty"`
	// Tools counts the tools the server offers.
	Tools int `json:"tools"`
	// Exercised counts those the run called at least once.
	Exercised int `json:"exercised"`
	// Coverage is Exercised in percent of Tools (0 to 100, not a share);
	// 0 for a server without tools.
	Coverage float64 `json:"coverage"`
	// NeverCalled lists the tools no case called, by name.
	NeverCalled []string `json:"never_called"`
	// Surface holds each tool as the server listed it, sorted by name.
	Surface []Tool `json:"surface"`
	// Stats holds each tool's health, in the order of Surface.
	Stats []ToolStats `json:"stats"`
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
	// schema's top-level properties).
	Parameters int `json:"parameters"`
	// ParametersPassed counts those some call passed (see ParameterUse).
	ParametersPassed int `json:"parameters_passed"`
	// ParameterCoverage is ParametersPassed in percent of Parameters (0 to
	// 100); 0 without parameters.
	ParameterCoverage float64 `json:"parameter_coverage"`
	// ResourceReads counts the calls that read a resource a tool of the
	// server linked to (ReadResourceTool).
	ResourceReads int `json:"resource_reads,omitempty"`
}

// ToolStats is the health of one tool over a run's cases.
type ToolStats struct {
	// Name is the tool's name on its server (for Unknown, as called).
	Name string `json:"name"`
	// Calls counts every call the model made to the tool.
	Calls int `json:"calls"`
	// Cases counts the cases (by name, repeats once) that made at least one.
	Cases int `json:"cases"`
	// Errors counts the calls that failed in any of the ways below (a call
	// counted once).
	Errors int `json:"errors"`
	// ErrorRate is Errors / Calls, in [0, 1]; 0 without calls.
	ErrorRate float64 `json:"error_rate"`
	// ErrorResults counts results the tool flagged as errors (isError).
	ErrorResults int `json:"error_results"`
	// ExpectedErrors counts the failed calls a case asked for (see
	// ToolCall.ExpectedError): not errors, not in ErrorRate, and in none of
	// the kinds below.
	ExpectedErrors int `json:"expected_errors,omitempty"`
	// Refused counts the calls the server answered with an error instead
	// of a result (a protocol error, a timeout, a crash).
	Refused int `json:"refused"`
	// ArgumentErrors counts the calls whose arguments were not a JSON
	// object or did not match the tool's input schema.
	ArgumentErrors int `json:"argument_errors"`
	// NotRun counts the calls that never reached the server (arguments
	// that are not JSON, one call too many in one reply).
	NotRun int `json:"not_run,omitempty"`
	// LatencyP50MS is the median time of the calls that reached the
	// server, in milliseconds (ToolCall.DurationMS, nearest rank).
	LatencyP50MS float64 `json:"latency_p50_ms"`
	// LatencyP95MS is their 95th percentile, in milliseconds.
	LatencyP95MS float64 `json:"latency_p95_ms"`
	// ResultTokensP50 is the median size of the results, in tokens.
	ResultTokensP50 int `json:"result_tokens_p50"`
	// ResultTokensMax is the largest result's size, in tokens.
	ResultTokensMax int `json:"result_tokens_max"`
	// OverLimit counts the results above the token limit
	// (ToolSummary.TokenLimit).
	OverLimit int `json:"over_limit"`
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
	// tool's output schema (each also an error).
	OutputErrors int `json:"output_errors,omitempty"`
	// OutputProblems says how, with the path that failed: the first three
	// distinct ones.
	OutputProblems []string `json:"output_problems,omitempty"`
	// Elicitations counts the requests for the user's input the calls met.
	Elicitations int `json:"elicitations,omitempty"`
	// Unscripted counts those no case scripted a reply to, which were
	// declined (JSON "unscripted_elicitations").
	Unscripted int `json:"unscripted_elicitations,omitempty"`
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
	// Name is the parameter's name.
	Name string `json:"name"`
	// Required is true when the schema lists it as required.
	Required bool `json:"required,omitempty"`
	// Calls counts the calls the server answered without an error that
	// passed it (not as null).
	Calls int `json:"calls"`
}

// ToolChanges is how a run's tool surface differs from an earlier run's.
type ToolChanges struct {
	// Since is the id of the earlier run.
	Since string `json:"since"`
	// Added are the tools offered now and not by the earlier run.
	Added []ToolRef `json:"added,omitempty"`
	// Removed are the tools the earlier run offered and this one does not.
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
	// Encoding is the encoding both runs counted in.
	Encoding string `json:"encoding"`
	// Before is the earlier run's ToolSummary.DefinitionTokens.
	Before int `json:"before"`
	// Now is this run's.
	Now int `json:"now"`
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
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// Before is its definition's tokens in the earlier run; 0 for a new tool.
	Before int `json:"before"`
	// Now is its definition's tokens in this run.
	Now int `json:"now"`
}

// ToolRef names a tool and the server that offers it.
type ToolRef struct {
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// Server is the server's serverInfo name, else its name in the run
	// (ServerTools.Server).
	Server string `json:"server"`
}

// ToolChange is a tool whose description or input schema changed.
type ToolChange struct {
	ToolRef
	// OldDescription is the earlier description, set when it changed.
	OldDescription string `json:"old_description,omitempty"`
	// NewDescription is the current description, set when it changed.
	NewDescription string `json:"new_description,omitempty"`
	// DescriptionChanged is true when the description changed (either
	// side may be "").
	DescriptionChanged bool `json:"description_changed,omitempty"`
	// SchemaDiff is a unified diff of the two input schemas, indented
	// JSON with sorted keys; "" when the schema did not change.
	SchemaDiff string `json:"schema_diff,omitempty"`
}

// ServerChange is a server that appeared, disappeared or changed version.
type ServerChange struct {
	// Name is the server's serverInfo name, else its name in the run.
	Name string `json:"name"`
	// OldVersion is its version in the earlier run; "" for an added server.
	OldVersion string `json:"old_version,omitempty"`
	// NewVersion is its version now; "" for a removed server.
	NewVersion string `json:"new_version,omitempty"`
	// Added says the server is in this run only.
	Added bool `json:"added,omitempty"`
	// Removed says the server was in the earlier run only.
	Removed bool `json:"removed,omitempty"`
}

// ArmToolStats are an arm's calls to a tool it overrides, on the server of
// short name Server.
type ArmToolStats struct {
	// Arm is the arm's name.
	Arm string `json:"arm"`
	// Server is the short name of the server that offers the tool
	// (ServerTools.ID).
	Server string `json:"server"`
	ToolStats
}
