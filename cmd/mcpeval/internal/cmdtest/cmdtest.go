// Package cmdtest holds what the tests of mcpeval's commands share: a
// command run in process with streams and an environment of the test's
// own, and finished runs written to disk.
package cmdtest

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/stats"
)

// Run runs the command c with args in process: its standard streams are
// stdin, stdout and stderr (nil: none), its environment is env alone.
func Run(c *base.Command, args []string, stdin io.Reader, stdout, stderr io.Writer, env map[string]string) error {
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	_, err := c.Main(args, base.Process{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: func(k string) string { return env[k] }})
	return err
}

// WriteRun writes a finished run of the given cases under parent: its
// records and its summary. fails names the cases that fail; each case
// runs repeats times and, with repeats, fails all but its first run.
func WriteRun(t *testing.T, parent, id string, cases []string, fails map[string]bool, repeats int) string {
	t.Helper()
	return WriteRunOf(t, parent, id, cases, repeats, func(name string, r int) bool { return !fails[name] || repeats > 1 && r == 0 })
}

// WriteRunOf writes a finished run of the given cases, each run repeats
// times; passes says whether a case's run r passed.
func WriteRunOf(t *testing.T, parent, id string, cases []string, repeats int, passes func(name string, r int) bool) string {
	t.Helper()
	dir, err := runs.Create(parent, id)
	require.NoError(t, err)
	var lines []string
	var recs []eval.Record
	for _, name := range cases {
		for r := range repeats {
			status, answer, reason := eval.Pass, "the right answer to "+name, "fine"
			if !passes(name, r) {
				status, answer, reason = eval.Fail, "a wrong answer to "+name, "the judge said no"
			}
			rec := eval.Record{Name: name, Category: "Cat " + name[:1], Test: "TestX/" + name, Repeat: r, Status: status, Model: "m",
				Response: answer, Reason: reason, ToolCalls: []eval.ToolCall{{Name: "get_gene_by_symbol"}}}
			b, err := json.Marshal(rec)
			require.NoError(t, err)
			lines = append(lines, string(b))
			recs = append(recs, rec)
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.RecordsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	started, ok := runs.IDTime(id) // the run started when its id says
	if !ok {
		started = time.Now()
	}
	sum := eval.Summary{RunID: id, Model: "m", Started: started}
	sum.Overall, sum.Categories, sum.Cases = stats.Tally(recs)
	sum.CaseSet = stats.CaseSet(sum.Cases)
	b, err := json.Marshal(sum)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), b, 0o644))
	return dir
}

// CaseNames are n case names: c00, c01, ...
func CaseNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%02d", i)
	}
	return out
}
