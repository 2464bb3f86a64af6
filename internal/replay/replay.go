// Package replay answers a run's tool calls from an earlier run's recorded
// results (-replay-tools), so that models are compared, and a flipped case
// re-run, on frozen data with no server behind it.
//
// A Source is the earlier run: the tool surface it recorded in its
// summary (the servers' tools, offered again as they were) and the tool
// calls of its records, each with the fingerprint of its result, whose
// text the recordings store holds (package recordings), or the record
// itself when it kept the result whole. A Box is a case run's tool box:
// a call is answered by the recording of a call with the same server,
// tool and arguments, the arguments compared as the checks compare them
// (grading.ArgsKey: 99694174 matches "99694174", case is ignored). The
// recording of the same case run is preferred, in the order its calls
// were made (the second call of a tool with the same arguments gets the
// second recording); then that of another run of the case; then the
// first of the run. A call no recording matches gets an error the model
// reads, or, with a live tool box, the server's answer; either way the
// call's record says where its result came from (eval.ToolCall.Replay).
package replay

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/grading"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/recordings"
	"github.com/mcpeval/mcpeval/internal/runs"
)

// The ways an unmatched call is answered (-replay-unmatched).
const (
	// UnmatchedError tells the model that no recording matched.
	UnmatchedError = "error"
	// UnmatchedLive sends the call to the live server.
	UnmatchedLive = "live"
)

// Baseline names, for -replay-tools, the newest finished run whose tool
// results came from the servers: not a replay, not a re-judged run, not
// a shard.
const Baseline = "baseline"

// Resolve returns the run directory that name designates under the
// output directory out: a run directory, a run id, runs.Latest, or
// Baseline.
func Resolve(out, name string) (string, error) {
	if name != Baseline {
		return runs.Resolve(out, name)
	}
	r, ok := runs.Newest(out, func(s *eval.Summary) bool { return s.Replay == nil && s.Rejudged == nil && s.Shard == nil })
	if ok {
		return r.Dir, nil
	}
	return "", fmt.Errorf("no finished run in %s recorded its tool results from the servers (replays and re-judged runs do not count): run the suite first", out)
}

// Source is an earlier run's recorded tool results.
type Source struct {
	// ID is the run's id, Dir its directory.
	ID, Dir string
	// Servers are the servers the run recorded, with their tools.
	Servers []mcpconn.Recorded
	// Lost counts the recorded calls that cannot be replayed: their result
	// is neither in the store nor whole in their record, or their
	// arguments were cut in it.
	Lost int
	// Digest identifies what is replayed: a hash of the run's records,
	// which name every recorded result (a copy of the run directory with
	// other results has another).
	Digest string

	store *recordings.Store
	calls []recording
	// ran holds the names of the cases the run has records of.
	ran map[string]bool
	// byRun, byCase and first index calls: by case run and call, by case
	// name and call (the first), by call (the first).
	byRun  map[eval.CaseRun]map[callKey][]int
	byCase map[string]map[callKey]int
	first  map[callKey]int
	// users and usersByCase hold the messages of the simulated user
	// (eval.User) each record holds, in order: by case run (and the first
	// by case and repeat alone), and the first by case name.
	users       map[eval.CaseRun][]string
	usersByCase map[string][]string
}

// callKey is a call's server (short name), tool (its own name) and
// arguments (grading.ArgsKey).
type callKey struct{ server, tool, args string }

// recording is one recorded call's result.
type recording struct {
	fingerprint string
	// text is the result when the store does not hold it and the record
	// kept it whole; else "".
	text      string
	inline    bool
	isError   bool
	execution *eval.CodeExecution
}

// Load reads the run in dir: its summary's tool surface and its records'
// tool calls. store holds the results' texts.
func Load(dir string, store *recordings.Store) (*Source, error) {
	src := &Source{ID: filepath.Base(dir), Dir: dir, store: store, ran: map[string]bool{},
		byRun: map[eval.CaseRun]map[callKey][]int{}, byCase: map[string]map[callKey]int{}, first: map[callKey]int{},
		users: map[eval.CaseRun][]string{}, usersByCase: map[string][]string{}}
	sum, err := runs.ReadSummary(dir)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if sum.Tools == nil || len(sum.Tools.Servers) == 0 {
		return nil, fmt.Errorf("replay: run %s recorded no tool surface", src.ID)
	}
	src.ID = cmp.Or(sum.RunID, src.ID)
	for _, s := range sum.Tools.Servers {
		src.Servers = append(src.Servers, mcpconn.Recorded{Name: cmp.Or(s.ID, s.Name, s.Server), InfoName: s.Name, InfoVersion: s.Version, Tools: s.Surface})
	}
	if err := src.readCalls(filepath.Join(dir, eval.RecordsFile)); err != nil {
		return nil, err
	}
	return src, nil
}

// readCalls indexes the tool calls of the records in path.
func (src *Source) readCalls(path string) error {
	f, err := files.OpenRegular(path, files.MaxRunFile)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("replay: run %s has no records (%s)", src.ID, path)
	}
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	digest := sha256.New()
	seen := map[eval.CaseRun]bool{}
	err = eval.ReadLines(io.TeeReader(f, digest), func(n int, line []byte) error {
		var rec struct {
			eval.CaseRun
			ToolCalls []eval.ToolCall   `json:"tool_calls"`
			Turns     []eval.TurnResult `json:"turns"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return fmt.Errorf("%s:%d: not a record: %v", path, n, err)
		}
		if seen[rec.CaseRun] {
			return fmt.Errorf("%s:%d: a second record of case %q (model %q, arm %q, repeat %d): a run holds one record of each case run", path, n, rec.Name, rec.Model, rec.Arm, rec.Repeat)
		}
		seen[rec.CaseRun] = true
		src.ran[rec.Name] = true
		for _, call := range rec.ToolCalls {
			src.add(rec.CaseRun, call)
		}
		src.addUser(rec.CaseRun, rec.Turns)
		return nil
	})
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	src.Digest = hex.EncodeToString(digest.Sum(nil))[:32]
	return nil
}

// add indexes one recorded call, unless it got no result from a server
// or its result is lost.
func (src *Source) add(run eval.CaseRun, call eval.ToolCall) {
	if call.NotRun || call.Refused || call.Server == "" || call.Replay == eval.ReplayUnmatched {
		return
	}
	var args map[string]any
	if json.Unmarshal([]byte(cmp.Or(strings.TrimSpace(call.Arguments), "{}")), &args) != nil {
		if call.ArgumentsBytes > 0 {
			src.Lost++ // its arguments were cut in the record: no call can be matched to it
		}
		return
	}
	rec := recording{fingerprint: call.ResultFingerprint, isError: call.IsError, execution: call.Execution}
	switch whole := call.ResultBytes == 0; {
	case rec.fingerprint != "" && src.store != nil && src.store.Has(rec.fingerprint):
	case whole:
		rec.text, rec.inline = call.Result, true
	default:
		src.Lost++
		return
	}
	k := callKey{call.Server, call.Name, grading.ArgsKey(args)}
	i := len(src.calls)
	src.calls = append(src.calls, rec)
	if src.byRun[run] == nil {
		src.byRun[run] = map[callKey][]int{}
	}
	src.byRun[run][k] = append(src.byRun[run][k], i)
	if src.byCase[run.Name] == nil {
		src.byCase[run.Name] = map[callKey]int{}
	}
	if _, ok := src.byCase[run.Name][k]; !ok {
		src.byCase[run.Name][k] = i
	}
	if _, ok := src.first[k]; !ok {
		src.first[k] = i
	}
}

// addUser indexes the messages of the simulated user a record holds:
// those of its turns marked simulated, in order, none for a record of a
// case with a simulated user who was done at once.
func (src *Source) addUser(run eval.CaseRun, turns []eval.TurnResult) {
	users := []string{}
	for _, t := range turns {
		if t.Simulated {
			users = append(users, t.User)
		}
	}
	src.users[run] = users
	repeat := eval.CaseRun{Name: run.Name, Repeat: run.Repeat}
	if _, ok := src.users[repeat]; !ok {
		src.users[repeat] = users
	}
	if _, ok := src.usersByCase[run.Name]; !ok {
		src.usersByCase[run.Name] = users
	}
}

// Users returns the messages of the simulated user that the run recorded
// for a case run, in order: those of the same case run, else those of the
// first run of the case in the same repeat (another model's, another
// arm's), else those of the first run of the case it recorded.
func (src *Source) Users(run eval.CaseRun) []string {
	if users, ok := src.users[run]; ok {
		return users
	}
	if users, ok := src.users[eval.CaseRun{Name: run.Name, Repeat: run.Repeat}]; ok {
		return users
	}
	return src.usersByCase[run.Name]
}

// Ran reports whether the run has a record of the case named: a case it
// skipped, or did not select, has no recorded results to replay.
func (src *Source) Ran(name string) bool { return src.ran[name] }

// Box returns the tool box of one case run: it offers the tools of
// surface (a set of the recorded servers, see mcpconn.Offline, or a view
// of it) and answers from the recordings; live, when not nil, answers the
// calls no recording matches.
func (src *Source) Box(surface *mcpconn.Set, run eval.CaseRun, live *mcpconn.Set) *Box {
	return &Box{Set: surface, src: src, run: run, live: live, used: map[callKey]int{}}
}

// Box is a case run's tool box in a replay (see the package comment).
type Box struct {
	*mcpconn.Set
	src  *Source
	run  eval.CaseRun
	live *mcpconn.Set

	mu   sync.Mutex
	used map[callKey]int // the case run's recordings used, by call
}

// Call answers a call of the tool offered under name from the recordings.
func (b *Box) Call(ctx context.Context, name string, args map[string]any) (mcpconn.Result, error) {
	t, ok := b.Lookup(name)
	if !ok {
		return mcpconn.Result{}, fmt.Errorf("unknown tool %q", name)
	}
	if rec, ok := b.match(callKey{t.Server, t.Name, grading.ArgsKey(args)}); ok {
		text, err := b.src.text(rec)
		if err != nil {
			return mcpconn.Result{Replay: eval.ReplayUnmatched}, err
		}
		res := mcpconn.Result{Text: text, IsError: rec.isError, Execution: rec.execution, Replay: eval.ReplayRecorded}
		if !rec.inline {
			res.Fingerprint = rec.fingerprint
		}
		return res, nil
	}
	if b.live != nil {
		res, err := b.live.CallOn(ctx, t.Server, t.Name, args)
		res.Replay = eval.ReplayLive
		return res, err
	}
	msg := fmt.Sprintf("no recorded result for this call: the tool results are replayed from run %s, which made no call of %s with these arguments", b.src.ID, t.Name)
	return mcpconn.Result{Text: eval.ArgumentsJSON(map[string]string{"error": msg}), IsError: true, Replay: eval.ReplayUnmatched}, nil
}

// match finds the recording that answers a call (see the package
// comment).
func (b *Box) match(k callKey) (recording, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if own := b.src.byRun[b.run][k]; len(own) > 0 {
		i := own[min(b.used[k], len(own)-1)]
		b.used[k]++
		return b.src.calls[i], true
	}
	if i, ok := b.src.byCase[b.run.Name][k]; ok {
		return b.src.calls[i], true
	}
	if i, ok := b.src.first[k]; ok {
		return b.src.calls[i], true
	}
	return recording{}, false
}

// text returns a recording's result.
func (src *Source) text(rec recording) (string, error) {
	if rec.inline {
		return rec.text, nil
	}
	text, ok, err := src.store.Get(rec.fingerprint)
	switch {
	case err != nil:
		return "", err
	case !ok:
		return "", fmt.Errorf("the recorded result %s is no longer in %s", rec.fingerprint, src.store.Dir())
	}
	return text, nil
}
