package eval

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each non-blank line comes with its number, the last one without its
// newline too; fn's error stops the reading, and a read error is returned.
func TestReadLines(t *testing.T) {
	var got []string
	err := ReadLines(strings.NewReader("a\n\n  \nb\nc"), func(n int, line []byte) error {
		got = append(got, strings.TrimSpace(string(line))+"@"+string(rune('0'+n)))
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"a@1", "b@4", "c@5"}, got)

	stop := errors.New("stop")
	calls := 0
	err = ReadLines(strings.NewReader("a\nb\n"), func(int, []byte) error { calls++; return stop })
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, 1, calls)

	broken := io.MultiReader(strings.NewReader("a\n"), iotest.ErrReader(io.ErrUnexpectedEOF))
	err = ReadLines(broken, func(int, []byte) error { return nil })
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "a read error is not the end of the file")
}

// A line longer than the bound is an error that names it, read no
// further; lines across the reader's buffer are read whole.
func TestReadLinesBounded(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	var got []int
	err := readLines(strings.NewReader("a\n"+big+"\nb\n"), 4<<20, func(n int, line []byte) error {
		got = append(got, len(line))
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{2, 3<<20 + 1, 2}, got)

	err = readLines(strings.NewReader("a\n"+big+"\nb\n"), 2<<20, func(int, []byte) error { return nil })
	assert.EqualError(t, err, "line 2 is longer than the 2097152 bytes a line may be")
}
