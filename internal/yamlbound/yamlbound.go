// Package yamlbound bounds what a YAML input expands to through its
// aliases. A file's size bound says nothing of what it decodes to: an
// anchor of a long text named by two hundred aliases makes two hundred
// copies, and aliases of aliases grow it exponentially. yaml.v3 refuses
// only the second when the anchored nodes are many; Check refuses both,
// before anything is decoded.
package yamlbound

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// Check parses every document of data and returns an error, naming the
// line where the bound was passed, when they expand, aliases counted as
// copies of what they name, to more than max bytes. A document that does
// not parse is left for the caller's decoder to report.
func Check(data []byte, max int64) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var total int64
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil // the caller's decoder says what and where
		}
		size, line := Expanded(&doc, max-total)
		if total += size; total > max {
			return fmt.Errorf("line %d: its aliases (*name) expand it to more than %d bytes, though it holds %d: write the repeated parts out, or shorten them", line, max, len(data))
		}
	}
}

// Expanded returns what n expands to (its scalars, tags and one byte a
// node; an alias counting as what it names), up to max+1, and the line of
// the node where it passed max. An alias cycle counts as too large.
func Expanded(n *yaml.Node, max int64) (size int64, line int) {
	return expanded(n, max, map[*yaml.Node]int64{})
}

func expanded(n *yaml.Node, max int64, sizes map[*yaml.Node]int64) (int64, int) {
	if size, ok := sizes[n]; ok {
		return size, n.Line
	}
	sizes[n] = max + 1 // a cycle counts as too large
	size, at := int64(len(n.Value)+len(n.Tag)+1), n.Line
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		size, _ = expanded(n.Alias, max, sizes)
	}
	for _, child := range n.Content {
		childSize, childAt := expanded(child, max, sizes)
		size += childSize
		if size > max {
			size, at = max+1, childAt
			break
		}
	}
	sizes[n] = size
	return size, at
}
