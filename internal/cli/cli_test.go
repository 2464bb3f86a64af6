package cli

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTakesFlagsAnywhere(t *testing.T) {
	tests := []struct {
		args       []string
		out        string
		open       bool
		positional []string
	}{
		{[]string{"a", "b", "-o", "c"}, "c", false, []string{"a", "b"}},
		{[]string{"-o", "c", "a", "-open", "b"}, "c", true, []string{"a", "b"}},
		{[]string{"a", "--", "-o", "b"}, "", false, []string{"a", "-o", "b"}},
		{nil, "", false, nil},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		out := fs.String("o", "", "")
		open := fs.Bool("open", false, "")
		positional, err := Parse(fs, tt.args)
		require.NoError(t, err, "%v", tt.args)
		assert.Equal(t, tt.positional, positional, "%v", tt.args)
		assert.Equal(t, tt.out, *out)
		assert.Equal(t, tt.open, *open)
	}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	_, err := Parse(fs, []string{"a", "-nope"})
	assert.ErrorContains(t, err, "flag provided but not defined: -nope")
}
