package settings

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpeval/mcpeval/internal/shard"
)

// JobIndexVar is the variable a Kubernetes Indexed Job sets in each pod:
// the pod's completion index, from 0.
const JobIndexVar = "JOB_COMPLETION_INDEX"

// resolveShard sets Shard and ShardBalance from -shard (EVAL_SHARD, k/n
// from 1), or from -shards (EVAL_SHARDS) with JOB_COMPLETION_INDEX (from
// 0). JOB_COMPLETION_INDEX alone splits nothing: an Indexed Job runs the
// whole suite in every pod unless EVAL_SHARDS says otherwise.
func (st *Settings) resolveShard(v, origin map[string]string, lookup func(string) (string, bool)) []error {
	var errs []error
	bad := func(name string, err error) {
		errs = append(errs, fmt.Errorf("%s: invalid value %q: %v", origin[name], v[name], err))
	}
	balance, err := shard.ParseBalance(v["shard-balance"])
	if err != nil {
		bad("shard-balance", err)
	}
	st.ShardBalance = balance

	count := 0
	if s := strings.TrimSpace(v["shards"]); s != "" {
		n, err := strconv.Atoi(s)
		if err == nil {
			_, err = shard.New(1, n)
		}
		if err != nil {
			bad("shards", err)
			return errs
		}
		count = n
	}
	if s := strings.TrimSpace(v["shard"]); s != "" {
		spec, err := shard.Parse(s)
		switch {
		case err != nil:
			bad("shard", err)
		case count != 0 && count != spec.Count:
			errs = append(errs, fmt.Errorf("%s is %s but %s is %d: give the same number of shards, or only one of them", origin["shard"], s, origin["shards"], count))
		default:
			st.Shard = spec
		}
		return errs
	}
	if count == 0 {
		return errs
	}
	index, ok := lookup(JobIndexVar)
	index = strings.TrimSpace(index)
	if !ok || index == "" {
		return append(errs, fmt.Errorf("%s is %d but no shard is named: set %s (from 0, as a Kubernetes Indexed Job does) or EVAL_SHARD=k/%d (from 1)", origin["shards"], count, JobIndexVar, count))
	}
	k, err := strconv.Atoi(index)
	if err == nil && (k < 0 || k >= count) {
		err = fmt.Errorf("must be from 0 to %d (%s is %d)", count-1, origin["shards"], count)
	}
	if err != nil {
		return append(errs, fmt.Errorf("%s: invalid value %q: %v", JobIndexVar, index, err))
	}
	st.Shard = shard.Spec{Index: k + 1, Count: count}
	return errs
}
