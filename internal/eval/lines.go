package eval

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// ReadLines calls fn with each non-blank line of r (a results.jsonl holds a
// record a line) and its number from 1, in order. It stops at fn's first
// error, which it returns, and returns a read error as it came; lines of
// any length are read whole.
func ReadLines(r io.Reader, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if ferr := fn(n, line); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
