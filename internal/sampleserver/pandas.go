package sampleserver

// The pandas tools: run_pandas runs model-written pandas code on CSV
// datasets, list_datasets shows the datasets' schemas. They serve the code
// cases (kind: code) of the evaluation.
//
// Limits of run_pandas, as they are: the code runs in python3 as a
// subprocess, in a fresh temporary directory (its working directory, HOME
// and TMPDIR) that is removed afterwards, with a wall-clock limit (10 s by
// default; the process is killed), a CPU-time limit, a 1 GiB address-space
// limit and a file-size limit (setrlimit, on Unix), and with an environment
// built from scratch (no proxy variables, no credentials; python -I ignores
// PYTHON* variables and the user's site-packages). Its result text is capped
// (64 KB by default), and so is its printed output.
//
// Network: a Python preamble replaces socket creation and name resolution
// (socket and _socket) with a PermissionError before the code runs, so
// ordinary network use (socket, urllib, requests, pandas reading a URL) fails.
// That guard is Python-level and can be bypassed deliberately (ctypes, a
// subprocess). Where `unshare --net --map-root-user` works (Linux with
// unprivileged user namespaces), the interpreter also runs in an empty
// network namespace, which no code can leave. Files outside the temporary
// directory stay readable and writable as the server's user: run_pandas is
// an evaluation aid for trusted operators, not a sandbox for hostile code.

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpeval/mcpeval/internal/files"
)

// DatasetsEnv names the directory of CSV datasets the pandas tools load.
// Unset, it is testdata/datasets under the module root (the nearest
// directory at or above the working directory that holds go.mod).
const DatasetsEnv = "MARRVEL_SAMPLE_DATASETS"

// Defaults of PandasConfig.
const (
	DefaultPandasTimeout   = 10 * time.Second
	DefaultPandasMaxOutput = 64 << 10
	defaultMaxConcurrent   = 4
	maxDatasets            = 4
	memoryLimit            = 1 << 30
	maxPrinted             = 8 << 10
	maxErrorText           = 4000
)

// ErrNoPandas is the error when no interpreter can import pandas.
var ErrNoPandas = errors.New("python3 with pandas is not installed: apt-get install python3-pandas")

// PandasConfig configures the pandas tools; zero fields take the defaults.
type PandasConfig struct {
	// Datasets is the directory of CSV files (default: $MARRVEL_SAMPLE_DATASETS,
	// else testdata/datasets under the module root).
	Datasets string
	// Timeout bounds one execution (default 10 s).
	Timeout time.Duration
	// MaxOutput caps the result text in bytes (default 64 KB).
	MaxOutput int
	// Interpreters are tried in order; the first that imports pandas is
	// used (default: /usr/bin/python3, then python3 on PATH).
	Interpreters []string
	// MaxConcurrent bounds executions running at once (default 4).
	MaxConcurrent int
}

// Pandas serves run_pandas and list_datasets. The interpreter is looked
// up once, on first use.
type Pandas struct {
	cfg     PandasConfig
	dirErr  error
	slots   chan struct{}
	once    sync.Once
	command []string // interpreter command prefix
	findErr error
}

// NewPandas returns the pandas tools for cfg.
func NewPandas(cfg PandasConfig) *Pandas {
	p := &Pandas{cfg: cfg}
	if p.cfg.Timeout <= 0 {
		p.cfg.Timeout = DefaultPandasTimeout
	}
	if p.cfg.MaxOutput <= 0 {
		p.cfg.MaxOutput = DefaultPandasMaxOutput
	}
	if len(p.cfg.Interpreters) == 0 {
		p.cfg.Interpreters = []string{"/usr/bin/python3", "python3"}
	}
	if p.cfg.MaxConcurrent <= 0 {
		p.cfg.MaxConcurrent = defaultMaxConcurrent
	}
	p.slots = make(chan struct{}, p.cfg.MaxConcurrent)
	if p.cfg.Datasets == "" {
		p.cfg.Datasets, p.dirErr = defaultDatasets()
	}
	return p
}

// defaultDatasets returns $MARRVEL_SAMPLE_DATASETS or testdata/datasets
// under the module root.
func defaultDatasets() (string, error) {
	if dir := os.Getenv(DatasetsEnv); dir != "" {
		return dir, nil
	}
	root, err := files.ModuleRoot()
	if err != nil {
		return "", fmt.Errorf("no datasets directory: %w; set %s to a directory of CSV files", err, DatasetsEnv)
	}
	return filepath.Join(root, "testdata", "datasets"), nil
}

// Tools returns run_pandas and list_datasets.
func (p *Pandas) Tools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: newTool("run_pandas",
			"Run Python pandas code on a CSV dataset and return its `result`. The dataset argument names a dataset "+
				"from list_datasets (e.g. \"employees\"); a comma-separated list (\"employees,departments\") loads the first "+
				"as df, the second as df2, and so on. pd, np and json are imported. Assign the answer to `result` "+
				"(DataFrame, Series, scalar, list or dict); it comes back as text. An error comes back with its exception "+
				"type and message (e.g. KeyError: 'age'). Limits: "+p.cfg.Timeout.String()+" per run, no network, "+
				"result capped at "+strconv.Itoa(p.cfg.MaxOutput)+" bytes.",
			mcp.WithString("code", mcp.Required(), mcp.Description("Python code using df (and df2, ...); it must assign the answer to result")),
			mcp.WithString("dataset", mcp.Required(), mcp.Description(`dataset name, or comma-separated names: "employees" or "employees,departments"`))),
			Handler: p.runPandas},
		{Tool: newTool("list_datasets",
			"List the CSV datasets run_pandas can load: name, row count, and every column with its pandas dtype."),
			Handler: p.listDatasets},
	}
}

// PythonWithPandas returns the interpreter run_pandas uses by default: the
// absolute path of /usr/bin/python3 if it can import pandas, else of python3
// on PATH if it can, else ErrNoPandas.
func PythonWithPandas() (string, error) {
	return findPython([]string{"/usr/bin/python3", "python3"})
}

func findPython(candidates []string) (string, error) {
	var tried []string
	for _, c := range candidates {
		path, err := exec.LookPath(c)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: not found", c))
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, path, "-I", "-c", "import sys, pandas; sys.stdout.write(sys.executable)")
		cmd.Env = withoutProxies(os.Environ()) // interpreter shims may need the caller's environment
		out, err := cmd.Output()
		cancel()
		if exe := strings.TrimSpace(string(out)); err == nil && filepath.IsAbs(exe) {
			return exe, nil
		}
		tried = append(tried, fmt.Sprintf("%s: cannot import pandas", c))
	}
	return "", fmt.Errorf("%w (tried %s)", ErrNoPandas, strings.Join(tried, "; "))
}

// interpreter returns the command prefix that runs the runner script: the
// python executable, inside an empty network namespace when unshare allows.
func (p *Pandas) interpreter() ([]string, error) {
	p.once.Do(func() {
		python, err := findPython(p.cfg.Interpreters)
		if err != nil {
			p.findErr = err
			return
		}
		p.command = []string{python}
		if unshare, err := exec.LookPath("unshare"); err == nil {
			isolated := []string{unshare, "--net", "--map-root-user", "--", python}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			probe := exec.CommandContext(ctx, isolated[0], append(isolated[1:], "-I", "-c", "pass")...)
			probe.Env = runEnv(os.TempDir())
			if probe.Run() == nil {
				p.command = isolated
			}
		}
	})
	return p.command, p.findErr
}

// NetworkIsolated reports whether executions run in an empty network
// namespace (besides the Python-level guard); it finds the interpreter if
// that has not happened yet.
func (p *Pandas) NetworkIsolated() bool {
	cmd, err := p.interpreter()
	return err == nil && len(cmd) > 1
}

func withoutProxies(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return strings.HasSuffix(strings.ToLower(name), "_proxy")
	})
}

// runEnv is the whole environment of an execution.
func runEnv(dir string) []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir, "MPLCONFIGDIR=" + dir,
		"LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		"OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1",
	}
}

var datasetName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// datasetFiles resolves a dataset argument ("employees" or
// "employees,departments.csv") to CSV paths.
func (p *Pandas) datasetFiles(arg string) ([]string, error) {
	if p.dirErr != nil {
		return nil, p.dirErr
	}
	var paths []string
	for _, name := range strings.Split(arg, ",") {
		name = strings.TrimSuffix(strings.TrimSpace(name), ".csv")
		if !datasetName.MatchString(name) {
			return nil, fmt.Errorf("invalid dataset name %q: use a name from list_datasets, such as %s", name, p.exampleNames())
		}
		path := filepath.Join(p.cfg.Datasets, name+".csv")
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("unknown dataset %q: available datasets: %s", name, p.exampleNames())
		}
		paths = append(paths, path)
	}
	if len(paths) > maxDatasets {
		return nil, fmt.Errorf("at most %d datasets can be loaded at once, got %d", maxDatasets, len(paths))
	}
	return paths, nil
}

// names returns the dataset names (CSV files without .csv), sorted.
func (p *Pandas) names() ([]string, error) {
	if p.dirErr != nil {
		return nil, p.dirErr
	}
	files, err := filepath.Glob(filepath.Join(p.cfg.Datasets, "*.csv"))
	if err != nil {
		return nil, fmt.Errorf("list datasets: %w", err)
	}
	names := make([]string, 0, len(files))
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".csv"); datasetName.MatchString(name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no datasets: no CSV files in %s (set %s)", p.cfg.Datasets, DatasetsEnv)
	}
	slices.Sort(names)
	return names, nil
}

func (p *Pandas) exampleNames() string {
	names, err := p.names()
	if err != nil {
		return "(none: " + err.Error() + ")"
	}
	return strings.Join(names, ", ")
}

// Column is one column of a dataset with its pandas dtype.
type Column struct {
	Name  string `json:"name"`
	Dtype string `json:"dtype"`
}

// Dataset describes one CSV file as list_datasets reports it.
type Dataset struct {
	Name    string   `json:"name"`
	Rows    int      `json:"rows"`
	Columns []Column `json:"columns"`
}

func (p *Pandas) listDatasets(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	names, err := p.names()
	if err != nil {
		return errResult(err)
	}
	out := struct {
		Datasets []Dataset `json:"datasets"`
		Usage    string    `json:"usage"`
	}{Usage: `run_pandas(code, dataset="employees") loads the dataset as df; dataset="employees,departments" loads df and df2.`}
	for _, name := range names {
		d, err := describeCSV(filepath.Join(p.cfg.Datasets, name+".csv"))
		if err != nil {
			return errResult(err)
		}
		d.Name = name
		out.Datasets = append(out.Datasets, d)
	}
	return jsonResult(out)
}

// describeCSV reads a CSV file's header and infers each column's dtype the
// way pandas.read_csv does for plain values: int64, float64 (decimals or
// empty cells among numbers), bool (True/False) or object.
func describeCSV(path string) (Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return Dataset{}, fmt.Errorf("read dataset: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		return Dataset{}, fmt.Errorf("read dataset %s: %w", filepath.Base(path), err)
	}
	kinds := make([]valueKind, len(header))
	d := Dataset{}
	for {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Dataset{}, fmt.Errorf("read dataset %s: %w", filepath.Base(path), err)
		}
		d.Rows++
		for i := range min(len(row), len(kinds)) {
			kinds[i].see(row[i])
		}
	}
	for i, name := range header {
		d.Columns = append(d.Columns, Column{Name: name, Dtype: kinds[i].dtype()})
	}
	return d, nil
}

// valueKind accumulates what the values of one column could be.
type valueKind struct {
	seen, notInt, notFloat, notBool, empty bool
}

func (k *valueKind) see(v string) {
	v = strings.TrimSpace(v)
	if v == "" {
		k.empty = true
		return
	}
	k.seen = true
	if _, err := strconv.ParseInt(v, 10, 64); err != nil {
		k.notInt = true
	}
	if _, err := strconv.ParseFloat(v, 64); err != nil {
		k.notFloat = true
	}
	if v != "True" && v != "False" {
		k.notBool = true
	}
}

func (k valueKind) dtype() string {
	switch {
	case !k.seen:
		return "float64" // an all-empty column is all NaN
	case !k.notInt && !k.empty:
		return "int64"
	case !k.notFloat:
		return "float64"
	case !k.notBool && !k.empty:
		return "bool"
	}
	return "object"
}

func (p *Pandas) runPandas(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	code := req.GetString("code", "")
	files, err := p.datasetFiles(req.GetString("dataset", ""))
	if err != nil {
		return errResult(err)
	}
	command, err := p.interpreter()
	if err != nil {
		return errResult(err)
	}
	select {
	case p.slots <- struct{}{}:
		defer func() { <-p.slots }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	text, failed, err := p.execute(ctx, command, code, files)
	if err != nil {
		return nil, err
	}
	if failed {
		return mcp.NewToolResultError(text), nil
	}
	return mcp.NewToolResultText(text), nil
}

// runStatus is what the runner script writes when it finishes.
type runStatus struct {
	OK     bool   `json:"ok"`
	Text   string `json:"text"`
	Length int    `json:"length"` // of the full text, in characters
}

const statusFile = "run_pandas_status.json"

// execute runs code in a fresh temporary directory and returns the result
// text, or the error text with failed set. err is a harness failure.
func (p *Pandas) execute(ctx context.Context, command []string, code string, files []string) (text string, failed bool, err error) {
	dir, err := os.MkdirTemp("", "run-pandas-")
	if err != nil {
		return "", false, fmt.Errorf("run_pandas: create work directory: %w", err)
	}
	defer os.RemoveAll(dir)

	runCtx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	cpuSeconds := int(p.cfg.Timeout.Seconds()) + 1
	fileLimit := max(16<<20, 8*p.cfg.MaxOutput)
	args := append(slices.Clone(command[1:]), "-I", "-c", runnerScript,
		filepath.Join(dir, statusFile), strconv.Itoa(p.cfg.MaxOutput), strconv.Itoa(cpuSeconds),
		strconv.Itoa(memoryLimit), strconv.Itoa(fileLimit))
	args = append(args, files...)
	cmd := exec.CommandContext(runCtx, command[0], args...)
	cmd.Dir, cmd.Env = dir, runEnv(dir)
	cmd.Stdin = strings.NewReader(code)
	printed, stderr := &cappedBuffer{max: maxPrinted}, &cappedBuffer{max: maxPrinted}
	cmd.Stdout, cmd.Stderr = printed, stderr
	cmd.WaitDelay = time.Second // a leftover child holding the pipes does not hold the call
	runErr := cmd.Run()

	if errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Sprintf("TimeoutError: the code did not finish within the %s limit and was stopped", p.cfg.Timeout), true, nil
	}
	if ctx.Err() != nil {
		return "", false, ctx.Err()
	}
	data, readErr := readCapped(filepath.Join(dir, statusFile), int64(fileLimit))
	var st runStatus
	if readErr != nil || json.Unmarshal(data, &st) != nil {
		msg := "RuntimeError: the Python process ended without a result"
		if runErr != nil {
			msg += " (" + runErr.Error() + ")"
		}
		if tail := strings.TrimSpace(stderr.String()); tail != "" {
			msg += "\n" + lastChars(tail, maxErrorText)
		}
		return msg, true, nil
	}
	if !st.OK {
		return limitText(st.Text, maxErrorText, st.Length, true), true, nil
	}
	text = limitText(st.Text, p.cfg.MaxOutput, st.Length, false)
	if out := strings.TrimRight(printed.String(), "\n"); out != "" {
		text += "\n\n[printed output]\n" + out
		if printed.dropped > 0 {
			text += fmt.Sprintf("\n[printed output cut: %d more bytes]", printed.dropped)
		}
	}
	return text, false, nil
}

// limitText cuts text to max bytes (at a character boundary) and says so.
// length is the full text's length in characters, as the runner measured it
// before its own cut.
func limitText(text string, max, length int, isError bool) string {
	if len(text) <= max && utf8.RuneCountInString(text) >= length {
		return text
	}
	cut := text
	if len(cut) > max {
		cut = strings.ToValidUTF8(cut[:max], "")
	}
	if isError {
		return cut + "\n[error message cut]"
	}
	return cut + fmt.Sprintf("\n[output truncated: the result has %d characters; the limit is %d bytes. Return a smaller result, e.g. .head(20) or an aggregate]", length, max)
}

func lastChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[len(s)-n:], "")
}

func readCapped(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// cappedBuffer keeps the first max bytes written and counts the rest.
type cappedBuffer struct {
	bytes.Buffer
	max     int
	dropped int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := max(b.max-b.Len(), 0); room < n {
		b.dropped += n - room
		p = p[:room]
	}
	b.Buffer.Write(p)
	return n, nil
}

// runnerScript runs the code read from stdin. Arguments: the status file,
// the result cap, the CPU-time, address-space and file-size limits, then
// the CSV files (loaded as df, df2, ...). It writes {"ok", "text",
// "length"} to the status file; the code's own prints go to stdout.
const runnerScript = `
import json, sys

def main():
    status_path, cap, cpu, memory, fsize = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    files = sys.argv[6:]
    code = sys.stdin.read()

    def finish(ok, text):
        text = str(text)
        with open(status_path, "w", encoding="utf-8") as f:
            json.dump({"ok": ok, "text": text[:cap + 1], "length": len(text)}, f, ensure_ascii=False)

    import numpy as np
    import pandas as pd
    frames = {}
    for i, path in enumerate(files):
        frames["df" if i == 0 else "df%d" % (i + 1)] = pd.read_csv(path)
    limit_resources(cpu, memory, fsize)
    block_network()

    try:
        compiled = compile(code, "<code>", "exec")
    except SyntaxError as e:
        where = "  line %s: %s\n" % (e.lineno, (e.text or "").rstrip()) if e.lineno else ""
        return finish(False, "%s%s: %s (line %s)" % (where, type(e).__name__, e.msg, e.lineno))
    scope = {"__name__": "__main__", "pd": pd, "np": np, "json": json}
    scope.update(frames)
    try:
        exec(compiled, scope)
    except BaseException as e:
        return finish(False, describe(e, code))
    if "result" not in scope:
        return finish(False, "NameError: the code did not assign the answer to a variable named result")
    try:
        text = render(scope["result"], pd, np)
    except BaseException as e:
        return finish(False, "while rendering result: " + describe(e, code))
    finish(True, text)

def describe(e, code):
    # The code's own frames, innermost last, then "Type: message" as the
    # last line, like a traceback.
    lines = code.splitlines()
    where = []
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<code>":
            n = tb.tb_lineno
            src = lines[n - 1].strip() if 0 < n <= len(lines) else ""
            where.append("  line %d: %s" % (n, src))
        tb = tb.tb_next
    msg = str(e)
    head = "\n".join(where[-3:])
    text = type(e).__name__ + (": " + msg if msg else "")
    return head + "\n" + text if head else text

def render(value, pd, np):
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return value.to_string()
    if isinstance(value, (pd.Index, np.ndarray)):
        value = value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (dict, list, tuple)):
        try:
            return json.dumps(value, ensure_ascii=False, default=plain)
        except (TypeError, ValueError):
            return repr(value)
    return str(value)

def plain(v):
    if hasattr(v, "item"):
        return v.item()
    if hasattr(v, "tolist"):
        return v.tolist()
    return str(v)

def limit_resources(cpu, memory, fsize):
    try:
        import resource
    except ImportError:
        return
    for limit, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, memory), (resource.RLIMIT_FSIZE, fsize)):
        try:
            resource.setrlimit(limit, (value, value))
        except (ValueError, OSError):
            pass

def block_network():
    import socket, _socket

    def refuse(*args, **kwargs):
        raise PermissionError("network access is disabled in run_pandas")

    class BlockedSocket(socket.socket):
        def __init__(self, *args, **kwargs):
            refuse()

    for module in (socket, _socket):
        module.socket = BlockedSocket
        for name in ("create_connection", "create_server", "socketpair", "fromfd", "getaddrinfo",
                     "gethostbyname", "gethostbyname_ex", "gethostbyaddr", "getnameinfo"):
            if hasattr(module, name):
                setattr(module, name, refuse)

main()
`
