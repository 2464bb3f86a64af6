package evalcase

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/suggest"
	"github.com/mcpeval/mcpeval/internal/yamlbound"
)

// LoadPath loads the cases of one file, or of every *.yaml and *.yml file
// below a directory (in lexical order) except label files (*.labels.yaml,
// see LoadLabels). eval.Case names must be unique across all
// files loaded together.
func LoadPath(path string) ([]eval.Case, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("load cases: %w", err)
	}
	files := []string{path}
	if info.IsDir() {
		files, err = caseFiles(path)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("load cases: no *.yaml files under %s", path)
		}
	}
	var all []eval.Case
	seen := map[string]eval.Case{}
	for _, f := range files {
		cases, err := LoadFile(f)
		if err != nil {
			return nil, err
		}
		for _, c := range cases {
			if prev, dup := seen[c.Name]; dup {
				return nil, fmt.Errorf("%s: duplicate case name %q (first defined at %s)", c.Where(), c.Name, prev.Where())
			}
			seen[c.Name] = c
		}
		all = append(all, cases...)
	}
	return all, nil
}

func caseFiles(dir string) ([]string, error) {
	files, err := filesUnder(dir, func(p string) bool { return isYAML(p) && !IsLabelFile(p) })
	if err != nil {
		return nil, fmt.Errorf("load cases from %s: %w", dir, err)
	}
	return files, nil
}

// filesUnder returns the files below dir that keep accepts, in lexical
// order.
func filesUnder(dir string, keep func(path string) bool) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && keep(p) {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// MaxFileSize is the largest case file loaded (16 MiB, some 40,000 cases).
const MaxFileSize = 16 << 20

// LoadFile loads the cases of one YAML file. Only regular files (or links
// to them) of at most MaxFileSize bytes are read: a FIFO, a device or a
// file growing without end is refused rather than waited for.
func LoadFile(path string) ([]eval.Case, error) {
	data, err := files.ReadRegular(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("load cases: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes the cases of one file's content; path is used in messages
// and for the default category.
//
// A file written as most are, a list whose items start at the beginning
// of a line (`- case:`), is decoded a few items at a time (four per
// core, side by side), so that loading 10,000 cases holds the YAML nodes
// of those few cases rather than of the whole file (some 100 MB for
// 10,000 cases). Any other file, and any
// file that decoding item by item finds wrong (an alias to an anchor of
// another item, say), is decoded whole, and its errors are said as for a
// whole file.
func Parse(path string, data []byte) ([]eval.Case, error) {
	if cases, ok := parseItems(path, data); ok {
		return cases, nil
	}
	return parseWhole(path, data)
}

// parseWhole decodes the cases of a file's content all at once.
func parseWhole(path string, data []byte) ([]eval.Case, error) {
	top, err := caseList(path, data)
	if err != nil {
		return nil, err
	}
	items, err := decodeList[caseItem](path, data, top, "cases")
	if err != nil {
		return nil, err
	}
	b := caseBuilder{path: path, seen: map[string]int{}, cases: make([]eval.Case, 0, len(items))}
	for i, item := range items {
		if err := b.add(item.Case, top.Content[i]); err != nil {
			return nil, err
		}
	}
	return b.cases, nil
}

// caseItem is an item of a case file's list.
type caseItem = struct {
	Case eval.Case `yaml:"case"`
}

// parseItems decodes data item by item (see Parse); ok is false when it
// cannot, or finds anything wrong. A few items at a time are decoded side
// by side, one per core (a large file's decoding is most of a cached
// run's start), then added in their order; only their nodes are held.
// Together the items may expand their aliases to MaxFileSize at most:
// those decoded side by side share what is left of it, and one that
// needs more is decoded after them, alone, with all that is left.
func parseItems(path string, data []byte) (cases []eval.Case, ok bool) {
	chunks, lines := itemChunks(data)
	if chunks == nil {
		return nil, false
	}
	workers := min(runtime.GOMAXPROCS(0), len(chunks))
	items := make([]parsedItem, 4*workers)
	b := caseBuilder{path: path, seen: map[string]int{}, cases: make([]eval.Case, 0, len(chunks))}
	var expanded int64 // the file's size with its aliases expanded
	for base := 0; base < len(chunks); base += len(items) {
		batch := items[:min(len(items), len(chunks)-base)]
		share := (MaxFileSize - expanded) / int64(len(batch))
		var next atomic.Int64
		var failed atomic.Bool
		var wg sync.WaitGroup
		for range min(workers, len(batch)) {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < len(batch) && !failed.Load(); i = int(next.Add(1) - 1) {
					k := base + i
					if batch[i] = parseItem(path, chunks[k], lines[k], share); batch[i].failed {
						failed.Store(true)
					}
				}
			})
		}
		wg.Wait()
		if failed.Load() {
			return nil, false
		}
		for i := range batch {
			it := batch[i]
			batch[i] = parsedItem{}
			if it.tooLarge {
				k := base + i
				if it = parseItem(path, chunks[k], lines[k], MaxFileSize-expanded); it.failed || it.tooLarge {
					return nil, false
				}
			}
			if expanded += it.size; expanded > MaxFileSize || b.add(it.c, it.top.Content[0]) != nil {
				return nil, false
			}
		}
	}
	return b.cases, true
}

// parsedItem is an item of a case file parseItems decoded.
type parsedItem struct {
	top  *yaml.Node
	c    eval.Case
	size int64 // with its aliases expanded
	// tooLarge is an item whose aliases expand past the bound it was
	// given, failed one that cannot be decoded alone.
	tooLarge, failed bool
}

// parseItem decodes the item chunk, which begins on line of its file,
// unless its aliases expand past bound. The chunk is parsed once: its
// nodes and its case are decoded from the same parse (see itemParse).
func parseItem(path string, chunk []byte, line int, bound int64) parsedItem {
	var it parsedItem
	list := itemParse{check: func(top *yaml.Node) error {
		if err := checkCaseList(path, top); err != nil || len(top.Content) != 1 {
			return errItem
		}
		if it.size, _ = yamlbound.Expanded(top, bound); it.size > bound {
			it.tooLarge = true
			return errItem
		}
		return nil
	}}
	dec := yaml.NewDecoder(bytes.NewReader(chunk))
	dec.KnownFields(true)
	if err := dec.Decode(&list); err != nil || list.top == nil || len(list.items) != 1 {
		if it.tooLarge {
			return parsedItem{tooLarge: true}
		}
		return parsedItem{failed: true}
	}
	shiftLines(list.top, line-1)
	it.top, it.c = list.top, list.items[0].Case
	return it
}

// errItem stops the decoding of an item that parseItem leaves to another
// way: decoded whole, or alone.
var errItem = errors.New("item not decoded here")

// itemParse decodes a case list from one parse into both its nodes (top)
// and its items: the decoder hands its parsed node to UnmarshalYAML, and
// the function it passes decodes from that node with the decoder's own
// settings (strict with KnownFields). check sees the nodes before the
// items are decoded (to refuse a shape, or aliases expanding too far).
type itemParse struct {
	check func(top *yaml.Node) error
	top   *yaml.Node
	items []caseItem
}

func (l *itemParse) UnmarshalYAML(unmarshal func(any) error) error {
	var top nodeOf
	if err := unmarshal(&top); err != nil {
		return err
	}
	if err := l.check(top.node); err != nil {
		return err
	}
	l.top = top.node
	return unmarshal(&l.items)
}

// nodeOf keeps the node it is decoded from.
type nodeOf struct{ node *yaml.Node }

func (n *nodeOf) UnmarshalYAML(node *yaml.Node) error {
	n.node = node
	return nil
}

// itemChunks splits data before each line that starts an item of a list
// written at the beginning of lines ("- " there), and returns the parts
// and the line each begins on. The comments and blank lines before the
// first item go with it. It returns nil when a line begins with anything
// else (a key, a document marker, a directive, a byte order mark): such a
// file is decoded whole.
func itemChunks(data []byte) (chunks [][]byte, lines []int) {
	start := 0
	for at, line := 0, 1; at < len(data); line++ {
		end := len(data)
		if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
			end = at + i + 1
		}
		switch l := data[at:end]; {
		case l[0] == ' ' || l[0] == '\n' || l[0] == '\r' || l[0] == '#':
		case l[0] == '-' && (len(l) == 1 || l[1] == ' ' || l[1] == '\n' || l[1] == '\r'):
			if len(lines) == 0 {
				lines = append(lines, 1) // the first item, with what comes before it
				break
			}
			chunks = append(chunks, data[start:at])
			start = at
			lines = append(lines, line)
		default:
			return nil, nil
		}
		at = end
	}
	if len(lines) == 0 {
		return nil, nil
	}
	return append(chunks, data[start:]), lines
}

// shiftLines adds offset to the line of every node below n: the lines of
// an item decoded alone become those of its file.
func shiftLines(n *yaml.Node, offset int) {
	n.Line += offset
	for _, c := range n.Content {
		shiftLines(c, offset)
	}
}

// caseBuilder checks the decoded cases of a file one by one, against the
// YAML nodes of their items, and keeps them.
type caseBuilder struct {
	path  string
	seen  map[string]int // the line of each case, by name
	cases []eval.Case
}

// add checks c, decoded from the list item node item, and keeps it.
func (b *caseBuilder) add(c eval.Case, item *yaml.Node) error {
	path := b.path
	// The line of the item's `case:` key.
	item = resolve(item)
	c.File, c.Line = path, item.Content[0].Line
	body := resolve(item.Content[1])
	if err := claimFields(path, body); err != nil {
		return err
	}
	if hasKey(body, "pass_coverage") && c.PassCoverage == 0 {
		return fmt.Errorf("%s:%d: %s: pass_coverage 0 passes any answer: give the share of the claims a pass needs, above 0 and at most 1 (MCP-Atlas uses 0.75)",
			path, fieldLine(body, c.Line, "pass_coverage"), label(&c))
	}
	if err := validate(&c); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return fmt.Errorf("%s:%d: %w", path, fieldLine(body, c.Line, fe.path...), err)
		}
		return fmt.Errorf("%s: %w", c.Where(), err)
	}
	if err := validateTurns(path, body, &c); err != nil {
		return err
	}
	if err := validateUser(path, body, &c); err != nil {
		return err
	}
	if err := validateFirstReply(path, body, &c); err != nil {
		return err
	}
	c.Lines = fieldLines(body)
	if c.Category == "" {
		c.Category = defaultCategory(path)
	}
	if first, dup := b.seen[c.Name]; dup {
		return fmt.Errorf("%s: duplicate case name %q (first defined at line %d)", c.Where(), c.Name, first)
	}
	b.seen[c.Name] = c.Line
	b.cases = append(b.cases, c)
	return nil
}

// decodeList decodes data, a list whose node is top, into items of type T.
// Decoding is strict: unknown fields and type mismatches are errors with
// their lines. what names the items in messages.
func decodeList[T any](path string, data []byte, top *yaml.Node, what string) ([]T, error) {
	if size, at := yamlbound.Expanded(top, MaxFileSize); size > MaxFileSize {
		return nil, fmt.Errorf("%s:%d: the file's aliases (*name) expand it to more than the limit of %d MiB for a case file; write the text out where it is needed, or split the file",
			path, at, MaxFileSize>>20)
	}
	var items []T
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&items); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlError(path, data, err)
	}
	if len(items) != len(top.Content) {
		return nil, fmt.Errorf("%s:%d: decoded %d %s from a list of %d items", path, top.Line, len(items), what, len(top.Content))
	}
	return items, nil
}

// caseList parses data into YAML nodes and checks the file's shape: one
// document holding a non-empty list whose items are maps with the single
// key `case`.
func caseList(path string, data []byte) (*yaml.Node, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:1: empty case file: expected a list of `- case:` items", path)
		}
		return nil, yamlError(path, data, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, yamlError(path, data, err)
	case len(next.Content) > 0 && next.Content[0].Tag != "!!null":
		return nil, fmt.Errorf("%s:%d: a second YAML document begins here; put all cases in one list", path, next.Line)
	}
	if len(root.Content) == 0 || root.Content[0].Tag == "!!null" {
		return nil, fmt.Errorf("%s:%d: empty case file: expected a list of `- case:` items", path, max(root.Line, 1))
	}
	top := resolve(root.Content[0])
	if err := checkCaseList(path, top); err != nil {
		return nil, err
	}
	return top, nil
}

// checkCaseList checks the shape of a case file's list node: a non-empty
// list whose items are maps with the single key `case`.
func checkCaseList(path string, top *yaml.Node) error {
	if top.Kind != yaml.SequenceNode {
		return fmt.Errorf("%s:%d: expected a list of `- case:` items, found %s", path, top.Line, kindName(top))
	}
	if len(top.Content) == 0 {
		return fmt.Errorf("%s:%d: empty case list", path, top.Line)
	}
	for _, item := range top.Content {
		item = resolve(item)
		if item.Kind != yaml.MappingNode {
			return fmt.Errorf("%s:%d: list item is %s, expected a `case:` map", path, item.Line, kindName(item))
		}
		if !hasKey(item, "case") {
			if hasKey(item, "name") || hasKey(item, "input") {
				return fmt.Errorf("%s:%d: list item has no `case:` key; write `- case:` and indent the case's fields below it", path, item.Line)
			}
			return fmt.Errorf("%s:%d: list item has no `case:` key", path, item.Line)
		}
		for i := 0; i+1 < len(item.Content); i += 2 {
			if key := item.Content[i]; key.Value != "case" {
				return fmt.Errorf("%s:%d: unknown key %q beside `case:`; a list item holds only `case:` (indent the field below it?)", path, key.Line, key.Value)
			}
		}
	}
	return nil
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// validateChecks refuses empty or malformed terms, patterns that do not
// compile and numbers that cannot be compared; field names the checks in
// messages ("checks", "claims[2].checks").
func validateChecks(ch eval.Checks, field string) error {
	for _, list := range []struct {
		field string
		terms eval.Terms
	}{{field + ".contains", ch.Contains}, {field + ".not_contains", ch.NotContains}} {
		for _, t := range list.terms {
			if err := validateTerm(t); err != nil {
				return fmt.Errorf("%s: %w", list.field, err)
			}
		}
	}
	for _, list := range []struct {
		field    string
		patterns []string
	}{{field + ".regexp", ch.Regexp}, {field + ".not_regexp", ch.NotRegexp}} {
		if slices.Contains(list.patterns, "") {
			return fmt.Errorf("%s: an item is empty", list.field)
		}
		for _, p := range list.patterns {
			if _, err := regexp.Compile(p); err != nil {
				return fmt.Errorf("%s: %w", list.field, err)
			}
		}
	}
	for _, n := range ch.Numbers {
		if math.IsNaN(n.Value) || math.IsInf(n.Value, 0) || math.IsNaN(n.Tolerance) {
			return fmt.Errorf("%s.numbers: value %v with tolerance %v is not a usable number", field, n.Value, n.Tolerance)
		}
		if n.Tolerance < 0 {
			return fmt.Errorf("%s.numbers: negative tolerance %v for value %v", field, n.Tolerance, n.Value)
		}
		for _, u := range n.Unit {
			if strings.TrimSpace(u) == "" {
				return fmt.Errorf("%s.numbers: value %v: a unit is empty", field, n.Value)
			}
		}
		if slices.Contains(n.Of, "") || slices.Contains(n.NotOf, "") {
			return fmt.Errorf("%s.numbers: value %v: a subject (of, not_of) is empty", field, n.Value)
		}
	}
	return nil
}

func validate(c *eval.Case) error {
	var missing []string
	for _, f := range []struct{ name, value string }{{"name", c.Name}, {"input", c.Input}, {"expected", c.Expected}} {
		if strings.TrimSpace(f.value) == "" && (f.name != "expected" || len(c.Claims) == 0) {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		if slices.Contains(missing, "expected") {
			missing[slices.Index(missing, "expected")] = "expected (or claims)"
		}
		return fmt.Errorf("%s: missing required field(s): %s", label(c), strings.Join(missing, ", "))
	}
	if len(c.Claims) > 0 && strings.TrimSpace(c.Expected) != "" {
		return &fieldError{path: []string{"claims"}, err: fmt.Errorf("%s: give either expected or claims: the claims are the expected answer of a case graded by claims", label(c))}
	}
	for i, cl := range c.Claims {
		if strings.TrimSpace(cl.Text) == "" {
			return &fieldError{path: []string{"claims"}, err: fmt.Errorf("%s: claims: claim %d is empty", label(c), i+1)}
		}
		if err := validateChecks(cl.Checks, fmt.Sprintf("claims[%d].checks", i+1)); err != nil {
			return &fieldError{path: []string{"claims"}, err: fmt.Errorf("%s: %w", label(c), err)}
		}
	}
	if p := c.PassCoverage; p < 0 || p > 1 || math.IsNaN(p) {
		return &fieldError{path: []string{"pass_coverage"}, err: fmt.Errorf("%s: pass_coverage %v: expected the share of the claims a pass needs, above 0 and at most 1 (MCP-Atlas uses 0.75)", label(c), p)}
	}
	if c.PassCoverage != 0 && len(c.Claims) == 0 {
		return &fieldError{path: []string{"pass_coverage"}, err: fmt.Errorf("%s: pass_coverage needs claims", label(c))}
	}
	switch c.Kind {
	case "":
		c.Kind = eval.KindTool
	case eval.KindTool, eval.KindCode:
	default:
		return fmt.Errorf("%s: kind must be %q or %q, not %q", label(c), eval.KindTool, eval.KindCode, c.Kind)
	}
	if err := validateChecks(c.Checks, "checks"); err != nil {
		return fmt.Errorf("%s: %w", label(c), err)
	}
	if err := validateTools(c.Tools, "tools"); err != nil {
		return fmt.Errorf("%s: %w", label(c), err)
	}
	if err := validateReference(c.Reference, "reference"); err != nil {
		return fmt.Errorf("%s: %w", label(c), err)
	}
	if err := validateElicitation(c); err != nil {
		return err
	}
	return validateBudget(c)
}

// validateTools refuses tool expectations with an empty tool name,
// arguments that cannot be sent as JSON or a negative bound; field names
// them in messages ("tools", "turns[1].tools").
func validateTools(t eval.ToolExpect, field string) error {
	for _, list := range []struct {
		field string
		items []string
	}{
		{field + ".must_call", t.MustCall},
		{field + ".must_not_call", t.MustNotCall},
		{field + ".must_read", t.MustRead},
	} {
		if slices.Contains(list.items, "") {
			return fmt.Errorf("%s: an item is empty", list.field)
		}
	}
	for i, a := range t.Args {
		if a.Tool == "" {
			return fmt.Errorf("%s.args: an item has no tool", field)
		}
		if err := jsonArgs(a.Args); err != nil {
			return fmt.Errorf("%s.args[%d] (%s): %w", field, i, a.Tool, err)
		}
	}
	if t.MaxCalls < 0 {
		return fmt.Errorf("%s.max_calls must not be negative", field)
	}
	return nil
}

// validateReference refuses reference calls without a tool or with
// arguments that cannot be sent as JSON; field names them in messages.
func validateReference(refs []eval.RefCall, field string) error {
	for i, r := range refs {
		if r.Tool == "" {
			return fmt.Errorf("%s[%d] has no tool", field, i)
		}
		if err := jsonArgs(r.Args); err != nil {
			return fmt.Errorf("%s[%d] (%s): %w", field, i, r.Tool, err)
		}
	}
	return nil
}

// validateTerm refuses a term without a spelling, with an empty one, or
// with an empty subject.
func validateTerm(t eval.Term) error {
	if len(t.Any) == 0 {
		return errors.New("an item has no term (give term: or any:)")
	}
	for _, s := range append(append(append([]string{}, t.Any...), t.Of...), t.NotOf...) {
		if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "*")) == "" {
			return errors.New("an item is empty")
		}
	}
	return nil
}

// validateBudget refuses budget values that no measurement can be
// compared with: negative ones, and seconds that are infinite or NaN.
func validateBudget(c *eval.Case) error {
	b := c.Budget
	switch {
	case math.IsNaN(b.Seconds) || math.IsInf(b.Seconds, 0) || b.Seconds < 0:
		return &fieldError{path: []string{"budget", "seconds"},
			err: fmt.Errorf("%s: budget.seconds must be a finite number of seconds, 0 or more, not %v", label(c), b.Seconds)}
	case b.Tokens < 0:
		return &fieldError{path: []string{"budget", "tokens"}, err: fmt.Errorf("%s: budget.tokens must not be negative, not %d", label(c), b.Tokens)}
	case b.ToolCalls < 0:
		return &fieldError{path: []string{"budget", "tool_calls"}, err: fmt.Errorf("%s: budget.tool_calls must not be negative, not %d", label(c), b.ToolCalls)}
	}
	return nil
}

// fieldError is a problem with one field of a case; path names the field
// (budget, seconds), so that the message can give the field's own line.
type fieldError struct {
	path []string
	err  error
}

func (e *fieldError) Error() string { return e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// fieldLine returns the line of the value at path below a case's mapping
// node, or of the deepest part of path found, or def.
func fieldLine(n *yaml.Node, def int, path ...string) int {
	line := def
	for _, key := range path {
		if n.Kind != yaml.MappingNode {
			return line
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = resolve(n.Content[i+1])
				line = n.Content[i].Line
			}
		}
		if next == nil {
			return line
		}
		n = next
	}
	return line
}

// claimFields refuses unknown fields in the checks of a case's claims
// (whose own decoding cannot be strict), as the case's checks are
// refused, with the line and the nearest known field.
func claimFields(path string, body *yaml.Node) error {
	claims := valueOf(body, "claims")
	if claims == nil || claims.Kind != yaml.SequenceNode {
		return nil
	}
	for _, cl := range claims.Content {
		checks := valueOf(resolve(cl), "checks")
		if checks == nil {
			continue
		}
		if err := knownFields(path, checks, sections["eval.Checks"].name, reflect.TypeFor[eval.Checks]()); err != nil {
			return err
		}
		if numbers := valueOf(checks, "numbers"); numbers != nil && numbers.Kind == yaml.SequenceNode {
			for _, n := range numbers.Content {
				if err := knownFields(path, resolve(n), sections["eval.NumberCheck"].name, reflect.TypeFor[eval.NumberCheck]()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// fieldLines are the lines of the fields of a case's body that are
// checked after loading, against the servers: each of tools.must_call and
// of reference, the first reply's and the turns' too (see
// eval.Case.Lines).
func fieldLines(body *yaml.Node) map[string]int {
	lines := map[string]int{}
	for _, list := range []struct {
		name string
		node *yaml.Node
	}{
		{"tools.must_call", valueOf(valueOf(body, "tools"), "must_call")}, {"reference", valueOf(body, "reference")},
		{"first_reply.tools.must_call", valueOf(valueOf(valueOf(body, "first_reply"), "tools"), "must_call")},
	} {
		listLines(lines, list.name, list.node)
	}
	if turns := valueOf(body, "turns"); turns != nil && turns.Kind == yaml.SequenceNode {
		for k, t := range turns.Content {
			t = resolve(t)
			listLines(lines, fmt.Sprintf("turns[%d].tools.must_call", k), valueOf(valueOf(t, "tools"), "must_call"))
			listLines(lines, fmt.Sprintf("turns[%d].reference", k), valueOf(t, "reference"))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return lines
}

// listLines records the line of each item of the list node under
// name[i].
func listLines(lines map[string]int, name string, list *yaml.Node) {
	if list == nil || list.Kind != yaml.SequenceNode {
		return
	}
	for i, item := range list.Content {
		lines[fmt.Sprintf("%s[%d]", name, i)] = item.Line
	}
}

// valueOf returns the value of key in a mapping node, or nil.
func valueOf(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return resolve(m.Content[i+1])
		}
	}
	return nil
}

// knownFields refuses a key of the mapping node m that the struct type t
// has no field for, saying so as the decoder's messages do (see humanize).
func knownFields(path string, m *yaml.Node, section string, t reflect.Type) error {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	known := yamlFields(t)
	for i := 0; i+1 < len(m.Content); i += 2 {
		key := m.Content[i]
		if slices.Contains(known, key.Value) {
			continue
		}
		if c, near := suggest.Closest(key.Value, known); near {
			return fmt.Errorf("%s:%d: unknown field %q in claims item %s: did you mean %s? (known fields: %s)", path, key.Line, key.Value, section, c, strings.Join(known, ", "))
		}
		return fmt.Errorf("%s:%d: unknown field %q in claims item %s (known fields: %s)", path, key.Line, key.Value, section, strings.Join(known, ", "))
	}
	return nil
}

// label names the case in messages.
func label(c *eval.Case) string {
	if strings.TrimSpace(c.Name) == "" {
		return "unnamed case"
	}
	return fmt.Sprintf("case %q", c.Name)
}

func hasKey(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return true
		}
	}
	return false
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a single value"
	case yaml.AliasNode:
		return "an alias"
	}
	return "something else"
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// yamlError rewrites the decoder's "line N: msg" into "file:N: msg", one
// problem per line, in words a case author understands. The parser reports
// bad characters without a line; data gives it.
func yamlError(path string, data []byte, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		lines := make([]string, len(te.Errors))
		for i, e := range te.Errors {
			lines[i] = locate(path, e)
		}
		return errors.New(strings.Join(lines, "\n"))
	}
	msg := strings.TrimPrefix(strings.ToValidUTF8(err.Error(), "?"), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	if at, why := explainSyntax(data, msg); at > 0 {
		return fmt.Errorf("%s:%d: %s", path, at, why)
	}
	switch {
	case parserProblems[msg]:
		// The parser (unlike the scanner) reports the line before the
		// problem's, or none for the first line.
		line++
	case line == 0 && strings.HasPrefix(msg, "unknown anchor '"):
		anchor := strings.TrimSuffix(strings.TrimPrefix(msg, "unknown anchor '"), "' referenced")
		line = lineOf(data, "*"+anchor)
	case line == 0:
		line = badCharLine(data)
	}
	if line == 0 {
		return fmt.Errorf("%s: %s", path, msg)
	}
	return fmt.Errorf("%s:%d: %s", path, line, msg)
}

// explainSyntax finds the two syntax errors the parser reports in its own
// words, often on another line: a tab in a line's indentation, and a
// quoted value whose quote is never closed. It returns their line and a
// plain explanation, or 0.
func explainSyntax(data []byte, msg string) (int, string) {
	lines := strings.Split(string(data), "\n")
	if msg == "found character that cannot start any token" || strings.HasPrefix(msg, "found a tab character") {
		for i, l := range lines {
			indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			if strings.Contains(indent, "\t") {
				return i + 1, "a tab indents this line: YAML indents with spaces only (replace the tab with spaces)"
			}
		}
	}
	if !parserProblems[msg] && msg != "found unexpected end of stream" && !strings.HasPrefix(msg, "could not find expected") {
		return 0, ""
	}
	for i, l := range lines {
		if q := unclosedQuote(l); q != 0 {
			return i + 1, fmt.Sprintf("the quote (%c) that starts this value is not closed on its line: close it, or escape a %c inside it (%s)",
				q, q, map[rune]string{'"': `\"`, '\'': "''"}[q])
		}
	}
	return 0, ""
}

// unclosedQuote returns the quote character of a value that starts quoted
// on line (after "key: " or "- ") and is not closed there, or 0. YAML lets
// a quoted value run over several lines, but in a case file that is almost
// always a missing quote.
func unclosedQuote(line string) rune {
	rest := strings.TrimLeft(line, " ")
	if strings.HasPrefix(rest, "#") {
		return 0
	}
	rest = strings.TrimPrefix(rest, "- ")
	if i := strings.Index(rest, ": "); i >= 0 && !strings.ContainsAny(rest[:i], `"'`) {
		rest = rest[i+2:]
	}
	rest = strings.TrimLeft(rest, " ")
	if rest == "" || (rest[0] != '"' && rest[0] != '\'') {
		return 0
	}
	q := rest[0]
	for i := 1; i < len(rest); i++ {
		switch {
		case q == '"' && rest[i] == '\\':
			i++
		case rest[i] == q && q == '\'' && i+1 < len(rest) && rest[i+1] == '\'':
			i++
		case rest[i] == q:
			return 0
		}
	}
	return rune(q)
}

// parserProblems are the YAML parser's messages; the scanner's differ.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// lineOf returns the line of the first occurrence of s in data, or 0.
func lineOf(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 0
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

func locate(path, msg string) string {
	msg = strings.ToValidUTF8(msg, "?")
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		return path + ":" + msg[m[2]:m[3]] + ": " + humanize(msg[m[1]:])
	}
	return path + ": " + strings.TrimPrefix(msg, "yaml: ")
}

// badCharLine returns the line of the first byte YAML does not allow in a
// stream (invalid UTF-8 or a control character), or 0.
func badCharLine(data []byte) int {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		allowed := r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0x7e) || r == 0x85 ||
			(r >= 0xa0 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd && r != utf8.RuneError) || r >= 0x10000 ||
			(r == utf8.RuneError && size == 3)
		if !allowed {
			return line
		}
		if r == '\n' {
			line++
		}
		i += size
	}
	return 0
}

var (
	unknownFieldRE = regexp.MustCompile(`^field (\S+) not found in type (\S+)$`)
	wrongTypeRE    = regexp.MustCompile("^cannot unmarshal (\\S+)(?: `(.*)`)? into (.+)$")
)

// sections names the case file's struct types as a case author knows them.
var sections = map[string]struct {
	name string
	typ  reflect.Type
}{
	"eval.Case":        {"case", reflect.TypeFor[eval.Case]()},
	"eval.Checks":      {"checks", reflect.TypeFor[eval.Checks]()},
	"eval.NumberCheck": {"checks.numbers item", reflect.TypeFor[eval.NumberCheck]()},
	"eval.ToolExpect":  {"tools", reflect.TypeFor[eval.ToolExpect]()},
	"eval.ArgMatch":    {"tools.args item", reflect.TypeFor[eval.ArgMatch]()},
	"eval.RefCall":     {"reference item", reflect.TypeFor[eval.RefCall]()},
	"eval.Budget":      {"budget", reflect.TypeFor[eval.Budget]()},
	"eval.ElicitReply": {"elicitation item", reflect.TypeFor[eval.ElicitReply]()},
	"eval.Elicited":    {"tools.elicited item", reflect.TypeFor[eval.Elicited]()},
	"eval.Label":       {"label", reflect.TypeFor[eval.Label]()},
	"eval.Turn":        {"turns item", reflect.TypeFor[eval.Turn]()},
	"eval.ReplyExpect": {"first_reply", reflect.TypeFor[eval.ReplyExpect]()},
	"eval.User":        {"user", reflect.TypeFor[eval.User]()},
	"eval.UserFact":    {"user.knows item", reflect.TypeFor[eval.UserFact]()},
}

// humanize rewrites the decoder's messages about unknown fields and wrong
// types; others pass unchanged.
func humanize(msg string) string {
	if m := unknownFieldRE.FindStringSubmatch(msg); m != nil {
		if s, ok := sections[m[2]]; ok {
			known := yamlFields(s.typ)
			if c, near := suggest.Closest(m[1], known); near {
				return fmt.Sprintf("unknown field %q in %s: did you mean %s? (known fields: %s)", m[1], s.name, c, strings.Join(known, ", "))
			}
			return fmt.Sprintf("unknown field %q in %s (known fields: %s)", m[1], s.name, strings.Join(known, ", "))
		}
		return fmt.Sprintf("unknown field %q", m[1])
	}
	if m := wrongTypeRE.FindStringSubmatch(msg); m != nil {
		found := yamlKinds[m[1]]
		if found == "" {
			found = m[1]
		}
		switch {
		case m[1] == "!!str":
			found += " " + strconv.Quote(m[2])
		case m[2] != "":
			found += " " + m[2]
		}
		return fmt.Sprintf("wrong type: found %s where %s is expected", found, goTypeName(m[3]))
	}
	return msg
}

var yamlKinds = map[string]string{
	"!!str": "text", "!!int": "integer", "!!float": "number", "!!bool": "boolean",
	"!!null": "null", "!!seq": "a list", "!!map": "a map", "!!timestamp": "timestamp", "!!binary": "binary data",
}

func goTypeName(t string) string {
	switch t {
	case "string":
		return "a text"
	case "[]string", "eval.Terms", "eval.Spellings":
		return "a list of texts"
	case "int":
		return "a whole number"
	case "float64":
		return "a number"
	case "bool":
		return "true or false"
	}
	if strings.HasPrefix(t, "map[") {
		return "a map"
	}
	if strings.HasPrefix(t, "[]") {
		return "a list"
	}
	if _, ok := sections[t]; ok {
		return "a map of fields"
	}
	return t
}

// yamlFields lists the YAML field names of a struct type, those of its
// inlined structs in their place.
func yamlFields(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "" && opts == "inline" && f.Type.Kind() == reflect.Struct:
			names = append(names, yamlFields(f.Type)...)
		case name != "" && name != "-":
			names = append(names, name)
		}
	}
	return names
}

// jsonArgs checks that tool arguments can be sent as a JSON object: map keys
// must be text and numbers finite.
func jsonArgs(args map[string]any) error {
	if _, err := json.Marshal(args); err != nil {
		return fmt.Errorf("arguments cannot be sent as JSON (keys must be text, numbers finite): %v", err)
	}
	return nil
}
