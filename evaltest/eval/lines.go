package eval

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLine bounds a line ReadLines reads: a record holds its texts cut to
// MaxStoredText each, far below it.
const MaxLine = 1 << 30

// ReadLines calls fn with each non-blank line of r (a results.jsonl holds a
// record a line) and its number from 1, in order. It stops at fn's first
// error, which it returns, and returns a read error as it came; a line
// longer than MaxLine is an error that names it.
func ReadLines(r io.Reader, fn func(n int, line []byte) error) error {
	return readLines(r, MaxLine, fn)
}

func readLines(r io.Reader, max int, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var long []byte
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			if long = append(long, line...); len(long) > max {
				return fmt.Errorf("line %d is longer than the %d bytes a line may be", n, max)
			}
			line, err = br.ReadSlice('\n')
		}
		if long != nil {
			line, long = append(long, line...), nil
		} else {
			line = bytes.Clone(line) // fn may keep it
		}
		if len(line) > max {
			return fmt.Errorf("line %d is longer than the %d bytes a line may be", n, max)
		}
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
