//go:build !unix

package docs

import "os/exec"

// ownGroup does nothing: the sh blocks run on Unix only.
func ownGroup(*exec.Cmd) {}

// stopGroup kills cmd's process.
func stopGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
