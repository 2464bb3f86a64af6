package suite

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/dialect"
	"github.com/mcpeval/mcpeval/internal/prose"
)

// adaptSchemas checks, before the first case, that the input schemas of
// the offered tools can be adapted to the dialect of the run's provider
// (package dialect; the provider client adapts every request's tools),
// keeps the adapted ones for the summary and says so in the run's first
// lines. A schema it cannot adapt stops the run, naming the tool: every
// request would be refused.
func (s *Run) adaptSchemas(log io.Writer) error {
	st := s.Settings
	if st.Reference {
		return nil // no provider is sent a tool
	}
	for _, model := range append([]string{st.Model}, st.Models...) {
		d, err := dialect.Choose(st.SchemaDialect, st.BaseURL, model)
		if err != nil {
			return err
		}
		if s.dialect = d; d.Name != "" {
			break
		}
	}
	if s.dialect.Name == "" {
		if auto, _ := dialect.Choose("", st.BaseURL, st.Model); auto.Name != "" {
			fmt.Fprintf(log, "mcpeval: tool schemas sent as the servers wrote them (EVAL_SCHEMA_DIALECT=none), although %s (chosen by %s) refuses parts of JSON Schema\n", auto.Name, auto.From)
		}
		return nil
	}
	s.schemas = map[string]json.RawMessage{}
	var kinds, problems []string
	for _, t := range s.tools.Tools() {
		adapted, changes, err := s.dialect.Adapt(t.Parameters)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", t.Name, err))
			continue
		}
		if len(changes) > 0 {
			s.schemas[t.Name] = adapted
		}
		for _, c := range changes {
			if !slices.Contains(kinds, c) {
				kinds = append(kinds, c)
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("the input schemas of %s cannot be given to %s (chosen by %s), no case was run: %s. Leave the tools out with EVAL_TOOLS (!name), or send the schemas as the servers wrote them with EVAL_SCHEMA_DIALECT=none",
			prose.Plural(len(problems), "tools"), s.dialect.Name, s.dialect.From, strings.Join(problems, "; "))
	}
	slices.Sort(kinds)
	if len(s.schemas) > 0 {
		fmt.Fprintf(log, "mcpeval: %s: %s of the servers changed (%s)\n", s.dialect.Describe(), prose.Plural(len(s.schemas), "tools"), strings.Join(kinds, ", "))
	} else {
		fmt.Fprintf(log, "mcpeval: %s: no tool of the servers needed a change\n", s.dialect.Describe())
	}
	return nil
}

// adaptedTools records, for the run's summary, the tools whose schema was
// adapted, as the model was sent them.
func (s *Run) adaptedTools() []eval.Tool {
	var out []eval.Tool
	for _, t := range s.tools.Tools() {
		if schema, ok := s.schemas[t.Name]; ok {
			t.Parameters = schema
			out = append(out, t)
		}
	}
	return out
}
