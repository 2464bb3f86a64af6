package initcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/modfile"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// runInit runs mcpeval init with args, its output in out.
func runInit(args []string, out *bytes.Buffer) error {
	_, err := Cmd.Main(args, base.Process{Stdout: out, Stderr: out, Getenv: func(string) string { return "" }})
	return err
}

// init writes a module of its own, which depends on this checkout (a
// replace), lists mcpeval as its one tool and runs exactly the cases of
// its own case file that -run selects, against the bundled sample server
// started with go tool mcpeval sample-server; go tool mcpeval ci then runs
// it under gotestsum and writes the report and the JUnit file.
func TestInitWritesAModuleThatRunsItsOwnCases(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "marrvel-eval")
	var out bytes.Buffer
	require.NoError(t, runInit([]string{"-replace", root, dir}, &out), out.String())
	assert.Contains(t, out.String(), "mcpeval: wrote "+dir)
	for _, name := range []string{"go.mod", "go.sum", "Makefile", "README.md", ".mcp.json", ".gitignore", "cases/sample.yaml", "evaltest/main_test.go", "evaltest/categories_test.go"} {
		assert.FileExists(t, filepath.Join(dir, name))
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	assert.Equal(t, []string{"github.com/mcpeval/mcpeval/cmd/mcpeval", "gotest.tools/gotestsum"}, toolLines(string(mod)), "mcpeval and gotestsum")
	for name, want := range map[string]string{"Makefile": "MCPEVAL   = $(GO) tool mcpeval\n", "README.md": "go tool mcpeval eval ",
		".mcp.json": `["tool", "mcpeval", "sample-server"]`, "evaltest/main_test.go": "//go:generate go tool mcpeval generate "} {
		text, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Contains(t, string(text), want, name)
		assert.NotRegexp(t, `go (tool|run) (\S+/)?(eval(gen|report|cache|stub|calibrate)|marrvel-sample|gotestsum)|go run github`, string(text), name)
	}
	gen, err := os.ReadFile(filepath.Join(dir, "evaltest", "categories_test.go"))
	require.NoError(t, err)
	assert.Contains(t, string(gen), `func TestGeneLookup(t *testing.T) { evaluation.Run(t, "Gene Lookup") }`, "go generate made the category functions")

	cmd := exec.Command("go", "test", "./...", "-run", "Gene", "-json", "-count=1")
	cmd.Dir = dir
	cmd.Env = settings.IsolatedEnv()
	stream, err := cmd.CombinedOutput()
	require.NoError(t, err, string(stream))
	var ran []string
	for _, line := range strings.Split(string(stream), "\n") {
		var e struct{ Action, Test string }
		if json.Unmarshal([]byte(line), &e) == nil && e.Action == "run" && strings.Contains(e.Test, "/") {
			ran = append(ran, e.Test)
		}
	}
	slices.Sort(ran)
	assert.Equal(t, []string{"TestGeneLookup/Entrez_ID_of_NUTM2G", "TestGeneLookup/Entrez_IDs_of_TP53_and_BRCA1"}, ran)

	list, err := runs.List(filepath.Join(dir, settings.DefaultOut))
	require.NoError(t, err)
	require.Len(t, list, 1, "the run is in the new module's evaltest/out")
	sum := list[0].Summary
	require.NotNil(t, sum)
	assert.Equal(t, 2, sum.Passed)
	assert.Equal(t, []string{"marrvel-sample (go tool mcpeval sample-server)"}, sum.Servers)
	assert.Equal(t, filepath.Join(dir, "cases"), sum.CaseFiles)
	records, err := os.ReadFile(filepath.Join(list[0].Dir, eval.RecordsFile))
	require.NoError(t, err)
	assert.Contains(t, string(records), `"name":"get_gene_by_symbol"`, "the server answered")

	// The module's front door: go tool mcpeval ci, as make ci runs it.
	ci := exec.Command("go", "tool", "mcpeval", "ci", "--", "-run", "Variant")
	ci.Dir = dir
	ci.Env = settings.IsolatedEnv()
	output, err := ci.CombinedOutput()
	require.NoError(t, err, string(output))
	list, err = runs.List(filepath.Join(dir, settings.DefaultOut))
	require.NoError(t, err)
	require.Len(t, list, 2, "%s", output)
	for _, name := range []string{"test.json", eval.ReportFile, "junit.xml"} {
		assert.FileExists(t, filepath.Join(list[0].Dir, name))
	}
	assert.Contains(t, string(output), filepath.Join(list[0].Dir, eval.ReportFile))
	require.NotNil(t, list[0].Summary)
	assert.Equal(t, 1, list[0].Summary.Passed, "the one case of Variant Scores")
}

// toolLines are the tools a go.mod names.
func toolLines(mod string) []string {
	f, err := modfile.Parse("go.mod", []byte(mod), nil)
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range f.Tool {
		out = append(out, t.Path)
	}
	return out
}

func TestInitKeepsExistingFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("mine\n"), 0o644))
	err := runInit([]string{"-no-tidy", dir}, &bytes.Buffer{})
	require.ErrorContains(t, err, "already has Makefile: choose a new directory, nothing was written")
	_, statErr := os.Stat(filepath.Join(dir, "go.mod"))
	assert.True(t, os.IsNotExist(statErr))
	b, _ := os.ReadFile(filepath.Join(dir, "Makefile"))
	assert.Equal(t, "mine\n", string(b))

	assert.ErrorContains(t, runInit([]string{"-module", "bad path!", filepath.Join(dir, "x")}, &bytes.Buffer{}), `module path "bad path!"`)
	assert.ErrorContains(t, runInit([]string{"-no-tidy", filepath.Join(dir, "mod")}, &bytes.Buffer{}), `module path "mod": go reserves paths that begin with mod/`)
	assert.ErrorContains(t, runInit([]string{"-replace", dir, filepath.Join(dir, "x")}, &bytes.Buffer{}), "not a module")
	err = runInit(nil, &bytes.Buffer{})
	assert.ErrorContains(t, err, "init takes one directory")
	assert.Equal(t, 2, base.ExitStatus(err), "a usage error")
}

func TestGoMod(t *testing.T) {
	mod := goMod("example.org/eval", "v1.2.3", "")
	assert.Contains(t, mod, "module example.org/eval\n\ngo "+goVersion+"\n")
	assert.Contains(t, mod, "require github.com/mcpeval/mcpeval v1.2.3\n")
	assert.Equal(t, []string{"github.com/mcpeval/mcpeval/cmd/mcpeval", "gotest.tools/gotestsum"}, toolLines(mod))
	assert.NotContains(t, mod, "replace")
	assert.Contains(t, goMod("m", "v1.2.3", "/src/mcpeval"), "replace github.com/mcpeval/mcpeval => /src/mcpeval\n")
	assert.NotContains(t, goMod("m", "latest", ""), "require", "go get adds mcpeval and its tools")
}

func TestModuleName(t *testing.T) {
	for in, want := range map[string]string{"marrvel-eval": "marrvel-eval", "My Eval": "my-eval", "001": "001", "!!": "evaluation", "Ünïcode": "n-code"} {
		assert.Equal(t, want, moduleName(in), in)
	}
}

// A step that fails leaves nothing written behind, so that init can run
// again in the same place.
func TestInitThatFailsLeavesNothing(t *testing.T) {
	t.Setenv("GOPROXY", "off") // the step fails without asking the network
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n\ngo 1.25\n"), 0o644))
	dir := filepath.Join(t.TempDir(), "eval")
	err := runInit([]string{"-replace", other, dir}, &bytes.Buffer{})
	require.ErrorContains(t, err, "nothing is left written")
	_, statErr := os.Stat(dir)
	assert.True(t, os.IsNotExist(statErr), "the directory init made is gone: %v", statErr)
}
