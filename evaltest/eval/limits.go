package eval

import (
	"fmt"
	"unicode/utf8"
)

// MaxStoredText bounds, in bytes, each text of a record that a model or a
// server produced: the answer, every tool call's arguments and result, every
// message of the conversation (a simulated user's too), the judge's reason
// and reply. What a hostile
// model or server sends can then exhaust neither memory nor disk in
// results.jsonl, the cache and the report; checks and the judge see the
// whole text before it is cut.
const MaxStoredText = 256 << 10

// Limit cuts every text of r that a model or a server produced to at most
// max bytes (at a character boundary) and marks each cut at its end with the
// full size. The full size of a cut answer, tool result or argument text is
// also kept in its *Bytes field. It reports whether anything was cut.
func (r *Record) Limit(max int) bool {
	cut := false
	limit := func(s *string, full *int) {
		if n, ok := limitText(s, max); ok {
			cut = true
			if full != nil {
				*full = n
			}
		}
	}
	limit(&r.Response, &r.ResponseBytes)
	limit(&r.Reason, nil)
	limit(&r.JudgeRaw, nil)
	limit(&r.JudgePrompt, nil)
	limit(&r.JudgeReply, nil)
	for i := range r.Judges {
		limit(&r.Judges[i].Raw, nil)
		limit(&r.Judges[i].Reply, nil)
	}
	for i := range r.ToolCalls {
		tc := &r.ToolCalls[i]
		limit(&tc.Result, &tc.ResultBytes)
		limit(&tc.Arguments, &tc.ArgumentsBytes)
	}
	for i := range r.Turns {
		t := &r.Turns[i]
		limit(&t.Reply, nil)
		limit(&t.Reason, nil)
		if t.Simulated { // a model's message, as the replies are
			limit(&t.User, nil)
		}
	}
	for i := range r.Conversation {
		m := &r.Conversation[i]
		limit(&m.Content, &m.ContentBytes)
		for j := range m.ToolCalls {
			f := &m.ToolCalls[j].Function
			limit(&f.Arguments, &f.ArgumentsBytes)
		}
	}
	return cut
}

// limitText cuts *s to at most max bytes, its mark included, at a
// character boundary, and returns its full length; ok is false when it was
// within max.
func limitText(s *string, max int) (full int, ok bool) {
	full = len(*s)
	if full <= max {
		return full, false
	}
	keep := max - markReserve
	if keep < 0 {
		keep = 0
	}
	for keep > 0 && !utf8.RuneStart((*s)[keep]) {
		keep--
	}
	*s = (*s)[:keep] + fmt.Sprintf("\n[cut: %d bytes in all, the first %d kept]", full, keep)
	return full, true
}

// markReserve is the room kept for the mark of a cut.
const markReserve = 64
