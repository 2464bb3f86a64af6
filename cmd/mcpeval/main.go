// Command mcpeval sets up, runs and reports evaluations of LLM agents that
// use MCP tool servers: one command, a subcommand per job.
//
//	mcpeval init DIR                 write an evaluation module of your own
//	mcpeval eval [-open] [-- ARGS]   run the suite under gotestsum, then its report
//	mcpeval ci [-baseline RUN] [-- ARGS]   the same for CI, with the JUnit file
//	mcpeval report [-run RUN] ...    a run's HTML report, JUnit file, comparison
//	mcpeval runs [prune -keep N]     the kept runs; delete all but the newest
//	mcpeval rejudge RUN              a run's answers graded again, the model asked nothing
//	mcpeval merge runs DIR...        the shards of a split run as one run
//	mcpeval merge caches A B -o C    the shards' result caches as one
//	mcpeval calibrate                the checks and the judge on labelled answers
//	mcpeval generate                 a test function per case category
//	mcpeval stub                     an OpenAI-compatible stub model
//	mcpeval sample-server            the bundled sample MCP server
//
// 'mcpeval help COMMAND' (or mcpeval COMMAND -h) shows a command's flags.
// Every command exits 0 when it found nothing wrong, 1 when the run found
// failures (failed cases, a regression, a merge missing case runs) and 2
// on a usage or setup error. In an evaluation module the command is a
// tool of go.mod:
//
//	go run github.com/mcpeval/mcpeval/cmd/mcpeval@latest init my-eval
//	cd my-eval && go tool mcpeval eval
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/calibratecmd"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/evalcmd"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/generatecmd"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/initcmd"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/mergecmd"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/rejudgecmd"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/reportcmd"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/runscmd"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/samplecmd"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/stubcmd"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// commands are mcpeval's subcommands, in the order help lists them.
var commands = []*base.Command{
	initcmd.Cmd,
	evalcmd.Eval,
	evalcmd.CI,
	reportcmd.Cmd,
	runscmd.Cmd,
	rejudgecmd.Cmd,
	mergecmd.Cmd,
	calibratecmd.Cmd,
	generatecmd.Cmd,
	stubcmd.Cmd,
	samplecmd.Cmd,
}

func main() {
	// Output piped into a reader that stops early (mcpeval runs | head)
	// ends quietly: writes to it fail, the command finishes, and nothing
	// it was doing (a run, a report) is cut short.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], base.OS()))
}

// run runs the command line args and returns the exit status.
func run(args []string, p base.Process) int {
	if len(args) == 0 {
		printUsage(p.Stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return help(args[1:], p)
	}
	c := lookup(args[0])
	if c == nil {
		fmt.Fprintf(p.Stderr, "mcpeval: unknown command %q\nRun 'mcpeval help' for the commands.\n", args[0])
		return 2
	}
	ran, err := c.Main(args[1:], p)
	if errors.Is(err, syscall.EPIPE) {
		return 0 // the reader stopped early (| head): it has what it wanted
	}
	base.PrintError(p.Stderr, ran, err)
	return base.ExitStatus(err)
}

// help prints the list of commands, or the help of the command that words
// name: a command's own -h, where its flags are declared.
func help(words []string, p base.Process) int {
	if len(words) == 0 {
		printUsage(p.Stdout)
		return 0
	}
	if len(words) == 1 && words[0] == "settings" {
		fmt.Fprint(p.Stdout, settings.Reference())
		return 0
	}
	c := lookup(words[0])
	for _, w := range words[1:] {
		if c == nil {
			break
		}
		c = c.Lookup(w)
	}
	switch {
	case c == nil:
		fmt.Fprintf(p.Stderr, "mcpeval help: no command %q\nRun 'mcpeval help' for the commands.\n", strings.Join(words, " "))
		return 2
	case c.Run == nil:
		c.Help(p.Stdout, nil)
		return 0
	}
	err := c.Run(c, []string{"-h"}, p)
	base.PrintError(p.Stderr, c, err)
	return base.ExitStatus(err)
}

func lookup(name string) *base.Command {
	for _, c := range commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `mcpeval evaluates LLM agents that use MCP tool servers.

usage: mcpeval COMMAND [ARGUMENTS]

commands:
`)
	base.PrintSummaries(w, commands)
	fmt.Fprint(w, `
Run 'mcpeval help COMMAND' for a command's usage and flags, and
'mcpeval help settings' for the suite's settings (docs/settings.md).
Exit status: 0 nothing wrong, 1 the run found failures, 2 a usage or setup error.
`)
}
