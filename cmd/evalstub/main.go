// Command evalstub serves an OpenAI-compatible chat-completions stub that
// answers like a correct agent: for every case it knows, it replays the
// case's reference tool calls and answers with their results, and as judge
// it approves every answer. It exercises the whole suite over real HTTP
// without a key: point OPENAI_BASE_URL at it.
//
//	go run ./cmd/evalstub -addr 127.0.0.1:8099 &
//	OPENAI_BASE_URL=http://127.0.0.1:8099/v1 EVAL_MODEL=stub make eval
//
// -latency, -rate429 and -rate500 add delay and faults, and -rate-limit a
// provider's rate limit, for trying the suite's retries and throttling.
// -reject-judge names judge models that say no to every answer instead, so
// that several judges disagree:
//
//	go run ./cmd/evalstub -reject-judge b &
//	OPENAI_BASE_URL=http://127.0.0.1:8099/v1 EVAL_MODEL=stub EVAL_JUDGE_MODEL=a,b,c make eval
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8099", "address to listen on (port 0 picks a free one)")
	cases := flag.String("cases", "", "case file or directory whose reference trajectories it replays (default: the project's cases/)")
	latency := flag.Duration("latency", 0, "delay added to every reply")
	rate429 := flag.Float64("rate429", 0, "share of requests answered 429 (with Retry-After)")
	rate500 := flag.Float64("rate500", 0, "share of requests answered 500")
	rateLimit := flag.Float64("rate-limit", 0, "requests per second served, with OpenAI's rate-limit headers; beyond it, 429 (0: no limit)")
	reject := flag.String("reject-judge", "", "judge `models` (comma-separated) that say no to every answer")
	flag.Parse()
	opts := llmstub.Options{Latency: *latency, Rate429: *rate429, Rate500: *rate500, RetryAfter: "1", Seed: uint64(time.Now().UnixNano()), RateLimit: *rateLimit}
	if err := run(*addr, *cases, splitList(*reject), opts); err != nil {
		fmt.Fprintln(os.Stderr, "evalstub:", err)
		os.Exit(1)
	}
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func run(addr, cases string, rejectingJudges []string, opts llmstub.Options) error {
	if cases == "" {
		root, err := files.ModuleRoot()
		if err != nil {
			return err
		}
		cases = filepath.Join(root, "cases")
	}
	loaded, err := evalcase.LoadPath(cases)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "evalstub: replaying %d cases from %s; OPENAI_BASE_URL=http://%s/v1\n", len(loaded), cases, ln.Addr())
	respond := llmstub.Replay(loaded)
	if len(rejectingJudges) > 0 {
		respond = llmstub.RejectingJudges(respond, rejectingJudges...)
		fmt.Fprintf(os.Stderr, "evalstub: judge models %s say no to every answer\n", strings.Join(rejectingJudges, ", "))
	}
	return http.Serve(ln, llmstub.New(respond, opts))
}
