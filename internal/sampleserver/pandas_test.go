package sampleserver_test

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/sampleserver"
	"github.com/mcpeval/mcpeval/scoring"
)

// The pandas tools join the happy-path table of server_test.go, so that
// every tool keeps a happy path there.
func init() {
	happyPaths = append(happyPaths,
		struct {
			tool string
			args args
			want map[string]any
		}{"run_pandas", args{"dataset": "employees", "code": `result = {"rows": int(len(df)), "top": df.nlargest(1, "salary")["name"].iloc[0]}`},
			map[string]any{"rows": 60.0, "top": "Ximena Ramos"}},
		struct {
			tool string
			args args
			want map[string]any
		}{"list_datasets", args{}, map[string]any{"datasets.1.name": "employees", "datasets.1.rows": 60.0,
			"datasets.1.columns.3.name": "salary", "datasets.1.columns.3.dtype": "int64"}},
	)
}

// pythonWithPandas looks the interpreter up once for all tests.
var pythonWithPandas = sync.OnceValues(sampleserver.PythonWithPandas)

// requirePandas skips a test when no python3 can import pandas, except
// under CI, where that is a failure.
func requirePandas(t *testing.T) {
	t.Helper()
	if _, err := pythonWithPandas(); err != nil {
		if os.Getenv("CI") != "" && !errors.Is(err, sampleserver.ErrNoFork) {
			t.Fatal(err)
		}
		t.Skip(err.Error())
	}
}

// datasetsDir is the module's testdata/datasets.
func datasetsDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "datasets"))
	require.NoError(t, err)
	return dir
}

// readCSV reads a dataset with Go's CSV reader, to derive expectations
// independently of pandas.
func readCSV(t *testing.T, name string) (header []string, rows [][]string) {
	t.Helper()
	f, err := os.Open(filepath.Join(datasetsDir(t), name+".csv"))
	require.NoError(t, err)
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	return all[0], all[1:]
}

// topEarner returns the name and salary of the best-paid employee.
func topEarner(t *testing.T) (string, int) {
	header, rows := readCSV(t, "employees")
	name, salary := indexOf(header, "name"), indexOf(header, "salary")
	best, bestSalary := "", -1
	for _, r := range rows {
		s, err := strconv.Atoi(r[salary])
		require.NoError(t, err)
		if s > bestSalary {
			best, bestSalary = r[name], s
		}
	}
	return best, bestSalary
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// connectPandas serves only the pandas tools with cfg over streamable HTTP.
func connectPandas(t *testing.T, cfg sampleserver.PandasConfig) *client.Client {
	t.Helper()
	s := server.NewMCPServer(sampleserver.Name, sampleserver.Version, server.WithInputSchemaValidation())
	s.AddTools(sampleserver.NewPandas(cfg).Tools()...)
	ts := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(ts.Close)
	c, err := client.NewStreamableHttpClient(ts.URL + "/mcp")
	require.NoError(t, err)
	require.NoError(t, c.Start(testContext(t)))
	t.Cleanup(func() { c.Close() })
	initialize(t, c)
	return c
}

// lastLine returns the final line of an error text: "Type: message".
func lastLine(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	return lines[len(lines)-1]
}

func TestRunPandasOverTheSampleServer(t *testing.T) {
	requirePandas(t)
	t.Parallel()
	top, topSalary := topEarner(t)
	header, rows := readCSV(t, "employees")
	tests := []struct {
		name    string
		args    args
		isError bool
		check   func(t *testing.T, text string)
	}{
		{"top earners as a DataFrame", args{"dataset": "employees", "code": "result = df.nlargest(3, 'salary')[['name', 'salary']]"}, false,
			func(t *testing.T, text string) {
				lines := strings.Split(text, "\n")
				require.Len(t, lines, 4, "a header and three rows: %s", text)
				assert.Contains(t, lines[1], top)
				assert.Contains(t, lines[1], strconv.Itoa(topSalary))
			}},
		{"join of two datasets as df and df2", args{"dataset": "employees, departments",
			"code": "m = df.merge(df2, on='department')\nresult = m.loc[m['name'] == m['manager'], 'name'].sort_values().tolist()"}, false,
			func(t *testing.T, text string) {
				var managers []string
				require.NoError(t, json.Unmarshal([]byte(text), &managers), text)
				assert.Len(t, managers, 6, "each department's manager is one of its employees")
				assert.Contains(t, managers, top)
			}},
		{"KeyError keeps its type and message", args{"dataset": "employees", "code": "x = 1\nresult = df['age group'].mean()"}, true,
			func(t *testing.T, text string) {
				assert.Equal(t, "KeyError: 'age group'", lastLine(text))
				assert.Contains(t, text, "line 2: result = df['age group'].mean()", "the failing line of the code")
				assert.Equal(t, scoring.ColumnError, scoring.ClassifyError(text))
			}},
		{"SyntaxError", args{"dataset": "employees", "code": "result = df[[\n"}, true,
			func(t *testing.T, text string) {
				assert.Regexp(t, `^SyntaxError: .+ \(line 1\)$`, lastLine(text))
				assert.Equal(t, scoring.SyntaxError, scoring.ClassifyError(text))
			}},
		{"IndentationError is a syntax error", args{"dataset": "employees", "code": "x = 1\n  result = 2"}, true,
			func(t *testing.T, text string) {
				assert.Regexp(t, `^IndentationError: unexpected indent \(line 2\)$`, lastLine(text))
				assert.Equal(t, scoring.SyntaxError, scoring.ClassifyError(text))
			}},
		{"no result assigned", args{"dataset": "employees", "code": "x = df['salary'].sum()"}, true,
			func(t *testing.T, text string) {
				assert.Equal(t, "NameError: the code did not assign the answer to a variable named result", text)
			}},
		{"list result and printed output", args{"dataset": "employees.csv", "code": "print('rows:', len(df))\nresult = list(df.columns)"}, false,
			func(t *testing.T, text string) {
				list, printed, found := strings.Cut(text, "\n\n[printed output]\n")
				require.True(t, found, text)
				var cols []string
				require.NoError(t, json.Unmarshal([]byte(list), &cols), text)
				assert.Equal(t, header, cols, "df is the dataset")
				assert.Equal(t, fmt.Sprintf("rows: %d", len(rows)), printed)
			}},
		{"missing dataset", args{"dataset": "payroll", "code": "result = 1"}, true,
			func(t *testing.T, text string) {
				assert.Equal(t, `unknown dataset "payroll": available datasets: departments, employees, sales`, text)
			}},
		{"a path is not a dataset name", args{"dataset": "../go.mod", "code": "result = 1"}, true,
			func(t *testing.T, text string) { assert.Contains(t, text, `invalid dataset name "../go.mod"`) }},
		{"arguments are required", args{"code": "result = 1"}, true,
			func(t *testing.T, text string) { assert.Contains(t, text, "dataset") }},
	}
	// The built mcpeval sample-server over stdio; the happy-path table
	// covers streamable HTTP.
	c := connectStdio(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, text := call(t, c, "run_pandas", tt.args)
			require.Equal(t, tt.isError, res.IsError, text)
			tt.check(t, text)
		})
	}
}

func TestRunPandasBlocksTheNetwork(t *testing.T) {
	requirePandas(t)
	t.Parallel()
	port, accepted := listen(t)
	// One run tries every way out and reports how each failed.
	code := fmt.Sprintf(`import socket, _socket, urllib.request
addr = ("127.0.0.1", %d)
url = "http://127.0.0.1:%d/x.csv"
attempts = {
    "socket": lambda: socket.create_connection(addr, timeout=2),
    "raw _socket": lambda: _socket.socket().connect(addr),
    "urllib": lambda: urllib.request.urlopen(url, timeout=2).read(),
    "pandas URL": lambda: pd.read_csv(url),
    "DNS": lambda: socket.gethostbyname("example.com"),
}
result = {}
for name, attempt in attempts.items():
    try:
        attempt()
        result[name] = "connected"
    except Exception as e:
        result[name] = "%%s: %%s" %% (type(e).__name__, e)`, port, port)
	res, text := call(t, connectStdio(t), "run_pandas", args{"dataset": "employees", "code": code})
	require.False(t, res.IsError, text)
	var outcomes map[string]string
	require.NoError(t, json.Unmarshal([]byte(text), &outcomes), text)
	require.Len(t, outcomes, 5)
	for name, outcome := range outcomes {
		assert.Contains(t, outcome, "network access is disabled in run_pandas", name)
	}
	assert.Zero(t, accepted.Load(), "no connection reached the listener")
}

// listen accepts and counts TCP connections on a loopback port.
func listen(t *testing.T) (int, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	accepted := &atomic.Int64{}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conn.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, accepted
}

// With an empty network namespace (unshare), even a child process that
// skips the Python guard cannot connect.
func TestRunPandasNetworkNamespace(t *testing.T) {
	requirePandas(t)
	t.Parallel()
	p := sampleserver.NewPandas(sampleserver.PandasConfig{Datasets: datasetsDir(t)})
	if !p.NetworkIsolated() {
		t.Skip("unshare --net --map-root-user is not usable here: only the Python-level guard applies")
	}
	port, accepted := listen(t)
	c := connectPandas(t, sampleserver.PandasConfig{Datasets: datasetsDir(t)})
	code := fmt.Sprintf(`import subprocess, sys
child = "import socket\ntry:\n    socket.create_connection(('127.0.0.1', %d), timeout=2)\n    print('connected')\nexcept OSError as e:\n    print('refused', type(e).__name__)"
result = subprocess.run([sys.executable, "-I", "-c", child], capture_output=True, text=True, timeout=5).stdout.strip()`,
		port)
	res, text := call(t, c, "run_pandas", args{"dataset": "employees", "code": code})
	require.False(t, res.IsError, text)
	assert.True(t, strings.HasPrefix(text, "refused "), "the child's connection failed: %s", text)
	assert.Zero(t, accepted.Load())
}

func TestRunPandasEnvironmentAndWorkDirectory(t *testing.T) {
	requirePandas(t)
	t.Setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
	t.Setenv("http_proxy", "http://proxy.invalid:3128")
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak")
	c := connectPandas(t, sampleserver.PandasConfig{Datasets: datasetsDir(t)})

	dirs := map[string]bool{}
	for range 2 {
		res, text := call(t, c, "run_pandas", args{"dataset": "employees",
			"code": "import os\nopen('scratch.txt', 'w').write('x')\nresult = {'cwd': os.getcwd(), 'env': sorted(os.environ)}"})
		require.False(t, res.IsError, text)
		var run struct {
			Cwd string
			Env []string
		}
		require.NoError(t, json.Unmarshal([]byte(text), &run), text)
		for _, name := range run.Env {
			assert.NotContains(t, strings.ToLower(name), "proxy")
			assert.NotEqual(t, "OPENAI_API_KEY", name)
		}
		dirs[run.Cwd] = true
		_, err := os.Stat(run.Cwd)
		assert.True(t, os.IsNotExist(err), "the work directory %s is removed after the run", run.Cwd)
	}
	assert.Len(t, dirs, 2, "every run gets a fresh directory")
}

func TestRunPandasLimits(t *testing.T) {
	requirePandas(t)
	t.Parallel()
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		c := connectPandas(t, sampleserver.PandasConfig{Datasets: datasetsDir(t), Timeout: 2 * time.Second})
		res, text := call(t, c, "run_pandas", args{"dataset": "employees", "code": "result = 1"})
		require.False(t, res.IsError, "the worker is up: %s", text)
		for _, code := range []string{"while True:\n    pass", "import time\ntime.sleep(60)\nresult = 1"} {
			start := time.Now()
			res, text := call(t, c, "run_pandas", args{"dataset": "employees", "code": code})
			require.True(t, res.IsError, text)
			assert.Equal(t, "TimeoutError: the code did not finish within the 2s limit and was stopped", text)
			assert.Less(t, time.Since(start), 45*time.Second, "the run is stopped at the limit, not when the code ends")
		}
	})
	c := connectPandas(t, sampleserver.PandasConfig{Datasets: datasetsDir(t), MaxOutput: 1000})
	t.Run("output cap", func(t *testing.T) {
		t.Parallel()
		res, text := call(t, c, "run_pandas", args{"dataset": "employees", "code": "result = 'é' * 5000"})
		require.False(t, res.IsError, text)
		body, notice, found := strings.Cut(text, "\n[output truncated: ")
		require.True(t, found, text)
		assert.LessOrEqual(t, len(body), 1000)
		assert.Equal(t, strings.Repeat("é", 500), body, "cut at a character boundary")
		assert.Contains(t, notice, "the result has 5000 characters; the limit is 1000 bytes")

		res, text = call(t, c, "run_pandas", args{"dataset": "sales", "code": "result = df"})
		require.False(t, res.IsError, text)
		assert.Contains(t, text, "[output truncated: ")
		assert.Less(t, len(text), 1300)
	})
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		res, text := call(t, c, "run_pandas", args{"dataset": "employees", "code": "result = np.ones((1 << 28, 2)).sum()"})
		require.True(t, res.IsError, text)
		assert.Contains(t, lastLine(text), "MemoryError")
	})
}

func TestRunPandasWithoutPython(t *testing.T) {
	c := connectPandas(t, sampleserver.PandasConfig{Datasets: datasetsDir(t), Interpreters: []string{"/nonexistent/python3"}})
	res, text := call(t, c, "run_pandas", args{"dataset": "employees", "code": "result = 1"})
	require.True(t, res.IsError)
	assert.True(t, strings.HasPrefix(text, "python3 with pandas is not installed: apt-get install python3-pandas"), text)

	res, text = call(t, c, "list_datasets", args{})
	require.False(t, res.IsError, "the schema needs no Python: %s", text)
}

func TestListDatasets(t *testing.T) {
	c := connectPandas(t, sampleserver.PandasConfig{Datasets: datasetsDir(t)})
	doc := callJSON(t, c, "list_datasets", args{})
	var listed struct {
		Datasets []sampleserver.Dataset `json:"datasets"`
	}
	raw, err := json.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &listed))

	files, err := filepath.Glob(filepath.Join(datasetsDir(t), "*.csv"))
	require.NoError(t, err)
	require.Len(t, listed.Datasets, len(files))
	for _, d := range listed.Datasets {
		header, rows := readCSV(t, d.Name)
		assert.Equal(t, len(rows), d.Rows, d.Name)
		require.Len(t, d.Columns, len(header), d.Name)
		for i, col := range d.Columns {
			assert.Equal(t, header[i], col.Name)
		}
	}
	dtypes := map[string]string{}
	for _, d := range listed.Datasets {
		for _, col := range d.Columns {
			dtypes[d.Name+"."+col.Name] = col.Dtype
		}
	}
	assert.Equal(t, "int64", dtypes["employees.salary"])
	assert.Equal(t, "object", dtypes["employees.name"])
	assert.Equal(t, "object", dtypes["sales.date"])
	assert.Equal(t, "int64", dtypes["departments.budget"])
}

// The dtypes list_datasets infers in Go agree with what pandas reads.
func TestListDatasetsMatchesPandasDtypes(t *testing.T) {
	requirePandas(t)
	t.Parallel()
	dir := t.TempDir()
	csvText := "i,f,gap,flag,word,empty\n1,1.5,3,True,a,\n2,2,,False,b,\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mixed.csv"), []byte(csvText), 0o644))
	c := connectPandas(t, sampleserver.PandasConfig{Datasets: dir})

	res, text := call(t, c, "run_pandas", args{"dataset": "mixed", "code": "result = {c: str(t) for c, t in df.dtypes.items()}"})
	require.False(t, res.IsError, text)
	var fromPandas map[string]string
	require.NoError(t, json.Unmarshal([]byte(text), &fromPandas))

	doc := callJSON(t, c, "list_datasets", args{})
	cols := requirePath(t, doc, "datasets.0.columns").([]any)
	fromGo := map[string]string{}
	for _, col := range cols {
		m := col.(map[string]any)
		fromGo[m["name"].(string)] = m["dtype"].(string)
	}
	assert.Equal(t, fromPandas, fromGo)
}

func TestPandasDatasetsFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tiny.csv"), []byte("a,b\n1,x\n"), 0o644))
	t.Setenv(sampleserver.DatasetsEnv, dir)
	c := connectPandas(t, sampleserver.PandasConfig{})
	doc := callJSON(t, c, "list_datasets", args{})
	assert.Equal(t, "tiny", requirePath(t, doc, "datasets.0.name"))
	assert.Len(t, requirePath(t, doc, "datasets").([]any), 1)
}
