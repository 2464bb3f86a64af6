package toolstats

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/tokens"
)

func TestPercentile(t *testing.T) {
	for _, tc := range []struct {
		values []float64
		p      float64
		want   float64
	}{
		{nil, 50, 0},
		{[]float64{7}, 50, 7},
		{[]float64{7}, 95, 7},
		{[]float64{1, 2}, 50, 1},
		{[]float64{1, 2, 3}, 50, 2},
		{[]float64{1, 2, 3, 4}, 50, 2},
		{[]float64{1, 2, 3, 4}, 95, 4},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 95, 19},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 100, 20},
	} {
		t.Run(fmt.Sprintf("p%g of %v", tc.p, tc.values), func(t *testing.T) {
			assert.Equal(t, tc.want, Percentile(tc.values, tc.p))
		})
	}
	assert.Equal(t, 3, Percentile([]int{1, 3, 9}, 50), "ints too")
}

const idSchema = `{"type":"object","properties":{"id":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["id"]}`

func TestArgumentCheck(t *testing.T) {
	for _, tc := range []struct {
		name, schema, args string
		wantErr            string // "" for valid arguments
		wantProblem        string
	}{
		{"matching", idSchema, `{"id":"a"}`, "", ""},
		{"matching with an optional argument", idSchema, `{"id":"a","limit":3}`, "", ""},
		{"wrong type", idSchema, `{"id":5}`, "string", ""},
		{"below the minimum", idSchema, `{"id":"a","limit":0}`, "minimum", ""},
		{"missing required", idSchema, `{}`, "missing property", ""},
		{"empty text is the empty object", idSchema, ``, "missing property", ""},
		{"not JSON", idSchema, `{"id":`, "not JSON", ""},
		{"trailing text", idSchema, `{"id":"a"} x`, "not JSON", ""},
		{"JSON but no object", idSchema, `["a"]`, "not a JSON object", ""},
		{"null", idSchema, `null`, "not a JSON object", ""},
		{"no schema: any object", ``, `{"x":1}`, "", ""},
		{"no schema: still an object", ``, `"x"`, "not a JSON object", ""},
		{"empty arguments with an open schema", `{"type":"object"}`, ``, "", ""},
		{"a local reference resolves", `{"type":"object","$defs":{"n":{"type":"number"}},"properties":{"x":{"$ref":"#/$defs/n"}}}`, `{"x":"one"}`, "number", ""},
		{"draft-07 schema", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"x":{"type":"boolean"}}}`, `{"x":1}`, "boolean", ""},
		{"a file reference is never read", `{"type":"object","properties":{"x":{"$ref":"file:///etc/passwd"}}}`, `{"x":1}`, "", "does not compile"},
		{"a URL reference is never fetched", `{"type":"object","properties":{"x":{"$ref":"https://example.invalid/s.json"}}}`, `{"x":1}`, "", "does not compile"},
		{"a schema that is not JSON", `{"type":`, `{"x":1}`, "", "not JSON"},
		{"a schema with an invalid keyword value", `{"type":"object","minProperties":"two"}`, `{}`, "", "does not compile"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newArgsSchema([]byte(tc.schema))
			err := s.check(tc.args)
			if tc.wantErr == "" {
				assert.NoError(t, err)
			} else if assert.Error(t, err) {
				assert.Contains(t, err.Error(), tc.wantErr)
			}
			if tc.wantProblem == "" {
				assert.Empty(t, s.Problem())
			} else {
				assert.Contains(t, s.Problem(), tc.wantProblem)
			}
		})
	}
}

// surface is two servers: "genes" with lookup (idSchema), fail and quiet,
// and "big" with dump.
func surface() []Server {
	return []Server{
		{Server: "genes (genes-cmd --stdio)", ID: "genes", Name: "genes-server", Version: "1.0", Tools: []eval.Tool{
			{Name: "quiet", Description: "never called", Parameters: json.RawMessage(`{"type":"object"}`)},
			{Name: "lookup", Description: "look up an item", Parameters: json.RawMessage(idSchema)},
			{Name: "fail", Description: "always fails", Parameters: json.RawMessage(`{"type":"object"}`)},
		}},
		{Server: "http://127.0.0.1:9/mcp", Name: "big", Version: "2", Tools: []eval.Tool{
			{Name: "dump", Description: "returns a lot", Parameters: json.RawMessage(`{"type":"object"}`)},
		}},
	}
}

func rec(name string, status eval.Status, calls ...eval.ToolCall) eval.Record {
	return eval.Record{Name: name, Status: status, ToolCalls: calls}
}

func TestCollector(t *testing.T) {
	ok := func(name, args string, ms float64, tokens int) eval.ToolCall {
		return eval.ToolCall{Name: name, Arguments: args, Result: "r", DurationMS: ms, ResultTokens: tokens}
	}
	errorResult := func(name string, ms float64) eval.ToolCall {
		return eval.ToolCall{Name: name, Arguments: `{}`, Result: `{"error":"no"}`, IsError: true, DurationMS: ms, ResultTokens: 4}
	}
	for _, tc := range []struct {
		name    string
		records []eval.Record
		limit   int
		// want holds the stats of the tools that were called, by name.
		want        map[string]eval.ToolStats
		wantUnknown []eval.ToolStats
		wantCovered [2]int // exercised tools of each server
	}{
		{
			name:        "no records",
			want:        map[string]eval.ToolStats{},
			wantCovered: [2]int{0, 0},
		},
		{
			name: "every kind of error, counted once per call",
			records: []eval.Record{
				rec("A", eval.Pass,
					ok("lookup", `{"id":"a"}`, 10, 100),
					ok("lookup", `{"id":5}`, 20, 50), // against the schema, though the server answered
					eval.ToolCall{Name: "lookup", Arguments: `{"id":`, Result: `{"error":"invalid JSON arguments"}`, IsError: true, NotRun: true},
					eval.ToolCall{Name: "lookup", Arguments: `{}`, Result: `{"error":"missing id"}`, IsError: true, DurationMS: 30, ResultTokens: 5}, // schema and result
				),
				rec("B", eval.Fail,
					errorResult("fail", 5),
					eval.ToolCall{Name: "fail", Arguments: `{}`, Result: `{"error":"invalid params"}`, IsError: true, Refused: true, DurationMS: 7, ResultTokens: 6},
					eval.ToolCall{Name: "nope", Arguments: `{}`, Result: `{"error":"unknown tool"}`, IsError: true, NotRun: true},
				),
			},
			want: map[string]eval.ToolStats{
				"lookup": {Name: "lookup", Calls: 4, Cases: 1, Errors: 3, ErrorRate: 0.75, ErrorResults: 1, ArgumentErrors: 3, NotRun: 1,
					LatencyP50MS: 20, LatencyP95MS: 30, ResultTokensP50: 50, ResultTokensMax: 100, PassShare: 1,
					Parameters: []eval.ParameterUse{{Name: "id", Required: true, Calls: 2}, {Name: "limit"}}}, // not the refused call's id
				"fail": {Name: "fail", Calls: 2, Cases: 1, Errors: 2, ErrorRate: 1, ErrorResults: 1, Refused: 1,
					LatencyP50MS: 5, LatencyP95MS: 7, ResultTokensP50: 4, ResultTokensMax: 6},
			},
			wantUnknown: []eval.ToolStats{{Name: "nope", Calls: 1, Cases: 1, Errors: 1, ErrorRate: 1, NotRun: 1}},
			wantCovered: [2]int{2, 0},
		},
		{
			name: "failures the case expects are counted apart, whatever their kind",
			records: []eval.Record{
				rec("A", eval.Pass,
					eval.ToolCall{Name: "fail", Arguments: `{}`, Result: `{"error":"no such gene"}`, IsError: true, ExpectedError: true, DurationMS: 5, ResultTokens: 4},
					eval.ToolCall{Name: "fail", Arguments: `{}`, Result: `{"error":"invalid params"}`, IsError: true, Refused: true, ExpectedError: true, DurationMS: 7, ResultTokens: 6},
					eval.ToolCall{Name: "fail", Arguments: `{}`, Result: `{"error":"no such gene"}`, IsError: true, DurationMS: 6, ResultTokens: 5}, // not asked for
				),
			},
			want: map[string]eval.ToolStats{
				"fail": {Name: "fail", Calls: 3, Cases: 1, Errors: 1, ErrorRate: 1.0 / 3, ExpectedErrors: 2, ErrorResults: 1, PassShare: 1,
					LatencyP50MS: 6, LatencyP95MS: 7, ResultTokensP50: 5, ResultTokensMax: 6},
			},
			wantCovered: [2]int{1, 0},
		},
		{
			name: "a replayed call no recording answered is no failure of the tool",
			records: []eval.Record{
				rec("A", eval.Fail, eval.ToolCall{Name: "fail", Arguments: `{}`, Result: `{"error":"no recording"}`, IsError: true, Replay: eval.ReplayUnmatched}),
			},
			want: map[string]eval.ToolStats{
				"fail": {Name: "fail", Calls: 1, Cases: 1, NotRun: 1},
			},
			wantCovered: [2]int{1, 0},
		},
		{
			name:  "cases, repeats, pass share and the token limit",
			limit: 1000,
			records: []eval.Record{
				rec("A", eval.Pass, ok("dump", `{}`, 100, 10)),
				rec("A", eval.TokenLimit, ok("dump", `{}`, 300, 5000)), // a repeat of A
				rec("B", eval.Pass, ok("dump", `{}`, 200, 1000), ok("dump", `{}`, 400, 1001)),
				rec("C", eval.Error), // no calls
			},
			want: map[string]eval.ToolStats{
				"dump": {Name: "dump", Calls: 4, Cases: 2, LatencyP50MS: 200, LatencyP95MS: 400, ResultTokensP50: 1000,
					ResultTokensMax: 5000, OverLimit: 2, PassShare: 0.75},
			},
			wantCovered: [2]int{0, 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(surface(), tc.limit, nil)
			for _, r := range tc.records {
				c.Add(r)
			}
			sum := c.Summary()
			assert.Equal(t, tc.limit, sum.TokenLimit)
			require.Len(t, sum.Servers, 2)
			got := map[string]eval.ToolStats{}
			for i, s := range sum.Servers {
				assert.Equal(t, surface()[i].Server, s.Server)
				assert.Equal(t, len(surface()[i].Tools), s.Tools)
				assert.Equal(t, tc.wantCovered[i], s.Exercised, s.Server)
				assert.InDelta(t, 100*float64(tc.wantCovered[i])/float64(s.Tools), s.Coverage, 1e-9)
				assert.Len(t, s.NeverCalled, s.Tools-s.Exercised)
				require.Len(t, s.Stats, len(s.Surface))
				for j, st := range s.Stats {
					assert.Equal(t, s.Surface[j].Name, st.Name, "stats in the surface's order")
					if st.Calls > 0 {
						got[st.Name] = st
						assert.NotContains(t, s.NeverCalled, st.Name)
					} else {
						for _, p := range st.Parameters {
							assert.Zero(t, p.Calls, "a parameter of a tool never called was never passed")
						}
						st.Parameters = nil
						assert.Equal(t, eval.ToolStats{Name: st.Name}, st, "a tool never called has no statistics")
						assert.Contains(t, s.NeverCalled, st.Name)
					}
				}
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantUnknown, sum.Unknown)
		})
	}
}

func TestSurfaceAndNeverCalledAreSortedByName(t *testing.T) {
	sum := New(surface(), 0, nil).Summary()
	var names []string
	for _, tl := range sum.Servers[0].Surface {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"fail", "lookup", "quiet"}, names)
	assert.Equal(t, []string{"fail", "lookup", "quiet"}, sum.Servers[0].NeverCalled)
	assert.Equal(t, "look up an item", sum.Servers[0].Surface[1].Description)
	// The short name names the server on each tool's row; Server, with its
	// command line, only where the server itself is described.
	assert.Equal(t, "genes", sum.Servers[0].ID)
	assert.Equal(t, "genes (genes-cmd --stdio)", sum.Servers[0].Server)
	assert.JSONEq(t, idSchema, string(sum.Servers[0].Surface[1].Parameters))
	assert.Equal(t, []eval.Tool{{Name: "quiet", Description: "never called", Parameters: json.RawMessage(`{"type":"object"}`)},
		{Name: "lookup", Description: "look up an item", Parameters: json.RawMessage(idSchema)},
		{Name: "fail", Description: "always fails", Parameters: json.RawMessage(`{"type":"object"}`)}},
		surface()[0].Tools, "the caller's list is left as it was")
}

func TestSchemaProblemIsReported(t *testing.T) {
	servers := []Server{{Server: "s", Tools: []eval.Tool{{Name: "x", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"other.json"}}}`)}}}}
	c := New(servers, 0, nil)
	c.Add(rec("A", eval.Pass, eval.ToolCall{Name: "x", Arguments: `{"a":1}`, Result: "ok"}))
	st := c.Summary().Servers[0].Stats[0]
	assert.Contains(t, st.SchemaProblem, "does not compile")
	assert.Contains(t, st.SchemaProblem, "other.json")
	assert.Zero(t, st.ArgumentErrors, "arguments that are an object pass when the schema cannot be read")
}

func TestResultsWithoutACountAreCounted(t *testing.T) {
	counter, err := tokens.New(tokens.Default)
	require.NoError(t, err)
	c := New(surface(), 10, counter)
	result := strings.Repeat("word ", 40)
	c.Add(rec("A", eval.Pass,
		eval.ToolCall{Name: "dump", Arguments: `{}`, Result: result},                                                 // from an older cache entry
		eval.ToolCall{Name: "dump", Arguments: `{}`, Result: "x", ResultTokens: 7},                                   // counted when it arrived
		eval.ToolCall{Name: "dump", Arguments: `{"`, Result: strings.Repeat("y ", 900), IsError: true, NotRun: true}, // the harness's message
	))
	st := c.Summary().Servers[1].Stats[0]
	want, _ := counter.Measure(result)
	assert.Equal(t, want, st.ResultTokensMax)
	assert.Equal(t, 7, st.ResultTokensP50)
	assert.Equal(t, 1, st.OverLimit)
	assert.Equal(t, 3, st.Calls)
}

func TestConcurrentAdds(t *testing.T) {
	c := New(surface(), 0, nil)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Add(rec(fmt.Sprint("case ", i), eval.Pass,
				eval.ToolCall{Name: "lookup", Arguments: `{"id":"x"}`, Result: "r", ResultTokens: 1, DurationMS: float64(i)},
				eval.ToolCall{Name: "lookup", Arguments: `{"id":1}`, Result: "r", ResultTokens: 1, DurationMS: float64(i)}))
		}()
	}
	wg.Wait()
	st := c.Summary().Servers[0].Stats[1]
	assert.Equal(t, "lookup", st.Name)
	assert.Equal(t, 100, st.Calls)
	assert.Equal(t, 50, st.Cases)
	assert.Equal(t, 50, st.ArgumentErrors)
	assert.InDelta(t, 0.5, st.ErrorRate, 1e-9)
	assert.Equal(t, 24.0, st.LatencyP50MS)
}

// Definition sizes counted after New arrive while calls are added and
// summaries read (go test -race checks the locking).
func TestDefinitionTokensSetWhileCallsAreAdded(t *testing.T) {
	servers := surface()
	c := New(servers, 0, nil)
	assert.Zero(t, c.Summary().DefinitionTokens, "not counted yet")
	var wg sync.WaitGroup
	wg.Go(func() {
		c.SetDefinitionTokens(servers[0].ID, map[string]int{"lookup": 40, "quiet": 2, "not offered": 5})
		c.SetDefinitionTokens("no such server", map[string]int{"lookup": 1000})
	})
	for i := range 20 {
		wg.Go(func() {
			c.Add(rec(fmt.Sprint("case ", i), eval.Pass, eval.ToolCall{Name: "lookup", Arguments: `{"id":"x"}`, Result: "r", ResultTokens: 1}))
			c.Summary()
		})
	}
	wg.Wait()
	sum := c.Summary()
	assert.Equal(t, 42, sum.DefinitionTokens)
	assert.Equal(t, 42, sum.Servers[0].DefinitionTokens)
	for _, st := range sum.Servers[0].Stats {
		assert.Equal(t, map[string]int{"lookup": 40, "quiet": 2}[st.Name], st.DefinitionTokens, st.Name)
	}
	assert.Equal(t, 20, sum.Servers[0].Stats[1].Calls)
}

// The new figures: output schema violations (errors, with their problems),
// elicitations met and unscripted, parameters passed, definition tokens,
// and the suite's reads of linked resources, counted per server and not
// as a tool.
func TestOutputsElicitationsParametersAndReads(t *testing.T) {
	servers := surface()
	servers[0].DefinitionTokens = map[string]int{"lookup": 120, "fail": 30, "quiet": 25}
	servers[0].Protocol = "2025-11-25"
	c := New(servers, 0, nil)
	c.Add(rec("A", eval.Pass,
		eval.ToolCall{Name: "lookup", Arguments: `{"id":"a","limit":2}`, Result: "r",
			OutputError: "structuredContent does not match the output schema: at /n: got string, want number"},
		eval.ToolCall{Name: "lookup", Arguments: `{"id":"b","extra":1}`, Result: "r",
			Elicitations: []eval.Elicitation{{Action: eval.ElicitAccept, Scripted: true}, {Action: eval.ElicitDecline}}},
		eval.ToolCall{Name: "lookup", Arguments: `{"id":"c"}`, Result: "r",
			OutputError: "structuredContent does not match the output schema: at /n: got string, want number"},
		eval.ToolCall{Name: eval.ReadResourceTool, Server: "genes", Arguments: `{"uri":"x://1"}`, Resource: "x://1", Result: "text"},
		eval.ToolCall{Name: eval.ReadResourceTool, Arguments: `{"uri":"x://2"}`, Result: "no link", IsError: true, NotRun: true},
	))
	sum := c.Summary()
	genes := sum.Servers[0]
	lookup := genes.Stats[1]
	assert.Equal(t, 2, lookup.OutputErrors)
	assert.Equal(t, []string{"structuredContent does not match the output schema: at /n: got string, want number"}, lookup.OutputProblems)
	assert.Equal(t, 2, lookup.Errors, "an output that breaks the schema is an error of the tool")
	assert.Equal(t, 2, lookup.Elicitations)
	assert.Equal(t, 1, lookup.Unscripted)
	assert.Equal(t, []eval.ParameterUse{{Name: "id", Required: true, Calls: 3}, {Name: "limit", Calls: 1}}, lookup.Parameters,
		"arguments the schema does not name are not parameters")
	assert.Equal(t, 120, lookup.DefinitionTokens)
	assert.Equal(t, 175, genes.DefinitionTokens)
	assert.Equal(t, 175, sum.DefinitionTokens)
	assert.Equal(t, 2, genes.Parameters)
	assert.Equal(t, 2, genes.ParametersPassed)
	assert.InDelta(t, 100, genes.ParameterCoverage, 1e-9)
	assert.Equal(t, "2025-11-25", genes.Protocol)
	assert.Empty(t, sum.Unknown, "the suite's reads are no unknown tool")
}

func TestResourceReadsCountPerServer(t *testing.T) {
	servers := []Server{{Server: "everything", ID: "mcp-servers/everything", Tools: []eval.Tool{{Name: "get-resource-links", Parameters: json.RawMessage(`{}`)}}}}
	c := New(servers, 0, nil)
	c.Add(rec("A", eval.Pass,
		eval.ToolCall{Name: "get-resource-links", Server: "mcp-servers/everything", Arguments: `{}`, Result: "links"},
		eval.ToolCall{Name: eval.ReadResourceTool, Server: "mcp-servers/everything", Arguments: `{"uri":"x://1"}`, Resource: "x://1", Result: "text"},
	))
	srv := c.Summary().Servers[0]
	assert.Equal(t, 1, srv.ResourceReads)
	assert.Equal(t, 1, srv.Stats[0].Calls)
	assert.Zero(t, srv.Parameters, "a schema without properties has no parameters")
}

// A parameter is passed by a call the server accepted, with a value: a
// null passes nothing.
func TestArgNames(t *testing.T) {
	assert.Equal(t, []string{"id", "build"}, argNames(`{"id":"a","limit":null,"build":"hg19"}`))
	assert.Empty(t, argNames(`{"limit": null}`))
	assert.Nil(t, argNames(`["a"]`))
	assert.Nil(t, argNames(`{"id":`))
	for _, tc := range []struct {
		args string
		want []string
	}{
		{``, nil},
		{`null`, nil},
		{`{}`, nil},
		{` { "b" : {"x":null} , "a" : [null] } `, []string{"b", "a"}},
		{`{"a":1,"b":2,"a":null}`, []string{"b"}},        // the last value of a name counts
		{`{"a":null,"b":2,"a":"x"}`, []string{"a", "b"}}, // in the order names first come
		{`{"a":1} {"b":2}`, nil},                         // two values
		{`{"a":1} x`, nil},
		{"{\"g\xffn\":1}", []string{"g\ufffdn"}}, // invalid UTF-8, as encoding/json reads it
		{`{"a":1,}`, nil},
	} {
		assert.Equal(t, tc.want, argNames(tc.args), "%s", tc.args)
	}
}

// Arguments of calls the server refused or answered with an error pass no
// parameter.
func TestRejectedCallsPassNoParameter(t *testing.T) {
	c := New(surface(), 0, nil)
	c.Add(rec("A", eval.Fail,
		eval.ToolCall{Name: "lookup", Arguments: `{"id":"x","limit":3}`, Result: `{"error":"invalid params"}`, IsError: true, Refused: true},
		eval.ToolCall{Name: "lookup", Arguments: `{"id":"y","limit":3}`, Result: `{"error":"no such item"}`, IsError: true},
	))
	for _, s := range c.Summary().Servers {
		for _, st := range s.Stats {
			for _, p := range st.Parameters {
				assert.Zero(t, p.Calls, "%s.%s", st.Name, p.Name)
			}
		}
		assert.Zero(t, s.ParametersPassed, s.Server)
	}
}

// An arm that overrides a tool's definition owns its calls to it: a
// misleading description's wrong calls are counted for the arm, not as
// the server's failures; the same tool's calls under other arms are the
// server's.
func TestOverriddenCallsAreTheArms(t *testing.T) {
	servers := []Server{{Server: "cmd", ID: "s", Tools: []eval.Tool{{Name: "lookup", Parameters: json.RawMessage(idSchema)}}}}
	c := New(servers, 0, nil)
	c.SetOverridden("misleading", [][2]string{{"s", "lookup"}})
	good := eval.ToolCall{Server: "s", Name: "lookup", Arguments: `{"id":"a"}`, Result: "r"}
	wrong := eval.ToolCall{Server: "s", Name: "lookup", Arguments: `{"id":5}`, Result: "bad id", IsError: true}
	c.Add(eval.Record{Name: "A", Arm: "server", Status: eval.Pass, ToolCalls: []eval.ToolCall{good}})
	c.Add(eval.Record{Name: "A", Arm: "misleading", Status: eval.Fail, ToolCalls: []eval.ToolCall{wrong, wrong}})
	c.Add(eval.Record{Name: "B", Arm: "misleading", Status: eval.Fail, ToolCalls: []eval.ToolCall{{Name: "lookup", Arguments: `{}`, IsError: true}}})
	sum := c.Summary()
	server := sum.Servers[0].Stats[0]
	assert.Equal(t, 1, server.Calls, "the server's: the server arm's call alone")
	assert.Zero(t, server.Errors, "the misleading arm's wrong calls are not the server's failures")
	require.Len(t, sum.Overridden, 1)
	arm := sum.Overridden[0]
	assert.Equal(t, "misleading", arm.Arm)
	assert.Equal(t, "s", arm.Server)
	assert.Equal(t, "lookup", arm.Name)
	assert.Equal(t, 3, arm.Calls, "a call naming no server goes by the tool's name")
	assert.Equal(t, 3, arm.Errors)
	assert.Equal(t, 3, arm.ArgumentErrors)
}

// With arms, each arm's calls add up on their own: the tool health of
// every arm, whether or not it overrides the tool.
func TestToolHealthByArm(t *testing.T) {
	servers := []Server{{Server: "cmd", ID: "s", Tools: []eval.Tool{{Name: "lookup", Parameters: json.RawMessage(idSchema)}, {Name: "other"}}}}
	c := New(servers, 0, nil)
	c.SetOverridden("misleading", [][2]string{{"s", "lookup"}})
	good := eval.ToolCall{Server: "s", Name: "lookup", Arguments: `{"id":"a"}`, Result: "r"}
	failed := eval.ToolCall{Server: "s", Name: "lookup", Arguments: `{"id":"zz"}`, Result: "no such id", IsError: true}
	c.Add(eval.Record{Name: "A", Arm: "server", Status: eval.Pass, ToolCalls: []eval.ToolCall{good, good}})
	c.Add(eval.Record{Name: "A", Arm: "terse", Status: eval.Fail, ToolCalls: []eval.ToolCall{failed, {Name: "other", Arguments: `{}`}}})
	c.Add(eval.Record{Name: "A", Arm: "misleading", Status: eval.Fail, ToolCalls: []eval.ToolCall{failed}})
	c.Add(eval.Record{Name: "A", Status: eval.Pass, ToolCalls: []eval.ToolCall{good}}) // a run without arms
	c.Add(eval.Record{Name: "A", Arm: "server", Status: eval.Fail, ToolCalls: []eval.ToolCall{{Name: "nosuch", Arguments: `{}`}}})
	type row struct {
		arm, tool     string
		calls, errors int
	}
	var got []row
	for _, a := range c.Summary().ByArm {
		assert.Equal(t, "s", a.Server)
		got = append(got, row{a.Arm, a.Name, a.Calls, a.Errors})
	}
	assert.Equal(t, []row{{"misleading", "lookup", 1, 1}, {"server", "lookup", 2, 0}, {"terse", "lookup", 1, 1}, {"terse", "other", 1, 0}}, got,
		"by arm and tool, sorted; calls to tools no server offers are not an arm's tool health")
}
