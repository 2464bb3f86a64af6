package samplecmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/cmdtest"
)

// Over stdio the server speaks on the streams it is given, and the end of
// its input ends it without an error.
func TestServesTheGivenStreams(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- cmdtest.Run(Cmd, nil, inR, outW, &stderr, nil)
		outW.Close()
	}()
	go func() {
		io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+mcp.LATEST_PROTOCOL_VERSION+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	require.NoError(t, err)
	var reply struct {
		Result struct {
			ServerInfo struct{ Name string } `json:"serverInfo"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(line), &reply), line)
	assert.Equal(t, "marrvel-sample", reply.Result.ServerInfo.Name)

	require.NoError(t, inW.Close())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end when its input ended")
	}
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one start-up line: %q", stderr.String())
}

func TestRefusesArguments(t *testing.T) {
	err := cmdtest.Run(Cmd, []string{"8080"}, nil, nil, nil, nil)
	require.ErrorContains(t, err, `unexpected argument "8080"`)
	assert.Equal(t, 2, base.ExitStatus(err))
	err = cmdtest.Run(Cmd, []string{"-http", "256.0.0.1:x"}, nil, nil, nil, nil)
	require.ErrorContains(t, err, "listen on 256.0.0.1:x")
	assert.Equal(t, 2, base.ExitStatus(err))
}
