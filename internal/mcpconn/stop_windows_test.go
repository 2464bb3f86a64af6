//go:build windows

package mcpconn

import "errors"

// canStopSelf says whether the test server can freeze itself: Windows has
// no SIGSTOP.
const canStopSelf = false

func stopSelf() error { return errors.New("a process cannot stop itself on Windows") }
