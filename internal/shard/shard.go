// Package shard splits one run over several processes (a CI matrix, a
// Kubernetes Indexed Job): every case run, a case with one model in one
// repeat, belongs to exactly one of n shards, so the shards are disjoint
// and together cover every selected case run.
//
// By default a case run's shard follows from its identity alone (the case
// file, the case name, the model and the repeat index) by rendezvous
// hashing: the shard j with the highest hash of (identity, j). Adding,
// removing or renaming a case therefore moves no other case, and every
// process computes the same assignment without talking to the others.
//
// Balanced by history (Balance History): the case runs whose duration is
// known from an earlier run and that will really run (not served from the
// cache) are placed greedily, longest first, each on the shard with the
// least known work so far (ties go to the shard the hash prefers); the
// others are placed by the hash and count for nothing. Every shard
// computes the same plan only when every shard sees the same history (the
// same carried cache); Plan.Fingerprint lets a merge check that they did.
//
// Merge joins the run directories of a split run's shards into one run,
// as one process running every case would have written it; a case run no
// shard given reported is recorded as not run, and the merge says it is
// incomplete.
package shard

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Spec is one shard of a run: Index of Count, Index from 1. The zero Spec
// (and 1/1) is an unsplit run.
type Spec struct {
	Index, Count int
}

// Parse reads "k/n" (1 ≤ k ≤ n).
func Parse(s string) (Spec, error) {
	k, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Spec{}, errors.New(`must have the form k/n, e.g. "2/3" for the second of three shards`)
	}
	index, err1 := strconv.Atoi(strings.TrimSpace(k))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if err1 != nil || err2 != nil {
		return Spec{}, errors.New(`must have the form k/n with whole numbers, e.g. "2/3"`)
	}
	return New(index, count)
}

// MaxCount is the most shards a run is split into: more than any CI
// matrix or Indexed Job runs at once, and few enough that placing a case
// run (one hash per shard) stays instant.
const MaxCount = 1000

// New returns shard index (from 1) of count, checked.
func New(index, count int) (Spec, error) {
	switch {
	case count < 1:
		return Spec{}, fmt.Errorf("the number of shards must be at least 1, not %d", count)
	case count > MaxCount:
		return Spec{}, fmt.Errorf("the number of shards must be at most %d, not %d", MaxCount, count)
	case index < 1 || index > count:
		return Spec{}, fmt.Errorf("the shard must be from 1 to %d, not %d", count, index)
	}
	return Spec{Index: index, Count: count}, nil
}

// Split reports whether the run is split over more than one shard.
func (s Spec) Split() bool { return s.Count > 1 }

func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Balance modes.
const (
	// Hash places every case run by the hash of its identity.
	Hash = "hash"
	// History balances the case runs whose duration is known.
	History = "history"
)

// ParseBalance checks a balance mode; "" is Hash.
func ParseBalance(s string) (string, error) {
	switch s = strings.TrimSpace(strings.ToLower(s)); s {
	case "", Hash:
		return Hash, nil
	case History:
		return History, nil
	}
	return "", fmt.Errorf("must be %q (by the case's identity) or %q (by the durations the cache remembers)", Hash, History)
}

// Identity names one case run as every shard names it: the run, and its
// case file relative to the configured case directory (so that every
// machine names it alike).
type Identity struct {
	File string
	eval.CaseRun
}

// IdentityOf is the identity of a case run the summary of a shard lists.
func IdentityOf(r eval.ShardRun) Identity { return Identity{File: r.File, CaseRun: r.CaseRun} }

func (id Identity) String() string { return id.File + ": " + id.CaseRun.String() }

// key is the identity as hashed (an arm's name only when there is one,
// so that runs without arms keep their shards).
func (id Identity) key() []byte {
	if id.Arm != "" {
		return fmt.Appendf(nil, "%s\x00%s\x00%s\x00%d\x00%s", id.File, id.Name, id.Model, id.Repeat, id.Arm)
	}
	return fmt.Appendf(nil, "%s\x00%s\x00%s\x00%d", id.File, id.Name, id.Model, id.Repeat)
}

// score is the rendezvous weight of shard j for the identity.
func score(key []byte, j int) uint64 {
	h := sha256.New()
	h.Write(key)
	h.Write(fmt.Appendf(nil, "\x00%d", j))
	return binary.BigEndian.Uint64(h.Sum(nil))
}

// ByHash returns the shard (from 1) of id among count shards: the one with
// the highest rendezvous score.
func ByHash(id Identity, count int) int {
	return preference(id.key(), count)[0]
}

// preference returns the shards 1..count from the most to the least
// preferred for key.
func preference(key []byte, count int) []int {
	order := make([]int, count)
	scores := make([]uint64, count+1)
	for j := 1; j <= count; j++ {
		order[j-1], scores[j] = j, score(key, j)
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	return order
}

// Plan is the assignment of a run's case runs to its shards.
type Plan struct {
	Count   int
	Balance string
	shards  map[Identity]int
	// Fingerprint identifies the assignment: plans of the same case runs
	// with the same shards have the same fingerprint.
	Fingerprint string
}

// Weight tells the history of a case run: the seconds it is expected to
// take, and whether that is known. ok false places it by the hash.
type Weight func(Identity) (seconds float64, ok bool)

// NewPlan assigns ids to count shards. With Balance History and a weight,
// the case runs of known positive weight are balanced (see the package
// documentation); every other one goes by the hash.
func NewPlan(ids []Identity, count int, balance string, weight Weight) Plan {
	p := Plan{Count: max(count, 1), Balance: balance, shards: make(map[Identity]int, len(ids))}
	type weighted struct {
		id      Identity
		key     []byte
		seconds float64
	}
	var known []weighted
	for _, id := range ids {
		if balance == History && weight != nil {
			if s, ok := weight(id); ok && s > 0 {
				known = append(known, weighted{id, id.key(), s})
				continue
			}
		}
		p.shards[id] = ByHash(id, p.Count)
	}
	// Longest first; equal durations in the order of their keys' hashes,
	// which does not depend on where the cases stand in their files.
	slices.SortFunc(known, func(a, b weighted) int {
		return cmp.Or(cmp.Compare(b.seconds, a.seconds), cmp.Compare(score(a.key, 0), score(b.key, 0)))
	})
	load := make([]float64, p.Count+1)
	for _, w := range known {
		best := 0
		for _, j := range preference(w.key, p.Count) {
			if best == 0 || load[j] < load[best] {
				best = j
			}
		}
		load[best] += w.seconds
		p.shards[w.id] = best
	}
	p.Fingerprint = Fingerprint(p.Count, p.Balance, ids, func(id Identity) int { return p.shards[id] })
	return p
}

// Fingerprint hashes an assignment of case runs to count shards in a fixed
// order: a plan's, or the one a summary lists, so that a merge can check
// that the two agree.
func Fingerprint(count int, balance string, ids []Identity, shardOf func(Identity) int) string {
	keys := make([]string, 0, len(ids))
	for _, id := range ids {
		keys = append(keys, fmt.Sprintf("%s\x00%d\n", id.key(), shardOf(id)))
	}
	slices.Sort(keys)
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s\n", count, balance)
	for _, k := range keys {
		h.Write([]byte(k))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Shard returns the shard (from 1) of id, and whether the plan has it.
func (p Plan) Shard(id Identity) (int, bool) {
	j, ok := p.shards[id]
	return j, ok
}

// SetHash identifies a set of case runs, whatever their order: shards of
// one run select the same set.
func SetHash(ids []Identity) string {
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = string(id.key())
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Split is one process's part of a split run: the plan of the whole run's
// case runs and which of them are this shard's.
type Split struct {
	Spec Spec
	Plan Plan
	// runs are every case run the whole run selected, with its shard.
	runs []eval.ShardRun
	mine int
}

// NewSplit plans the selected case runs over spec's shards (see NewPlan).
func NewSplit(spec Spec, balance string, runs []eval.ShardRun, weight Weight) *Split {
	ids := make([]Identity, len(runs))
	for i, r := range runs {
		ids[i] = IdentityOf(r)
	}
	s := &Split{Spec: spec, Plan: NewPlan(ids, spec.Count, balance, weight), runs: slices.Clone(runs)}
	for i := range s.runs {
		s.runs[i].Shard, _ = s.Plan.Shard(ids[i])
		if s.runs[i].Shard == spec.Index {
			s.mine++
		}
	}
	return s
}

// Mine counts the case runs of this shard.
func (s *Split) Mine() int { return s.mine }

// Owns reports whether this shard runs the case run: it does unless the
// plan gives it to another (a run the plan does not hold, one -run did
// not select, is left to go test).
func (s *Split) Owns(id Identity) bool {
	j, ok := s.Plan.Shard(id)
	return !ok || j == s.Spec.Index
}

// HasCase reports whether some run of the named case is this shard's.
func (s *Split) HasCase(name string) bool {
	return slices.ContainsFunc(s.runs, func(r eval.ShardRun) bool { return r.Name == name && r.Shard == s.Spec.Index })
}

// Summary describes the shard for its run's summary: config holds the
// settings every shard must share (its Cases is set here), group tells
// the runs that shards belong to apart.
func (s *Split) Summary(config eval.ShardConfig, group string) *eval.Shard {
	ids := make([]Identity, len(s.runs))
	for i, r := range s.runs {
		ids[i] = IdentityOf(r)
	}
	config.Cases = SetHash(ids)
	return &eval.Shard{Index: s.Spec.Index, Count: s.Spec.Count, Balance: s.Plan.Balance, Plan: s.Plan.Fingerprint,
		Config: config, Runs: slices.Clone(s.runs), Group: group}
}
