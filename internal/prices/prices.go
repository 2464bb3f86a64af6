// Package prices costs model requests in US dollars: the provider's own
// figure when it reports one, otherwise the tokens times the model's price
// from a price table that users keep in their repository (prices.yaml), or,
// without one, the list bundled with the suite (bundled.yaml).
package prices

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/internal/yamlbound"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Model  string  `yaml:"model"`
	Input  float64 `yaml:"input"`
	Output float64 `yaml:"output"`
	// CachedInput is the price of prompt tokens the provider's prompt
	// cache served; unset, they cost Input.
	CachedInput *float64 `yaml:"cached_input"`
	// Checked is the date the price was last checked (YYYY-MM-DD).
	Checked string `yaml:"checked"`
	line    int
}

// Table is a price table, by model name.
type Table struct {
	// File is the table's file; Bundled is true when there was none and
	// the bundled list prices the models.
	File    string
	Bundled bool
	prices  map[string]Price
}

// bundled is the price list the suite comes with.
//
//go:embed bundled.yaml
var bundled []byte

// Load reads a price table: a YAML list of {model, input, output,
// cached_input, checked}. Without the file, the list bundled with the
// suite is the table; a malformed file is an error naming the file and
// line.
func Load(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t, err := parse("bundled.yaml", bundled)
		if err != nil {
			return nil, err
		}
		t.File, t.Bundled = path, true
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read price table: %w", err)
	}
	return parse(path, data)
}

// Describe names the table in messages: its file, or the bundled list.
func (t *Table) Describe() string {
	if t.Bundled {
		return "the suite's bundled price list (no " + t.File + ")"
	}
	return t.File
}

// maxExpanded bounds what a price table expands to through its aliases.
const maxExpanded = 4 << 20

// parse reads the price table data of the file path.
func parse(path string, data []byte) (*Table, error) {
	t := &Table{File: path, prices: map[string]Price{}}
	if err := yamlbound.Check(data, maxExpanded); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return t, nil
		}
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return t, nil
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: expected a list of prices (- model: ..., input: ..., output: ..., cached_input: ..., checked: ...)", path, list.Line)
	}
	for _, item := range list.Content {
		var p Price
		if err := item.Decode(&p); err != nil {
			return nil, fmt.Errorf("%s:%d: %s", path, item.Line, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		p.line = item.Line
		if err := knownFields(item); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, item.Line, err)
		}
		switch {
		case strings.TrimSpace(p.Model) == "":
			return nil, fmt.Errorf("%s:%d: a price without a model", path, item.Line)
		case !finite(p.Input) || !finite(p.Output) || p.Input < 0 || p.Output < 0 ||
			(p.CachedInput != nil && (!finite(*p.CachedInput) || *p.CachedInput < 0)):
			return nil, fmt.Errorf("%s:%d: model %s: input, output and cached_input must be prices of 0 or more (US dollars per million tokens)", path, item.Line, p.Model)
		}
		if prev, dup := t.prices[p.Model]; dup {
			return nil, fmt.Errorf("%s:%d: model %s has a price already, at line %d", path, item.Line, p.Model, prev.line)
		}
		t.prices[p.Model] = p
	}
	return t, nil
}

// knownFields refuses fields a price does not have (a misspelt "ouput"
// would otherwise price completions at 0).
func knownFields(item *yaml.Node) error {
	if item.Kind != yaml.MappingNode {
		return errors.New("a price is a map: model, input, output, cached_input, checked")
	}
	for i := 0; i+1 < len(item.Content); i += 2 {
		switch key := item.Content[i].Value; key {
		case "model", "input", "output", "cached_input", "checked":
		default:
			return fmt.Errorf("unknown field %q in a price (known fields: model, input, output, cached_input, checked)", key)
		}
	}
	return nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Lookup returns the price of a model, if the table has it.
func (t *Table) Lookup(model string) (Price, bool) {
	if t == nil {
		return Price{}, false
	}
	p, ok := t.prices[model]
	return p, ok
}

// Cost is what a request's tokens cost at the model's price, the prompt
// tokens the provider's cache served at the cached price; ok is false when
// the table has no price for the model.
func (t *Table) Cost(model string, u eval.Usage) (usd float64, ok bool) {
	p, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	cached := min(max(u.CachedTokens, 0), u.PromptTokens)
	cachedPrice := p.Input
	if p.CachedInput != nil {
		cachedPrice = *p.CachedInput
	}
	return (float64(u.PromptTokens-cached)*p.Input + float64(cached)*cachedPrice + float64(u.CompletionTokens)*p.Output) / 1e6, true
}
