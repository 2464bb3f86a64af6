package runscmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/cmdtest"
	"github.com/mcpeval/mcpeval/internal/runs"
)

func TestHistoryAndPrune(t *testing.T) {
	parent := t.TempDir()
	names := cmdtest.CaseNames(4)
	for i, id := range []string{"20261101T000000Z-aaaaaa", "20261102T000000Z-bbbbbb", "20261103T000000Z-cccccc"} {
		cmdtest.WriteRun(t, parent, id, names, map[string]bool{"c00": i > 0, "c01": i > 1}, 1)
	}
	_, err := runs.Create(parent, "20261104T000000Z-dddddd") // a run that never finished
	require.NoError(t, err)

	for _, args := range [][]string{{"-out", parent}, {"history", "-out", parent}} {
		var stdout bytes.Buffer
		require.NoError(t, cmdtest.Run(Cmd, args, nil, &stdout, nil, nil), "%v", args)
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		require.Len(t, lines, 5, "%v", args)
		assert.Regexp(t, `^20261104T000000Z-dddddd\s+\(did not finish\)`, lines[1], "newest first")
		assert.Regexp(t, `^20261103T000000Z-cccccc\s+.*\sm\s+4\s+50\.0%`, lines[2])
		assert.Regexp(t, `^20261101T000000Z-aaaaaa\s+.*\s100\.0%`, lines[4])
	}

	var stdout bytes.Buffer
	require.NoError(t, cmdtest.Run(Cmd, []string{"prune", "-out", parent, "-keep", "2"}, nil, &stdout, nil, nil))
	assert.Equal(t, 2, strings.Count(stdout.String(), "removed "))
	left, err := runs.List(parent)
	require.NoError(t, err)
	assert.Len(t, left, 2)
}

// The output directory comes from EVAL_OUT when -out is not given.
func TestHistoryOfEvalOut(t *testing.T) {
	parent := t.TempDir()
	cmdtest.WriteRun(t, parent, "20261101T000000Z-aaaaaa", cmdtest.CaseNames(2), nil, 1)
	var stdout bytes.Buffer
	require.NoError(t, cmdtest.Run(Cmd, nil, nil, &stdout, nil, map[string]string{"EVAL_OUT": parent, "EVAL_DOTENV": "off"}))
	assert.Regexp(t, `(?m)^20261101T000000Z-aaaaaa\s+.*\s100\.0%`, stdout.String())

	stdout.Reset()
	require.NoError(t, cmdtest.Run(Cmd, []string{"-out", t.TempDir()}, nil, &stdout, nil, nil))
	assert.Contains(t, stdout.String(), "no runs in ")
}

func TestRunsRefuses(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"prune", "-keep", "-3"}, "must not be negative"},
		{[]string{"prune", "10"}, `unexpected argument "10"`},
		{[]string{"clean"}, `unknown command "clean": it has history, prune`},
		{[]string{"history", "-bogus"}, "flag provided but not defined: -bogus"},
	}
	for _, tt := range tests {
		err := cmdtest.Run(Cmd, append(tt.args, "-out", t.TempDir()), nil, nil, nil, nil)
		require.ErrorContains(t, err, tt.want, "%v", tt.args)
		assert.Equal(t, 2, base.ExitStatus(err), "%v: a usage error", tt.args)
	}
}
