package suite_test

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/keptlinks"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/runs"
)

// TestScripts runs the scripts in testdata/script: each is a session of the
// suite's command line (go test ./evaltest, gotestsum, mcpeval) against
// a stub model, with the files it writes checked afterwards. See scriptCmds
// for the commands they add to testscript's own, and evaltestCommand for
// the evaltest program, which stands for go test ./evaltest in all but
// the scripts about the go command. Likewise mcpeval on the scripts' PATH,
// the checkout's command built once, stands for go tool mcpeval (which
// loads the module's 530 packages on every run to find the command it
// cached) in all but the scripts about the go command (frontdoor,
// newcomer) and gotestsum's post-run commands.
func TestScripts(t *testing.T) {
	t.Parallel()
	root, err := files.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	// The scripts' go test commands link the suite's test binary once
	// between them (package keptlinks), not once a command.
	var goEnv []string
	goflags := ""
	for _, kv := range goEnvironment(t) {
		if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			goflags = v
			continue
		}
		goEnv = append(goEnv, kv)
	}
	kept, remove, err := keptlinks.Env(goflags)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove)
	goEnv = append(goEnv, kept...)
	bins, err := scriptBinaryEnv()
	if err != nil {
		t.Fatal(err)
	}
	goEnv = append(goEnv, bins...)
	mcpeval, err := mcpevalBinary()
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Vars = append(e.Vars, goEnv...)
			e.Vars = append(e.Vars,
				"ROOT="+root,
				"SHARED="+filepath.Join(root, "..", "shared"),
				"EVAL_CASES="+filepath.Join(e.WorkDir, "cases.yaml"),
				"EVAL_OUT="+filepath.Join(e.WorkDir, "out"),
				"EVAL_CACHE="+filepath.Join(e.WorkDir, "cache.json"),
				"EVAL_DOTENV=off",
				"EVAL_PROGRESS=off",
			)
			e.Setenv("PATH", filepath.Dir(mcpeval)+string(filepath.ListSeparator)+e.Getenv("PATH"))
			e.Values[stubKey{}] = &stubHolder{}
			e.Cd = root
			return nil
		},
		Condition: func(cond string) (bool, error) {
			name, arg, ok := strings.Cut(cond, ":")
			if ok && name == "exists" {
				_, err := os.Stat(arg)
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: scriptCmds,
	})
}

// goEnvironment is what the go command needs under testscript's bare
// environment (whose HOME does not exist): its caches and settings, and
// the collector's GOGC when set (make test sets it for every Go process).
func goEnvironment(t *testing.T) []string {
	names := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT", "GOFLAGS", "GOPROXY", "GONOSUMDB", "GOTOOLCHAIN"}
	out, err := exec.Command("go", append([]string{"env"}, names...)...).Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	values := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	var env []string
	for i, name := range names {
		if i < len(values) && values[i] != "" {
			env = append(env, name+"="+values[i])
		}
	}
	if gogc := os.Getenv("GOGC"); gogc != "" {
		env = append(env, "GOGC="+gogc)
	}
	return env
}

// scriptCmds are the commands the scripts add to testscript's own.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// stub BEHAVIOUR [-password P] [-latency D] [-served M1,M2] [-wrong-turn N] [-user fails|leaky]: serve a stub model for the
	// rest of the script and point the suite at it (OPENAI_BASE_URL,
	// EVAL_MODEL, OPENAI_API_KEY unless already set). With -password, the
	// base URL carries user credentials; -latency delays every reply;
	// -wrong-turn makes the model answer llmstub.WrongAnswer at turn N of
	// every conversation (llmstub.WrongAtTurn); -user fails answers every
	// request to play a simulated user with HTTP 500 (llmstub.FailingUser),
	// -user leaky plays the user as one who tells what they know unasked
	// (llmstub.LeakyUser).
	// Behaviours:
	//   yes      answers "x" and approves every answer
	//   exact    answers "x"; as judge approves an answer that is the expected one
	//   attribution  as llmstub.ReplayOffered on $EVAL_CASES (the reference calls
	//            when offered, not deprecated), approves every answer, but one
	//            to a question holding "(graded)" only when it holds the
	//            expected answer
	//   attribution-changed  the same, but gives up at once on a question
	//            holding "(model)", and as judge rejects a question holding "(judge)"
	//   replay   replays the reference calls of $EVAL_CASES, approves every answer;
	//            asks a simulated user for what it knows first, and plays the user
	//   replay-never-asks  the same, but never asks a simulated user anything
	//            (llmstub.ReplayWithoutAsking)
	//   flaky    answers "x"; as judge approves a question whose text holds
	//            "k of n" on k of its first n judgements, and any other always
	//   models   answers "x" as model good, which reports a cost of $0.01 per
	//            request; as model bad answers "y" to questions holding "hard"
	//            and reports no cost; approves every answer
	//   unauthorized  answers every request with 401
	//   mixed    answers "x", or HTTP 500 to a question holding "(error)";
	//            as judge rejects a question holding "(fail)", approves others
	//   leaky    plants $SECRET and the password in a tool's name, arguments and
	//            answer; approves questions that contain "approve", rejects others
	//            with a reason holding both
	//   replay-strict  replays the reference calls of $EVAL_CASES; as judge
	//            rejects an answer holding "no such record" (the results
	//            othertools gives a copy), approves others
	//   calls    makes, in its first turn, the calls a question lists one a line
	//            as "call NAME ARGUMENTS" (arguments sent as written, valid
	//            JSON or not), answers with their results, approves every answer
	"stub": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) == 0 {
			ts.Fatalf("usage: stub BEHAVIOUR [-password P] [-latency D] [-served M1,M2]")
		}
		password, opts, wrongTurn, user := "", llmstub.Options{}, 0, ""
		for i := 1; i+1 < len(args); i += 2 {
			switch args[i] {
			case "-user":
				user = args[i+1]
			case "-wrong-turn":
				n, err := strconv.Atoi(args[i+1])
				ts.Check(err)
				wrongTurn = n
			case "-password":
				password = args[i+1]
			case "-latency":
				d, err := time.ParseDuration(args[i+1])
				ts.Check(err)
				opts.Latency = d
			case "-served":
				opts.Models = strings.Split(args[i+1], ",")
			default:
				ts.Fatalf("stub: unknown option %s", args[i])
			}
		}
		respond := stubBehaviour(ts, args[0], password)
		if wrongTurn > 0 {
			respond = llmstub.WrongAtTurn(respond, wrongTurn)
		}
		switch user {
		case "":
		case "fails":
			respond = llmstub.FailingUser(respond)
		case "leaky":
			cases, err := evalcase.LoadPath(ts.Getenv("EVAL_CASES"))
			ts.Check(err)
			respond = llmstub.LeakyUser(respond, cases)
		default:
			ts.Fatalf("stub: -user %s: want fails or leaky", user)
		}
		stub := llmstub.Start(respond, opts)
		ts.Defer(stub.Close)
		*ts.Value(stubKey{}).(*stubHolder) = stubHolder{stub: stub}
		base := stub.BaseURL()
		if password != "" {
			base = strings.Replace(base, "http://", "http://eval:"+password+"@", 1)
		}
		ts.Setenv("OPENAI_BASE_URL", base)
		ts.Setenv("EVAL_MODEL", "stub-model")
		if ts.Getenv("OPENAI_API_KEY") == "" {
			ts.Setenv("OPENAI_API_KEY", "sk-test-secret-key-123456")
		}
	},
	// requests [kinds|turns]: print how many chat requests the stub received (the
	// provider check's model list is not one); with kinds, "model N judge M":
	// those of the evaluated model and those of the judge, and " user U" after
	// them when some played a simulated user; with turns, how many of the
	// model's requests asked about each turn of a conversation, "turn 1: N,
	// turn 2: M, ..." (see llmstub.Request.Turn).
	"requests": func(ts *testscript.TestScript, neg bool, args []string) {
		stub := ts.Value(stubKey{}).(*stubHolder).stub
		if stub == nil {
			ts.Fatalf("requests: no stub started")
		}
		received := stub.Received()
		if len(args) == 0 {
			fmt.Fprintln(ts.Stdout(), len(received))
			return
		}
		if args[0] == "turns" {
			var turns []int
			for _, r := range received {
				if r.ForcedTool() != "" || r.PlaysUser() {
					continue // the judge's, the simulated user's
				}
				for len(turns) < r.Turn() {
					turns = append(turns, 0)
				}
				turns[r.Turn()-1]++
			}
			parts := make([]string, len(turns))
			for i, n := range turns {
				parts[i] = fmt.Sprintf("turn %d: %d", i+1, n)
			}
			fmt.Fprintln(ts.Stdout(), strings.Join(parts, ", "))
			return
		}
		judge, user := 0, 0
		for _, r := range received {
			switch {
			case r.ForcedTool() == llmstub.JudgeTool:
				judge++
			case r.PlaysUser():
				user++
			}
		}
		users := ""
		if user > 0 {
			users = fmt.Sprintf(" user %d", user)
		}
		fmt.Fprintf(ts.Stdout(), "model %d judge %d%s\n", len(received)-judge-user, judge, users)
	},
	// toolresults FILE: write to FILE the tool results the stub's model
	// requests carried since the last toolresults, one line each, sorted:
	// the question, the result's place in its conversation and the
	// result's text quoted, byte for byte.
	"toolresults": func(ts *testscript.TestScript, neg bool, args []string) {
		h := ts.Value(stubKey{}).(*stubHolder)
		if h.stub == nil || len(args) != 1 {
			ts.Fatalf("usage: toolresults FILE, after stub")
		}
		received := h.stub.Received()
		seen := map[string]bool{}
		var lines []string
		for _, req := range received[h.reported:] {
			if req.ForcedTool() != "" {
				continue // the judge's
			}
			n := 0
			for _, m := range req.Messages {
				if m.Role != "tool" {
					continue
				}
				n++
				line := fmt.Sprintf("%q %d %q", req.Question(), n, m.Content)
				if !seen[line] {
					seen[line] = true
					lines = append(lines, line)
				}
			}
		}
		h.reported = len(received)
		sort.Strings(lines)
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	},
	// othertools RUN COPY: copy the run directory RUN to COPY with other
	// tool results, as a run of the same cases on a server with other data
	// (a CI artifact) has them: every result a server gave is replaced by
	// "no such record", named by that text's fingerprint. The copy keeps
	// the run's id.
	"othertools": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: othertools RUN COPY")
		}
		from, to := ts.MkAbs(args[0]), ts.MkAbs(args[1])
		ts.Check(os.MkdirAll(to, 0o755))
		entries, err := os.ReadDir(from)
		ts.Check(err)
		for _, e := range entries {
			if e.Type().IsRegular() && e.Name() != eval.RecordsFile {
				data, err := os.ReadFile(filepath.Join(from, e.Name()))
				ts.Check(err)
				ts.Check(os.WriteFile(filepath.Join(to, e.Name()), data, 0o644))
			}
		}
		sum := sha256.Sum256([]byte(otherResult))
		var out strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(ts.ReadFile(filepath.Join(from, eval.RecordsFile))), "\n") {
			var r eval.Record
			ts.Check(json.Unmarshal([]byte(line), &r))
			for i, c := range r.ToolCalls {
				if c.ResultFingerprint != "" {
					r.ToolCalls[i].Result, r.ToolCalls[i].ResultBytes, r.ToolCalls[i].ResultFingerprint = otherResult, 0, hex.EncodeToString(sum[:])
				}
			}
			data, err := json.Marshal(r)
			ts.Check(err)
			out.Write(append(data, '\n'))
		}
		ts.Check(os.WriteFile(filepath.Join(to, eval.RecordsFile), []byte(out.String()), 0o644))
	},
	// ran: print, sorted, the case subtests that ran according to the go
	// test -json stream in the last command's stdout.
	"ran": func(ts *testscript.TestScript, neg bool, args []string) {
		stream := ts.ReadFile("stdout")
		out := ts.Stdout() // this command's output replaces the stream's
		var names []string
		for _, line := range strings.Split(stream, "\n") {
			var e struct{ Action, Test string }
			if json.Unmarshal([]byte(line), &e) == nil && e.Action == "run" && strings.Contains(e.Test, "/") {
				names = append(names, e.Test)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintln(out, n)
		}
	},
	// records [FILE]: print "name: status" for every record of results.jsonl
	// (default: the newest run's under $EVAL_OUT), sorted.
	"records": func(ts *testscript.TestScript, neg bool, args []string) {
		out := ts.Stdout()
		path := filepath.Join(newestRun(ts.Getenv("EVAL_OUT")), eval.RecordsFile)
		if len(args) > 0 {
			path = ts.MkAbs(args[0])
		}
		f, err := os.Open(path)
		ts.Check(err)
		defer f.Close()
		var lines []string
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var r eval.Record
			ts.Check(json.Unmarshal(sc.Bytes(), &r))
			lines = append(lines, r.Name+": "+string(r.Status))
		}
		ts.Check(sc.Err())
		sort.Strings(lines)
		for _, l := range lines {
			fmt.Fprintln(out, l)
		}
	},
	// summary [DIR]: print the case results of summary.json (default: the
	// newest run's under $EVAL_OUT), one line each: "name runs passes
	// pass-rate pass@2 pass^2 flaky", with " not_run=N" when some of its
	// runs did not run, and a last line "run pass-rate flaky".
	"summary": func(ts *testscript.TestScript, neg bool, args []string) {
		out := ts.Stdout()
		s := scriptSummary(ts, args)
		at := func(xs []float64, k int) string {
			if len(xs) < k {
				return "-"
			}
			return strconv.FormatFloat(xs[k-1], 'f', 2, 64)
		}
		for _, c := range s.Cases {
			notRun := ""
			if c.NotRun > 0 {
				notRun = fmt.Sprintf(" not_run=%d", c.NotRun)
			}
			fmt.Fprintf(out, "%s %d %d %.2f %s %s %v%s\n", c.Name, c.Runs, c.Passes, c.PassRate, at(c.PassAtK, 2), at(c.PassHatK, 2), c.Flaky, notRun)
		}
		fmt.Fprintf(out, "run %.2f %d\n", s.Overall.PassRate, s.Overall.Flaky)
	},
	// runs: print, for each run under $EVAL_OUT, its number of records and
	// whether it finished (has a summary), sorted.
	"runs": func(ts *testscript.TestScript, neg bool, args []string) {
		out := ts.Stdout()
		list, err := runs.List(ts.Getenv("EVAL_OUT"))
		ts.Check(err)
		var lines []string
		for _, r := range list {
			lines = append(lines, fmt.Sprintf("%d records, finished %v", countLines(filepath.Join(r.Dir, eval.RecordsFile)), r.Summary != nil))
		}
		sort.Strings(lines)
		for _, l := range lines {
			fmt.Fprintln(out, l)
		}
	},
	// await-records N: wait (at most a minute) until some run under
	// $EVAL_OUT has N records.
	"await-records": func(ts *testscript.TestScript, neg bool, args []string) {
		n, err := strconv.Atoi(args[0])
		ts.Check(err)
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if countLines(filepath.Join(newestRun(ts.Getenv("EVAL_OUT")), eval.RecordsFile)) >= n {
				return
			}
		}
		ts.Fatalf("no run reached %d records within a minute", n)
	},
	// costs: check the costs of the newest run under $EVAL_OUT: every
	// request of model good cost the $0.01 it reported, no request is
	// unpriced, and summary.json's totals (run, per model, saved by the
	// cache) are the sums of the records'; print the totals.
	"costs": func(ts *testscript.TestScript, neg bool, args []string) {
		out := ts.Stdout()
		dir := newestRun(ts.Getenv("EVAL_OUT"))
		var sum eval.Summary
		ts.Check(json.Unmarshal([]byte(ts.ReadFile(filepath.Join(dir, eval.SummaryFile))), &sum))
		var spent, saved, judged float64
		byModel := map[string]float64{}
		for _, line := range strings.Split(strings.TrimSpace(ts.ReadFile(filepath.Join(dir, eval.RecordsFile))), "\n") {
			var r eval.Record
			ts.Check(json.Unmarshal([]byte(line), &r))
			if r.Status == eval.NotRun {
				continue
			}
			if r.Usage.Unpriced > 0 {
				ts.Fatalf("%s with %s: %d unpriced requests", r.Name, r.Model, r.Usage.Unpriced)
			}
			if r.Model == "good" && math.Abs(r.Usage.CostUSD-0.01*float64(r.Usage.Requests)) > 1e-9 {
				ts.Fatalf("%s with good: cost %v for %d requests at the reported $0.01", r.Name, r.Usage.CostUSD, r.Usage.Requests)
			}
			if r.Usage.CostUSD <= 0 {
				ts.Fatalf("%s with %s: no cost", r.Name, r.Model)
			}
			own := r.Usage.CostUSD
			if r.JudgeUsage != nil {
				own -= r.JudgeUsage.CostUSD
				if !r.Cached || r.Regraded { // paid by this run
					judged += r.JudgeUsage.CostUSD
				}
			}
			byModel[r.Model] += own
			if r.Cached {
				saved += r.Usage.CostUSD
			} else {
				spent += r.Usage.CostUSD
			}
		}
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
		if !near(sum.CostUSD, spent) || !near(sum.SavedUSD, saved) {
			ts.Fatalf("summary: $%v spent and $%v saved, the records say $%v and $%v", sum.CostUSD, sum.SavedUSD, spent, saved)
		}
		for _, m := range sum.Models {
			if !near(m.CostUSD, byModel[m.Model]) {
				ts.Fatalf("summary: model %s cost $%v, its records $%v", m.Model, m.CostUSD, byModel[m.Model])
			}
		}
		if judged > 0 && (sum.Judge == nil || !near(sum.Judge.CostUSD, judged)) {
			ts.Fatalf("summary: the judge cost %+v, its records $%v", sum.Judge, judged)
		}
		fmt.Fprintf(out, "spent %.4f saved %.4f\n", spent, saved)
	},
	// modelruns: print, for each model of the newest run's summary.json,
	// "MODEL: runs=R not_run=N", then "paired: yes" when every run of a
	// case (by repeat) that ran with one model ran with every model, else
	// "paired: no" and the runs that did not.
	"modelruns": func(ts *testscript.TestScript, neg bool, args []string) {
		out := ts.Stdout()
		dir := newestRun(ts.Getenv("EVAL_OUT"))
		var sum eval.Summary
		ts.Check(json.Unmarshal([]byte(ts.ReadFile(filepath.Join(dir, eval.SummaryFile))), &sum))
		for _, m := range sum.Models {
			fmt.Fprintf(out, "%s: runs=%d not_run=%d\n", m.Model, m.Runs, m.NotRun)
		}
		ran := map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(ts.ReadFile(filepath.Join(dir, eval.RecordsFile))), "\n") {
			var r eval.Record
			ts.Check(json.Unmarshal([]byte(line), &r))
			if r.Status != eval.NotRun {
				k := fmt.Sprintf("%s#%d", r.Name, r.Repeat)
				ran[k] = append(ran[k], r.Model)
			}
		}
		var unpaired []string
		for k, models := range ran {
			if len(models) != len(sum.Models) {
				unpaired = append(unpaired, k+" "+strings.Join(models, ","))
			}
		}
		sort.Strings(unpaired)
		if len(unpaired) == 0 {
			fmt.Fprintln(out, "paired: yes")
			return
		}
		fmt.Fprintf(out, "paired: no: %s\n", strings.Join(unpaired, "; "))
	},
	// tools [DIR]: print the tools section of summary.json (default: the
	// newest run's under $EVAL_OUT): per server "server NAME: E of T
	// exercised, never called: ...", then per tool called (and per call to
	// an unknown tool, marked so) "NAME calls=N cases=N errors=N rate=R
	// results=N expected=N refused=N args=N notrun=N over=N tokens>0=B pass=R".
	"tools": func(ts *testscript.TestScript, neg bool, args []string) {
		out := ts.Stdout()
		s := scriptSummary(ts, args)
		if s.Tools == nil {
			ts.Fatalf("summary.json has no tools")
		}
		line := func(prefix string, st eval.ToolStats) {
			fmt.Fprintf(out, "%s%s calls=%d cases=%d errors=%d rate=%.2f results=%d expected=%d refused=%d args=%d notrun=%d over=%d tokens>0=%v pass=%.2f\n",
				prefix, st.Name, st.Calls, st.Cases, st.Errors, st.ErrorRate, st.ErrorResults, st.ExpectedErrors, st.Refused, st.ArgumentErrors,
				st.NotRun, st.OverLimit, st.ResultTokensMax > 0, st.PassShare)
		}
		for _, srv := range s.Tools.Servers {
			fmt.Fprintf(out, "server %s: %d of %d exercised, never called: %s\n", srv.Name, srv.Exercised, srv.Tools, strings.Join(srv.NeverCalled, " "))
			for _, st := range srv.Stats {
				if st.Calls > 0 {
					line("", st)
				}
			}
		}
		for _, st := range s.Tools.Unknown {
			line("unknown ", st)
		}
	},
	// manycases N [INDEX=EXPECTED]...: write N cases of category "Gene and
	// Variant Utilities" to $EVAL_CASES, whose answers the stub "yes"
	// passes: each expects "x", but case INDEX expects EXPECTED.
	"manycases": func(ts *testscript.TestScript, neg bool, args []string) {
		n, err := strconv.Atoi(args[0])
		ts.Check(err)
		expected := map[int]string{}
		for _, a := range args[1:] {
			k, v, _ := strings.Cut(a, "=")
			i, err := strconv.Atoi(k)
			ts.Check(err)
			expected[i] = v
		}
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "- case: {name: \"case %03d\", category: \"Gene and Variant Utilities\", input: \"question %d\", expected: %q}\n", i, i, cmp.Or(expected[i], "x"))
		}
		ts.Check(os.WriteFile(ts.Getenv("EVAL_CASES"), []byte(b.String()), 0o644))
	},
	// count N PATTERN: the last command's stdout has exactly N lines
	// matching the regular expression PATTERN.
	"count": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: count N PATTERN")
		}
		want, err := strconv.Atoi(args[0])
		ts.Check(err)
		re, err := regexp.Compile(args[1])
		ts.Check(err)
		got := 0
		for _, line := range strings.Split(ts.ReadFile("stdout"), "\n") {
			if re.MatchString(line) {
				got++
			}
		}
		if got != want {
			ts.Fatalf("%d lines match %q, want %d", got, args[1], want)
		}
	},
}

// otherResult is every tool result of a copy othertools makes.
const otherResult = "no such record"

// listedCalls is the "calls" stub: it makes the calls its question lists
// ("call NAME ARGUMENTS" lines) in its first turn, then answers with their
// results; as judge it approves.
func listedCalls(req llmstub.Request) llmstub.Reply {
	if req.ForcedTool() == llmstub.JudgeTool {
		return llmstub.Verdict("yes", "ok")
	}
	var results []string
	for _, m := range req.Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) > 0 {
		return llmstub.Reply{Content: strings.Join(results, "\n")}
	}
	var calls []llmstub.Call
	for _, line := range strings.Split(req.Question(), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "call "); ok {
			name, args, _ := strings.Cut(rest, " ")
			calls = append(calls, llmstub.Call{Name: name, Arguments: args})
		}
	}
	if len(calls) == 0 {
		return llmstub.Reply{Content: "no calls listed"}
	}
	return llmstub.Reply{ToolCalls: calls}
}

// scriptSummary reads the summary.json of the run directory args[0], or
// of the newest run under $EVAL_OUT.
func scriptSummary(ts *testscript.TestScript, args []string) eval.Summary {
	dir := newestRun(ts.Getenv("EVAL_OUT"))
	if len(args) > 0 {
		dir = ts.MkAbs(args[0])
	}
	var s eval.Summary
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(filepath.Join(dir, eval.SummaryFile))), &s))
	return s
}

// stubKey keys the script's stubHolder in its values.
type stubKey struct{}

// stubHolder holds the stub a script started, and how many of its
// requests toolresults wrote.
type stubHolder struct {
	stub     *llmstub.Server
	reported int
}

// stubBehaviour returns the responder a stub command names.
func stubBehaviour(ts *testscript.TestScript, name, password string) llmstub.Responder {
	switch name {
	case "yes":
		return func(req llmstub.Request) llmstub.Reply {
			if req.ForcedTool() != "" {
				return llmstub.Verdict("yes", "ok")
			}
			return llmstub.Reply{Content: "x"}
		}
	case "exact":
		return llmstub.JudgeWith(func(llmstub.Request) llmstub.Reply { return llmstub.Reply{Content: "x"} },
			func(_ string, g llmstub.Graded) llmstub.Reply {
				if strings.TrimSpace(g.Answer) == strings.TrimSpace(g.Expected) {
					return llmstub.Verdict("yes", "the answer is the expected one")
				}
				return llmstub.Verdict("no", "the answer is not the expected one")
			})
	case "attribution", "attribution-changed":
		cases, err := evalcase.LoadPath(ts.Getenv("EVAL_CASES"))
		ts.Check(err)
		return attribution(cases, name == "attribution-changed")
	case "replay":
		cases, err := evalcase.LoadPath(ts.Getenv("EVAL_CASES"))
		ts.Check(err)
		return llmstub.Replay(cases)
	case "replay-never-asks":
		cases, err := evalcase.LoadPath(ts.Getenv("EVAL_CASES"))
		ts.Check(err)
		return llmstub.ReplayWithoutAsking(cases)
	case "replay-strict":
		cases, err := evalcase.LoadPath(ts.Getenv("EVAL_CASES"))
		ts.Check(err)
		return llmstub.JudgeWith(llmstub.Replay(cases), func(_ string, g llmstub.Graded) llmstub.Reply {
			if strings.Contains(g.Answer, otherResult) {
				return llmstub.Verdict("no", "the answer found no record")
			}
			return llmstub.Verdict("yes", "the answer contains the expected information")
		})
	case "flaky":
		return flakyJudge()
	case "models":
		return twoModels()
	case "unauthorized":
		return func(llmstub.Request) llmstub.Reply { return llmstub.Reply{Status: 401} }
	case "leaky":
		return leakyModel(ts.Getenv("SECRET"), password)
	case "calls":
		return listedCalls
	case "mixed":
		return func(req llmstub.Request) llmstub.Reply {
			q := req.Messages[len(req.Messages)-1].Content
			switch {
			case req.ForcedTool() == llmstub.JudgeTool && strings.Contains(q, "(fail)"):
				return llmstub.Verdict("no", "the answer is wrong")
			case req.ForcedTool() == llmstub.JudgeTool:
				return llmstub.Verdict("yes", "ok")
			case strings.Contains(q, "(error)"):
				return llmstub.Reply{Status: 500}
			}
			return llmstub.Reply{Content: "x"}
		}
	}
	ts.Fatalf("unknown stub behaviour %q", name)
	return nil
}

var kOfN = regexp.MustCompile(`(\d+) of (\d+)`)

// flakyJudge approves a question that says "k of n" on k of its first n
// judgements (the first k), whatever order the repeats come in.
func flakyJudge() llmstub.Responder {
	var mu sync.Mutex
	judged := map[string]int{}
	return func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() != llmstub.JudgeTool {
			return llmstub.Reply{Content: "x"}
		}
		q := req.Messages[len(req.Messages)-1].Content
		m := kOfN.FindStringSubmatch(q)
		if m == nil {
			return llmstub.Verdict("yes", "ok")
		}
		k, _ := strconv.Atoi(m[1])
		mu.Lock()
		n := judged[m[0]+q]
		judged[m[0]+q] = n + 1
		mu.Unlock()
		if n < k {
			return llmstub.Verdict("yes", "right this time")
		}
		return llmstub.Verdict("no", "wrong this time")
	}
}

// twoModels answers as model good (right, $0.01 a request, reported) or
// model bad (wrong on "hard" questions, no cost reported).
func twoModels() llmstub.Responder {
	cost := 0.01
	return func(req llmstub.Request) llmstub.Reply {
		reply := llmstub.Reply{Content: "x"}
		switch {
		case req.ForcedTool() == llmstub.JudgeTool:
			reply = llmstub.Verdict("yes", "ok")
		case req.Model == "bad" && strings.Contains(req.Question(), "hard"):
			reply.Content = "y"
		}
		if req.Model == "good" {
			reply.CostUSD = &cost
		}
		return reply
	}
}

// leakyModel plants two secrets everywhere a model can: as a tool's name (an
// unknown tool, whose error result repeats it), in a real tool's arguments
// (the server's error quotes them), in its answer and in the judge's reason.
func leakyModel(secret, password string) llmstub.Responder {
	both := secret + " " + password
	return func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() == llmstub.JudgeTool {
			if strings.Contains(req.Messages[len(req.Messages)-1].Content, "approve") {
				return llmstub.Verdict("yes", "the answer quotes "+both)
			}
			return llmstub.Verdict("no", "the answer leaks "+both)
		}
		switch len(req.Messages) {
		case 2:
			return llmstub.Reply{ToolCalls: []llmstub.Call{
				{Name: secret, Arguments: `{"token":"` + password + `"}`},
				{Name: "get_gene_by_symbol", Arguments: `{"gene_symbol":"` + secret + `"}`},
				{Name: "get_gene_by_symbol", Arguments: `{"gene_symbol":"` + password + `"}`},
			}}
		}
		return llmstub.Reply{Content: "The key is " + both + "."}
	}
}

// attribution answers as llmstub.ReplayOffered; changed, it gives up on a
// question holding "(model)" and, as judge, rejects a question holding
// "(judge)": a model and a judge that changed their minds.
func attribution(cases []eval.Case, changed bool) llmstub.Responder {
	replay := llmstub.ReplayOffered(cases)
	return func(req llmstub.Request) llmstub.Reply {
		if g, ok := req.Graded(); ok && strings.Contains(g.Question, "(graded)") {
			if strings.Contains(strings.ToLower(g.Answer), strings.ToLower(strings.TrimSpace(g.Expected))) {
				return llmstub.Verdict("yes", "the answer holds the expected one")
			}
			return llmstub.Verdict("no", "the answer does not hold the expected one")
		}
		if !changed {
			return replay(req)
		}
		if g, ok := req.Graded(); ok && strings.Contains(g.Question, "(judge)") {
			return llmstub.Verdict("no", "the answer does not convince me any more")
		}
		if req.ForcedTool() == "" && strings.Contains(req.Question(), "(model)") {
			return llmstub.Reply{Content: llmstub.WrongAnswer}
		}
		return replay(req)
	}
}
