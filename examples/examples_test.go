// Package examples_test runs the example CI files with a stub model, as
// separate processes on this machine: the GitHub Actions workflow with a
// small local runner (runner_test.go) and the Kubernetes Indexed Job with
// each pod's command run as a process, a directory for each volume. Only
// what must differ here is replaced: the endpoint, the keys, the volumes'
// paths and the merge's patience.
package examples_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// startStub serves the repository's cases with a stub model.
func startStub(t *testing.T) *llmstub.Server {
	t.Helper()
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	cases, err := evalcase.LoadPath(filepath.Join(root, "cases"))
	require.NoError(t, err)
	stub := llmstub.Start(llmstub.Replay(cases), llmstub.Options{})
	t.Cleanup(stub.Close)
	return stub
}

// readSummary reads a run directory's summary.
func readSummary(t *testing.T, dir string) eval.Summary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, eval.SummaryFile))
	require.NoError(t, err)
	var s eval.Summary
	require.NoError(t, json.Unmarshal(data, &s))
	return s
}

func TestGitHubActionsWorkflow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the workflow")
	}
	t.Parallel() // the two examples share nothing: each has its stub, directories and ports
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	wf := readWorkflow(t, filepath.Join(root, "examples", "github-actions.yml"))
	stub := startStub(t)
	r := newRunner(t,
		map[string]string{"EVAL_BASE_URL": stub.BaseURL(), "EVAL_MODEL": "stub-model"},
		map[string]string{"EVAL_API_KEY_1": "sk-shard-one-0001", "EVAL_API_KEY_2": "sk-shard-two-0002", "EVAL_API_KEY_3": "sk-shard-three-0003"})

	// A push to main: no cache and no baseline yet.
	first := r.run(wf, "1001", "refs/heads/main")
	requireSucceeded(t, first)
	assert.Len(t, first.jobs, 5, "build, three shards, merge")
	keys := stub.Keys()
	for _, k := range []string{"sk-shard-one-0001", "sk-shard-two-0002", "sk-shard-three-0003"} {
		assert.Positive(t, keys["Bearer "+k].Served, "each shard used its own key")
	}
	report := filepath.Join(first.artifacts, "evaluation-report")
	assert.FileExists(t, filepath.Join(report, "report.html"))
	sum := readSummary(t, report)
	requireAllPassed(t, report, sum)
	require.NotNil(t, sum.Merged)
	assert.Len(t, sum.Merged.Shards, 3)
	assert.Empty(t, sum.Merged.Missing)
	assert.Equal(t, 103, sum.Total+sum.NotRun, "every bundled case ran (or was skipped, without pandas)")
	assert.Zero(t, sum.Cached)
	require.Len(t, r.junit, 1, "the JUnit file was published")
	assert.Equal(t, 103, r.junit[0].Tests)
	assert.Zero(t, r.junit[0].Failures+r.junit[0].Errors)
	assert.Contains(t, first.jobs["merge"].output.String(), "merged shards 1/3")
	assert.Equal(t, "success", first.jobs["merge"].steps["Make this run the baseline"])

	// A pull request: the shards start from the merged cache (nothing is
	// paid again) and the merged run is compared with main's.
	requests := stub.Requests()
	second := r.run(wf, "1002", "refs/pull/7/merge")
	requireSucceeded(t, second)
	assert.Equal(t, requests, stub.Requests(), "every case came from the carried cache")
	report = filepath.Join(second.artifacts, "evaluation-report")
	sum = readSummary(t, report)
	assert.Equal(t, sum.Total, sum.Cached)
	assert.FileExists(t, filepath.Join(report, "compare.html"), "compared with the baseline")
	assert.Contains(t, second.jobs["merge"].output.String(), "comparison with ")
	assert.Equal(t, "skipped", second.jobs["merge"].steps["Make this run the baseline"], "a pull request is not the baseline")
}

// requireAllPassed requires that every case of a run that ran passed,
// naming the others with their reasons.
func requireAllPassed(t *testing.T, dir string, sum eval.Summary) {
	t.Helper()
	if sum.Passed == sum.Total {
		return
	}
	data, err := os.ReadFile(filepath.Join(dir, eval.RecordsFile))
	require.NoError(t, err)
	var bad []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r eval.Record
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		if r.Status != eval.Pass {
			bad = append(bad, fmt.Sprintf("%s: %s: %s", r.Name, r.Status, r.Reason))
		}
	}
	t.Fatalf("%d of %d cases did not pass:\n%s", sum.Total-sum.Passed, sum.Total, strings.Join(bad, "\n"))
}

func requireSucceeded(t *testing.T, wr *workflowRun) {
	t.Helper()
	for name, j := range wr.jobs {
		require.False(t, j.failed || j.skipped, "job %s: failed %v, skipped %v\n%s", name, j.failed, j.skipped, j.output.String())
	}
}

// k8sObject is the part of a Kubernetes object the test reads.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				Containers []struct {
					WorkingDir string   `yaml:"workingDir"`
					Command    []string `yaml:"command"`
					Args       []string `yaml:"args"`
					Env        []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name                  string     `yaml:"name"`
					PersistentVolumeClaim *yaml.Node `yaml:"persistentVolumeClaim"`
					Secret                *struct {
						SecretName string `yaml:"secretName"`
					} `yaml:"secret"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// cluster runs the pods of the example's Jobs as processes: each volume is
// a local directory, the image's /src is a copy of the repository with the
// suite and the tools built as the image comment says.
type cluster struct {
	t       *testing.T
	image   string            // the image's /src
	bin     string            // the image's tools on the PATH
	volumes map[string]string // by volume name
	stubURL string
}

func newCluster(t *testing.T, stubURL string, keys []string) *cluster {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	dir := t.TempDir()
	// The image's /src at the same path from one run to the next, where
	// the go command's build cache serves what did not change.
	c := &cluster{t: t, image: filepath.Join(stableDir(t, "k8s"), "src"), bin: filepath.Join(dir, "bin"), stubURL: stubURL,
		volumes: map[string]string{"data": filepath.Join(dir, "data"), "keys": filepath.Join(dir, "keys")}}
	require.NoError(t, copyTree(root, c.image, trackedFiles(t, root)))
	for _, build := range [][]string{
		{"go", "test", "-c", "-o", "evaltest/evaltest.test", "./evaltest"},
		{"go", "build", "-o", c.bin + "/", "./cmd/mcpeval"},
	} {
		cmd := exec.Command(build[0], build[1:]...)
		cmd.Dir = c.image
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	for _, v := range c.volumes {
		require.NoError(t, os.MkdirAll(v, 0o755))
	}
	for i, k := range keys { // the secret, as its volume shows it
		require.NoError(t, os.WriteFile(filepath.Join(c.volumes["keys"], fmt.Sprint("key-", i)), []byte(k), 0o600))
	}
	return c
}

// pod runs a Job's container as a process and returns its exit code and
// output. extra adds variables (JOB_COMPLETION_INDEX) and replaces the
// values of those that must differ here.
func (c *cluster) pod(obj k8sObject, extra map[string]string) (int, string) {
	t := c.t
	ctr := obj.Spec.Template.Spec.Containers[0]
	mounts := map[string]string{} // container path: local directory
	for _, m := range ctr.VolumeMounts {
		local, ok := c.volumes[m.Name]
		require.True(t, ok, "volume %s", m.Name)
		mounts[m.MountPath] = local
	}
	local := func(p string) string {
		for mount, dir := range mounts {
			if p == mount || strings.HasPrefix(p, mount+"/") {
				return dir + strings.TrimPrefix(p, mount)
			}
		}
		if p == "/src" || strings.HasPrefix(p, "/src/") {
			return c.image + strings.TrimPrefix(p, "/src")
		}
		return p
	}
	env := settings.IsolatedEnv()
	env = append(env, "PATH="+c.bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, e := range ctr.Env {
		v := local(e.Value)
		if e.Name == "OPENAI_BASE_URL" {
			v = c.stubURL
		}
		if x, ok := extra[e.Name]; ok {
			v = x
		}
		env = append(env, e.Name+"="+v)
	}
	if x, ok := extra["JOB_COMPLETION_INDEX"]; ok {
		env = append(env, "JOB_COMPLETION_INDEX="+x)
	}
	argv := append(append([]string{}, ctr.Command...), ctr.Args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = local(ctr.WorkingDir)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode(), string(out)
	}
	require.NoError(t, err)
	return 0, string(out)
}

// run runs the Indexed Job's pods and the merge Job's pod at once, as
// kubectl apply starts them, and returns the merge pod's exit code and
// output.
func (c *cluster) run(shards, mergeJob k8sObject) (int, string) {
	var wg sync.WaitGroup
	var code int
	var out string
	wg.Go(func() { code, out = c.pod(mergeJob, nil) })
	c.shards(shards, nil)
	wg.Wait()
	return code, out
}

// shards runs the Indexed Job's pods of the indexes (all when nil) at
// once.
func (c *cluster) shards(shards k8sObject, indexes []int) {
	if indexes == nil {
		for i := range shards.Spec.Completions {
			indexes = append(indexes, i)
		}
	}
	var wg sync.WaitGroup
	for _, i := range indexes {
		wg.Go(func() {
			code, out := c.pod(shards, map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(i)})
			assert.Zero(c.t, code, "pod %d:\n%s", i, out)
		})
	}
	wg.Wait()
}

func TestKubernetesIndexedJob(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Jobs")
	}
	t.Parallel() // the two examples share nothing: each has its stub, directories and ports
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, "examples", "k8s-indexed-job.yaml"))
	require.NoError(t, err)
	var shards, mergeJob k8sObject
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	kinds := map[string]int{}
	for {
		var obj k8sObject
		if dec.Decode(&obj) != nil {
			break
		}
		kinds[obj.Kind]++
		switch {
		case obj.Kind == "Job" && obj.Spec.CompletionMode == "Indexed":
			shards = obj
		case obj.Kind == "Job":
			mergeJob = obj
		}
	}
	assert.Equal(t, map[string]int{"PersistentVolumeClaim": 1, "Job": 2}, kinds)
	require.Equal(t, 3, shards.Spec.Completions)
	assert.Equal(t, 3, shards.Spec.Parallelism, "the shards run at once")

	stub := startStub(t)
	keys := []string{"sk-pod-zero-0000", "sk-pod-one-0001", "sk-pod-two-0002"}
	c := newCluster(t, stub.URL+"/v1", keys)
	data1 := c.volumes["data"]

	// First run: every case runs, each pod with its own key.
	code, out := c.run(shards, mergeJob)
	require.Zero(t, code, out)
	assert.Contains(t, out, "merged shards 1/3")
	for _, k := range keys {
		assert.Positive(t, stub.Keys()["Bearer "+k].Served, "pod key %s used", k)
	}
	merged := filepath.Join(data1, "out", "latest")
	assert.FileExists(t, filepath.Join(merged, "report.html"))
	assert.FileExists(t, filepath.Join(merged, "junit.xml"))
	sum := readSummary(t, merged)
	requireAllPassed(t, merged, sum)
	assert.Len(t, sum.Merged.Shards, 3)
	assert.Equal(t, 103, sum.Total+sum.NotRun)
	assert.FileExists(t, filepath.Join(data1, "cache", "cache.json"), "the caches merged for the next run")
	assert.NoDirExists(t, filepath.Join(data1, "shards"), "the merge cleared the shards for the next run")

	// Second run: from the merged cache, nothing is paid again; compared
	// with the first.
	requests := stub.Requests()
	code, out = c.run(shards, mergeJob)
	require.Zero(t, code, out)
	assert.Equal(t, requests, stub.Requests())
	assert.Contains(t, out, "comparison with ")
	assert.FileExists(t, filepath.Join(data1, "out", "latest", "compare.html"))
	sum = readSummary(t, filepath.Join(data1, "out", "latest"))
	assert.Equal(t, sum.Total, sum.Cached)

	// A pod that never finishes: the merge waits its time (shortened
	// here), then lists the lost shard's cases as not run and fails.
	c.shards(shards, []int{0, 2})
	code, out = c.pod(mergeJob, map[string]string{"WAIT_SECONDS": "3"})
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "shards not given: 2/3")
	assert.Contains(t, out, "NOT RUN: ")
	assert.Contains(t, out, "the merged run is incomplete")
	sum = readSummary(t, filepath.Join(data1, "out", "latest"))
	assert.NotEmpty(t, sum.Merged.Missing)
	for _, m := range sum.Merged.Missing {
		assert.Equal(t, 2, m.Shard)
	}
}
