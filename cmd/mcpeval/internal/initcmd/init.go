// Package initcmd is mcpeval init: it writes an evaluation module of
// one's own, which depends on mcpeval and lists it as its one tool.
package initcmd

import (
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/internal/files"
)

// Cmd is mcpeval init.
var Cmd = &base.Command{
	Name:    "init",
	Summary: "write an evaluation module of your own into a directory",
	Usage:   "[-module PATH] [-replace DIR] [-no-tidy] DIR",
	Doc: `init writes go.mod (requiring mcpeval, with mcpeval and gotestsum as its tools), README.md,
a Makefile (eval, ci, generate, calibrate, clean-runs: each a go tool mcpeval
command), .mcp.json (the bundled sample server), .gitignore, cases/sample.yaml
and evaltest/main_test.go, then runs go mod tidy and go generate, which writes
a test function per category. When a step fails, nothing is left written.`,
	Run: run,
}

// The module this command belongs to, which the new module requires.
const mcpevalModule = "github.com/mcpeval/mcpeval"

// goVersion is the go line of the new module: mcpeval's own minimum.
const goVersion = "1.25.5"

//go:embed template
var templates embed.FS

// templateNames maps template files to the names they are written as.
var templateNames = map[string]string{"mcp.json.tmpl": ".mcp.json", "gitignore.tmpl": ".gitignore"}

// run writes an evaluation module into a directory: go.mod requiring
// mcpeval (with mcpeval as its tool), evaltest/main_test.go (TestMain and
// TestOtherCategories), the category functions (go generate), a sample
// case file, .mcp.json naming the bundled sample server, a Makefile, a
// README and .gitignore. Then go mod tidy completes go.mod and go.sum.
func run(c *base.Command, args []string, p base.Process) error {
	fs := c.FlagSet()
	modPath := fs.String("module", "", "module `path` of the new module (default: the directory's name)")
	replace := fs.String("replace", "", "use the mcpeval checkout in `dir` (a replace directive) instead of a published version")
	noTidy := fs.Bool("no-tidy", false, "only write the files: no go get, go mod tidy or go generate")
	dirs, err := c.Parse(fs, args, p)
	if err != nil {
		return err
	}
	if len(dirs) != 1 {
		return base.Usagef("init takes one directory: mcpeval init DIR")
	}
	stdout := p.Stdout
	dir, err := filepath.Abs(dirs[0])
	if err != nil {
		return err
	}
	if *modPath == "" {
		*modPath = moduleName(filepath.Base(dir))
	}
	if err := module.CheckImportPath(*modPath); err != nil {
		return base.Usagef("module path %q: %v (give one with -module)", *modPath, err)
	}
	if *modPath == "mod" || strings.HasPrefix(*modPath, "mod/") {
		// go refuses every import path under mod/ (it might be the module cache's).
		return base.Usagef("module path %q: go reserves paths that begin with mod/ (give another with -module, such as example.com/%s)", *modPath, *modPath)
	}
	if *replace == "" && ownVersion() == "latest" {
		// A command built from a checkout (go run ./cmd/mcpeval) has no
		// published version to require: the new module uses the checkout.
		if root, ok := checkout(); ok {
			*replace = root
			fmt.Fprintf(stdout, "mcpeval: using the mcpeval checkout %s (-replace); give -replace to name another\n", root)
		}
	}
	if *replace != "" {
		if *replace, err = filepath.Abs(*replace); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(*replace, "go.mod")); err != nil {
			return fmt.Errorf("-replace %s: not a module: %w", *replace, err)
		}
	}

	files, err := initFiles(*modPath, *replace)
	if err != nil {
		return err
	}
	var existing []string
	for name := range files {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			existing = append(existing, name)
		}
	}
	if len(existing) > 0 {
		return fmt.Errorf("%s already has %s: choose a new directory, nothing was written", dir, strings.Join(slices.Sorted(slices.Values(existing)), ", "))
	}
	// Nothing is left half done: when a step fails, what was written goes.
	written := []string{}
	_, statErr := os.Stat(dir)
	madeDir := statErr != nil
	undo := func() {
		for _, path := range slices.Backward(written) {
			os.Remove(path)
		}
		for _, extra := range []string{"go.sum", "evaltest/categories_test.go"} {
			os.Remove(filepath.Join(dir, extra))
		}
		for _, sub := range []string{"evaltest", "cases"} {
			os.Remove(filepath.Join(dir, sub)) // only when empty
		}
		if madeDir {
			os.Remove(dir)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			undo()
			return err
		}
		written = append(written, path)
	}
	fmt.Fprintf(stdout, "mcpeval: wrote %s: %s\n", dir, strings.Join(slices.Sorted(maps.Keys(files)), ", "))
	if *noTidy {
		fmt.Fprintf(stdout, "mcpeval: next: cd %s && go mod tidy && go generate ./evaltest && go test ./evaltest\n", dir)
		return nil
	}
	var steps [][]string
	if *replace == "" && ownVersion() == "latest" {
		steps = append(steps, []string{"go", "get", "-tool", tool + "@latest"}, []string{"go", "get", "-tool", gotestsum})
	}
	steps = append(steps, []string{"go", "mod", "tidy"}, []string{"go", "generate", "./evaltest"})
	for _, step := range steps {
		fmt.Fprintf(stdout, "mcpeval: %s\n", strings.Join(step, " "))
		cmd := exec.Command(step[0], step[1:]...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = stdout, p.Stderr
		if err := cmd.Run(); err != nil {
			undo()
			hint := ""
			if *replace == "" {
				hint = "; with a checkout of mcpeval, give -replace DIR to use it"
			}
			return fmt.Errorf("%s in %s: %w (nothing is left written%s)", strings.Join(step, " "), dir, err, hint)
		}
	}
	fmt.Fprintf(stdout, `mcpeval: ready. Next:
  cd %s
  go test ./evaltest            # the sample cases against the bundled sample server (the offline reference run)
  go tool mcpeval eval          # the same under gotestsum, with the HTML report (make eval)
Point .mcp.json at your own server, put your cases in cases/ (go generate ./evaltest gives each category a
test function) and set a provider (OPENROUTER_API_KEY, OPENAI_API_KEY, or OPENAI_BASE_URL with EVAL_MODEL)
to evaluate a model.
`, dir)
	return nil
}

// initFiles returns the new module's files by path.
func initFiles(modPath, replace string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(templates, "template", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "template/")
		if name, ok := templateNames[path.Base(rel)]; ok {
			rel = path.Join(path.Dir(rel), name)
		}
		files[filepath.FromSlash(strings.TrimSuffix(rel, ".tmpl"))] = data
		return nil
	})
	files["go.mod"] = []byte(goMod(modPath, ownVersion(), replace))
	return files, err
}

// tool is the command the new module runs with go tool mcpeval: in its
// Makefile, its README, its go:generate line and its .mcp.json.
const tool = mcpevalModule + "/cmd/mcpeval"

// gotestsum is the new module's other tool, which go tool mcpeval eval and
// ci run the suite under, and which CI may run itself (go tool gotestsum).
const gotestsum = "gotest.tools/gotestsum"

// goMod is the new module's go.mod: it requires mcpeval at version (a
// placeholder with a replace) and names mcpeval and gotestsum as its tools
// (go mod tidy requires gotestsum at the version mcpeval requires). With
// the version "latest" it names neither: go get adds them.
func goMod(modPath, version, replace string) string {
	text := fmt.Sprintf("module %s\n\ngo %s\n", modPath, goVersion)
	if replace != "" {
		version = "v0.0.0-00010101000000-000000000000"
	}
	if version == "latest" {
		return text
	}
	text += fmt.Sprintf("\nrequire %s %s\n\ntool (\n\t%s\n\t%s\n)\n", mcpevalModule, version, tool, gotestsum)
	if replace != "" {
		text += fmt.Sprintf("\nreplace %s => %s\n", mcpevalModule, replace)
	}
	return text
}

// ownVersion is the version of mcpeval this command was built from, or
// "latest" for a build from a checkout (go get then picks the newest).
func ownVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "latest"
	}
	mods := append([]*debug.Module{&info.Main}, info.Deps...)
	for _, m := range mods {
		if m.Path == mcpevalModule && strings.HasPrefix(m.Version, "v") {
			return m.Version
		}
	}
	return "latest"
}

// checkout returns the module root of the working directory when it is a
// checkout of mcpeval.
func checkout() (string, bool) {
	root, err := files.ModuleRoot()
	if err != nil {
		return "", false
	}
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || modfile.ModulePath(data) != mcpevalModule {
		return "", false
	}
	return root, true
}

var notModuleChars = regexp.MustCompile(`[^a-z0-9._~-]+`)

// moduleName makes a module path of a directory's name.
func moduleName(base string) string {
	name := strings.Trim(notModuleChars.ReplaceAllString(strings.ToLower(base), "-"), "-.")
	if name == "" {
		name = "evaluation"
	}
	return name
}
