// Package keptlinks lets tests that run the go command many times on one
// module link each test binary once: go test links its test binary on
// every run, even when nothing changed. A -toolexec script runs every tool
// as asked but keeps each binary the linker writes under the build id the
// go command gives it, and hands a kept one out instead of linking the
// same binary again. (go build -o skips a link by the same rule when the
// file it would write already has that build id.) The binaries are the
// ones the linker wrote: what the go command runs is unchanged.
package keptlinks

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// keeper is the -toolexec script. It needs a POSIX shell. make test runs
// the same file (see the Makefile), so that the go commands of all its
// packages' tests share one directory of kept links.
//
//go:embed link-keeper.sh
var keeper string

// Env returns the variables that make the go command keep its links in a
// new directory (GOFLAGS, with goflags before the -toolexec, and
// KEPT_LINKS) and keep its work directories there too (GOTMPDIR), and a
// function that removes the directory. When the environment already names
// a directory of kept links (KEPT_LINKS: make test sets it for all its
// packages), links are kept there instead, shared with every other go
// command given it. A -toolexec in goflags gives way to the keeper's.
// The directory is on a roomy tmpfs where there is one (see fastDir): the
// go command makes a directory for every package of a build in its work
// directory, even when all of them come from the build cache, which on a
// disk file system was a quarter of the CPU time of a go test that ran
// nothing. On Windows, which has no POSIX shell, it returns GOFLAGS as
// given, without a -toolexec, and nothing else.
func Env(goflags string) (env []string, remove func(), err error) {
	var flags []string
	for _, f := range strings.Fields(goflags) {
		if !strings.HasPrefix(strings.TrimLeft(f, "-"), "toolexec=") {
			flags = append(flags, f)
		}
	}
	if runtime.GOOS == "windows" {
		if len(flags) == 0 {
			return []string{"GOFLAGS="}, func() {}, nil
		}
		return []string{"GOFLAGS=" + strings.Join(flags, " ")}, func() {}, nil
	}
	dir, err := os.MkdirTemp(fastDir(), "mcpeval-keptlinks-")
	if err != nil {
		return nil, nil, fmt.Errorf("make the link keeper's directory: %w", err)
	}
	remove = func() { os.RemoveAll(dir) }
	work := filepath.Join(dir, "work")
	script := filepath.Join(dir, "link-keeper")
	if err := os.Mkdir(work, 0o755); err != nil {
		remove()
		return nil, nil, fmt.Errorf("make the go command's work directory: %w", err)
	}
	if err := os.WriteFile(script, []byte(keeper), 0o755); err != nil {
		remove()
		return nil, nil, fmt.Errorf("write the link keeper: %w", err)
	}
	links := dir
	if shared := os.Getenv("KEPT_LINKS"); shared != "" {
		if fi, err := os.Stat(shared); err == nil && fi.IsDir() {
			links = shared
		}
	}
	flags = append(flags, "-toolexec="+script)
	return []string{"GOFLAGS=" + strings.Join(flags, " "), "KEPT_LINKS=" + links, "GOTMPDIR=" + work}, remove, nil
}
