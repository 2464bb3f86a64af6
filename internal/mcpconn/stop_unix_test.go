//go:build unix

package mcpconn

import (
	"os"
	"syscall"
)

// canStopSelf says whether the test server can freeze itself.
const canStopSelf = true

// stopSelf stops this process (SIGSTOP): it answers nothing any more.
func stopSelf() error { return syscall.Kill(os.Getpid(), syscall.SIGSTOP) }
