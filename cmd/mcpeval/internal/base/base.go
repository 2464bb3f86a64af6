// Package base holds what mcpeval's subcommands share: the entry of the
// command table, the process a command runs in, flag parsing and help,
// and the one convention for exit statuses:
//
//	0  the command did its work and found nothing wrong
//	1  the run found failures: failed cases, a regression, a gate not
//	   passed, a merge missing case runs (Failed)
//	2  a usage or setup error: a bad flag, a missing file, a broken
//	   configuration (any other error)
package base

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpeval/mcpeval/internal/settings"
)

// Process is what a command may use of the process it runs in: its
// standard streams and its environment. Tests give their own.
type Process struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// OS is the process mcpeval runs in.
func OS() Process {
	return Process{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
}

// Command is a subcommand of mcpeval, or a group of them (mcpeval merge
// runs, mcpeval merge caches).
type Command struct {
	// Name is the command's words after "mcpeval": "report", "merge runs".
	Name string
	// Summary is the line mcpeval help shows for it.
	Summary string
	// Usage is what follows the name on the command line, a line per form.
	Usage string
	// Doc is the paragraph mcpeval help NAME shows below the usage.
	Doc string
	// Run runs the command with the arguments after its name; a group
	// has none.
	Run func(c *Command, args []string, p Process) error
	// Commands are the commands of a group; Default, one of them, runs
	// when the arguments name none.
	Commands []*Command
	Default  *Command
}

// Word is the command's last word, the one that selects it in its group.
func (c *Command) Word() string {
	words := strings.Fields(c.Name)
	return words[len(words)-1]
}

// Lookup returns the command of the group that word names.
func (c *Command) Lookup(word string) *Command {
	for _, sub := range c.Commands {
		if sub.Word() == word {
			return sub
		}
	}
	return nil
}

// Main runs c with args: a command of a group is chosen by the first
// argument (or is the group's Default). It returns the command that ran,
// for the error's prefix and usage, and its error.
func (c *Command) Main(args []string, p Process) (*Command, error) {
	if len(c.Commands) > 0 {
		if len(args) > 0 {
			if sub := c.Lookup(args[0]); sub != nil {
				return sub.Main(args[1:], p)
			}
		}
		noCommand := len(args) == 0 || strings.HasPrefix(args[0], "-")
		switch {
		case isHelp(args):
			c.Help(p.Stdout, nil)
			return c, flag.ErrHelp
		case noCommand && c.Default != nil:
			return c.Default.Main(args, p)
		case noCommand:
			return c, UsageError(fmt.Errorf("name one of its commands: %s", strings.Join(c.words(), ", ")))
		}
		return c, UsageError(fmt.Errorf("unknown command %q: it has %s", args[0], strings.Join(c.words(), ", ")))
	}
	return c, c.Run(c, args, p)
}

func (c *Command) words() []string {
	var out []string
	for _, sub := range c.Commands {
		out = append(out, sub.Word())
	}
	return out
}

func isHelp(args []string) bool {
	return len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help")
}

// FlagSet returns an empty flag set for the command; Parse reads it.
// Its Usage, which the command's help calls, prints its flags; a command
// may set another.
func (c *Command) FlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("mcpeval "+c.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // Parse returns the errors, PrintError prints them
	fs.Usage = fs.PrintDefaults
	return fs
}

// Parse parses args with fs, letting flags stand before, between and
// after the positional arguments (flag.FlagSet.Parse stops at the first
// of them), and returns the positional arguments in order; "--" ends the
// flags. -h prints the command's help on standard output and returns
// flag.ErrHelp; a bad flag is a usage error.
func (c *Command) Parse(fs *flag.FlagSet, args []string, p Process) ([]string, error) {
	positional, err := parseInterspersed(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		c.Help(p.Stdout, fs)
		return nil, err
	case err != nil:
		return nil, UsageError(err)
	}
	return positional, nil
}

// ParseFlags is Parse for a command that takes flags alone.
func (c *Command) ParseFlags(fs *flag.FlagSet, args []string, p Process) error {
	rest, err := c.Parse(fs, args, p)
	if err == nil && len(rest) > 0 {
		return Usagef("unexpected argument %q: mcpeval %s takes flags alone", rest[0], c.Name)
	}
	return err
}

func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// UsageLines are the command's forms, each after "usage:" or its
// indentation: "mcpeval NAME ARGS", a line per form (per command of a
// group).
func (c *Command) UsageLines() []string {
	if len(c.Commands) > 0 {
		var lines []string
		for _, sub := range c.Commands {
			lines = append(lines, sub.UsageLines()...)
		}
		return lines
	}
	var lines []string
	for _, form := range strings.Split(strings.TrimSpace(c.Usage), "\n") {
		lines = append(lines, strings.TrimSpace("mcpeval "+c.Name+" "+strings.TrimSpace(form)))
	}
	return lines
}

// PrintUsage writes the usage lines and where the rest of the help is.
func (c *Command) PrintUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n", strings.Join(c.UsageLines(), "\n       "))
	fmt.Fprintf(w, "Run 'mcpeval help %s' for details.\n", c.Name)
}

// Help writes the command's help: its usage, its paragraph, its flags (of
// fs, when given) and the commands of a group.
func (c *Command) Help(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n", strings.Join(c.UsageLines(), "\n       "))
	fmt.Fprintf(w, "\n%s.\n", strings.ToUpper(c.Summary[:1])+c.Summary[1:])
	if c.Doc != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.Doc))
	}
	if fs != nil && hasFlags(fs) {
		fmt.Fprintln(w, "\nflags:")
		fs.SetOutput(w)
		fs.Usage()
		fs.SetOutput(io.Discard)
	}
	if len(c.Commands) > 0 {
		fmt.Fprintln(w, "\ncommands:")
		PrintSummaries(w, c.Commands)
		fmt.Fprintf(w, "\nRun 'mcpeval help %s COMMAND' for a command's flags.\n", c.Name)
	}
}

// PrintSummaries writes a line per command: its words and its summary.
func PrintSummaries(w io.Writer, cmds []*Command) {
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.Name))
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name, c.Summary)
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	found := false
	fs.VisitAll(func(*flag.Flag) { found = true })
	return found
}

// usageError is a command line the command cannot take.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// UsageError marks err as a command line the command cannot take: the
// command exits 2, and its usage follows the error.
func UsageError(err error) error { return &usageError{err} }

// Usagef is UsageError of a formatted message.
func Usagef(format string, args ...any) error { return UsageError(fmt.Errorf(format, args...)) }

// IsUsage reports whether err is (or wraps) a usage error.
func IsUsage(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

// failure is what a run found wrong: failed cases, a regression, a gate.
type failure struct{ err error }

func (e *failure) Error() string { return e.err.Error() }
func (e *failure) Unwrap() error { return e.err }

// Failed marks err as a finding of the run (failed cases, a regression,
// a merge missing case runs, a gate not passed): the command exits 1.
func Failed(err error) error { return &failure{err} }

// exitError is an exit status whose reason is already printed.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// Exit ends the command with code, printing nothing: the reason is
// already printed (go test's output).
func Exit(code int) error { return &exitError{code} }

// ExitStatus is the status err ends a command with: 0 for none (or help
// asked for), 1 for a failure of the run, the code of Exit, 2 for any
// other error. Of errors joined together the highest status wins.
func ExitStatus(err error) int {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		status := 0
		for _, e := range joined.Unwrap() {
			status = max(status, ExitStatus(e))
		}
		return status
	}
	var exit *exitError
	var fail *failure
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &exit):
		return exit.code
	case errors.As(err, &fail):
		return 1
	}
	return 2
}

// PrintError writes what err says, once, prefixed with the command's
// name; a usage error is followed by the command's usage. Help and an
// Exit print nothing.
func PrintError(w io.Writer, c *Command, err error) {
	var exit *exitError
	if err == nil || errors.Is(err, flag.ErrHelp) || errors.As(err, &exit) {
		return
	}
	fmt.Fprintf(w, "mcpeval %s: %v\n", c.Name, err)
	if IsUsage(err) {
		c.PrintUsage(w)
	}
}

// OutDir is the output directory that holds runs/ and latest: the flag's
// value when given, else the suite's (EVAL_OUT from the environment or
// the .env file, else evaltest/out in the module).
func OutDir(flagValue string, getenv func(string) string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	out, err := settings.OutDir(getenv)
	if err != nil {
		return "", fmt.Errorf("no -out given: %w", err)
	}
	return out, nil
}
