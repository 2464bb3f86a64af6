package suite_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/files"
)

// The CI target's command line: one gotestsum run gives the JUnit file (with
// each failed case's verdict and reason as its failure message), the JSON
// stream and the HTML report.
func TestCIRunWritesJUnitStreamAndReport(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	dir := t.TempDir()
	cases := geneCases + driftedCase
	casePath := filepath.Join(dir, "cases.yaml")
	require.NoError(t, os.WriteFile(casePath, []byte(cases), 0o644))
	out := filepath.Join(dir, "out")
	cmd := exec.Command("go", "tool", "gotestsum", "--format", "testname",
		"--junitfile", filepath.Join(out, "junit.xml"), "--jsonfile", filepath.Join(out, "test.json"),
		"--post-run-command", "go run ./cmd/evalreport -out "+out,
		"--", "./evaltest", "-count=1")
	cmd.Dir = root
	cmd.Env = append(filteredEnv(), "EVAL_CASES="+casePath, "EVAL_OUT="+out, "EVAL_CACHE="+filepath.Join(dir, "cache.json"))
	output, err := cmd.CombinedOutput()
	require.Error(t, err, "one case fails")
	assert.Contains(t, string(output), filepath.Join(out, "report.html"), "the report's path is printed")

	junit, err := os.ReadFile(filepath.Join(out, "junit.xml"))
	require.NoError(t, err)
	assert.Contains(t, string(junit), `name="TestGeneAndVariantUtilities/NUTM2G_symbol"`)
	assert.Contains(t, string(junit), `failure message="fail: deterministic check failed: contains &#34;999999&#34;: not found in the answer" type="fail"`)
	stream, err := os.ReadFile(filepath.Join(out, "test.json"))
	require.NoError(t, err)
	assert.Contains(t, string(stream), `"Action":"fail","Package":"github.com/mcpeval/mcpeval/evaltest","Test":"TestGeneAndVariantUtilities/Drifted_expectation"`)
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "Drifted expectation")
}
