package cache

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Environment of the writer subprocess: the test binary re-executes itself
// with writerPathEnv set and then stores passes instead of running tests.
const (
	writerPathEnv    = "CACHE_TEST_WRITER_PATH"
	writerPrefixEnv  = "CACHE_TEST_WRITER_PREFIX"
	writerCountEnv   = "CACHE_TEST_WRITER_COUNT" // 0: until killed
	writerWorkersEnv = "CACHE_TEST_WRITER_WORKERS"
	// writerHoldEnv set: after its Puts the writer waits to be killed
	// instead of closing the cache.
	writerHoldEnv = "CACHE_TEST_WRITER_HOLD"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(writerPathEnv); path != "" {
		os.Exit(runWriter(path))
	}
	os.Exit(m.Run())
}

// runWriter stores passes under "<prefix>-<n>" from several goroutines,
// prints "stored <key>" once each Put has returned, and closes the cache.
func runWriter(path string) int {
	prefix := os.Getenv(writerPrefixEnv)
	count, _ := strconv.Atoi(os.Getenv(writerCountEnv))
	workers, _ := strconv.Atoi(os.Getenv(writerWorkersEnv))
	c, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var (
		mu     sync.Mutex
		next   int
		failed bool
		wg     sync.WaitGroup
	)
	for range max(workers, 1) {
		wg.Go(func() {
			for {
				mu.Lock()
				n := next
				next++
				mu.Unlock()
				if count > 0 && n >= count {
					return
				}
				key := fmt.Sprintf("%s-%04d", prefix, n)
				if err := c.Put(key, testRecord(key, eval.Pass, 500)); err != nil {
					fmt.Fprintln(os.Stderr, err)
					mu.Lock()
					failed = true
					mu.Unlock()
					return
				}
				mu.Lock()
				fmt.Printf("stored %s\n", key)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if os.Getenv(writerHoldEnv) != "" {
		time.Sleep(time.Minute) // killed long before
	}
	if err := c.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		failed = true
	}
	if failed || len(c.Warnings()) > 0 {
		fmt.Fprintln(os.Stderr, c.Warnings())
		return 1
	}
	return 0
}

func writerCommand(path, prefix string, count, workers int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		writerPathEnv+"="+path,
		writerPrefixEnv+"="+prefix,
		writerCountEnv+"="+strconv.Itoa(count),
		writerWorkersEnv+"="+strconv.Itoa(workers),
	)
	return cmd
}

// TestProcessesSharingAFile runs writers that append at the same time,
// enough lines for background compactions while others append, and then
// close: every entry ends in the compacted file.
func TestProcessesSharingAFile(t *testing.T) {
	path := cachePath(t)
	const processes, perProcess = 3, 200
	commands := make([]*exec.Cmd, processes)
	outputs := make([]*strings.Builder, processes)
	for i := range commands {
		commands[i] = writerCommand(path, fmt.Sprintf("proc%d", i), perProcess, 4)
		outputs[i] = &strings.Builder{}
		commands[i].Stdout = outputs[i]
		commands[i].Stderr = outputs[i]
	}
	for _, cmd := range commands {
		require.NoError(t, cmd.Start())
	}
	for i, cmd := range commands {
		require.NoError(t, cmd.Wait(), "writer %d: %s", i, outputs[i])
	}

	requireNoJournal(t, path)
	entries := fileEntries(t, path)
	assert.Len(t, entries, processes*perProcess)
	c := openClean(t, path)
	for i := range processes {
		for n := range perProcess {
			key := fmt.Sprintf("proc%d-%04d", i, n)
			got, ok := c.Get(key)
			if assert.True(t, ok, "entry %s of writer %d is missing", key, i) {
				assert.Equal(t, key, got.Name)
			}
		}
	}
}

func TestKilledWriterKeepsReportedPuts(t *testing.T) {
	path := cachePath(t)
	cmd := writerCommand(path, "killed", 0, 2)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())

	var reported []string
	lines := bufio.NewScanner(stdout)
	for len(reported) < 15 && lines.Scan() {
		reported = append(reported, strings.TrimPrefix(lines.Text(), "stored "))
	}
	require.NoError(t, cmd.Process.Kill()) // SIGKILL: no deferred code runs
	_ = cmd.Wait()
	require.Len(t, reported, 15, "writer output; stderr: %s", stderr.String())

	c := openClean(t, path) // the file is whole: no warning, nothing set aside
	for _, key := range reported {
		_, ok := c.Get(key)
		assert.True(t, ok, "%s was reported stored before the kill", key)
	}
}

// TestWriterKilledAfterPutsKeepsThemInTheJournal kills a writer that
// reported its Puts and did not close: the journal alone has them.
func TestWriterKilledAfterPutsKeepsThemInTheJournal(t *testing.T) {
	path := cachePath(t)
	const puts = 20
	cmd := writerCommand(path, "held", puts, 3)
	cmd.Env = append(cmd.Env, writerHoldEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	var reported []string
	lines := bufio.NewScanner(stdout)
	for len(reported) < puts && lines.Scan() {
		reported = append(reported, strings.TrimPrefix(lines.Text(), "stored "))
	}
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	require.Len(t, reported, puts, "writer output; stderr: %s", stderr.String())

	assert.NoFileExists(t, path, "no compaction ran: the entries are in the journal only")
	assert.Len(t, journalLines(t, path), puts)
	c := openClean(t, path)
	for _, key := range reported {
		got, ok := c.Get(key)
		if assert.True(t, ok, "%s was reported stored before the kill", key) {
			assert.Equal(t, key, got.Name)
		}
	}
}
