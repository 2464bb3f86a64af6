package examples_test

// A small GitHub Actions runner for examples/github-actions.yml: it runs
// the workflow's jobs in the order of their needs (a matrix's jobs at once,
// each in its own workspace), its run: steps as bash processes exactly as
// written, and simulates the actions it uses (checkout, setup-go,
// artifacts, caches, a JUnit publisher) with local directories. What it
// does not know it refuses, so that the example cannot drift from what is
// tested.

import (
	"encoding/xml"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// workflow is the part of a workflow file the runner reads.
type workflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]*job   `yaml:"jobs"`
}

type job struct {
	Needs    stringList        `yaml:"needs"`
	If       string            `yaml:"if"`
	RunsOn   string            `yaml:"runs-on"`
	Env      map[string]string `yaml:"env"`
	Steps    []step            `yaml:"steps"`
	Strategy struct {
		FailFast *bool                     `yaml:"fail-fast"`
		Matrix   map[string]yaml.Node      `yaml:"matrix"`
		Include  []map[string]any          `yaml:"-"`
		Axes     map[string][]any          `yaml:"-"`
		Rest     map[string]map[string]any `yaml:"-"`
	} `yaml:"strategy"`
}

type step struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	With map[string]string `yaml:"with"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
	If   string            `yaml:"if"`
}

// stringList is a YAML string or list of strings.
type stringList []string

func (l *stringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = []string{n.Value}
		return nil
	}
	var list []string
	err := n.Decode(&list)
	*l = list
	return err
}

// readWorkflow parses a workflow file strictly (an unknown key of a step
// or job is an error).
func readWorkflow(t *testing.T, path string) *workflow {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var raw struct {
		Name string         `yaml:"name"`
		On   yaml.Node      `yaml:"on"`
		Env  map[string]any `yaml:"env"`
		Jobs yaml.Node      `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(data, &raw))
	wf := &workflow{Env: map[string]string{}, Jobs: map[string]*job{}}
	for k, v := range raw.Env {
		wf.Env[k] = fmt.Sprint(v)
	}
	require.Equal(t, yaml.MappingNode, raw.Jobs.Kind)
	for i := 0; i < len(raw.Jobs.Content); i += 2 {
		name := raw.Jobs.Content[i].Value
		var j job
		dec, err := yaml.Marshal(raw.Jobs.Content[i+1])
		require.NoError(t, err)
		d := yaml.NewDecoder(strings.NewReader(string(dec)))
		d.KnownFields(true)
		require.NoError(t, d.Decode(&j), "job %s", name)
		j.Strategy.Axes = map[string][]any{}
		for key, node := range j.Strategy.Matrix {
			switch key {
			case "include":
				require.NoError(t, node.Decode(&j.Strategy.Include))
			default:
				var values []any
				require.NoError(t, node.Decode(&values), "matrix %s of job %s", key, name)
				j.Strategy.Axes[key] = values
			}
		}
		wf.Jobs[name] = &j
	}
	return wf
}

// combinations are a job's matrix combinations (one empty one without a
// matrix): the product of its axes, or its include list alone.
func (j *job) combinations(t *testing.T) []map[string]any {
	switch {
	case len(j.Strategy.Axes) == 0 && len(j.Strategy.Include) == 0:
		return []map[string]any{{}}
	case len(j.Strategy.Axes) == 0:
		return j.Strategy.Include
	case len(j.Strategy.Include) > 0:
		t.Fatalf("the runner knows a matrix of axes or of include entries, not both")
	}
	combos := []map[string]any{{}}
	for _, key := range slices.Sorted(maps.Keys(j.Strategy.Axes)) {
		var next []map[string]any
		for _, c := range combos {
			for _, v := range j.Strategy.Axes[key] {
				n := maps.Clone(c)
				n[key] = v
				next = append(next, n)
			}
		}
		combos = next
	}
	return combos
}

// runner runs a workflow on this machine.
type runner struct {
	t        *testing.T
	root     string // the repository checked out
	dir      string // the runner's own files: artifacts, caches
	work     string // the runners' workspaces (see runJob)
	vars     map[string]string
	secrets  map[string]string
	mu       sync.Mutex
	caches   []savedCache
	junit    []junitFile
	runCount int
}

type savedCache struct{ key, dir string }

type junitFile struct {
	Tests, Failures, Errors, Skipped int
}

// workflowRun is what one run of the workflow did.
type workflowRun struct {
	id, ref   string
	artifacts string // directory of artifacts by name
	// jobs holds each job instance's outcome and output, by "job" or
	// "job (k)" for a matrix's k-th combination.
	mu   sync.Mutex
	jobs map[string]*jobRun
}

type jobRun struct {
	failed  bool
	skipped bool
	output  strings.Builder
	steps   map[string]string // step name: "success", "failure", "skipped"
}

func newRunner(t *testing.T, vars, secrets map[string]string) *runner {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	return &runner{t: t, root: root, dir: t.TempDir(), work: stableDir(t, "actions"), vars: vars, secrets: secrets}
}

// run runs the workflow once as run id for the git ref, and returns what
// happened.
func (r *runner) run(wf *workflow, id, ref string) *workflowRun {
	r.runCount++
	wr := &workflowRun{id: id, ref: ref, artifacts: filepath.Join(r.dir, "artifacts-"+id), jobs: map[string]*jobRun{}}
	done := map[string][]*jobRun{}
	for len(done) < len(wf.Jobs) {
		progressed := false
		for _, name := range slices.Sorted(maps.Keys(wf.Jobs)) {
			j := wf.Jobs[name]
			if _, ok := done[name]; ok || !allIn(j.Needs, done) {
				continue
			}
			needsOK := true
			for _, need := range j.Needs {
				for _, jr := range done[need] {
					needsOK = needsOK && !jr.failed && !jr.skipped
				}
			}
			combos := j.combinations(r.t)
			results := make([]*jobRun, len(combos))
			var wg sync.WaitGroup
			for k, combo := range combos {
				label := name
				if len(combos) > 1 {
					label = fmt.Sprintf("%s (%d)", name, k+1)
				}
				jr := &jobRun{steps: map[string]string{}}
				results[k] = jr
				wr.mu.Lock()
				wr.jobs[label] = jr
				wr.mu.Unlock()
				c := &exprContext{wf: wf, job: j, matrix: combo, total: len(combos), index: k, run: wr, r: r}
				if !c.condition(j.If, !needsOK) {
					jr.skipped = true
					continue
				}
				wg.Go(func() { r.runJob(wr, c, k+1, jr) })
			}
			wg.Wait()
			done[name] = results
			progressed = true
		}
		require.True(r.t, progressed, "the jobs' needs form a cycle or name a missing job")
	}
	return wr
}

func allIn(needs []string, done map[string][]*jobRun) bool {
	for _, n := range needs {
		if _, ok := done[n]; !ok {
			return false
		}
	}
	return true
}

// runJob runs one job instance on runner n (its place in its job's
// matrix: the instances of a matrix run at once, each on a runner of its
// own; jobs run one after another), in that runner's workspace, emptied
// first. A workspace's path stays the same from one job and one workflow
// run to the next, as on a hosted runner, where every job's is
// /home/runner/work/<repository>/<repository>: so the go command's build
// cache serves a job what an earlier one compiled there.
func (r *runner) runJob(wr *workflowRun, c *exprContext, n int, jr *jobRun) {
	workspace := filepath.Join(r.work, fmt.Sprint("runner-", n), "work", "mcpeval")
	require.NoError(r.t, os.RemoveAll(workspace))
	require.NoError(r.t, os.MkdirAll(workspace, 0o755))
	c.workspace = workspace
	for i, s := range c.job.Steps {
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("%d %s", i+1, s.Uses)
		}
		if !c.condition(s.If, jr.failed) {
			jr.steps[name] = "skipped"
			continue
		}
		err := r.runStep(wr, c, s, jr)
		if err != nil {
			fmt.Fprintf(&jr.output, "step %q failed: %v\n", name, err)
			jr.failed = true
			jr.steps[name] = "failure"
			continue
		}
		jr.steps[name] = "success"
	}
}

// runStep runs a run: step or simulates a uses: step.
func (r *runner) runStep(wr *workflowRun, c *exprContext, s step, jr *jobRun) error {
	with := map[string]string{}
	for k, v := range s.With {
		with[k] = c.expand(v)
	}
	if s.Run != "" {
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
		cmd.Dir = c.workspace
		cmd.Env = c.environ(s)
		out, err := cmd.CombinedOutput()
		jr.output.Write(out)
		return err
	}
	action, _, _ := strings.Cut(s.Uses, "@")
	ws := func(p string) string { return filepath.Join(c.workspace, filepath.FromSlash(p)) }
	switch action {
	case "actions/checkout":
		return copyTree(r.root, c.workspace, trackedFiles(r.t, r.root))
	case "actions/setup-go":
		_, err := exec.LookPath("go")
		return err
	case "actions/upload-artifact":
		requireSinglePath(r.t, with["path"])
		dst := filepath.Join(wr.artifacts, with["name"])
		if _, err := os.Stat(dst); err == nil {
			return fmt.Errorf("an artifact named %q exists already", with["name"])
		}
		src := ws(with["path"])
		info, err := os.Stat(src)
		if err != nil {
			fmt.Fprintf(&jr.output, "upload-artifact: no files found at %s\n", with["path"])
			return nil // if-no-files-found: warn
		}
		if !info.IsDir() {
			return copyTree(filepath.Dir(src), dst, []string{filepath.Base(src)})
		}
		return copyTree(src, dst, nil)
	case "actions/download-artifact":
		target := ws(with["path"])
		if with["name"] != "" {
			return copyTree(filepath.Join(wr.artifacts, with["name"]), target, nil)
		}
		entries, err := os.ReadDir(wr.artifacts)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if ok, _ := path.Match(with["pattern"], e.Name()); ok {
				if err := copyTree(filepath.Join(wr.artifacts, e.Name()), filepath.Join(target, e.Name()), nil); err != nil {
					return err
				}
			}
		}
		return nil
	case "actions/cache/restore":
		requireSinglePath(r.t, with["path"])
		if from := r.findCache(with["key"], strings.Fields(with["restore-keys"])); from != "" {
			fmt.Fprintf(&jr.output, "cache restored from %s\n", filepath.Base(from))
			return copyTree(from, ws(with["path"]), nil)
		}
		return nil
	case "actions/cache/save":
		requireSinglePath(r.t, with["path"])
		return r.saveCache(with["key"], ws(with["path"]))
	case "mikepenz/action-junit-report":
		data, err := os.ReadFile(ws(with["report_paths"]))
		if err != nil {
			return err
		}
		var doc struct {
			Suites []struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
				Errors   int `xml:"errors,attr"`
				Skipped  int `xml:"skipped,attr"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("JUnit file: %w", err)
		}
		var f junitFile
		for _, s := range doc.Suites {
			f.Tests, f.Failures, f.Errors, f.Skipped = f.Tests+s.Tests, f.Failures+s.Failures, f.Errors+s.Errors, f.Skipped+s.Skipped
		}
		r.mu.Lock()
		r.junit = append(r.junit, f)
		r.mu.Unlock()
		return nil
	}
	r.t.Fatalf("the runner does not know the action %s", s.Uses)
	return nil
}

func requireSinglePath(t *testing.T, p string) {
	require.NotContains(t, strings.TrimSpace(p), "\n", "the runner knows single paths only")
}

// findCache returns the saved cache of key, else the newest whose key
// starts with one of the prefixes.
func (r *runner) findCache(key string, prefixes []string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.caches {
		if c.key == key {
			return c.dir
		}
	}
	for _, p := range prefixes {
		for i := len(r.caches) - 1; i >= 0; i-- {
			if strings.HasPrefix(r.caches[i].key, p) {
				return r.caches[i].dir
			}
		}
	}
	return ""
}

// saveCache keeps a copy of src under key; a key is saved once.
func (r *runner) saveCache(key, src string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.caches {
		if c.key == key {
			return nil // GitHub: another job saved it first
		}
	}
	if _, err := os.Stat(src); err != nil {
		return nil // GitHub warns: path does not exist
	}
	dst := filepath.Join(r.dir, "caches", key)
	if err := copyTree(src, dst, nil); err != nil {
		return err
	}
	r.caches = append(r.caches, savedCache{key, dst})
	return nil
}

// exprContext evaluates ${{ }} expressions of a job instance.
type exprContext struct {
	wf           *workflow
	job          *job
	matrix       map[string]any
	total, index int
	run          *workflowRun
	r            *runner
	workspace    string
}

var exprPattern = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// expand replaces every ${{ expression }} in s.
func (c *exprContext) expand(s string) string {
	return exprPattern.ReplaceAllStringFunc(s, func(m string) string {
		return c.value(exprPattern.FindStringSubmatch(m)[1])
	})
}

var indexPattern = regexp.MustCompile(`^([a-z]+)\[(.+)\]$`)

// value evaluates a context reference: ctx.name or ctx[expression].
func (c *exprContext) value(expr string) string {
	ctx, name, ok := strings.Cut(expr, ".")
	if m := indexPattern.FindStringSubmatch(expr); m != nil {
		ctx, name, ok = m[1], c.value(m[2]), true
	}
	if !ok {
		c.r.t.Fatalf("the runner cannot evaluate ${{ %s }}", expr)
	}
	switch ctx {
	case "matrix":
		return fmt.Sprint(c.matrix[name])
	case "strategy":
		switch name {
		case "job-total":
			return strconv.Itoa(c.total)
		case "job-index":
			return strconv.Itoa(c.index)
		}
	case "github":
		switch name {
		case "run_id":
			return c.run.id
		case "ref":
			return c.run.ref
		case "workspace":
			return c.workspace
		}
	case "vars":
		return c.r.vars[name]
	case "secrets":
		return c.r.secrets[name]
	}
	c.r.t.Fatalf("the runner cannot evaluate ${{ %s }}", expr)
	return ""
}

var equalsPattern = regexp.MustCompile(`^(\S+)\s*==\s*'([^']*)'$`)

// condition evaluates an if: of a job or step; failed says whether
// something before failed.
func (c *exprContext) condition(expr string, failed bool) bool {
	expr = strings.TrimSpace(expr)
	if m := exprPattern.FindStringSubmatch(expr); m != nil && m[0] == expr {
		expr = m[1]
	}
	switch expr {
	case "", "success()":
		return !failed
	case "always()", "!cancelled()":
		return true
	case "failure()":
		return failed
	}
	if m := equalsPattern.FindStringSubmatch(expr); m != nil {
		return !failed && c.value(m[1]) == m[2]
	}
	c.r.t.Fatalf("the runner cannot evaluate the condition %q", expr)
	return false
}

// environMap is a step's environment: the runner's, then the workflow's,
// the job's and the step's env, expressions evaluated.
func (c *exprContext) environMap(s step) map[string]string {
	env := map[string]string{}
	for _, kv := range settings.IsolatedEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	env["CI"], env["GITHUB_ACTIONS"], env["GITHUB_WORKSPACE"], env["GITHUB_RUN_ID"], env["GITHUB_REF"] =
		"true", "true", c.workspace, c.run.id, c.run.ref
	for _, layer := range []map[string]string{c.wf.Env, c.job.Env, s.Env} {
		for k, v := range layer {
			env[k] = c.expand(v)
		}
	}
	return env
}

func (c *exprContext) environ(s step) []string {
	var out []string
	for k, v := range c.environMap(s) {
		out = append(out, k+"="+v)
	}
	return out
}

// trackedFiles lists the repository's files as a checkout has them: those
// git tracks, and new ones it does not ignore.
func trackedFiles(t *testing.T, root string) []string {
	cmd := exec.Command("git", "ls-files", "-co", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err)
	var list []string
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if _, err := os.Lstat(filepath.Join(root, f)); err == nil { // deleted, not yet committed
			list = append(list, f)
		}
	}
	return list
}

// copyTree copies the named files (relative to src; nil: everything below
// src) into dst, keeping symbolic links and modes.
func copyTree(src, dst string, names []string) error {
	if names == nil {
		err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(src, p)
			names = append(names, rel)
			return err
		})
		if err != nil {
			return err
		}
	}
	for _, name := range names {
		from, to := filepath.Join(src, name), filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		info, err := os.Lstat(from)
		if err != nil {
			return err
		}
		if info.Mode()&os.ModeSymlink != 0 {
			link, err := os.Readlink(from)
			if err == nil {
				err = os.Symlink(link, to)
			}
			if err != nil {
				return err
			}
			continue
		}
		data, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}
