// Command mcpeval sets up and runs evaluations of MCP servers.
//
//	mcpeval init DIR        write an evaluation module into DIR: go.mod, a test
//	                        file, a sample case file, .mcp.json and a Makefile
//	mcpeval eval [-open] [-- ARGS]
//	                        run the suite (go test ./evaltest ARGS) under gotestsum
//	                        and write the run's report into its directory
//	mcpeval ci [-baseline RUN] [-- ARGS]
//	                        the same, with the JUnit file beside the report
//
// Use it from a module that depends on mcpeval:
//
//	go run github.com/mcpeval/mcpeval/cmd/mcpeval init my-eval
//	cd my-eval && go test ./evaltest
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

const usage = `usage:
  mcpeval init [-module PATH] [-replace DIR] [-no-tidy] DIR
  mcpeval eval [-open] [-pkg ./evaltest] [-format NAME] [-- GO_TEST_ARGS]
  mcpeval ci [-baseline RUN] [-pkg ./evaltest] [-format NAME] [-- GO_TEST_ARGS]
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "init":
		err = runInit(os.Args[2:], os.Stdout)
	case "eval":
		err = runEval(os.Args[2:], false)
	case "ci":
		err = runEval(os.Args[2:], true)
	case "help", "-h", "-help", "--help":
		fmt.Print(usage)
		return
	default:
		err = fmt.Errorf("unknown command %q\n%s", os.Args[1], usage)
	}
	var exit *exec.ExitError
	var code exitCode
	switch {
	case err == nil:
	case errors.As(err, &code):
		os.Exit(int(code))
	case errors.As(err, &exit):
		os.Exit(exit.ExitCode())
	default:
		fmt.Fprintln(os.Stderr, "mcpeval:", err)
		os.Exit(2)
	}
}

// exitCode ends the command with a status whose reason is already printed.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }
