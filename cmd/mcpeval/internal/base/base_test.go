package base

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/files"
)

func TestExitStatus(t *testing.T) {
	failure := Failed(errors.New("2 cases failed"))
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"none", nil, 0},
		{"help asked for", fmt.Errorf("parse: %w", flag.ErrHelp), 0},
		{"a failure of the run", failure, 1},
		{"a wrapped failure", fmt.Errorf("merge: %w", failure), 1},
		{"a usage error", Usagef("takes one directory"), 2},
		{"any other error", errors.New("open cases.yaml: no such file"), 2},
		{"an exit status already explained", Exit(1), 1},
		{"failures joined", errors.Join(failure, Failed(errors.New("incomplete"))), 1},
		{"a failure joined with a setup error", errors.Join(failure, errors.New("write report.html: disk full")), 2},
		{"nothing joined to a failure", errors.Join(nil, failure), 1},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ExitStatus(tt.err), tt.name)
	}
}

func TestParseTakesFlagsAnywhere(t *testing.T) {
	tests := []struct {
		args       []string
		out        string
		open       bool
		positional []string
	}{
		{[]string{"a", "b", "-o", "c"}, "c", false, []string{"a", "b"}},
		{[]string{"-o", "c", "a", "-open", "b"}, "c", true, []string{"a", "b"}},
		{[]string{"a", "--", "-o", "b"}, "", false, []string{"a", "-o", "b"}},
		{nil, "", false, nil},
	}
	c := &Command{Name: "x", Summary: "test"}
	for _, tt := range tests {
		fs := c.FlagSet()
		out := fs.String("o", "", "")
		open := fs.Bool("open", false, "")
		positional, err := c.Parse(fs, tt.args, Process{})
		require.NoError(t, err, "%v", tt.args)
		assert.Equal(t, tt.positional, positional, "%v", tt.args)
		assert.Equal(t, tt.out, *out)
		assert.Equal(t, tt.open, *open)
	}
}

// -h prints the help on standard output; a bad flag is a usage error
// that the flag package does not print.
func TestParseHelpAndBadFlags(t *testing.T) {
	c := &Command{Name: "report", Summary: "write a report", Usage: "[-o FILE]\n-other FORM", Doc: "More words."}
	var stdout, stderr bytes.Buffer
	p := Process{Stdout: &stdout, Stderr: &stderr}
	fs := c.FlagSet()
	fs.String("o", "", "report `file`")
	_, err := c.Parse(fs, []string{"-h"}, p)
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.Equal(t, "usage: mcpeval report [-o FILE]\n       mcpeval report -other FORM\n\nWrite a report.\n\nMore words.\n\nflags:\n  -o file\n    \treport file\n", stdout.String())

	stdout.Reset()
	_, err = c.Parse(c.FlagSet(), []string{"-nope"}, p)
	require.EqualError(t, err, "flag provided but not defined: -nope")
	assert.True(t, IsUsage(err))
	assert.Empty(t, stdout.String()+stderr.String(), "the error is printed once, by PrintError")
	PrintError(&stderr, c, err)
	assert.Equal(t, "mcpeval report: flag provided but not defined: -nope\nusage: mcpeval report [-o FILE]\n       mcpeval report -other FORM\nRun 'mcpeval help report' for details.\n", stderr.String())

	err = c.ParseFlags(c.FlagSet(), []string{"extra"}, p)
	require.EqualError(t, err, `unexpected argument "extra": mcpeval report takes flags alone`)
	assert.True(t, IsUsage(err))
}

// A group runs the command its first argument names, else its default.
func TestGroup(t *testing.T) {
	var ran []string
	record := func(c *Command, args []string, p Process) error {
		ran = append(ran, fmt.Sprint(c.Name, args))
		return nil
	}
	list := &Command{Name: "runs history", Summary: "list", Run: record}
	prune := &Command{Name: "runs prune", Summary: "prune", Run: record}
	group := &Command{Name: "runs", Summary: "runs", Commands: []*Command{list, prune}, Default: list}
	var stdout bytes.Buffer
	p := Process{Stdout: &stdout}
	for _, args := range [][]string{nil, {"-out", "x"}, {"prune", "-keep", "3"}, {"history"}} {
		_, err := group.Main(args, p)
		require.NoError(t, err, "%v", args)
	}
	assert.Equal(t, []string{"runs history[]", "runs history[-out x]", "runs prune[-keep 3]", "runs history[]"}, ran)

	ranCmd, err := group.Main([]string{"clean"}, p)
	assert.Equal(t, group, ranCmd)
	assert.EqualError(t, err, `unknown command "clean": it has history, prune`)
	_, err = group.Main([]string{"-h"}, p)
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, stdout.String(), "commands:\n  runs history  list\n  runs prune    prune\n")
}

func TestOutDir(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	dotenv := filepath.Join(t.TempDir(), "run.env")
	require.NoError(t, os.WriteFile(dotenv, []byte("EVAL_OUT=from/dotenv\n"), 0o600))
	tests := []struct {
		name, flag, env, dotenv, want string
	}{
		{"flag wins", "some/dir", "/abs/env", dotenv, "some/dir"},
		{"absolute EVAL_OUT", "", "/abs/env", dotenv, "/abs/env"},
		{"relative EVAL_OUT is under the module root", "", "runs/today", "off", filepath.Join(root, "runs/today")},
		{"EVAL_OUT from the .env file, as the suite reads it", "", "", dotenv, filepath.Join(root, "from/dotenv")},
		{"default", "", "", "off", filepath.Join(root, "evaltest", "out")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{"EVAL_OUT": tt.env, "EVAL_DOTENV": tt.dotenv}
			got, err := OutDir(tt.flag, func(k string) string { return vars[k] })
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
