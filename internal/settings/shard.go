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

// resolveShard sets Shard from -shard (EVAL_SHARD, k/n from 1), or from
// -shards (EVAL_SHARDS) with JOB_COMPLETION_INDEX (from 0).
// JOB_COMPLETION_INDEX alone splits nothing: an Indexed Job runs the whole
// suite in every pod unless EVAL_SHARDS says otherwise. A shard or count
// that could not be read has its error already.
func (st *Settings) resolveShard(x linked) error {
	switch {
	case x.shard.Count != 0 && x.shards != 0 && x.shards != x.shard.Count:
		return fmt.Errorf("%s is %s but %s is %d: give the same number of shards, or only one of them", x.shardFrom, x.shard, x.shardsFrom, x.shards)
	case x.shardFrom != "":
		st.Shard = x.shard
		return nil
	case x.shards == 0:
		return nil
	}
	index, _ := st.lookup(JobIndexVar)
	if index = strings.TrimSpace(index); index == "" {
		return fmt.Errorf("%s is %d but no shard is named: set %s (from 0, as a Kubernetes Indexed Job does) or EVAL_SHARD=k/%d (from 1)", x.shardsFrom, x.shards, JobIndexVar, x.shards)
	}
	k, err := strconv.Atoi(index)
	if err == nil && (k < 0 || k >= x.shards) {
		err = fmt.Errorf("must be from 0 to %d, as %s is %d", x.shards-1, x.shardsFrom, x.shards)
	}
	if err != nil {
		return fmt.Errorf("%s: invalid value %q: %v", JobIndexVar, index, err)
	}
	st.Shard = shard.Spec{Index: k + 1, Count: x.shards}
	return nil
}
