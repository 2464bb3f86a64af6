// Package gosdkprobe builds, for tests, the servers of testdata/gosdkprobe:
// MCP servers on the official Go SDK, in a module of their own that the
// Go module proxy provides.
package gosdkprobe

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/files"
)

// Build builds the package pkg (".", "./progress") of testdata/gosdkprobe
// into t's temporary directory and returns the program's path. Without the
// SDK's modules from the proxy the test is skipped, saying so.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	module := filepath.Join(root, "testdata", "gosdkprobe")
	download := exec.Command("go", "mod", "download")
	download.Dir = module
	if out, err := download.CombinedOutput(); err != nil {
		t.Skipf("the Go module proxy did not give the official Go SDK's modules (is it reachable?): %v\n%s", err, out)
	}
	bin := filepath.Join(t.TempDir(), filepath.Base(filepath.Clean(pkg)))
	if pkg == "." {
		bin = filepath.Join(t.TempDir(), "gosdkprobe")
	}
	out, err := exec.Command("go", "build", "-C", module, "-o", bin, pkg).CombinedOutput()
	require.NoError(t, err, "building %s of the Go SDK probe: %s", pkg, out)
	return bin
}
