package agent

// Code cases (kind: code): a question about a table, answered with pandas
// code that runs through the server's run_pandas tool.
//
// The agent (or the reference trajectory) runs as for any case, with the
// code system prompt unless one is configured. The code case's answer is the
// result text of its final code, not the model's prose: the deterministic
// checks and the judge see what the code computed.
//
// The attempts of a case are the chain of run_pandas executions that led to
// its final code: the failed calls right before the agent's last call, then
// that call (a model fixing its own error inside the loop is recovering).
// When the last call failed, the recovery loop of the metrics guide asks the
// model for corrected code, within what is left of the budget of
// MaxRecovery attempts; the reference run has no model and no recovery loop.
// The first success becomes the answer.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llm"
)

// schemaTool is the tool that describes the datasets run_pandas loads.
const schemaTool = "list_datasets"

// CodeConfig configures a code case's run.
type CodeConfig struct {
	Config
	// MaxRecovery bounds the recovery attempts after failed code.
	MaxRecovery int
	// Reference replays the case's reference trajectory instead of asking
	// a model; chat may then be nil.
	Reference bool
}

// RunCode runs a code case: the agent or the reference trajectory, then, if
// the final code failed and a model is evaluated, the recovery loop. The
// transcript's answer is the final code's result text, its Attempts the
// chain that led there, Columns the columns of the final code's datasets
// and Values their listed values; when the final code failed, Incomplete
// says so. The error is as
// Run's.
func RunCode(ctx context.Context, chat llm.Chatter, tools ToolBox, cfg CodeConfig, c eval.Case) (*Transcript, error) {
	if cfg.SystemPrompt == "" {
		cfg.SystemPrompt = CodeSystemPrompt
	}
	var tr *Transcript
	var err error
	if cfg.Reference {
		tr = Reference(ctx, tools, cfg.Config, c)
		err = tr.Fault
	} else {
		tr, err = Run(ctx, chat, tools, cfg.Config, c.Input)
	}
	tr.Attempts = attemptChain(attempts(tr.ToolCalls))
	if len(tr.Attempts) == 0 {
		if err == nil && tr.TokenLimit == "" && tr.Incomplete == "" && tr.Cut == "" {
			tr.Incomplete = fmt.Sprintf("no code was run: the answer of a code case is the result of %s", CodeTool)
		}
		return tr, err
	}
	datasets := listDatasets(ctx, tools)
	last := tr.Attempts[len(tr.Attempts)-1]
	tr.Columns, tr.Values = datasets.columns(last.Dataset), datasets.values(last.Dataset)
	if err != nil || tr.TokenLimit != "" || tr.Cut != "" {
		return tr, err
	}

	if last.Failed && !cfg.Reference {
		rec, rerr := recoverCode(ctx, chat, tools, cfg.Config, recoveryInput{
			Question: c.Input, Schema: datasets.describe(last.Dataset), Failed: last,
			MaxAttempts: cfg.MaxRecovery - (len(tr.Attempts) - 1),
		})
		tr.Conversation = append(tr.Conversation, rec.Conversation...)
		tr.ToolCalls = append(tr.ToolCalls, rec.ToolCalls...)
		tr.Usage.Add(rec.Usage)
		tr.Attempts = append(tr.Attempts, rec.Attempts...)
		if rerr != nil {
			return tr, rerr
		}
	}

	final := tr.Attempts[len(tr.Attempts)-1]
	switch {
	case !final.Failed:
		tr.Answer = final.Output
		if !cfg.Reference {
			tr.Incomplete = "" // the code answered, whether or not the model summed up
		}
	case tr.Incomplete == "":
		tr.Answer = ""
		tr.Incomplete = fmt.Sprintf("the final code failed after %d recovery attempts: %s",
			len(tr.Attempts)-1, lastLine(final.Output))
	}
	return tr, nil
}

// attemptChain returns the executions that led to the final code: the
// failed executions right before the last one, and the last one.
func attemptChain(execs []eval.Attempt) []eval.Attempt {
	if len(execs) == 0 {
		return nil
	}
	start := len(execs) - 1
	for start > 0 && execs[start-1].Failed {
		start--
	}
	return execs[start:]
}

// datasetSchemas are the datasets list_datasets reports, by name.
type datasetSchemas map[string][]schemaColumn

type schemaColumn struct {
	Name   string   `json:"name"`
	Dtype  string   `json:"dtype"`
	Values []string `json:"values"`
}

// listDatasets asks the server for the datasets' columns; a server without
// list_datasets, or a failing one, gives none.
func listDatasets(ctx context.Context, tools ToolBox) datasetSchemas {
	if !tools.Has(schemaTool) {
		return nil
	}
	res, err := tools.Call(ctx, schemaTool, map[string]any{})
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

// values returns the listed values of the named datasets' columns, by
// column (a column in two datasets has the values of both).
func (d datasetSchemas) values(arg string) map[string][]string {
	out := map[string][]string{}
	for _, name := range datasetNames(arg) {
		for _, c := range d[name] {
			for _, v := range c.Values {
				if !slices.Contains(out[c.Name], v) {
					out[c.Name] = append(out[c.Name], v)
				}
			}
		}
	}
	return out
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
