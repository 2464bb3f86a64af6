// Command evalcache works on result caches (see package cache).
//
//	evalcache merge A B... -o C
//
// merge combines the caches A, B, ... (each a cache file with its
// journal, e.g. the caches the shards of a split run carried and added
// to) into C by the rule one cache follows within a run: for each case
// run the latest outcome wins, so a pass stored by one shard is kept and
// a fail in one shard removes the older pass another shard carried. C may
// be one of the inputs. Caches of another format version are refused,
// naming each file's version.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcpeval/mcpeval/cache"
	"github.com/mcpeval/mcpeval/internal/cli"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "evalcache:", err)
		os.Exit(2)
	}
}

const usage = "usage: evalcache merge CACHE... -o OUT"

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "merge" {
		return errors.New(usage)
	}
	fs := flag.NewFlagSet("evalcache merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the merged cache `file` to write (may be one of the inputs)")
	fs.Usage = func() { fmt.Fprintln(stderr, usage); fs.PrintDefaults() }
	inputs, err := cli.Parse(fs, args[1:]) // -o may stand after the inputs
	if err != nil {
		return err
	}
	if *out == "" || len(inputs) == 0 {
		return errors.New(usage)
	}
	res, err := cache.Merge(*out, inputs)
	if err != nil {
		return err
	}
	for _, in := range res.Inputs {
		fmt.Fprintf(stdout, "read %s: %d stored results, %d removals\n", in.Path, in.Entries, in.Removed)
		for _, w := range in.Warnings {
			fmt.Fprintln(stderr, "evalcache: warning:", w)
		}
	}
	fmt.Fprintf(stdout, "wrote %s: %d stored results, %d removals (%d case runs on which the inputs differed: the latest outcome kept)\n",
		*out, res.Entries, res.Removed, res.Conflicts)
	return nil
}
