package llmstub

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

type chatReply struct {
	Choices []struct {
		Message struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				Function struct{ Name, Arguments string } `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		TotalTokens int      `json:"total_tokens"`
		Cost        *float64 `json:"cost"`
	} `json:"usage"`
}

func post(t *testing.T, s *Server, body any) (*http.Response, chatReply) {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", bytes.NewReader(b))
	require.NoError(t, err)
	defer resp.Body.Close()
	var r chatReply
	if resp.StatusCode == http.StatusOK {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	}
	return resp, r
}

func TestReplayPlaysTheReferenceThenAnswers(t *testing.T) {
	c := eval.Case{Input: "q?", Reference: []eval.RefCall{
		{Tool: "bad", ExpectError: true},
		{Tool: "good", Args: map[string]any{"x": "1"}},
	}}
	s := Start(Replay([]eval.Case{c}), Options{})
	defer s.Close()

	msgs := []eval.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "q?"}}
	_, r := post(t, s, map[string]any{"model": "m", "messages": msgs})
	require.Len(t, r.Choices[0].Message.ToolCalls, 1)
	assert.Equal(t, "bad", r.Choices[0].Message.ToolCalls[0].Function.Name)
	assert.Equal(t, "tool_calls", r.Choices[0].FinishReason)

	msgs = append(msgs, eval.Message{Role: "tool", Content: "error!"})
	_, r = post(t, s, map[string]any{"model": "m", "messages": msgs})
	assert.Equal(t, "good", r.Choices[0].Message.ToolCalls[0].Function.Name)
	assert.JSONEq(t, `{"x":"1"}`, r.Choices[0].Message.ToolCalls[0].Function.Arguments)

	msgs = append(msgs, eval.Message{Role: "tool", Content: "the data"})
	_, r = post(t, s, map[string]any{"model": "m", "messages": msgs})
	assert.Equal(t, "the data", r.Choices[0].Message.Content, "the answer leaves out the expected error")
	require.NotNil(t, r.Usage)
	assert.Positive(t, r.Usage.TotalTokens)

	judge := map[string]any{"model": "m", "messages": msgs, "tool_choice": map[string]any{"type": "function", "function": map[string]string{"name": JudgeTool}}}
	_, r = post(t, s, judge)
	assert.Equal(t, JudgeTool, r.Choices[0].Message.ToolCalls[0].Function.Name)
	assert.JSONEq(t, `{"verdict":"yes","reason":"the answer contains the expected information","answer_is_correct":true}`, r.Choices[0].Message.ToolCalls[0].Function.Arguments)

	_, r = post(t, s, map[string]any{"model": "m", "messages": []eval.Message{{Role: "user", Content: "unknown"}}})
	assert.Equal(t, "I do not know.", r.Choices[0].Message.Content)
	assert.Equal(t, 5, s.Requests())
}

// References name tools as their servers do; the replay calls them as the
// request offers them: a safe form, a server-qualified name, a name given
// as server/tool. Strict checks pass.
func TestReplayCallsTheOfferedName(t *testing.T) {
	cases := []eval.Case{
		{Input: "dotted?", Reference: []eval.RefCall{{Tool: "items.count"}}},
		{Input: "shared?", Reference: []eval.RefCall{{Tool: "beta/status"}}},
	}
	s := Start(Replay(cases), Options{Strict: true})
	defer s.Close()
	tool := func(name string) map[string]any {
		return map[string]any{"type": "function", "function": map[string]any{"name": name, "parameters": map[string]any{"type": "object"}}}
	}
	tools := []any{tool("items_count_1a2b3c4d"), tool("alpha__status"), tool("beta__status")}
	for question, want := range map[string]string{"dotted?": "items_count_1a2b3c4d", "shared?": "beta__status"} {
		resp, r := post(t, s, map[string]any{"model": "m", "tools": tools, "messages": []eval.Message{{Role: "user", Content: question}}})
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Len(t, r.Choices[0].Message.ToolCalls, 1)
		assert.Equal(t, want, r.Choices[0].Message.ToolCalls[0].Function.Name, question)
	}
}

func TestFaultsAndLatency(t *testing.T) {
	s := Start(func(Request) Reply { return Reply{Content: "ok"} }, Options{Rate429: 0.5, Rate500: 0.2, RetryAfter: "3", Seed: 1, Latency: 5 * time.Millisecond})
	defer s.Close()
	counts := map[int]int{}
	start := time.Now()
	for range 200 {
		resp, _ := post(t, s, map[string]any{"model": "m", "messages": []eval.Message{{Role: "user", Content: "q"}}})
		counts[resp.StatusCode]++
		if resp.StatusCode == http.StatusTooManyRequests {
			assert.Equal(t, "3", resp.Header.Get("Retry-After"))
		}
	}
	assert.GreaterOrEqual(t, time.Since(start), 200*5*time.Millisecond)
	assert.InDelta(t, 100, counts[http.StatusTooManyRequests], 25)
	assert.InDelta(t, 40, counts[http.StatusInternalServerError], 20)
	assert.Equal(t, counts[429]+counts[500], s.Faults())
	assert.Equal(t, 200, s.Requests())
	assert.Len(t, s.Received(), counts[200], "faulted requests are not passed to the responder")
}

func TestBadRequests(t *testing.T) {
	s := Start(func(Request) Reply { return Reply{Status: http.StatusBadRequest} }, Options{})
	defer s.Close()
	resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", bytes.NewReader([]byte("{")))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	resp, _ = post(t, s, map[string]any{"model": "m"})
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "a responder's status is sent")
}

func TestRateLimitAndItsHeaders(t *testing.T) {
	s := Start(func(Request) Reply { return Reply{Content: "ok"} }, Options{RateLimit: 0.5}) // one request per two seconds
	defer s.Close()
	body := map[string]any{"model": "m", "messages": []eval.Message{{Role: "user", Content: "q"}}}
	resp, _ := post(t, s, body)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("X-Ratelimit-Limit-Requests"))
	assert.Equal(t, "0", resp.Header.Get("X-Ratelimit-Remaining-Requests"))
	reset, err := time.ParseDuration(resp.Header.Get("X-Ratelimit-Reset-Requests"))
	require.NoError(t, err)
	assert.InDelta(t, 2*time.Second, reset, float64(100*time.Millisecond), "the budget is whole again in two seconds")

	resp, _ = post(t, s, body)
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "0", resp.Header.Get("X-Ratelimit-Remaining-Requests"))
	assert.Equal(t, "2", resp.Header.Get("Retry-After"), "whole seconds, rounded up")
	ms, err := time.ParseDuration(resp.Header.Get("Retry-After-Ms") + "ms")
	require.NoError(t, err)
	assert.Greater(t, ms, time.Second)
	assert.LessOrEqual(t, ms, 2*time.Second)
	assert.Equal(t, 1, s.Throttled())
	assert.Zero(t, s.Faults(), "a rate limit is not an injected fault")
}

func TestModels(t *testing.T) {
	s := Start(func(Request) Reply { return Reply{Content: "ok"} }, Options{Models: []string{"m1", "m2"}})
	defer s.Close()
	resp, err := http.Get(s.BaseURL() + "/models")
	require.NoError(t, err)
	defer resp.Body.Close()
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	require.Len(t, list.Data, 2)
	assert.Equal(t, []string{"m1", "m2"}, []string{list.Data[0].ID, list.Data[1].ID})

	msgs := []eval.Message{{Role: "user", Content: "q"}}
	ok, _ := post(t, s, map[string]any{"model": "m2", "messages": msgs})
	assert.Equal(t, http.StatusOK, ok.StatusCode)
	unknown, _ := post(t, s, map[string]any{"model": "m3", "messages": msgs})
	assert.Equal(t, http.StatusNotFound, unknown.StatusCode)

	// Without a list every model is served and /models is not.
	all := Start(func(Request) Reply { return Reply{Content: "ok"} }, Options{})
	defer all.Close()
	resp, err = http.Get(all.BaseURL() + "/models")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestJudgesThatDisagree(t *testing.T) {
	c := eval.Case{Input: "q?", Reference: []eval.RefCall{{Tool: "good"}}}
	s := Start(RejectingJudges(Replay([]eval.Case{c}), "b"), Options{})
	defer s.Close()
	graded := `Grade actual_answer against expected_answer.` + "\n\n" + `{"question": "q?", "expected_answer": "e", "actual_answer": "a"}`
	judge := func(model string) map[string]any {
		return map[string]any{"model": model, "messages": []eval.Message{{Role: "system", Content: "grade"}, {Role: "user", Content: graded}},
			"tool_choice": map[string]any{"type": "function", "function": map[string]string{"name": JudgeTool}}}
	}
	verdict := func(r chatReply) string {
		var v struct{ Verdict string }
		require.NoError(t, json.Unmarshal([]byte(r.Choices[0].Message.ToolCalls[0].Function.Arguments), &v))
		return v.Verdict
	}
	_, r := post(t, s, judge("a"))
	assert.Equal(t, "yes", verdict(r))
	_, r = post(t, s, judge("b"))
	assert.Equal(t, "no", verdict(r))
	_, r = post(t, s, map[string]any{"model": "b", "messages": []eval.Message{{Role: "user", Content: "q?"}}})
	assert.Equal(t, "good", r.Choices[0].Message.ToolCalls[0].Function.Name, "the agent requests of model b are answered as before")

	got := Request{Messages: []eval.Message{{Role: "user", Content: graded}}, ToolChoice: json.RawMessage(`{"type":"function","function":{"name":"submit_verdict"}}`)}
	g, ok := got.Graded()
	require.True(t, ok)
	assert.Equal(t, Graded{Question: "q?", Expected: "e", Answer: "a"}, g)
	_, ok = Request{Messages: []eval.Message{{Role: "user", Content: graded}}}.Graded()
	assert.False(t, ok, "not a judge request")
}

func TestWrongAndPricedModels(t *testing.T) {
	cases := []eval.Case{{Input: "gene q?", Reference: []eval.RefCall{{Tool: "t"}}}, {Input: "other q?", Reference: []eval.RefCall{{Tool: "t"}}}}
	s := Start(Priced(Wrong(Replay(cases), "bad", regexp.MustCompile(`gene`)), "good", 0.002), Options{})
	defer s.Close()
	ask := func(model, question string) chatReply {
		_, r := post(t, s, map[string]any{"model": model, "messages": []eval.Message{{Role: "user", Content: question}}})
		return r
	}
	judge := func(answer string) string {
		graded := "Grade.\n\n" + `{"question": "q", "expected_answer": "e", "actual_answer": ` + strconv.Quote(answer) + `}`
		_, r := post(t, s, map[string]any{"model": "good", "messages": []eval.Message{{Role: "user", Content: graded}},
			"tool_choice": map[string]any{"type": "function", "function": map[string]string{"name": JudgeTool}}})
		var v struct{ Verdict string }
		require.NoError(t, json.Unmarshal([]byte(r.Choices[0].Message.ToolCalls[0].Function.Arguments), &v))
		return v.Verdict
	}

	bad := ask("bad", "gene q?")
	assert.Equal(t, WrongAnswer, bad.Choices[0].Message.Content, "bad is wrong on the matching questions")
	assert.Nil(t, bad.Usage.Cost, "bad reports no cost")
	assert.Equal(t, "t", ask("bad", "other q?").Choices[0].Message.ToolCalls[0].Function.Name, "and right on the others")
	good := ask("good", "gene q?")
	assert.Equal(t, "t", good.Choices[0].Message.ToolCalls[0].Function.Name, "good is right")
	require.NotNil(t, good.Usage.Cost)
	assert.Equal(t, 0.002, *good.Usage.Cost)
	assert.Equal(t, "no", judge(WrongAnswer), "every judge rejects the wrong answer")
	assert.Equal(t, "yes", judge("a right answer"))
}

// The replaying model answers with the expected answer only when the
// results hold its numbers as a reader would find them.
func TestHoldsNumbers(t *testing.T) {
	results := `{"gene":"BRCA2","exome":{"alleleCount":4213,"homCount":10452,"alleleFrequency":0.01712},"genome":{"alleleCount":601}}`
	tests := []struct {
		expected string
		want     bool
	}{
		{"10,452 homozygotes for this BRCA2 variant (p.N372H).", true},
		{"10,453 homozygotes.", false},
		{"An allele frequency of about 1.7% (4,814 alleles observed).", true},
		{"An allele frequency of about 1.9%.", false},
		{"4,815 alleles observed.", false},
		{"Asked about chr13:32906729: 601 genomes.", true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, holdsNumbers(results, tt.expected, "Is chr13:32906729 in gnomAD?"), tt.expected)
	}
}

// ... and its terms, found in the results themselves.
func TestHoldsTerms(t *testing.T) {
	c := eval.Case{Input: "Look up item d.", Checks: eval.Checks{Contains: eval.Terms{{Any: []string{"item d", "the d item"}}, {Any: []string{"no fly ortholog"}}}}}
	assert.True(t, holdsTerms(`{"id":"d","name":"Item D"}`, c))
	assert.False(t, holdsTerms(`{"id":"d","name":"withdrawn"}`, c), "the question's words are not the results'")
	assert.False(t, holdsTerms(`{"id":"d","name":"item dd"}`, c), "whole words")
	assert.True(t, holdsTerms(`{"id":"d","name":"interaction"}`, eval.Case{Checks: eval.Checks{Contains: eval.Terms{{Any: []string{"interact*"}}, {}}}}))
}

// Judges about claims quote the answer where they find a claim made;
// rejecting and unclear judges answer claims as they answer verdicts.
func TestClaimJudges(t *testing.T) {
	req := Request{Model: "j", ToolChoice: json.RawMessage(`{"type":"function","function":{"name":"submit_claims"}}`),
		Messages: []eval.Message{{Role: "user", Content: `Check it. {"question":"q","claims":[{"claim":1,"text":"Profit was $6,446.20."},{"claim":2,"text":"Sales grew."}],"actual_answer":"Weeks 1-5. Profit was $6,446.20 on average. Sales grew."}`}}}
	entries := func(r Reply) []map[string]any {
		require.Len(t, r.ToolCalls, 1)
		var args struct{ Claims []map[string]any }
		require.NoError(t, json.Unmarshal([]byte(r.ToolCalls[0].Arguments), &args))
		return args.Claims
	}
	got := entries(ClaimVerdicts(req, "fulfilled", "not"))
	assert.Equal(t, "Profit was $6,446.20 on average", got[0]["quote"], "the sentence with the claim's number")
	assert.Equal(t, "", got[1]["quote"], "a claim not made quotes nothing")

	rejecting := RejectingJudges(Replay(nil), "j")
	for _, e := range entries(rejecting(req)) {
		assert.Equal(t, "not", e["verdict"])
	}
	unclear := UnclearJudges(Replay(nil), "j")
	assert.Empty(t, unclear(req).ToolCalls, "no claims object")
	assert.NotEmpty(t, unclear(req).Content)
}
