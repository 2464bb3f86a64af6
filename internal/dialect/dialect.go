// Package dialect adapts the JSON schemas of tool definitions to what a
// provider accepts. MCP servers write JSON Schema as their SDKs do (the
// official Go SDK gives every slice "type": ["null", "array"]); some
// providers refuse parts of it, and refuse the whole request, so that
// every case would fail the same way. The providers known to, what they
// refuse and how it is adapted are in Table.
package dialect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/internal/schemacheck"
)

// Dialect is the schema dialect of the run's provider: Name is "" when
// schemas go as the servers wrote them.
type Dialect struct {
	Name string
	// From says how it was chosen: the base URL's host, the model name,
	// or the setting.
	From string
}

// Quirk is one provider's row of Table.
type Quirk struct {
	Name string
	// Hosts and Models recognize the provider: a base URL on one of the
	// hosts (or below it, or a regional one: REGION-host), or a model
	// whose name matches Models.
	Hosts  []string
	Models *regexp.Regexp
	// Refuses says what the provider refuses, Adapted how it is adapted;
	// Sources are public reports of the refusal.
	Refuses, Adapted string
	Sources          []string
}

// Table lists the providers whose schema dialect the suite adapts to.
var Table = []Quirk{{
	Name:   "gemini",
	Hosts:  []string{"generativelanguage.googleapis.com", "aiplatform.googleapis.com"},
	Models: regexp.MustCompile(`(?i)(^|/)gemini`),
	Refuses: `type lists ("type": ["null", "array"]: "Proto field is not repeating, cannot start list"), ` +
		`"const", "additionalProperties", "$schema" ("Unknown name ... Cannot find field"), references ($ref, $defs)`,
	Adapted: `a type list becomes its one type with "nullable": true, or an anyOf of its types; "const" becomes a one-value "enum"; ` +
		`"additionalProperties", "$schema", "$id" and "$comment" are left out; a $ref is replaced by the definition it names ` +
		`(a definition that refers to itself cannot be: the tool is named before the first case)`,
	Sources: []string{"https://github.com/n8n-io/n8n/issues/15553", "https://github.com/zed-industries/zed/issues/44875",
		"https://github.com/nanbingxyz/5ire/issues/42", "https://github.com/router-for-me/CLIProxyAPI/issues/97"},
}}

// Parse checks a setting's value: "" (judge it from the provider), "none",
// or a name of Table, in any case.
func Parse(setting string) (string, error) {
	s := strings.ToLower(strings.TrimSpace(setting))
	if s == "" || s == "none" || slices.Contains(Names(), s) {
		return s, nil
	}
	return "", fmt.Errorf("want none or one of %s", strings.Join(Names(), ", "))
}

// Choose picks the dialect: setting when given ("none" for none, or a
// name of Table), else the provider Table recognizes by baseURL's host or
// the model's name.
func Choose(setting, baseURL, model string) (Dialect, error) {
	s, err := Parse(setting)
	if err != nil {
		return Dialect{}, fmt.Errorf("the schema dialect %q: %w", setting, err)
	}
	switch s {
	case "":
	case "none":
		return Dialect{From: "the schema-dialect setting"}, nil
	default:
		return Dialect{Name: s, From: "the schema-dialect setting"}, nil
	}
	host := ""
	if u, err := url.Parse(baseURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	for _, q := range Table {
		for _, h := range q.Hosts {
			// Vertex AI's hosts are regional: us-central1-aiplatform...
			if host == h || strings.HasSuffix(host, "."+h) || strings.HasSuffix(host, "-"+h) {
				return Dialect{Name: q.Name, From: "the base URL's host"}, nil
			}
		}
	}
	for _, q := range Table {
		if q.Models != nil && q.Models.MatchString(model) {
			return Dialect{Name: q.Name, From: "the model name"}, nil
		}
	}
	return Dialect{}, nil
}

// Names lists the dialects of Table.
func Names() []string {
	var names []string
	for _, q := range Table {
		names = append(names, q.Name)
	}
	return names
}

// Describe says, for the run's first lines, which dialect the schemas are
// adapted to and why; "" when none.
func (d Dialect) Describe() string {
	if d.Name == "" {
		return ""
	}
	return fmt.Sprintf("tool schemas adapted to what %s accepts (chosen by %s; EVAL_SCHEMA_DIALECT=none sends them as the servers wrote them), the judges' included", d.Name, d.From)
}

// Adapt returns schema as the dialect accepts it, with what it changed
// (each kind once, sorted); a schema it did not change is returned as
// it is. A schema it cannot adapt is an error that says why.
func (d Dialect) Adapt(schema json.RawMessage) (json.RawMessage, []string, error) {
	if d.Name == "" || len(bytes.TrimSpace(schema)) == 0 {
		return schema, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return schema, nil, fmt.Errorf("the schema is not JSON: %w", err)
	}
	a := &adapter{root: root}
	out, err := a.schema(root, nil)
	if err != nil {
		return schema, nil, err
	}
	if len(a.changes) == 0 {
		return schema, nil, nil
	}
	data, err := json.Marshal(out)
	if err != nil {
		return schema, nil, err
	}
	slices.Sort(a.changes)
	return data, a.changes, nil
}

// adapter adapts one schema to Gemini's dialect, the one in Table.
type adapter struct {
	root    any
	changes []string
}

func (a *adapter) changed(what string) {
	if !slices.Contains(a.changes, what) {
		a.changes = append(a.changes, what)
	}
}

// Keywords whose value is a schema, a list of schemas, or a map of names
// to schemas; every other keyword's value is data (enum, default,
// examples) and is left alone.
var (
	schemaValued = []string{"items", "not", "additionalItems", "contains", "if", "then", "else", "propertyNames"}
	schemaLists  = []string{"anyOf", "oneOf", "allOf", "prefixItems", "items"}
	schemaMaps   = []string{"properties", "patternProperties", "dependentSchemas"}
	leftOut      = []string{"additionalProperties", "$schema", "$id", "$comment", "$defs", "definitions"}
)

// schema adapts one schema; refs are the references being inlined, to
// refuse one that refers to itself.
func (a *adapter) schema(v any, refs []string) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil // true, false: left as they are
	}
	if ref, ok := m["$ref"].(string); ok {
		if slices.Contains(refs, ref) {
			return nil, fmt.Errorf("%s refers to itself, and a provider without references cannot be given it", ref)
		}
		target, err := a.resolve(ref)
		if err != nil {
			return nil, err
		}
		a.changed("$ref")
		return a.schema(target, append(refs, ref))
	}
	out := make(map[string]any, len(m))
	for k, val := range m {
		switch {
		case slices.Contains(leftOut, k):
			a.changed(k)
		case k == "type":
			a.typ(out, val)
		case k == "const":
			if _, has := m["enum"]; !has {
				out["enum"] = []any{val}
			}
			a.changed("const")
		case slices.Contains(schemaMaps, k):
			props, ok := val.(map[string]any)
			if !ok {
				out[k] = val
				continue
			}
			adapted := make(map[string]any, len(props))
			for name, s := range props {
				x, err := a.schema(s, refs)
				if err != nil {
					return nil, fmt.Errorf("%s.%s: %w", k, name, err)
				}
				adapted[name] = x
			}
			out[k] = adapted
		case slices.Contains(schemaLists, k):
			if list, ok := val.([]any); ok {
				adapted := make([]any, len(list))
				for i, s := range list {
					x, err := a.schema(s, refs)
					if err != nil {
						return nil, fmt.Errorf("%s[%d]: %w", k, i, err)
					}
					adapted[i] = x
				}
				out[k] = adapted
				continue
			}
			fallthrough
		case slices.Contains(schemaValued, k):
			x, err := a.schema(val, refs)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = x
		default:
			out[k] = val
		}
	}
	return out, nil
}

// typ writes a type: a list becomes its one type, nullable when it held
// "null", or an anyOf of its types.
func (a *adapter) typ(out map[string]any, val any) {
	list, ok := val.([]any)
	if !ok {
		out["type"] = val
		return
	}
	a.changed("type list")
	var types []any
	for _, t := range list {
		if t == "null" {
			out["nullable"] = true
			continue
		}
		types = append(types, t)
	}
	switch len(types) {
	case 0:
		delete(out, "nullable")
		out["type"] = "null"
	case 1:
		out["type"] = types[0]
	default:
		anyOf := make([]any, len(types))
		for i, t := range types {
			anyOf[i] = map[string]any{"type": t}
		}
		out["anyOf"] = anyOf
	}
}

// resolve finds the definition a local reference names in the schema.
func (a *adapter) resolve(ref string) (any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, fmt.Errorf("%s is not a reference within the schema", ref)
	}
	node, ok := schemacheck.Resolve(a.root, ref)
	if !ok {
		return nil, fmt.Errorf("%s names nothing in the schema", ref)
	}
	return node, nil
}
