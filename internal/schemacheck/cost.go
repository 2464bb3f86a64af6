package schemacheck

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MaxSteps bounds the work of checking one value: about how many times
// the validator may apply a subschema to a part of the value (with the
// cost of comparing values, matching strings and reading numbers
// counted alike). The validator applies each subschema anew wherever it
// is reached, so a schema whose references name references twice over,
// or a recursive schema that applies itself twice at every level of the
// value, costs exponentially in the value's depth; such a value is not
// checked (see ErrTooCostly) rather than checked for ever.
const MaxSteps = 500_000

// cost measures what checking v against a compiled schema costs the
// validator, in steps, up to more than MaxSteps: the number of
// (subschema, part of the value) applications it makes, counted as if
// every applicator were tried (anyOf does not stop at its first match,
// if applies then and else), so the measure never undercounts. Each
// distinct application is measured once, so measuring takes time in
// the number of distinct applications, not in their exponential
// unfolding, and is itself bounded by MaxSteps.
type cost struct {
	graph *graph
	memo  map[application]int64
	busy  map[application]bool
	// work counts the distinct applications measured; looped is set when
	// a subschema reaches itself on the same part of the value (the
	// validator reports such a loop; it is not measured further).
	work   int64
	looped bool
}

// application is a subschema applied to a part of the value.
type application struct {
	s *jsonschema.Schema
	n *node
}

// node is a part of the value, with its parts: an object's properties
// (and their names, which propertyNames checks as strings), an array's
// items. size counts the nodes of its subtree.
type node struct {
	v     any
	keys  []string
	props []*node
	names []*node
	items []*node
	size  int64
}

func newNode(v any) *node {
	n := &node{v: v, size: 1}
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			c := newNode(child)
			n.keys = append(n.keys, k)
			n.props = append(n.props, c)
			n.names = append(n.names, &node{v: k, size: 1})
			n.size += c.size + 1
		}
	case []any:
		for _, child := range x {
			c := newNode(child)
			n.items = append(n.items, c)
			n.size += c.size
		}
	}
	return n
}

// over is the measure of anything too costly: more than MaxSteps.
const over = MaxSteps + 1

func add(a, b int64) int64 { return min(a+b, over) }

// measure returns what checking v costs, at most over.
func (g *graph) measure(v any) int64 {
	c := &cost{graph: g, memo: map[application]int64{}, busy: map[application]bool{}}
	n := c.apply(g.root, newNode(v))
	if c.looped {
		return over
	}
	return n
}

func (c *cost) apply(s *jsonschema.Schema, n *node) int64 {
	if s == nil {
		return 0
	}
	a := application{s, n}
	if m, ok := c.memo[a]; ok {
		return m
	}
	if c.busy[a] {
		c.looped = true
		return over
	}
	if c.work++; c.work > MaxSteps || c.looped {
		return over
	}
	c.busy[a] = true
	total := c.own(s, n)
	more := func(sub *jsonschema.Schema, on *node) {
		if total < over {
			total = add(total, c.apply(sub, on))
		}
	}
	// Applicators on the same part of the value.
	more(s.Ref, n)
	if s.RecursiveRef != nil {
		more(s.RecursiveRef, n)
		for _, t := range c.graph.recursive {
			more(t, n)
		}
	}
	if s.DynamicRef != nil {
		more(s.DynamicRef.Ref, n)
		for _, t := range c.graph.dynamic[s.DynamicRef.Anchor] {
			more(t, n)
		}
	}
	for _, group := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, {s.Not, s.If, s.Then, s.Else}} {
		for _, sub := range group {
			more(sub, n)
		}
	}
	for _, sub := range s.DependentSchemas {
		more(sub, n)
	}
	for _, dep := range s.Dependencies {
		if sub, ok := dep.(*jsonschema.Schema); ok {
			more(sub, n)
		}
	}
	// Applicators on its parts.
	for i, k := range n.keys {
		child := n.props[i]
		more(s.Properties[k], child)
		for _, sub := range s.PatternProperties {
			total = add(total, int64(len(k)+1)) // the match of the name
			more(sub, child)
		}
		if sub, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			more(sub, child)
		}
		more(s.UnevaluatedProperties, child)
		more(s.PropertyNames, n.names[i])
	}
	for i, item := range n.items {
		switch items := s.Items.(type) {
		case *jsonschema.Schema:
			more(items, item)
		case []*jsonschema.Schema:
			if i < len(items) {
				more(items[i], item)
			}
		}
		if sub, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
			more(sub, item)
		}
		if i < len(s.PrefixItems) {
			more(s.PrefixItems[i], item)
		}
		more(s.Items2020, item)
		more(s.Contains, item)
		more(s.UnevaluatedItems, item)
	}
	delete(c.busy, a)
	c.memo[a] = total
	return total
}

// own is the cost of a subschema's own keywords on a part of the value:
// one step, and comparing, hashing or reading the part where a keyword
// does.
func (c *cost) own(s *jsonschema.Schema, n *node) int64 {
	total := int64(1)
	if s.Const != nil {
		total = add(total, n.size)
	}
	if s.Enum != nil {
		total = add(total, int64(len(s.Enum.Values))*n.size)
	}
	if s.UniqueItems {
		total = add(total, n.size)
	}
	total = add(total, int64(len(s.Required)))
	switch v := n.v.(type) {
	case string:
		if s.Pattern != nil || s.Format != nil || s.MinLength != nil || s.MaxLength != nil {
			total = add(total, int64(len(v)))
		}
	case json.Number:
		if s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil || s.MultipleOf != nil {
			total = add(total, numberCost(string(v)))
		}
	}
	return total
}

// numberCost is the cost of reading a number exactly, as the validator
// does for its bounds: its digits, and its exponent (1e1000000 is a
// million digits long once read).
func numberCost(text string) int64 {
	cost := int64(len(text))
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		exp, err := strconv.ParseInt(strings.TrimPrefix(text[i+1:], "+"), 10, 64)
		if err != nil {
			return over
		}
		if exp < 0 {
			exp = -exp
		}
		cost = add(cost, exp/8)
	}
	return cost
}

// graph is a compiled schema with what resolving its dynamic references
// may reach: every subschema of a dynamic anchor, by anchor, and every
// subschema of a recursive anchor.
type graph struct {
	root      *jsonschema.Schema
	dynamic   map[string][]*jsonschema.Schema
	recursive []*jsonschema.Schema
}

// newGraph indexes the subschemas reachable from root.
func newGraph(root *jsonschema.Schema) *graph {
	g := &graph{root: root, dynamic: map[string][]*jsonschema.Schema{}}
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.DynamicAnchor != "" {
			g.dynamic[s.DynamicAnchor] = append(g.dynamic[s.DynamicAnchor], s)
		}
		if s.RecursiveAnchor {
			g.recursive = append(g.recursive, s)
		}
		for _, sub := range subschemas(s) {
			walk(sub)
		}
	}
	walk(root)
	return g
}

// subschemas lists every subschema a schema names.
func subschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else, s.PropertyNames, s.UnevaluatedProperties,
		s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema}
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	out = append(out, s.PrefixItems...)
	for _, sub := range s.Properties {
		out = append(out, sub)
	}
	for _, sub := range s.PatternProperties {
		out = append(out, sub)
	}
	for _, sub := range s.DependentSchemas {
		out = append(out, sub)
	}
	for _, dep := range s.Dependencies {
		if sub, ok := dep.(*jsonschema.Schema); ok {
			out = append(out, sub)
		}
	}
	for _, x := range []any{s.AdditionalProperties, s.AdditionalItems, s.Items} {
		switch x := x.(type) {
		case *jsonschema.Schema:
			out = append(out, x)
		case []*jsonschema.Schema:
			out = append(out, x...)
		}
	}
	return out
}
