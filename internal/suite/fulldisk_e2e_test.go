package suite_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// When the results cannot be written (a full disk: here a limit on the
// size of the files the suite writes) no case starts after the first that
// could not be saved, and the run says how many results were lost.
func TestUnwritableResultsStopTheRun(t *testing.T) {
	t.Parallel()
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) limits the suite's file size here; install util-linux")
	}
	dir := t.TempDir()
	root, bin := buildSuite(t, dir)

	const cases = 40
	var b strings.Builder
	for i := range cases {
		fmt.Fprintf(&b, `- case:
    name: "NUTM2G %d"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of NUTM2G (%d)?"
    expected: "441457"
    checks: {contains: ["441457"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
`, i, i)
	}
	casePath := filepath.Join(dir, "cases.yaml")
	require.NoError(t, os.WriteFile(casePath, []byte(b.String()), 0o644))
	outDir := filepath.Join(dir, "out")
	// 24 KB a file: a few records fit, the others do not.
	cmd := exec.Command(prlimit, "--fsize=24576", bin, "-test.count=1")
	cmd.Dir = filepath.Join(root, "evaltest")
	cmd.Env = append(filteredEnv(), "EVAL_CASES="+casePath, "EVAL_OUT="+outDir, "EVAL_CACHE="+filepath.Join(dir, "cache.json"),
		"EVAL_REFERENCE=1", "EVAL_CONCURRENCY=1")
	output, err := cmd.CombinedOutput()
	require.Error(t, err, "the run fails")

	f, err := os.Open(filepath.Join(newestRun(outDir), eval.RecordsFile))
	require.NoError(t, err)
	defer f.Close()
	saved := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec eval.Record
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec), "every line kept is a whole record")
		saved++
	}
	require.Positive(t, saved)
	require.Less(t, saved, cases)
	records := filepath.Join(newestRun(outDir), eval.RecordsFile)
	assert.Contains(t, string(output), "run stopped: the results cannot be saved (write "+records+": file too large): no case was started after that")
	m := regexp.MustCompile(`mcpeval: error: (\d+) of the (\d+) results could not be written to ` + regexp.QuoteMeta(records)).FindStringSubmatch(string(output))
	require.NotNil(t, m, "the run says how many results were lost: %s", output)
	unsaved, _ := strconv.Atoi(m[1])
	ran, _ := strconv.Atoi(m[2])
	assert.Equal(t, saved+unsaved, ran)
	assert.Less(t, unsaved, 5, "no case starts after the first result that could not be saved (those under way finish)")
	assert.Contains(t, string(output), fmt.Sprintf("%d not run", cases-ran))
}
