package mcpconn

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"
)

// stdioTransport runs a stdio server: JSON-RPC over the process's pipes
// (see jsonrpcStream), reading its output through a boundedReader
// (mcp-go's own stdio transport reads a line of any length whole).
type stdioTransport struct {
	*jsonrpcStream
	command func(context.Context) *exec.Cmd

	stdinRead, stdoutWrite *os.File // the child's ends
	stdoutRead             *os.File

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd has been waited for
}

// Shutdown of a stdio server: after its stdin closes it has this long to
// exit before it is killed.
const gracefulExit = 2 * time.Second

func newStdioTransport(command func(context.Context) *exec.Cmd, max int) (*stdioTransport, error) {
	stdinRead, stdinWrite, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create stdin pipe: %w", err)
	}
	stdoutRead, stdoutWrite, err := os.Pipe()
	if err != nil {
		stdinRead.Close()
		stdinWrite.Close()
		return nil, fmt.Errorf("create stdout pipe: %w", err)
	}
	out := newBoundedReader(stdoutRead, max, endOfLine, replaceLine(max))
	return &stdioTransport{
		jsonrpcStream: newJSONRPCStream(out, stdinWrite),
		command:       command, stdinRead: stdinRead, stdoutWrite: stdoutWrite, stdoutRead: stdoutRead,
	}, nil
}

// Start starts the process (killed when ctx ends), then the transport.
func (t *stdioTransport) Start(ctx context.Context) error {
	cmd := t.command(ctx)
	cmd.Stdin, cmd.Stdout = t.stdinRead, t.stdoutWrite
	err := cmd.Start()
	// The child holds its ends now; without these closes no EOF would
	// ever come when it exits.
	t.stdinRead.Close()
	t.stdoutWrite.Close()
	if err != nil {
		t.stdoutRead.Close()
		return fmt.Errorf("failed to start command: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait() // its error is the exit status, which the stderr tail explains
		close(exited)
	}()
	t.mu.Lock()
	t.cmd, t.exited = cmd, exited
	t.mu.Unlock()
	return t.jsonrpcStream.Start(ctx)
}

// Close closes the server's stdin, gives it gracefulExit to exit, kills it
// if it has not, and returns once it has been waited for.
func (t *stdioTransport) Close() error {
	err := t.jsonrpcStream.Close()
	t.mu.Lock()
	cmd, exited := t.cmd, t.exited
	t.mu.Unlock()
	if cmd == nil { // never started
		t.stdinRead.Close()
		t.stdoutWrite.Close()
	} else {
		select {
		case <-exited:
		case <-time.After(gracefulExit):
			cmd.Process.Kill()
			<-exited
		}
	}
	t.stdoutRead.Close()
	return err
}
