package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/cmdtest"
)

// mcpeval runs the command line args in process and returns its exit
// status and output.
func mcpeval(args ...string) (status int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	status = run(args, base.Process{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }})
	return status, out.String(), errOut.String()
}

// Help lists every command, and each command's help shows its usage and
// flags, on standard output with status 0.
func TestHelp(t *testing.T) {
	status, out, errOut := mcpeval("help")
	require.Equal(t, 0, status, errOut)
	for _, c := range commands {
		assert.Regexp(t, `(?m)^  `+regexp.QuoteMeta(c.Name)+` +`+regexp.QuoteMeta(c.Summary)+`$`, out)
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"help", "report"}, []string{"usage: mcpeval report [-out DIR]", "\n  -baseline run\n"}},
		{[]string{"report", "-h"}, []string{"usage: mcpeval report [-out DIR]", "\n  -baseline run\n"}},
		{[]string{"help", "merge"}, []string{"usage: mcpeval merge runs ", "\n       mcpeval merge caches -o OUT CACHE...", "\n  merge caches  "}},
		{[]string{"help", "merge", "caches"}, []string{"usage: mcpeval merge caches -o OUT CACHE...", "\n  -o file\n"}},
		{[]string{"runs", "prune", "-help"}, []string{"usage: mcpeval runs prune [-out DIR] [-keep N]", "\n  -keep number\n"}},
		{[]string{"help", "eval"}, []string{"usage: mcpeval eval [-open]", "-run-id flag", "\n  -open\n"}},
		{[]string{"help", "calibrate"}, []string{"usage: mcpeval calibrate", "\n  -judge-model ", "(env EVAL_JUDGE_MODEL)"}},
		{[]string{"help", "sample-server"}, []string{"usage: mcpeval sample-server [-http ADDR]", "\n  -http address\n"}},
		{[]string{"help", "settings"}, []string{"# Settings\n", "| `EVAL_CASES` | `-cases path` | `cases` |", "| `EVAL_MODEL` |"}},
	}
	for _, tt := range tests {
		status, out, errOut := mcpeval(tt.args...)
		require.Equal(t, 0, status, "%v: %s", tt.args, errOut)
		for _, want := range tt.want {
			assert.Contains(t, out, want, "%v", tt.args)
		}
		assert.Empty(t, errOut, "%v", tt.args)
	}
}

// One exit-status convention: 0 nothing wrong, 1 the run found failures,
// 2 a usage or setup error, printed once with the command's name.
func TestExitStatus(t *testing.T) {
	parent := t.TempDir()
	names := cmdtest.CaseNames(40)
	fails := map[string]bool{}
	for _, n := range names[:30] {
		fails[n] = true
	}
	cmdtest.WriteRun(t, parent, "20261101T000000Z-aaaaaa", names, nil, 1)
	cur := cmdtest.WriteRun(t, parent, "20261102T000000Z-bbbbbb", names, fails, 1)

	tests := []struct {
		name   string
		args   []string
		status int
		stderr string
	}{
		{"a report", []string{"report", "-out", parent, "-run", cur}, 0, ""},
		{"a significant regression", []string{"report", "-out", parent, "-run", cur, "-baseline", "latest"}, 1,
			"mcpeval report: significant regression against " + filepath.Join(parent, "runs", "20261101T000000Z-aaaaaa") + ": the run is worse"},
		{"a bad flag", []string{"report", "-bogus"}, 2,
			"mcpeval report: flag provided but not defined: -bogus\nusage: mcpeval report [-out DIR]"},
		{"a run that is not there", []string{"report", "-out", parent, "-run", "nosuch"}, 2, "mcpeval report: "},
		{"a command of a group", []string{"merge", "runs"}, 2, "mcpeval merge runs: name the shards' run directories"},
		{"a group without its command", []string{"merge"}, 2, "mcpeval merge: name one of its commands: runs, caches\nusage: mcpeval merge runs"},
		{"an unknown command", []string{"evalreport"}, 2, `mcpeval: unknown command "evalreport"`},
		{"help of an unknown command", []string{"help", "merge", "shards"}, 2, `mcpeval help: no command "merge shards"`},
		{"no command", nil, 2, "usage: mcpeval COMMAND [ARGUMENTS]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, errOut := mcpeval(tt.args...)
			assert.Equal(t, tt.status, status, errOut)
			if tt.stderr == "" {
				assert.Empty(t, errOut)
				return
			}
			assert.Contains(t, errOut, tt.stderr)
			first, _, _ := strings.Cut(tt.stderr, "\n")
			assert.Equal(t, 1, strings.Count(errOut, first), "printed once: %s", errOut)
		})
	}
}
