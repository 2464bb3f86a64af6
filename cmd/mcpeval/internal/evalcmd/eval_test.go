//go:build unix

package evalcmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reportPhaseVar makes the test binary a process in the report phase of a
// run: it handles interrupts as mcpeval eval does while it writes a
// report, says it is ready, and waits.
const reportPhaseVar = "MCPEVAL_TEST_REPORT_PHASE"

func TestMain(m *testing.M) {
	if dir := os.Getenv(reportPhaseVar); dir != "" {
		written := reportInterrupts(os.Stderr, dir)
		fmt.Println("ready")
		time.Sleep(time.Minute)
		written()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// While the report is written, the first Ctrl-C says every result is kept
// and the report is finished all the same; the second exits at once with
// status 130 and says how to write the report later.
func TestInterruptWhileTheReportIsWritten(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), reportPhaseVar+"=out/runs/20261129T000000Z-abcdef")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	ready, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", ready)

	lines := bufio.NewReader(stderr)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	first, err := lines.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "mcpeval: interrupted: every result is kept; the report is being written and takes a moment (Ctrl-C again stops at once)\n", first)

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	rest, err := io.ReadAll(lines)
	require.NoError(t, err)
	assert.Equal(t, "mcpeval: INTERRUPTED while the report was written: the run's results are kept in out/runs/20261129T000000Z-abcdef; go tool mcpeval report -run out/runs/20261129T000000Z-abcdef writes its report\n", string(rest))
	err = cmd.Wait()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%v", err)
	assert.Equal(t, 130, exit.ExitCode(), "at once, not after the minute")
}
