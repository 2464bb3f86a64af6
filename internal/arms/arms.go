// Package arms reads an arms file: named versions of what the model is
// given (a model, a set of servers or none, tool overrides, a system
// prompt), each run on every selected case side by side, so that a server
// author sees whether the server helps at all and which wording of its
// tools works best.
//
//	arms:
//	  - name: no-server          # no MCP server: the model answers from what it knows
//	    servers: []
//	  - name: server             # every server of the run, as it is
//	  - name: misleading
//	    override:
//	      get_gene_by_symbol: {description: "Looks a gene up (deprecated)."}
//	      marrvel/get_clinvar_counts_by_entrez_id:
//	        input_schema: {type: object, properties: {id: {type: string}}}
//	  - name: small
//	    model: gpt-4.1-mini
//	    system_prompt: "Answer briefly."
//	    allow: {marrvel: ["get_gene_*"]}
//	    hide: [run_pandas]
//	  - name: without
//	    leave_one_out: tools      # or groups, with groups: {name: [patterns]}
//	baseline: server             # optional: every other arm gets a verdict against it
//
// An arm with leave_one_out stands for itself and for one arm per tool
// (or group) of its surface that hides that tool: "without-get_gene_by_symbol".
package arms

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/yamlbound"

	"github.com/mcpeval/mcpeval/internal/mcpconn"
)

// Arm is one version of what the model is given.
type Arm struct {
	Name string
	// Model is the model the arm evaluates; "" is the run's model.
	Model string
	// SystemPrompt replaces the agent's system prompt; "" keeps the run's.
	SystemPrompt string
	// Surface is what the model is shown of the servers' tools.
	Surface mcpconn.Surface
	// LeaveOneOut is "tools" or "groups" for an arm whose tools, or
	// groups of tools (Groups), are each left out by an arm of its own.
	LeaveOneOut string
	Groups      map[string][]string
	// Base and Hidden are set on an arm that leave_one_out made: the arm
	// it comes from and the tool or group it hides.
	Base, Hidden string
	// Baseline is set on the arm the file names its baseline.
	Baseline bool
	// File and Line say where the arm is declared.
	File string
	Line int
}

// NoServer reports whether the arm offers no server at all.
func (a Arm) NoServer() bool { return a.Surface.Servers != nil && len(a.Surface.Servers) == 0 }

// file is an arms file as written.
type file struct {
	Arms     []armYAML `yaml:"arms"`
	Baseline string    `yaml:"baseline"`
}

type armYAML struct {
	Name         string                  `yaml:"name"`
	Model        string                  `yaml:"model"`
	SystemPrompt string                  `yaml:"system_prompt"`
	Servers      *[]string               `yaml:"servers"`
	Allow        map[string][]string     `yaml:"allow"`
	Hide         []string                `yaml:"hide"`
	Override     map[string]overrideYAML `yaml:"override"`
	LeaveOneOut  string                  `yaml:"leave_one_out"`
	Groups       map[string][]string     `yaml:"groups"`
	Line         int                     `yaml:"-"`
}

type overrideYAML struct {
	Description *string   `yaml:"description"`
	InputSchema yaml.Node `yaml:"input_schema"`
}

// validName is what an arm's name may be: it names a subtest and a column.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// maxFile bounds an arms file.
const maxFile = 4 << 20

// Load reads an arms file. Every problem is an error naming the file and
// line: an unknown field, an arm without a name or with one used twice, a
// leave_one_out that is neither "tools" nor "groups", an input schema that
// is not an object.
func Load(path string) ([]Arm, error) {
	data, err := files.ReadRegular(path, maxFile)
	if err != nil {
		return nil, fmt.Errorf("arms file (a regular file of at most %d MiB): %w", maxFile>>20, err)
	}
	return Parse(path, data)
}

// Parse reads the arms file named path from data (see Load).
func Parse(path string, data []byte) ([]Arm, error) {
	if err := yamlbound.Check(data, maxFile); err != nil {
		return nil, fmt.Errorf("arms file %s: %w", path, err)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var f file
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	lines := armLines(&doc)
	if len(f.Arms) == 0 {
		return nil, fmt.Errorf("%s: no arms: give a list under arms:, each with a name", path)
	}
	var out []Arm
	seen := map[string]int{}
	for i, a := range f.Arms {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		at := fmt.Sprintf("%s:%d", path, line)
		if !validName.MatchString(a.Name) {
			return nil, fmt.Errorf("%s: arm %q: a name of letters, digits, '_', '-' and '.' (at most 64) is needed", at, a.Name)
		}
		if prev, dup := seen[a.Name]; dup {
			return nil, fmt.Errorf("%s: arm %q is declared already, at line %d", at, a.Name, prev)
		}
		seen[a.Name] = line
		arm := Arm{Name: a.Name, Model: strings.TrimSpace(a.Model), SystemPrompt: a.SystemPrompt, File: path, Line: line,
			Surface: mcpconn.Surface{Allow: a.Allow, Hide: a.Hide}, Groups: a.Groups}
		if a.Servers != nil {
			arm.Surface.Servers = append([]string{}, (*a.Servers)...)
		}
		switch a.LeaveOneOut {
		case "", "tools":
		case "groups":
			if len(a.Groups) == 0 {
				return nil, fmt.Errorf("%s: arm %q: leave_one_out: groups needs groups: {name: [tool patterns]}", at, a.Name)
			}
		default:
			return nil, fmt.Errorf("%s: arm %q: leave_one_out is %q: give tools or groups", at, a.Name, a.LeaveOneOut)
		}
		arm.LeaveOneOut = a.LeaveOneOut
		if len(a.Override) > 0 {
			arm.Surface.Override = map[string]mcpconn.Override{}
		}
		for tool, o := range a.Override {
			var over mcpconn.Override
			over.Description = o.Description
			if o.InputSchema.Kind != 0 {
				var schema any
				if err := o.InputSchema.Decode(&schema); err != nil {
					return nil, fmt.Errorf("%s:%d: override %s: input_schema: %v", path, o.InputSchema.Line, tool, err)
				}
				if _, isObject := schema.(map[string]any); !isObject {
					return nil, fmt.Errorf("%s:%d: override %s: input_schema must be a JSON Schema object", path, o.InputSchema.Line, tool)
				}
				raw, err := json.Marshal(schema)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: override %s: input_schema: %v", path, o.InputSchema.Line, tool, err)
				}
				over.InputSchema = raw
			}
			if over.Description == nil && over.InputSchema == nil {
				return nil, fmt.Errorf("%s: arm %q: override %s replaces nothing: give description or input_schema", at, a.Name, tool)
			}
			arm.Surface.Override[tool] = over
		}
		out = append(out, arm)
	}
	if f.Baseline != "" {
		i := slices.IndexFunc(out, func(a Arm) bool { return a.Name == f.Baseline })
		if i < 0 {
			names := make([]string, len(out))
			for j, a := range out {
				names[j] = a.Name
			}
			return nil, fmt.Errorf("%s:%d: baseline %q names no arm of the file: give one of %s", path, keyLine(&doc, "baseline"), f.Baseline, strings.Join(names, ", "))
		}
		out[i].Baseline = true
	}
	return out, nil
}

// keyLine returns the line of a top-level key of the document.
func keyLine(doc *yaml.Node, key string) int {
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return 0
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return 0
}

// armLines returns the line of each item of the arms list.
func armLines(doc *yaml.Node) []int {
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "arms" && m.Content[i+1].Kind == yaml.SequenceNode {
			var lines []int
			for _, item := range m.Content[i+1].Content {
				lines = append(lines, item.Line)
			}
			return lines
		}
	}
	return nil
}

// Expand returns the arms with those that leave_one_out makes, after the
// arm they come from: one per tool of its surface (tools lists them, as
// "server/name"), or per group of its groups.
func Expand(all []Arm, tools func(Arm) ([]string, error)) ([]Arm, error) {
	var out []Arm
	names := map[string]bool{}
	for _, a := range all {
		names[a.Name] = true
	}
	add := func(a Arm) error {
		if names[a.Name] && a.Base != "" {
			return fmt.Errorf("%s:%d: arm %q that leave_one_out makes is declared already", a.File, a.Line, a.Name)
		}
		names[a.Name] = true
		out = append(out, a)
		return nil
	}
	for _, a := range all {
		out = append(out, a)
		var hidden []struct{ name, pattern string }
		switch a.LeaveOneOut {
		case "tools":
			list, err := tools(a)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: arm %q: %w", a.File, a.Line, a.Name, err)
			}
			for _, t := range list {
				_, name, _ := strings.Cut(t, "/")
				hidden = append(hidden, struct{ name, pattern string }{name, t})
			}
		case "groups":
			for _, g := range slices.Sorted(maps.Keys(a.Groups)) {
				for _, p := range a.Groups[g] {
					hidden = append(hidden, struct{ name, pattern string }{g, p})
				}
			}
		}
		byName := map[string]int{}
		for _, h := range hidden {
			if i, ok := byName[h.name]; ok {
				out[i].Surface.Hide = append(out[i].Surface.Hide, h.pattern)
				continue
			}
			loo := a
			loo.LeaveOneOut, loo.Groups, loo.Base, loo.Hidden, loo.Baseline = "", nil, a.Name, h.name, false
			loo.Name = a.Name + "-without-" + sanitize(h.name)
			loo.Surface.Hide = append(slices.Clone(a.Surface.Hide), h.pattern)
			if err := add(loo); err != nil {
				return nil, err
			}
			byName[h.name] = len(out) - 1
		}
	}
	return out, nil
}

// sanitize keeps of s what an arm's name may hold.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
}
