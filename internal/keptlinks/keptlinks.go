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

// Env returns the variables that make the go command keep its links in
// dir (GOFLAGS, with goflags before the -toolexec, and KEPT_LINKS), having
// written the script there. On Windows, which has no POSIX shell, it
// returns GOFLAGS as given and nothing else.
func Env(dir, goflags string) ([]string, error) {
	if runtime.GOOS == "windows" {
		if goflags == "" {
			return nil, nil
		}
		return []string{"GOFLAGS=" + goflags}, nil
	}
	script := filepath.Join(dir, "link-keeper")
	if err := os.WriteFile(script, []byte(keeper), 0o755); err != nil {
		return nil, fmt.Errorf("write the link keeper: %w", err)
	}
	flags := "-toolexec=" + script
	if goflags != "" {
		flags = goflags + " " + flags
	}
	return []string{"GOFLAGS=" + flags, "KEPT_LINKS=" + dir}, nil
}
