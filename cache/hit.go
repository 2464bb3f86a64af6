package cache

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	// encoding/json's semantics in half its time: a cached run decodes
	// every case's entry.
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/recordings"
)

// formatWhole is the file format whose entries hold whole records.
const formatWhole = 1

// Hit is a stored result that Lookup found: what a cached run needs to
// decide and count the case, decoded, and the whole record, read only when
// asked for.
type Hit struct {
	// Record is the stored record with Cached set, without its large
	// texts (see lean): no question, expected answer, answer, judge
	// prompt or replies, conversation, or tool results whose tokens were
	// counted. In an entry of format version 1 it is whole.
	Record eval.Record
	// fingerprint names the whole record's JSON in the recordings store;
	// "" when Record is whole.
	fingerprint string
	store       *recordings.Store
}

// Whole reports whether Record is the whole record (an entry of format
// version 1, not rewritten yet).
func (h Hit) Whole() bool { return h.fingerprint == "" }

// JSON returns the whole record's JSON (compact, Cached false) as it was
// stored, from the recordings store beside the cache. It fails when the
// store no longer holds it (a cache file copied without its recordings
// directory, a store deleted): Record is then all there is.
func (h Hit) JSON() ([]byte, error) {
	if h.Whole() {
		r := h.Record
		r.Cached = false
		return json.Marshal(r)
	}
	data, ok, err := h.store.Bytes(h.fingerprint)
	if err == nil && !ok {
		err = fmt.Errorf("the recordings beside the cache (%s) do not hold it", h.store.Dir())
	}
	if err != nil {
		return nil, fmt.Errorf("whole record %s: %w", h.fingerprint, err)
	}
	return data, nil
}

// Full returns the whole record, with Cached set: Record with its large
// texts put back from the whole record (a text the entry holds wins, so an
// entry edited by hand reads as edited). On an error (see JSON) it
// returns Record as well.
func (h Hit) Full() (eval.Record, error) {
	if h.Whole() {
		return h.Record, nil
	}
	data, err := h.JSON()
	if err != nil {
		return h.Record, err
	}
	var whole eval.Record
	if err := json.Unmarshal(data, &whole); err != nil {
		return h.Record, fmt.Errorf("whole record %s: %w", h.fingerprint, err)
	}
	return restore(h.Record, whole), nil
}

// restore puts back into r, a record lean returned, the large texts of
// whole, the record it was made from: each one r has empty (one set in an
// entry edited by hand stays).
func restore(r, whole eval.Record) eval.Record {
	fill := func(dst *string, src string) {
		if *dst == "" {
			*dst = src
		}
	}
	fill(&r.Question, whole.Question)
	fill(&r.Expected, whole.Expected)
	fill(&r.Response, whole.Response)
	fill(&r.JudgeRaw, whole.JudgeRaw)
	fill(&r.JudgePrompt, whole.JudgePrompt)
	fill(&r.JudgeReply, whole.JudgeReply)
	if r.Conversation == nil {
		r.Conversation = whole.Conversation
	}
	if len(r.ToolCalls) == len(whole.ToolCalls) {
		for i := range r.ToolCalls {
			fill(&r.ToolCalls[i].Result, whole.ToolCalls[i].Result)
		}
	}
	if len(r.Judges) == len(whole.Judges) {
		for i := range r.Judges {
			fill(&r.Judges[i].Reply, whole.Judges[i].Reply)
		}
	}
	if len(r.Turns) == len(whole.Turns) {
		for i := range r.Turns {
			fill(&r.Turns[i].User, whole.Turns[i].User)
			fill(&r.Turns[i].Reply, whole.Turns[i].Reply)
		}
	}
	return r
}

// Lookup returns the stored result for key if it can be reused (see
// shouldStore), without its large texts. It answers from the files as
// this Cache last read them, plus its own Puts; an entry that cannot be
// read is a miss with a warning.
func (c *Cache) Lookup(key string) (Hit, bool) {
	buf := readBuffers.Get().(*[]byte)
	defer putReadBuffer(buf)
	raw, err := c.lookup(key, buf)
	if err == nil && raw == nil {
		return Hit{}, false
	}
	var e entry
	if err == nil {
		err = jsonv1.Unmarshal(raw, &e)
	}
	if err == nil && e.RecordFingerprint != "" && !recordings.ValidFingerprint(e.RecordFingerprint) {
		err = errors.New("record_fingerprint is not a fingerprint")
	}
	if err != nil {
		c.warn(fmt.Sprintf("cache entry %s in %s cannot be read (%v); the case runs again", key, c.path, err))
		return Hit{}, false
	}
	if !shouldStore(e.Record) {
		return Hit{}, false
	}
	e.Record.Cached = true
	return Hit{Record: e.Record, fingerprint: e.RecordFingerprint, store: c.store}, true
}

// lean returns r without the large texts a cached run does not need to
// decide and count a case: the question and expected answer (the case's,
// which the key holds), the answer, the judge's prompt and replies, the
// conversation, the user's messages and replies of each turn, and the
// results of the tool calls whose tokens were counted (the tool
// statistics count the others). What stays is small: the outcome, its
// reason, the checks, the judges' verdicts, the tool calls' names,
// arguments and timings, usage and metrics.
func lean(r eval.Record) eval.Record {
	r.Question, r.Expected, r.Response = "", "", ""
	r.JudgeRaw, r.JudgePrompt, r.JudgeReply = "", "", ""
	r.Conversation = nil
	if len(r.ToolCalls) > 0 {
		r.ToolCalls = slices.Clone(r.ToolCalls)
		for i, tc := range r.ToolCalls {
			if tc.ResultTokens > 0 {
				r.ToolCalls[i].Result = ""
			}
		}
	}
	if len(r.Judges) > 0 {
		r.Judges = slices.Clone(r.Judges)
		for i := range r.Judges {
			r.Judges[i].Reply = ""
		}
	}
	if len(r.Turns) > 0 {
		r.Turns = slices.Clone(r.Turns)
		for i := range r.Turns {
			r.Turns[i].User, r.Turns[i].Reply = "", ""
		}
	}
	return r
}
