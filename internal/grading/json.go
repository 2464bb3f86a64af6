package grading

import (
	"encoding/json"
	"io"
	"slices"
	"sort"
	"strings"
)

// jsonShape is the structure of a text that is a sequence of JSON values
// (tool results given as the answer): in data, a value belongs to the
// record it sits in, not to the nearest name before it.
type jsonShape struct {
	containers []jsonContainer
	strings    []jsonString
	// keys maps the offset of each scalar value in an object to the span
	// of its key.
	keys map[int]Span
}

type jsonContainer struct {
	Span
	parent int // index of the enclosing container, -1 at the top
}

// jsonString is a string of the data and the container it sits in
// directly.
type jsonString struct {
	Span
	container int
	key       bool
}

// scanJSON reads text as a sequence of JSON values, or reports false when
// it is not one.
func scanJSON(text string) (*jsonShape, bool) {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" || trimmed[0] != '{' && trimmed[0] != '[' {
		return nil, false
	}
	sh := &jsonShape{keys: map[int]Span{}}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	type frame struct {
		container int
		object    bool
		expectKey bool
	}
	var stack []frame
	var lastKey Span
	prev := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
		end := int(dec.InputOffset())
		start := prev
		for start < end && strings.ContainsRune(" \t\r\n:,", rune(text[start])) {
			start++
		}
		prev = end
		parent := -1
		if len(stack) > 0 {
			parent = stack[len(stack)-1].container
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				sh.containers = append(sh.containers, jsonContainer{Span{start, len(text)}, parent})
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].expectKey = true
				}
				stack = append(stack, frame{len(sh.containers) - 1, tok == '{', tok == '{'})
			default:
				if len(stack) == 0 {
					return nil, false
				}
				sh.containers[stack[len(stack)-1].container].End = end
				stack = stack[:len(stack)-1]
			}
		default:
			isKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].expectKey
			if _, ok := tok.(string); ok {
				sh.strings = append(sh.strings, jsonString{Span{start, end}, parent, isKey})
			}
			if len(stack) > 0 && stack[len(stack)-1].object {
				if isKey {
					lastKey = Span{start, end}
				} else {
					sh.keys[start] = lastKey
				}
				stack[len(stack)-1].expectKey = !isKey
			}
		}
	}
	return sh, len(stack) == 0
}

// containerAt returns the innermost container holding offset off, or -1.
func (sh *jsonShape) containerAt(off int) int {
	best := -1
	for i, c := range sh.containers {
		if c.Start <= off && off < c.End && (best < 0 || c.Start >= sh.containers[best].Start) {
			best = i
		}
	}
	return best
}

// stringAt returns the data string holding offset off.
func (sh *jsonShape) stringAt(off int) (jsonString, bool) {
	// The strings come in the order of the text.
	i := sort.Search(len(sh.strings), func(i int) bool { return sh.strings[i].End > off })
	if i < len(sh.strings) && sh.strings[i].Start <= off {
		return sh.strings[i], true
	}
	return jsonString{}, false
}

// owner returns the subject a value at offset start belongs to in data:
// named by its key ("TP53": 672), else named by a string value of its own
// record or of the records around it ({"symbol": "TP53", "entrezId":
// 7157}); names inside other records and in keys of other values do not
// count.
func (sh *jsonShape) owner(start int, mentions []Mention) (Mention, bool) {
	if key, ok := sh.keys[start]; ok {
		for _, m := range mentions {
			if key.Start <= m.Start && m.End <= key.End {
				return m, true
			}
		}
	}
	for c := sh.containerAt(start); c >= 0; c = sh.containers[c].parent {
		var found []Mention
		for _, m := range mentions {
			if s, ok := sh.stringAt(m.Start); ok && s.container == c && !s.key {
				found = append(found, m)
			}
		}
		if named := slices.DeleteFunc(slices.Clone(found), func(m Mention) bool { return m.Subject < 0 }); len(named) > 0 {
			found = named // a subject the reader names outranks one it only notices
		}
		if len(found) > 0 {
			best := found[0]
			for _, m := range found {
				if m.Start < start {
					best = m
				}
			}
			return best, true
		}
	}
	return Mention{}, false
}
