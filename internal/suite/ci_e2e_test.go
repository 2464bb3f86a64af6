package suite_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/runs"
)

// The CI target's command line (see the Makefile): one gotestsum run gives
// the JSON stream in the run's directory, and its post-run command the HTML
// report and the JUnit file, with each failed case's verdict and reason as
// its failure message.
func TestCIRunWritesJUnitStreamAndReport(t *testing.T) {
	t.Parallel()
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	dir := t.TempDir()
	cases := geneCases + driftedCase
	casePath := filepath.Join(dir, "cases.yaml")
	require.NoError(t, os.WriteFile(casePath, []byte(cases), 0o644))
	out := filepath.Join(dir, "out")
	id := runs.NewID(time.Now())
	run := filepath.Join(out, runs.Dir, id)
	require.NoError(t, os.MkdirAll(run, 0o755))
	cmd := exec.Command("go", "tool", "gotestsum", "--format", "testname", "--jsonfile", filepath.Join(run, "test.json"),
		"--post-run-command", "go tool mcpeval report -out "+out+" -run "+run+" -junit "+filepath.Join(run, "junit.xml"),
		"--", "./evaltest", "-count=1")
	cmd.Dir = root
	cmd.Env = append(filteredEnv(), "EVAL_CASES="+casePath, "EVAL_OUT="+out, "EVAL_RUN_ID="+id, "EVAL_CACHE="+filepath.Join(dir, "cache.json"))
	output, err := cmd.CombinedOutput()
	require.Error(t, err, "one case fails")
	assert.Contains(t, string(output), filepath.Join(run, "report.html"), "the report's path is printed")
	assert.Contains(t, string(output), "results in "+run, "the closing lines name the run's directory")
	out = run

	junit, err := os.ReadFile(filepath.Join(out, "junit.xml"))
	require.NoError(t, err)
	assert.Contains(t, string(junit), `name="NUTM2G symbol" classname="Gene and Variant Utilities"`)
	assert.Contains(t, string(junit), `failure message="fail: the reference trajectory&#39;s results do not hold 1 fact of the expected answer (found nowhere, nor computed from them): 999999;`,
		"the reference run checks the expected answer against what the server returns")
	stream, err := os.ReadFile(filepath.Join(out, "test.json"))
	require.NoError(t, err)
	assert.Contains(t, string(stream), `"Action":"fail","Package":"github.com/mcpeval/mcpeval/evaltest","Test":"TestGeneAndVariantUtilities/Drifted_expectation"`)
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "Drifted expectation")
}
