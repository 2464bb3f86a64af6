package settings

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/shard"
)

func TestShardSettings(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		want    shard.Spec
		balance string
		wantErr string
	}{
		{name: "none", want: shard.Spec{}, balance: shard.Hash},
		{name: "EVAL_SHARD", env: map[string]string{"EVAL_SHARD": "2/3"}, want: shard.Spec{Index: 2, Count: 3}, balance: shard.Hash},
		{name: "flag over environment", env: map[string]string{"EVAL_SHARD": "2/3"}, args: []string{"-shard", "3/4"}, want: shard.Spec{Index: 3, Count: 4}, balance: shard.Hash},
		{name: "Kubernetes index from 0", env: map[string]string{"EVAL_SHARDS": "3", "JOB_COMPLETION_INDEX": "0"}, want: shard.Spec{Index: 1, Count: 3}, balance: shard.Hash},
		{name: "last Kubernetes index", env: map[string]string{"EVAL_SHARDS": "3", "JOB_COMPLETION_INDEX": "2", "EVAL_SHARD_BALANCE": "history"}, want: shard.Spec{Index: 3, Count: 3}, balance: shard.History},
		{name: "an index alone splits nothing", env: map[string]string{"JOB_COMPLETION_INDEX": "4"}, want: shard.Spec{}, balance: shard.Hash},
		{name: "EVAL_SHARD wins over the index", env: map[string]string{"EVAL_SHARD": "1/3", "EVAL_SHARDS": "3", "JOB_COMPLETION_INDEX": "2"}, want: shard.Spec{Index: 1, Count: 3}, balance: shard.Hash},

		{name: "index out of range", env: map[string]string{"EVAL_SHARD": "4/3"}, wantErr: `EVAL_SHARD (environment): invalid value "4/3": the shard must be from 1 to 3, not 4`},
		{name: "not k/n", args: []string{"-shard", "two"}, wantErr: `-shard: invalid value "two": must have the form k/n`},
		{name: "Kubernetes index out of range", env: map[string]string{"EVAL_SHARDS": "3", "JOB_COMPLETION_INDEX": "3"}, wantErr: `JOB_COMPLETION_INDEX: invalid value "3": must be from 0 to 2, as EVAL_SHARDS (environment) is 3`},
		{name: "no index", env: map[string]string{"EVAL_SHARDS": "3"}, wantErr: "EVAL_SHARDS (environment) is 3 but no shard is named: set JOB_COMPLETION_INDEX"},
		{name: "zero shards", env: map[string]string{"EVAL_SHARDS": "0", "JOB_COMPLETION_INDEX": "0"}, wantErr: `EVAL_SHARDS (environment): invalid value "0"`},
		{name: "ten million shards", env: map[string]string{"EVAL_SHARD": "1/10000000"}, wantErr: `EVAL_SHARD (environment): invalid value "1/10000000": the number of shards must be at most 1000, not 10000000`},
		{name: "ten million Kubernetes shards", env: map[string]string{"EVAL_SHARDS": "10000000", "JOB_COMPLETION_INDEX": "0"},
			wantErr: `EVAL_SHARDS (environment): invalid value "10000000": the number of shards must be at most 1000, not 10000000`},
		{name: "the most shards", env: map[string]string{"EVAL_SHARD": "1000/1000"}, want: shard.Spec{Index: 1000, Count: 1000}, balance: shard.Hash},
		{name: "counts disagree", env: map[string]string{"EVAL_SHARD": "1/3", "EVAL_SHARDS": "4"}, wantErr: "EVAL_SHARD (environment) is 1/3 but EVAL_SHARDS (environment) is 4"},
		{name: "unknown balance", env: map[string]string{"EVAL_SHARD_BALANCE": "cost"}, wantErr: `EVAL_SHARD_BALANCE (environment): invalid value "cost"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := resolveWith(t, tt.env, "", tt.args...)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, st.Shard)
			assert.Equal(t, tt.balance, st.ShardBalance)
		})
	}
}
