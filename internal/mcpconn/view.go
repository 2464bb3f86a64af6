package mcpconn

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Surface is what a variant of a run (an arm) shows the model of a Set's
// tools: which servers, which of their tools, with which descriptions and
// input schemas. Calls still go to the real servers, under the tools' own
// names and with whatever arguments the model sends.
type Surface struct {
	// Servers names the servers whose tools are offered, by short name
	// (see Set.ServerNames); nil offers every server's, an empty list none.
	Servers []string
	// Allow lists, by server short name, patterns of the only tools of
	// that server that are offered (see selected for patterns).
	Allow map[string][]string
	// Hide lists patterns of tools left out ("name" or "server/name").
	Hide []string
	// Override replaces what the model reads of a tool, by its name or
	// "server/name".
	Override map[string]Override
}

// Override replaces a tool's description, its input schema, or both.
type Override struct {
	Description *string
	// InputSchema is a JSON Schema object, sent as the tool's parameters.
	InputSchema json.RawMessage
}

// View returns the set as surface shows it: the same servers, the tools it
// selects, overridden as it says, offered under names of their own (see
// offeredNames). A server or tool the surface names that the set does not
// have is an error, as is an override's input schema that is not a JSON
// object. A view shares its servers with the set: close the set, not the
// view.
func (s *Set) View(v Surface) (*Set, error) {
	for _, name := range v.Servers {
		if !slices.Contains(s.names, name) {
			return nil, fmt.Errorf("no server is named %q (the servers: %v)", name, s.names)
		}
	}
	for name, patterns := range v.Allow {
		if !slices.Contains(s.names, name) {
			return nil, fmt.Errorf("allow: no server is named %q (the servers: %v)", name, s.names)
		}
		if err := CheckPatterns(patterns); err != nil {
			return nil, fmt.Errorf("allow %s: %w", name, err)
		}
	}
	if err := CheckPatterns(v.Hide); err != nil {
		return nil, fmt.Errorf("hide: %w", err)
	}
	used := map[string]bool{}
	view := &Set{Servers: s.Servers, names: s.names, byOffered: map[string]int{}, view: true}
	for _, t := range s.entries {
		if v.Servers != nil && !slices.Contains(v.Servers, t.Server) {
			continue
		}
		if allow, ok := v.Allow[t.Server]; ok && !selected(allow, t.Server, t.Name) {
			continue
		}
		if len(v.Hide) > 0 && slices.ContainsFunc(v.Hide, func(p string) bool { return matchTool(p, t.Server, t.Name) }) {
			continue
		}
		for _, key := range []string{t.Server + "/" + t.Name, t.Name} {
			o, ok := v.Override[key]
			if !ok {
				continue
			}
			used[key] = true
			if o.Description != nil {
				t.Listed.Description = *o.Description
			}
			if len(o.InputSchema) > 0 {
				var schema map[string]any
				if err := json.Unmarshal(o.InputSchema, &schema); err != nil {
					return nil, fmt.Errorf("override %s: the input schema is not a JSON object: %w", key, err)
				}
				t.Listed.Parameters = o.InputSchema
			}
			break
		}
		t.Offered = ""
		view.entries = append(view.entries, t)
	}
	for key := range v.Override {
		if !used[key] && !s.knows(key) {
			return nil, fmt.Errorf("override: no tool is named %q", key)
		}
	}
	view.offer()
	return view, nil
}

// knows reports whether the set has a tool named key ("name" or
// "server/name").
func (s *Set) knows(key string) bool {
	return slices.ContainsFunc(s.entries, func(t Tool) bool { return t.Name == key || t.Server+"/"+t.Name == key })
}
