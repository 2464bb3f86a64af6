package suite

// Code cases (kind: code): a question about a table, answered with pandas
// code that runs through the server's run_pandas tool.
//
// The agent (or the reference trajectory) runs as for any case, with the
// code system prompt unless a system prompt is configured. The code case's
// answer is the result text of its final code, not the model's prose: the
// deterministic checks and the judge see what the code computed.
//
// The attempts of a case are the chain of run_pandas executions that led to
// its final code: the failed calls right before the agent's last call, then
// that call (a model fixing its own error inside the loop is recovering).
// When the last call failed, the recovery loop of the metrics guide asks the
// model for corrected code (agent.Recover), within what is left of the
// budget of EVAL_MAX_RECOVERY recovery attempts; the reference run has no
// model and no recovery loop. The first success becomes the answer. The six
// metrics (scoring.ScoreCode) are computed once the checks and the judge
// have decided: the result matches when the case passed.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/result"
	"github.com/mcpeval/mcpeval/scoring"
)

// schemaTool is the tool that describes the datasets run_pandas loads.
const schemaTool = "list_datasets"

// codeRun is what scoring a code case needs besides its record.
type codeRun struct {
	attempts []agent.Execution
	columns  []string
}

// runCode runs a code case: the agent or the reference trajectory, then,
// if the final code failed and a model is evaluated, the recovery loop. The
// transcript's answer is the final code's result text; when the final code
// failed, Incomplete says so. The error is as agent.Run's.
func (s *Suite) runCode(ctx context.Context, cfg agent.Config, c evalcase.Case) (*agent.Transcript, *codeRun, error) {
	st := s.Settings
	cfg.SystemPrompt = s.systemPrompt(c)
	maxRecoveryAttempts := st.MaxRecovery
	var tr *agent.Transcript
	var err error
	if st.Reference {
		tr = agent.Reference(ctx, s.tools, cfg, c)
		err = tr.Fault
	} else {
		tr, err = agent.Run(ctx, s.chat, s.tools, cfg, c.Input)
	}
	run := &codeRun{attempts: attemptChain(agent.Executions(tr.ToolCalls))}
	if len(run.attempts) == 0 {
		if err == nil && tr.TokenLimit == "" && tr.Incomplete == "" {
			tr.Incomplete = fmt.Sprintf("no code was run: the answer of a code case is the result of %s", agent.CodeTool)
		}
		return tr, run, err
	}
	datasets := s.datasets(ctx)
	last := run.attempts[len(run.attempts)-1]
	run.columns = datasets.columns(last.Dataset)
	if err != nil || tr.TokenLimit != "" {
		return tr, run, err
	}

	if last.Failed && !st.Reference {
		rec, rerr := agent.Recover(ctx, s.chat, s.tools, cfg, agent.RecoveryInput{
			Question: c.Input, Schema: datasets.describe(last.Dataset), Failed: last,
			MaxAttempts: maxRecoveryAttempts - (len(run.attempts) - 1),
		})
		tr.Conversation = append(tr.Conversation, rec.Conversation...)
		tr.ToolCalls = append(tr.ToolCalls, rec.ToolCalls...)
		tr.Usage.Add(rec.Usage)
		run.attempts = append(run.attempts, rec.Attempts...)
		if rerr != nil {
			return tr, run, rerr
		}
	}

	final := run.attempts[len(run.attempts)-1]
	switch {
	case !final.Failed:
		tr.Answer = final.Output
		if !st.Reference {
			tr.Incomplete = "" // the code answered, whether or not the model summed up
		}
	case tr.Incomplete == "":
		tr.Answer = ""
		tr.Incomplete = fmt.Sprintf("the final code failed after %d recovery attempts: %s",
			len(run.attempts)-1, lastLine(final.Output))
	}
	return tr, run, nil
}

// attemptChain returns the executions that led to the final code: the
// failed executions right before the last one, and the last one.
func attemptChain(execs []agent.Execution) []agent.Execution {
	if len(execs) == 0 {
		return nil
	}
	start := len(execs) - 1
	for start > 0 && execs[start-1].Failed {
		start--
	}
	return execs[start:]
}

// scoreCode computes the six metrics of a finished code case, once the
// checks and the judge have decided rec.Status.
func (s *Suite) scoreCode(c evalcase.Case, rec result.Record, run *codeRun) scoring.Metrics {
	attempts := make([]scoring.Attempt, len(run.attempts))
	for i, e := range run.attempts {
		attempts[i] = scoring.Attempt{Code: e.Code, Success: !e.Failed, Seconds: e.Seconds, SyntaxValid: true}
		if e.Failed {
			attempts[i].Error = e.Output
			attempts[i].SyntaxValid = scoring.ClassifyError(e.Output) != scoring.SyntaxError
		}
	}
	m := scoring.ScoreCode(scoring.CodeCase{
		Question: c.Input, Columns: run.columns, Attempts: attempts,
		ResultMatches: rec.Status == result.Pass,
		// Every attempt made counts: the model may have fixed its code
		// within its own loop more often than the recovery budget allows.
		MaxRecoveryAttempts: max(s.Settings.MaxRecovery, len(attempts)-1),
	})
	return m
}

// datasetSchemas are the datasets list_datasets reports, by name.
type datasetSchemas map[string][]schemaColumn

type schemaColumn struct {
	Name  string `json:"name"`
	Dtype string `json:"dtype"`
}

// datasets asks the server for the datasets' columns; a server without
// list_datasets, or a failing one, gives none.
func (s *Suite) datasets(ctx context.Context) datasetSchemas {
	if !s.tools.Has(schemaTool) {
		return nil
	}
	res, err := s.tools.Call(ctx, schemaTool, map[string]any{})
	if err != nil || res.IsError {
		return nil
	}
	var listed struct {
		Datasets []struct {
			Name    string         `json:"name"`
			Columns []schemaColumn `json:"columns"`
		} `json:"datasets"`
	}
	if json.Unmarshal([]byte(res.Text), &listed) != nil {
		return nil
	}
	out := datasetSchemas{}
	for _, d := range listed.Datasets {
		out[d.Name] = d.Columns
	}
	return out
}

// datasetNames splits a run_pandas dataset argument ("employees, departments.csv").
func datasetNames(arg string) []string {
	var names []string
	for _, n := range strings.Split(arg, ",") {
		if n = strings.TrimSuffix(strings.TrimSpace(n), ".csv"); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// columns returns the columns of the named datasets, without repeats.
func (d datasetSchemas) columns(arg string) []string {
	var cols []string
	seen := map[string]bool{}
	for _, name := range datasetNames(arg) {
		for _, c := range d[name] {
			if !seen[c.Name] {
				seen[c.Name] = true
				cols = append(cols, c.Name)
			}
		}
	}
	return cols
}

// describe lists the named datasets' columns and dtypes for a prompt:
// "employees (df): id int64, name object".
func (d datasetSchemas) describe(arg string) string {
	var lines []string
	for i, name := range datasetNames(arg) {
		cols, ok := d[name]
		if !ok {
			continue
		}
		frame := "df"
		if i > 0 {
			frame = fmt.Sprintf("df%d", i+1)
		}
		parts := make([]string, len(cols))
		for j, c := range cols {
			parts[j] = c.Name + " " + c.Dtype
		}
		lines = append(lines, fmt.Sprintf("%s (%s): %s", name, frame, strings.Join(parts, ", ")))
	}
	return strings.Join(lines, "\n")
}

// lastLine returns the last non-empty line of an error text, where the
// exception type and message are.
func lastLine(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	return lines[len(lines)-1]
}
