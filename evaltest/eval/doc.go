// Package eval is the record model every stage of a run shares: the case as
// its YAML file states it, the tools a server offers, the record of one
// evaluated case (its tool calls, conversation, verdict, checks, usage,
// timing and typed metrics), the run summary, and the metrics files.
//
// Records are what the suite appends to results.jsonl, what the cache
// stores, what the report renders and what JUnit and the test output
// describe; the JSON tags are the files' format. Nothing here computes: the
// scoring package fills Metrics, the suite fills the rest.
package eval
