package evalcase

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A file whose items start at the beginning of lines is decoded item by
// item, into exactly the cases (lines included) that decoding it whole
// gives; any other file is decoded whole.
func TestParseItemByItemAsWhole(t *testing.T) {
	bundled, err := filepath.Glob("../../cases/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, bundled)
	files := map[string]string{}
	for _, path := range bundled {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		files[path] = string(data)
	}
	files["crlf and comments"] = strings.ReplaceAll("# a comment\n\n"+caseYAML("a", "reference:", "  - {tool: x, args: &args {k: v}}", "  - {tool: y, args: *args}")+
		"# between\n-\n  case:\n    name: b\n    input: \"Q?\"\n    expected: \"A.\"\n    tools:\n      must_call: [x, y]\n", "\n", "\r\n")
	files["a user and turns"] = caseYAML("u", "user:", "  instructions: a nurse", "  knows:", "    - {fact: BRCA1, when: gene}") +
		caseYAML("t", "reference:", "  - {tool: y}", "turns:", "  - user: and then?", "    expected: B.", "    reference:", "      - {tool: z}", "  - user: and?", "    tools:", "      must_call: [z]")
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			whole, err := parseWhole(name, []byte(content))
			require.NoError(t, err)
			items, ok := parseItems(name, []byte(content))
			require.True(t, ok, "decoded item by item")
			require.Equal(t, whole, items)
		})
	}

	for name, content := range map[string]string{
		"an alias to another item's anchor": caseYAML("a", "reference:", "  - {tool: x, args: &args {k: v}}") + caseYAML("b", "reference:", "  - {tool: y, args: *args}"),
		"an indented list":                  "  " + strings.ReplaceAll(caseYAML("a"), "\n", "\n  "),
		"a second document":                 caseYAML("a") + "---\n" + caseYAML("b"),
		"a flow list":                       `[{case: {name: a, input: "Q?", expected: "A."}}]`,
	} {
		t.Run(name, func(t *testing.T) {
			_, ok := parseItems(name, []byte(content))
			assert.False(t, ok, "decoded whole")
		})
	}
	cases, err := Parse("f.yaml", []byte(caseYAML("a", "reference:", "  - {tool: x, args: &args {k: v}}")+caseYAML("b", "reference:", "  - {tool: y, args: *args}")))
	require.NoError(t, err)
	require.Len(t, cases, 2)
	assert.Equal(t, map[string]any{"k": "v"}, cases[1].Reference[0].Args, "an alias to another item's anchor")
}

// An error is said as decoding the whole file says it, with the line in
// the file.
func TestParseItemErrorsAsWhole(t *testing.T) {
	content := caseYAML("a") + caseYAML("b", "checks: {contanis: [x]}")
	_, err := Parse("f.yaml", []byte(content))
	_, whole := parseWhole("f.yaml", []byte(content))
	require.Error(t, whole)
	require.EqualError(t, err, whole.Error())
	assert.Contains(t, err.Error(), "f.yaml:9:")
}

// Loading a large file holds the YAML nodes of a few cases at a time: the
// heap while 3,000 cases are decoded item by item stays near what the
// cases themselves take, where decoding the file whole holds some 30 MB of
// nodes.
func TestParseHoldsFewItemsAtATime(t *testing.T) {
	const n = 3000
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "- case:\n    name: \"case %d\"\n    input: \"Question %d?\"\n    expected: \"441457\"\n    checks: {contains: [\"441457\"]}\n"+
			"    reference:\n      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}\n      - {tool: get_omim_by_gene_symbol, args: {gene_symbol: NUTM2G}}\n", i, i)
	}
	data := []byte(b.String())
	// peak is the most the heap held above its size before parse, sampled
	// every millisecond while it runs, collecting often so that the heap
	// tracks what is live.
	peak := func(parse func() error) uint64 {
		defer debug.SetGCPercent(debug.SetGCPercent(10))
		runtime.GC()
		var before, ms runtime.MemStats
		runtime.ReadMemStats(&before)
		done := make(chan error)
		go func() { done <- parse() }()
		var most uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case err := <-done:
				require.NoError(t, err)
				return most
			case <-tick.C:
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > before.HeapAlloc {
					most = max(most, ms.HeapAlloc-before.HeapAlloc)
				}
			}
		}
	}
	items := peak(func() error {
		cases, err := Parse("big.yaml", data)
		if err == nil && len(cases) != n {
			err = fmt.Errorf("decoded %d cases of %d", len(cases), n)
		}
		return err
	})
	whole := peak(func() error { _, err := parseWhole("big.yaml", data); return err })
	t.Logf("peak heap while decoding %d cases: %.1f MB item by item, %.1f MB whole", n, float64(items)/1e6, float64(whole)/1e6)
	assert.Less(t, items, uint64(12e6), "item by item")
}

// Decoded side by side in batches, on one core or several, a file of
// many items gives the cases decoding it whole gives; an item whose
// aliases expand past its share of the bound is decoded alone, after its
// batch; a mistake in the middle of a batch is said as for the whole file.
func TestParseItemsInBatches(t *testing.T) {
	var many strings.Builder
	for i := range 37 {
		many.WriteString(caseYAML(fmt.Sprintf("c%d", i), "reference:", fmt.Sprintf("  - {tool: t%d, args: {n: %d}}", i, i)))
	}
	// An item whose aliases expand to some 3 MB: more than its share of
	// the bound (16 MiB among a batch of four items or more), within the
	// bound.
	large := caseYAML("large", "reference:", "  - {tool: x, args: {s: &s "+strconv.Quote(strings.Repeat("x", 1000))+"}}",
		"  - {tool: y, args: {l: ["+strings.TrimSuffix(strings.Repeat("*s, ", 3000), ", ")+"]}}")
	withLarge := caseYAML("first") + large + many.String()
	for _, procs := range []int{1, 2, 8} {
		t.Run(fmt.Sprint(procs, " cores"), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			for name, content := range map[string]string{"37 items": many.String(), "a large item among them": withLarge} {
				whole, err := parseWhole(name, []byte(content))
				require.NoError(t, err)
				items, ok := parseItems(name, []byte(content))
				require.True(t, ok, "%s: decoded item by item", name)
				require.Equal(t, whole, items, name)
			}
			broken := strings.Replace(many.String(), "name: c13\n", "name: c13\n    checks: {contanis: [x]}\n", 1)
			_, ok := parseItems("f.yaml", []byte(broken))
			assert.False(t, ok, "a mistake in item 14 of 37")
			_, err := Parse("f.yaml", []byte(broken))
			_, whole := parseWhole("f.yaml", []byte(broken))
			require.Error(t, whole)
			require.EqualError(t, err, whole.Error())
		})
	}
}
