// Package cli holds what the commands share in reading their command line.
package cli

import "flag"

// Parse parses args with fs, letting flags stand before, between and
// after the positional arguments (flag.FlagSet.Parse stops at the first
// of them), and returns the positional arguments in order. "--" ends the
// flags.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
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
