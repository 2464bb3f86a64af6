package sampleserver

// The pandas tools: run_pandas runs model-written pandas code on CSV
// datasets, list_datasets shows the datasets' schemas. They serve the code
// cases (kind: code) of the evaluation.
//
// run_pandas keeps a small pool of long-lived Python workers (worker.py),
// started on first use: each has pandas imported and the datasets loaded
// once (a dataset file that changes is read again). Every request runs in a
// process forked from a worker for that request alone, so each starts from
// the same state: a fresh namespace with its own copy of the frames, no
// module changed by earlier code, and a fresh temporary working directory
// (also HOME and TMPDIR) that is removed afterwards. Its limits: a wall-clock
// time limit (10 s by default; the run and its process group are killed),
// a CPU-time limit, an address-space limit (the worker's own plus 1 GiB by
// default), a file-size limit, and an environment built from scratch (no
// proxy variables, no credentials; python -I ignores PYTHON* variables and
// the user's site-packages). A worker that does not answer within the time
// limit plus a grace period, or whose request is cancelled, is killed and
// replaced. The result text is capped (64 KB by default), and so is the
// printed output. The result's _meta carries the code's own execution time
// (wall and CPU, not the start-up, loading or rendering around it) and the
// reading of its syntax tree (eval.CodeExecution).
//
// Network: socket creation and name resolution are replaced with a
// PermissionError in the worker before any code runs, so ordinary network
// use (socket, urllib, requests, pandas reading a URL) fails. That guard is
// Python-level and can be bypassed deliberately (ctypes, a subprocess). Where
// `unshare --net --map-root-user` works (Linux with unprivileged user
// namespaces), the workers also run in an empty network namespace, which no
// code can leave. Files outside the temporary directory stay readable and
// writable as the server's user: run_pandas is an evaluation aid for trusted
// operators, not a sandbox for hostile code.

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
)

// DatasetsEnv names the directory of CSV datasets the pandas tools load.
// Unset, it is testdata/datasets under the module root (the nearest
// directory at or above the working directory that holds go.mod).
const DatasetsEnv = "MARRVEL_SAMPLE_DATASETS"

// PythonEnv names the Python interpreter the pandas tools use. Unset, they
// use /usr/bin/python3 if pandas is installed for it, else python3 on PATH.
const PythonEnv = "MARRVEL_SAMPLE_PYTHON"

// Defaults of PandasConfig.
const (
	DefaultPandasTimeout   = 10 * time.Second
	DefaultPandasMaxOutput = 64 << 10
	DefaultPandasMemory    = 1 << 30
	defaultMaxConcurrent   = 4
	maxDatasets            = 4
	maxPrinted             = 8 << 10
	maxErrorText           = 4000
)

// ErrNoPandas is the error when no interpreter has pandas installed.
var ErrNoPandas = errors.New("python3 with pandas is not installed: apt-get install python3-pandas (or set " +
	PythonEnv + " to a python3 that has pandas)")

// ErrNoFork is the error on a system where run_pandas cannot run: its
// workers fork a process for every run, which Windows cannot do.
var ErrNoFork = errors.New("run_pandas needs Linux or macOS: its Python workers fork a process for every run, which " +
	runtime.GOOS + " cannot do; code cases are skipped here")

// PandasConfig configures the pandas tools; zero fields take the defaults.
type PandasConfig struct {
	// Datasets is the directory of CSV files (default: $MARRVEL_SAMPLE_DATASETS,
	// else testdata/datasets under the module root).
	Datasets string
	// Timeout bounds one execution (default 10 s).
	Timeout time.Duration
	// MaxOutput caps the result text in bytes (default 64 KB).
	MaxOutput int
	// Memory is what one execution may allocate beyond what its worker
	// already holds (default 1 GiB).
	Memory int64
	// Interpreters are tried in order; the first that imports pandas is
	// used (default: $MARRVEL_SAMPLE_PYTHON alone if set, else
	// /usr/bin/python3, then python3 on PATH).
	Interpreters []string
	// MaxConcurrent bounds executions running at once: the number of
	// workers in the pool (default 4).
	MaxConcurrent int
}

// Pandas serves run_pandas and list_datasets. The interpreter is looked
// up, and the worker pool made, on first use.
type Pandas struct {
	cfg     PandasConfig
	dirErr  error
	once    sync.Once
	command []string // interpreter command prefix
	findErr error
	pool    *workerPool
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
	if p.cfg.Memory <= 0 {
		p.cfg.Memory = DefaultPandasMemory
	}
	if len(p.cfg.Interpreters) == 0 {
		p.cfg.Interpreters = defaultInterpreters()
	}
	if p.cfg.MaxConcurrent <= 0 {
		p.cfg.MaxConcurrent = defaultMaxConcurrent
	}
	if p.cfg.Datasets == "" {
		p.cfg.Datasets, p.dirErr = defaultDatasets()
	}
	return p
}

// defaultInterpreters are the interpreters tried by default.
func defaultInterpreters() []string {
	if python := os.Getenv(PythonEnv); python != "" {
		return []string{python}
	}
	return []string{"/usr/bin/python3", "python3"}
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
			"List the CSV datasets run_pandas can load: name, row count, and every column with its pandas dtype "+
				"(and, for text columns with few distinct values, those values)."),
			Handler: p.listDatasets},
	}
}

// PythonWithPandas returns the interpreter run_pandas uses by default: the
// absolute path of $MARRVEL_SAMPLE_PYTHON if set and pandas is installed
// for it; else of /usr/bin/python3 if it is, else of python3 on PATH if it
// is. The error wraps ErrNoPandas only when that is certain: no interpreter
// was found, or each one found ran and found no pandas. A check that could
// not finish (a timeout, a crash) gives another error.
func PythonWithPandas() (string, error) {
	if !canFork {
		return "", ErrNoFork
	}
	return findPython(defaultInterpreters())
}

// CheckPandas tells whether the bundled server can run code cases: ErrNoFork
// on Windows, an error wrapping ErrNoPandas when python3 with pandas is
// certainly missing, else nil. A check that could not finish is no reason to skip code cases: the
// server's run_pandas then reports what went wrong.
func CheckPandas() error {
	if _, err := PythonWithPandas(); errors.Is(err, ErrNoPandas) || errors.Is(err, ErrNoFork) {
		return err
	}
	return nil
}

// Python returns a python3 for reading code's syntax tree, which needs no
// pandas: $MARRVEL_SAMPLE_PYTHON if set, else /usr/bin/python3, else python3
// on PATH, as an absolute path.
func Python() (string, error) {
	var tried []string
	for _, c := range defaultInterpreters() {
		path, err := exec.LookPath(c)
		if err == nil {
			return path, nil
		}
		tried = append(tried, c)
	}
	return "", fmt.Errorf("no python3 found (tried %s): apt-get install python3, or set %s", strings.Join(tried, ", "), PythonEnv)
}

// findPandas is the Python that tells whether pandas is installed: it
// finds the package without importing it (an import takes about a second
// of CPU; a broken install shows when run_pandas starts its worker), and
// fails as a missing import does.
const findPandas = `import sys, importlib.util
if importlib.util.find_spec("pandas") is None:
    raise ModuleNotFoundError("No module named 'pandas'")
sys.stdout.write(sys.executable)`

func findPython(candidates []string) (string, error) {
	var tried []string
	certain := true
	for _, c := range candidates {
		path, err := exec.LookPath(c)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: not found", c))
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, path, "-I", "-c", findPandas)
		cmd.Env = withoutProxies(os.Environ()) // interpreter shims may need the caller's environment
		var stderr tailWriter
		stderr.max = maxErrorText
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		if exe := strings.TrimSpace(string(out)); err == nil && filepath.IsAbs(exe) {
			return exe, nil
		}
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit) && exit.Exited() && strings.Contains(stderr.String(), "Error: No module named"):
			tried = append(tried, fmt.Sprintf("%s: no pandas", c))
		default:
			certain = false
			tried = append(tried, fmt.Sprintf("%s: the check failed: %v %s", c, err, lastLine(stderr.String())))
		}
	}
	if !certain {
		return "", fmt.Errorf("could not check for python3 with pandas (tried %s)", strings.Join(tried, "; "))
	}
	return "", fmt.Errorf("%w (tried %s)", ErrNoPandas, strings.Join(tried, "; "))
}

// interpreter returns the command prefix that runs the worker: the python
// executable, inside an empty network namespace when unshare allows.
func (p *Pandas) interpreter() ([]string, error) {
	p.once.Do(func() {
		if !canFork {
			p.findErr = ErrNoFork
			return
		}
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
		p.pool = newWorkerPool(p.command, workerConfig{
			Preload: p.preload(), CPUSeconds: int(p.cfg.Timeout.Seconds()) + 1,
			Memory: p.cfg.Memory, FileSize: int64(max(16<<20, 8*p.cfg.MaxOutput)),
		}, p.cfg.MaxConcurrent)
	})
	return p.command, p.findErr
}

// preload lists the datasets a worker loads when it starts.
func (p *Pandas) preload() []string {
	names, err := p.names()
	if err != nil {
		return nil
	}
	var paths []string
	for _, name := range names {
		path := filepath.Join(p.cfg.Datasets, name+".csv")
		if info, err := os.Stat(path); err == nil && info.Size() <= maxPreload {
			paths = append(paths, path)
		}
	}
	return paths
}

// Close stops the workers. Later runs fail.
func (p *Pandas) Close() {
	p.once.Do(func() { p.findErr = errPoolClosed })
	if p.pool != nil {
		p.pool.close()
	}
}

// WorkerPIDs returns the process ids of the live workers.
func (p *Pandas) WorkerPIDs() []int {
	if p.pool == nil {
		return nil
	}
	return p.pool.pids()
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

// Column is one column of a dataset with its pandas dtype, and for a text
// column with few distinct values (at most maxListedValues), those values.
type Column struct {
	Name   string   `json:"name"`
	Dtype  string   `json:"dtype"`
	Values []string `json:"values,omitempty"`
}

// Text columns with at most this many distinct values, none longer than
// maxListedValueLen, have their values listed.
const (
	maxListedValues   = 12
	maxListedValueLen = 64
)

// Dataset describes one CSV file as list_datasets reports it.
type Dataset struct {
	Name    string   `json:"name"`
	Rows    int      `json:"rows"`
	Columns []Column `json:"columns"`
}

func (p *Pandas) listDatasets(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	datasets, err := p.Datasets()
	if err != nil {
		return errResult(err)
	}
	return jsonResult(struct {
		Datasets []Dataset `json:"datasets"`
		Usage    string    `json:"usage"`
	}{datasets, `run_pandas(code, dataset="employees") loads the dataset as df; dataset="employees,departments" loads df and df2.`})
}

// Datasets describes the datasets run_pandas can load, as list_datasets
// lists them.
func (p *Pandas) Datasets() ([]Dataset, error) {
	names, err := p.names()
	if err != nil {
		return nil, err
	}
	var out []Dataset
	for _, name := range names {
		d, err := describeCSV(filepath.Join(p.cfg.Datasets, name+".csv"))
		if err != nil {
			return nil, err
		}
		d.Name = name
		out = append(out, d)
	}
	return out, nil
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
		col := Column{Name: name, Dtype: kinds[i].dtype()}
		if col.Dtype == "object" && !kinds[i].tooMany {
			col.Values = kinds[i].distinct
		}
		d.Columns = append(d.Columns, col)
	}
	return d, nil
}

// valueKind accumulates what the values of one column could be, and its
// first distinct values.
type valueKind struct {
	seen, notInt, notFloat, notBool, empty bool
	distinct                               []string
	tooMany                                bool
}

func (k *valueKind) see(v string) {
	v = strings.TrimSpace(v)
	if v == "" {
		k.empty = true
		return
	}
	k.seen = true
	if !k.tooMany && !slices.Contains(k.distinct, v) {
		k.distinct = append(k.distinct, v)
		k.tooMany = len(k.distinct) > maxListedValues || len(v) > maxListedValueLen
	}
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
	out, err := p.Run(ctx, req.GetString("code", ""), req.GetString("dataset", ""))
	if err != nil {
		return nil, err
	}
	res := mcp.NewToolResultText(out.Text)
	if out.Failed {
		res = mcp.NewToolResultError(out.Text)
	}
	if out.Execution != nil {
		res.Meta = mcp.NewMetaFromMap(map[string]any{eval.CodeExecutionMeta: out.Execution})
	}
	return res, nil
}

// Execution is the outcome of one run_pandas call.
type Execution struct {
	// Text is the result text, or the error text when Failed.
	Text   string
	Failed bool
	// Execution is what the worker measured and read of the code; nil when
	// the code never reached a worker (a bad dataset name, no pandas).
	Execution *eval.CodeExecution
}

// Run runs code on the named datasets (run_pandas). A problem with the
// code or the arguments is a failed Execution; the error is the context
// ending.
func (p *Pandas) Run(ctx context.Context, code, dataset string) (Execution, error) {
	files, err := p.datasetFiles(dataset)
	if err != nil {
		return Execution{Text: err.Error(), Failed: true}, nil
	}
	if _, err := p.interpreter(); err != nil {
		return Execution{Text: err.Error(), Failed: true}, nil
	}
	dir, err := os.MkdirTemp("", "run-pandas-")
	if err != nil {
		return Execution{Text: fmt.Sprintf("run_pandas: create work directory: %v", err), Failed: true}, nil
	}
	defer os.RemoveAll(dir)

	reply, err := p.pool.run(ctx, workerRequest{Code: code, Files: files, Dir: dir, Timeout: p.cfg.Timeout.Seconds(),
		Cap: p.cfg.MaxOutput}, p.cfg.Timeout+workerGrace)
	switch {
	case ctx.Err() != nil:
		return Execution{}, ctx.Err()
	case err != nil:
		return Execution{Text: "RuntimeError: " + err.Error(), Failed: true}, nil
	}
	exec := &eval.CodeExecution{Seconds: reply.Seconds, CPUSeconds: reply.CPUSeconds, TimedOut: reply.TimedOut,
		Facts: reply.Facts}
	switch {
	case reply.TimedOut:
		return Execution{Text: fmt.Sprintf("TimeoutError: the code did not finish within the %s limit and was stopped",
			p.cfg.Timeout), Failed: true, Execution: exec}, nil
	case reply.Ended != "":
		msg := "RuntimeError: the Python process ended without a result (" + reply.Ended + ")"
		if tail := strings.TrimSpace(readTail(filepath.Join(dir, "stderr.txt"), maxErrorText)); tail != "" {
			msg += "\n" + tail
		}
		return Execution{Text: msg, Failed: true, Execution: exec}, nil
	case !reply.OK:
		return Execution{Text: limitText(reply.Text, maxErrorText, reply.Length, true), Failed: true, Execution: exec}, nil
	}
	text := limitText(reply.Text, p.cfg.MaxOutput, reply.Length, false)
	if printed, dropped := readPrinted(filepath.Join(dir, "printed.txt")); printed != "" {
		text += "\n\n[printed output]\n" + printed
		if dropped > 0 {
			text += fmt.Sprintf("\n[printed output cut: %d more bytes]", dropped)
		}
	}
	return Execution{Text: text, Execution: exec}, nil
}

// readPrinted returns what the code printed (at most maxPrinted bytes,
// without trailing newlines) and how many bytes were left out. The file is
// not followed if the code replaced it with a link.
func readPrinted(path string) (string, int64) {
	f, err := openNoFollow(path)
	if err != nil {
		return "", 0
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return "", 0
	}
	data, _ := io.ReadAll(io.LimitReader(f, maxPrinted))
	return strings.TrimRight(strings.ToValidUTF8(string(data), "\uFFFD"), "\n"), max(info.Size()-int64(len(data)), 0)
}

// readTail returns the last n bytes of a regular file, or "".
func readTail(path string, n int) string {
	f, err := openNoFollow(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return ""
	}
	if size := info.Size(); size > int64(n) {
		f.Seek(size-int64(n), io.SeekStart)
	}
	data, _ := io.ReadAll(io.LimitReader(f, int64(n)))
	return strings.ToValidUTF8(string(data), "")
}

// limitText cuts text to max bytes (at a character boundary) and says so.
// length is the full text's length in characters, as the worker measured
// it before its own cut.
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

// lastLine returns the last non-empty line of text.
func lastLine(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	return lines[len(lines)-1]
}
