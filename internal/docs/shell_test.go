package docs

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/keptlinks"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/sampleserver"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// moduleName is the module the README's quick start makes, beside the
// clone of mcpeval.
const moduleName = "marrvel-eval"

// quickStart is a line of the README's quick start: the block that holds
// it runs first, in an empty directory, and every other sh block runs in a
// copy of the module it made, as a reader who followed it.
const quickStart = "go run ./cmd/mcpeval init ../" + moduleName

// stubKey is the API key of the stub model.
const stubKey = "sk-docs-stub"

// site is where a block runs: the checkout under test, the directory the
// quick start runs in, the stub model every configured provider is, the
// bundled sample server over HTTP, and a free port for a stub model the
// block starts itself.
type site struct {
	root, work, stub, mcp, port string
	// firstRun is the id of the module's first run.
	firstRun string
}

// A substitution replaces text of the sh blocks with what runs here:
// nothing a block runs may need the internet, a key or a server this
// machine lacks. Each must still be used by some block.
type substitution struct {
	old  string
	new  func(s site) string
	why  string
	used atomic.Bool
}

func substitutions() []*substitution {
	return []*substitution{
		{old: "git clone https://github.com/mcpeval/mcpeval && cd mcpeval", new: func(s site) string { return "cd " + shellQuote(s.root) },
			why: "the checkout under test stands for the published repository"},
		{old: "../" + moduleName, new: func(s site) string { return shellQuote(filepath.Join(s.work, moduleName)) },
			why: "the module is made in the test's directory, not beside the checkout"},
		{old: "OPENROUTER_API_KEY=...", new: func(s site) string {
			return "OPENAI_BASE_URL=" + s.stub + " OPENAI_API_KEY=" + stubKey + " EVAL_MODEL=google/gemini-2.5-flash"
		}, why: "OpenRouter is the stub model, serving OpenRouter's default model"},
		{old: "http://localhost:11434/v1", new: func(s site) string { return s.stub },
			why: "Ollama is the stub model"},
		{old: "127.0.0.1:8099", new: func(s site) string { return "127.0.0.1:" + s.port },
			why: "a stub model a block starts listens on a free port"},
		{old: "python -m marrvel_mcp", new: func(site) string { return "go tool mcpeval sample-server" },
			why: "MARRVEL-MCP is not installed here: the bundled sample server mirrors its tools"},
		{old: "path/to/test_cases.yaml", new: func(site) string { return "cases/sample.yaml" },
			why: "the module's own case file"},
		{old: "http://localhost:8000/mcp", new: func(s site) string { return s.mcp },
			why: "a server already listening is the bundled sample server over streamable HTTP"},
		{old: "EVAL_SERVER=marrvel make", new: func(site) string { return "EVAL_SERVER=marrvel-sample make" },
			why: "the module's .mcp.json names the sample server marrvel-sample"},
		{old: "20261120T101500Z-3fa2c1", new: func(s site) string { return s.firstRun },
			why: "a run named by its id is the module's first run"},
	}
}

// A line of a page that the test leaves alone, and why: a line of an sh
// block that cannot run here (it must still begin with text), or a text
// block that shows output no block here makes. Keep these lists short:
// what is left alone can drift.
type exemption struct {
	page string
	line int
	text string
	why  string
}

var exemptLines = []exemption{
	// A module of one's own has no tests of mcpeval, and in mcpeval's
	// checkout they would run this test again.
	{"README.md", 17, "make test", "the project's own tests"},
}

var untestedOutput = []exemption{
	// Where the budget stops a run midway depends on which cases go test
	// started first.
	{"docs/models.md", 55, "", "a run the budget stops midway"},
	// The sample server's tool surface does not change between two runs.
	{"docs/tools.md", 69, "", "a tool surface changed since the last run"},
}

// exempt returns the exemption of a page's line in list, if any.
func exempt(list []exemption, page string, line int) (exemption, bool) {
	i := slices.IndexFunc(list, func(e exemption) bool { return e.page == page && e.line == line })
	if i < 0 {
		return exemption{}, false
	}
	return list[i], true
}

// outputOf returns the index of the sh block whose output blocks[i], a text
// block, shows: the block before it on its page, past other text blocks,
// or -1.
func outputOf(blocks []Block, i int) int {
	for j := i - 1; j >= 0 && blocks[j].Page == blocks[i].Page; j-- {
		switch blocks[j].Lang {
		case "sh":
			return j
		case "text":
			continue
		}
		return -1
	}
	return -1
}

// A block's setting is what it assumes of its reader beyond the quick
// start, found by its page and the beginning of its first line.
type blockSetting struct {
	page, first string
	// provider: the reader has configured a provider, here the stub model.
	provider bool
	// status is the exit status the block ends with.
	status int
	why    string
}

var blockSettings = []blockSetting{
	{page: "docs/models.md", first: "go test ./evaltest -models", provider: true, why: "several models need a provider"},
	{page: "docs/shards.md", first: "for k in 1 2 3", provider: true, why: "shards divide a provider's requests; a reference run keeps no cache to merge"},
	{page: "docs/why-it-changed.md", first: "go test ./evaltest -count=1", provider: true, why: "replays compare models"},
	{page: "docs/models.md", first: "go tool mcpeval stub", status: 1, why: "model bad answers the gene questions wrong"},
	{page: "docs/arms.md", first: "go tool mcpeval stub", status: 1, why: "the arms without a server and with misleading descriptions fail cases"},
}

// pageBlocks returns the module root, the pages relative to it (README.md,
// whose commands take longest, first) and their blocks.
func pageBlocks(t *testing.T) (root string, pages []string, blocks []Block) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	paths, err := Pages(root)
	require.NoError(t, err)
	blocks, err = Blocks(paths)
	require.NoError(t, err)
	for i := range blocks {
		rel, err := filepath.Rel(root, blocks[i].Page)
		require.NoError(t, err)
		blocks[i].Page = filepath.ToSlash(rel)
	}
	for _, p := range paths {
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		pages = append(pages, filepath.ToSlash(rel))
	}
	readmeFirst := func(p string) int {
		if p == "README.md" {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(pages, func(a, b string) int { return cmp.Compare(readmeFirst(a), readmeFirst(b)) })
	return root, pages, blocks
}

// setting is the setting of an sh block: none unless blockSettings has one.
func setting(b Block) blockSetting {
	for _, set := range blockSettings {
		if set.page == b.Page && strings.HasPrefix(b.Text, set.first) {
			return set
		}
	}
	return blockSetting{}
}

// Every sh block of README.md and docs/ runs as a reader would run it, in
// a module of their own made by the README's quick start (with this
// checkout), against the stub model wherever a provider is configured.
// The block must end as expected, and every text block after it must be
// an excerpt of what it printed (see excerptOf and normalise).
func TestShellBlocks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the pages' sh blocks are POSIX shell")
	}
	for _, tool := range []string{"bash", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the pages' sh blocks need %s, which is not installed", tool)
		}
	}
	if testing.Short() {
		t.Skip("-short: the pages' commands take a minute of CPU")
	}
	root, pages, blocks := pageBlocks(t)
	subs := substitutions()
	env := blockEnv(t)
	work := t.TempDir()
	s := site{root: root, work: work}

	first := slices.IndexFunc(blocks, func(b Block) bool { return b.Lang == "sh" && strings.Contains(b.Text, quickStart) })
	require.GreaterOrEqual(t, first, 0, "no sh block holds the quick start, %s", quickStart)
	if !runAndCheck(t, blocks, first, work, env, s, subs) {
		t.FailNow()
	}
	module := filepath.Join(work, moduleName)
	cases, err := evalcase.LoadPath(filepath.Join(module, "cases"))
	require.NoError(t, err)
	stub := llmstub.Start(llmstub.Replay(cases), llmstub.Options{})
	t.Cleanup(stub.Close)
	s.stub = stub.BaseURL()
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(sampleserver.New()))
	mcp := httptest.NewServer(mux)
	t.Cleanup(mcp.Close)
	s.mcp = mcp.URL + "/mcp"
	kept, err := os.ReadDir(filepath.Join(module, settings.DefaultOut, "runs"))
	require.NoError(t, err)
	for _, k := range kept {
		if s.firstRun == "" && k.IsDir() && strings.IndexFunc(k.Name(), func(r rune) bool { return r < '0' || r > '9' }) == 8 {
			s.firstRun = k.Name() // 20261129T043334.752Z-4ad473
		}
	}
	require.NotEmpty(t, s.firstRun, "the quick start's runs")
	provider := append(slices.Clip(env), "OPENAI_BASE_URL="+s.stub, "OPENAI_API_KEY="+stubKey, "EVAL_MODEL=google/gemini-2.5-flash")

	// The pages run side by side, each in a copy of the module, its blocks
	// one after the other as its reader runs them.
	// withBlocks and ran count the pages with sh blocks and those whose
	// blocks ran: under a -run filter some do not, and the substitutions
	// of their blocks go unused.
	var withBlocks, ran atomic.Int64
	t.Run("pages", func(t *testing.T) {
		for _, page := range pages {
			var run []int
			for i, b := range blocks {
				if b.Page == page && b.Lang == "sh" && i != first {
					run = append(run, i)
				}
			}
			if len(run) == 0 {
				continue
			}
			withBlocks.Add(1)
			t.Run(page, func(t *testing.T) {
				ran.Add(1)
				t.Parallel()
				dir := filepath.Join(t.TempDir(), moduleName)
				out, err := exec.Command("cp", "-a", module, dir).CombinedOutput()
				require.NoError(t, err, "%s", out)
				for _, f := range blocks {
					if f.Page == page && f.File != "" {
						require.True(t, filepath.IsLocal(f.File), "%s:%d: %s is not a path inside the module", f.Page, f.Line, f.File)
						path := filepath.Join(dir, filepath.FromSlash(f.File))
						require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
						require.NoError(t, os.WriteFile(path, []byte(f.Text), 0o644))
					}
				}
				for _, i := range run {
					s := s
					s.port = freePort(t)
					benv := env
					if setting(blocks[i]).provider {
						benv = provider
					}
					runAndCheck(t, blocks, i, dir, benv, s, subs)
				}
			})
		}
	})
	if ran.Load() < withBlocks.Load() {
		return
	}
	for _, sub := range subs {
		assert.True(t, sub.used.Load(), "no block holds %q any longer: drop its substitution", sub.old)
	}
}

// runAndCheck runs blocks[i], an sh block, in dir and checks its exit
// status and the text blocks that follow it on its page. It reports
// whether both were as the page says.
func runAndCheck(t *testing.T, blocks []Block, i int, dir string, env []string, s site, subs []*substitution) bool {
	t.Helper()
	b := blocks[i]
	where := b.Page + ":" + strconv.Itoa(b.Line)
	want := setting(b).status
	out, status := runBlock(t, b, dir, env, s, subs)
	if !assert.Equal(t, want, status, "%s: the block's exit status; it printed:\n%s", where, tail(out, 80)) {
		return false
	}
	ok := true
	for j, text := range blocks {
		if _, skip := exempt(untestedOutput, text.Page, text.Line); skip || text.Lang != "text" || outputOf(blocks, j) != i {
			continue
		}
		if match, diff := excerptOf(text.Text, out); !match {
			ok = false
			t.Errorf("%s:%d: the text block is not what the block at line %d printed (normalised, - the page, + the output where it came closest):\n%s", text.Page, text.Line, b.Line, diff)
		}
	}
	return ok
}

// blockEnv is the environment blocks run in: the test's own without the
// suite's settings and provider keys (settings.IsolatedEnv) or a CI's
// variables, with no module proxy (nothing is downloaded), a browser that
// opens nothing and the go command's links kept (package keptlinks).
func blockEnv(t *testing.T) []string {
	bin := t.TempDir()
	for _, name := range []string{"xdg-open", "open"} {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	}
	goflags := ""
	var env []string
	for _, kv := range settings.IsolatedEnv() {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "CI", "GITHUB_ACTIONS", "GITHUB_RUN_ID", "GITLAB_CI", "CI_PIPELINE_ID", "BUILDKITE", "BUILDKITE_BUILD_ID",
			"CIRCLECI", "CIRCLE_WORKFLOW_ID", "JOB_COMPLETION_INDEX", "GOPROXY", "KEPT_LINKS", "GOTMPDIR":
			continue
		case "GOFLAGS":
			goflags = value
			continue
		case "PATH":
			kv = "PATH=" + bin + string(os.PathListSeparator) + value
		}
		env = append(env, kv)
	}
	kept, remove, err := keptlinks.Env(goflags)
	require.NoError(t, err)
	t.Cleanup(remove)
	return append(append(env, "GOPROXY=off"), kept...)
}

// runBlock runs an sh block in dir with bash, stopping at the first
// command that fails, and returns what it printed and its exit status.
// Substitutions are made, exempted lines left out, and a command the block
// starts in the background (a line ending in &, before any other command)
// is started first and awaited until it prints its first line; it is
// stopped, with whatever the block left running, when the block ends.
func runBlock(t *testing.T, b Block, dir string, env []string, s site, subs []*substitution) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	lines := strings.Split(strings.TrimSuffix(b.Text, "\n"), "\n")
	var background []string
	foreground := false
	for i, line := range lines {
		n := b.Line + 1 + i
		if ex, ok := exempt(exemptLines, b.Page, n); ok {
			require.True(t, strings.HasPrefix(strings.TrimSpace(line), ex.text), "%s:%d is exempted as %q but reads %q", b.Page, n, ex.text, line)
			line = ""
		}
		for _, sub := range subs {
			if strings.Contains(line, sub.old) {
				line = strings.ReplaceAll(line, sub.old, sub.new(s))
				sub.used.Store(true)
			}
		}
		lines[i] = line
		code := strings.TrimSpace(stripComment(line))
		switch {
		case strings.HasSuffix(code, "&") && !strings.HasSuffix(code, "&&"):
			require.False(t, foreground, "%s:%d: a command in the background must come before the block's other commands", b.Page, n)
			background = append(background, strings.TrimSuffix(code, "&"))
			lines[i] = ""
		case code != "":
			foreground = true
		}
	}
	var logs []*lockedLog
	for _, cmd := range background {
		log, stop := startBackground(ctx, t, cmd, dir, env)
		defer stop()
		logs = append(logs, log)
	}
	outFile, err := os.CreateTemp(t.TempDir(), "output")
	require.NoError(t, err)
	defer outFile.Close()
	script := fmt.Sprintf("set -eo pipefail; trap 'echo \"%s:$((LINENO + %d)): exit status $?\" >&2' ERR\n%s\n", b.Page, b.Line-1, strings.Join(lines, "\n"))
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, outFile, outFile
	ownGroup(cmd)
	err = cmd.Run()
	stopGroup(cmd)
	if cmd.ProcessState != nil {
		t.Logf("%s:%d: %.1f s of CPU", b.Page, b.Line, (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds())
	}
	status := 0
	if err != nil {
		status = -1
		if exit, ok := err.(*exec.ExitError); ok {
			status = exit.ExitCode()
		}
	}
	out, rerr := os.ReadFile(outFile.Name())
	require.NoError(t, rerr)
	if err != nil && status < 0 {
		t.Errorf("%s: %v", b.Page, err)
	}
	text := string(out)
	for i, log := range logs {
		if status != 0 {
			text += fmt.Sprintf("\n(the block's command in the background, %s, printed:)\n%s", background[i], log.String())
		}
	}
	return text, status
}

// startBackground starts a command of a block in the background and waits
// for its first line of output (the stub model prints its address once it
// listens). It returns what the command printed, and stop, which ends it
// with every process it started.
func startBackground(ctx context.Context, t *testing.T, command, dir string, env []string) (log *lockedLog, stop func()) {
	t.Helper()
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir, cmd.Env = dir, env
	ownGroup(cmd)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = w, w
	require.NoError(t, cmd.Start())
	w.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop = func() {
		stopGroup(cmd)
		<-exited
		r.Close()
	}
	log = &lockedLog{}
	first := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(r)
		for n := 0; sc.Scan(); n++ {
			log.add(sc.Text() + "\n")
			if n == 0 {
				close(first)
			}
		}
	}()
	select {
	case <-first:
	case err := <-exited:
		exited <- err
		stop()
		t.Fatalf("%s ended before it printed a line (%v): %s", command, err, log.String())
	case <-ctx.Done():
		stop()
		t.Fatalf("%s printed nothing: %v", command, ctx.Err())
	}
	return log, stop
}

// lockedLog is what a command in the background printed so far.
type lockedLog struct {
	mu   sync.Mutex
	text strings.Builder
}

func (l *lockedLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.text.WriteString(s)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.String()
}

// stripComment drops a shell comment from a line: from a # that begins a
// word outside quotes.
func stripComment(line string) string {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i]
		}
	}
	return line
}

// tail is the last n lines of s, after a line that says how many went.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return s
	}
	return fmt.Sprintf("(%d lines before)\n%s\n", len(lines)-n, strings.Join(lines[len(lines)-n:], "\n"))
}

// shellQuote quotes a word for the shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// freePort is a port nothing listens on at the moment.
func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}
