package eval

// Statuses returns every outcome a case run can have, in the order the
// docs, the closing lines and the report list them. The table of statuses
// in docs/outcomes.md is checked against it, meaning by meaning.
func Statuses() []Status { return []Status{Pass, Fail, Undecided, TokenLimit, Error, Cut, NotRun} }

// Meaning says what a status means, as docs/outcomes.md's table says it.
func (s Status) Meaning() string {
	switch s {
	case Pass:
		return "every check held and the judge said yes"
	case Fail:
		return "a check failed, the judge said no, the answer was empty, or the model ran out of turns"
	case Undecided:
		return "the checks were not sure and no judge ran to decide, or the judge could not decide (its reply was unclear, and so was its reply when asked again); neither a pass nor a failure of the model"
	case TokenLimit:
		return "a tool result, or the judge prompt, exceeded the token limit (`token count exceeded: N > 100,000`); or a request did not fit the model's context window: the provider refused it as too long (OpenAI's and vLLM's \"maximum context length\", llama.cpp's `exceed_context_size_error`, Anthropic's \"prompt is too long\", ...), or cut its prompt silently (a local server with a small context: Ollama keeps half of `num_ctx`), seen when the provider counts under half the tokens the request's messages hold; the reason names the setting to raise (Ollama's `num_ctx` or `OLLAMA_CONTEXT_LENGTH`, llama.cpp's `--ctx-size`, vLLM's `--max-model-len`)"
	case Error:
		return "the provider, a server or the harness failed, timeouts included"
	case Cut:
		return "the provider cut the model's reply off (its output token limit, `finish_reason: \"length\"`, or its content filter); the reply is not graded, and JUnit counts it as an error"
	case NotRun:
		return "the case did not run: the budget was spent, the run stopped (an interrupt, a provider that cannot be reached, `-failfast`), or an interrupt cancelled it while it ran. It is counted as not run, never as a run of its case: with `-count=N` the case's status, pass rate, pass@k, pass^k and flakiness are over the runs that ran; JUnit counts a case none of whose runs ran as skipped"
	}
	return ""
}
