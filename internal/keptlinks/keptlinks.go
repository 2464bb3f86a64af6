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
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// keeper is the -toolexec script. It needs a POSIX shell.
const keeper = `#!/bin/sh
case $1 in */link|*/link.exe) ;; *) exec "$@" ;; esac
out= id= prev=
for arg in "$@"; do
	[ "$prev" = -o ] && out=$arg
	case $arg in -buildid=*) id=${arg#-buildid=} ;; esac
	prev=$arg
done
[ -n "$out" ] && [ -n "$id" ] || exec "$@"
kept="$KEPT_LINKS/$(printf %s "$id" | tr -c 'A-Za-z0-9_-' _)"
[ -f "$kept" ] && exec cp "$kept" "$out"
"$@" || exit
cp "$out" "$kept.$$" && mv "$kept.$$" "$kept"
`

// Env returns the variables that make the go command keep its links in a
// new directory (GOFLAGS, with goflags before the -toolexec, and
// KEPT_LINKS) and keep its work directories there too (GOTMPDIR), and a
// function that removes the directory. The directory is on a roomy tmpfs
// where there is one (see fastDir): the go command makes a directory for
// every package of a build in its work directory, even when all of them
// come from the build cache, which on a disk file system was a quarter of
// the CPU time of a go test that ran nothing. On Windows, which has no
// POSIX shell, it returns GOFLAGS as given and nothing else.
func Env(goflags string) (env []string, remove func(), err error) {
	if runtime.GOOS == "windows" {
		if goflags == "" {
			return nil, func() {}, nil
		}
		return []string{"GOFLAGS=" + goflags}, func() {}, nil
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
	flags := "-toolexec=" + script
	if goflags != "" {
		flags = goflags + " " + flags
	}
	return []string{"GOFLAGS=" + flags, "KEPT_LINKS=" + dir, "GOTMPDIR=" + work}, remove, nil
}
