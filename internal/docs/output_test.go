package docs

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/stretchr/testify/assert"
)

// A text block shows what the sh block before it prints. Both are
// normalised before they are compared: what differs from one run to the
// next is replaced by a placeholder, on the page's side as on the
// output's, so that a page may show a realistic run id, time or path.
var normalisations = []struct {
	re   *regexp.Regexp
	with string
}{
	// The module's directory, wherever it is: ~/marrvel-eval.
	{regexp.MustCompile(`(?:~|(?:/[^\s/:'"()]+)+)/` + regexp.QuoteMeta(moduleName) + `\b`), "~/" + moduleName},
	// Run ids: 20261129T043334.752Z-4ad473.
	{regexp.MustCompile(`\b\d{8}T\d{6}(?:\.\d{3})?Z-[0-9a-f]{6}\b`), "<run>"},
	// Times: 2026-11-29 04:38, 2026-11-29T04:38:22.123Z.
	{regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?`), "<time>"},
	// Durations: 0.8s, 1m10s, 250ms, 41 s.
	{regexp.MustCompile(`\b(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)? ?(?:ns|µs|us|ms|s)\b`), "<duration>"},
	// Ports of local addresses: 127.0.0.1:8099.
	{regexp.MustCompile(`\b(127\.0\.0\.1|localhost):\d+\b`), "$1:<port>"},
}

// hexDigest matches what may be a digest or a commit: seven or more
// hexadecimal digits; it is one when it holds a digit and a letter.
var hexDigest = regexp.MustCompile(`\b[0-9a-f]{7,64}\b`)

// normalise replaces what differs from run to run in a command's output
// (or in the text block that shows it) with placeholders, and drops
// trailing spaces and carriage returns.
func normalise(s string) string {
	for _, n := range normalisations {
		s = n.re.ReplaceAllString(s, n.with)
	}
	s = hexDigest.ReplaceAllStringFunc(s, func(h string) string {
		if strings.ContainsAny(h, "0123456789") && strings.ContainsAny(h, "abcdef") {
			return "<hash>"
		}
		return h
	})
	lines := strings.Split(strings.ReplaceAll(s, "\r", ""), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}

// excerptOf reports whether want, a text block, is an excerpt of got, a
// command's output, both normalised: its lines appear in got one after the
// other, except that a line "..." stands for any number of lines and a
// line ending in "..." for any line that begins with what precedes it.
// When it is not, the reason holds a diff of want against the part of got
// where it came closest.
func excerptOf(want, got string) (ok bool, reason string) {
	w := strings.Split(strings.TrimRight(normalise(want), "\n"), "\n")
	g := strings.Split(strings.TrimRight(normalise(got), "\n"), "\n")
	pattern := append(append([]string{"..."}, w...), "...")
	if matchLines(pattern, g) {
		return true, ""
	}
	// Compare with as many lines of got as want has, from where the most
	// of them match; among equals, where the first line shares the longest
	// beginning with want's.
	from, best := 0, [2]int{-1, -1}
	for i := range g {
		score := [2]int{0, commonPrefix(w[0], g[i])}
		for k := range w {
			if i+k < len(g) && lineMatches(w[k], g[i+k]) {
				score[0]++
			}
		}
		if score[0] > best[0] || score[0] == best[0] && score[1] > best[1] {
			from, best = i, score
		}
	}
	to := min(from+len(w), len(g))
	d := diff.Diff("page", []byte(strings.Join(w, "\n")+"\n"), "output", []byte(strings.Join(g[from:to], "\n")+"\n"))
	return false, string(d)
}

// commonPrefix is the length of the beginning a and b share.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// matchLines matches lines against a pattern of lines, where "..."
// matches any number of lines.
func matchLines(pattern, lines []string) bool {
	// at[j] reports whether pattern[:i] matches lines[:j], row by row.
	at := make([]bool, len(lines)+1)
	at[0] = true
	for _, p := range pattern {
		next := make([]bool, len(lines)+1)
		for j := range next {
			switch {
			case p == "...":
				next[j] = at[j] || j > 0 && next[j-1]
			case j > 0:
				next[j] = at[j-1] && lineMatches(p, lines[j-1])
			}
		}
		at = next
	}
	return at[len(lines)]
}

// lineMatches reports whether a line of output is the page's line, or
// begins with it when it ends in "...".
func lineMatches(want, got string) bool {
	if prefix, ok := strings.CutSuffix(want, "..."); ok && strings.TrimSpace(prefix) != "" {
		return strings.HasPrefix(got, prefix)
	}
	return want == got
}

func TestNormalise(t *testing.T) {
	for in, want := range map[string]string{
		"mcpeval: results in /tmp/TestX/001/marrvel-eval/evaltest/out/runs/20261129T043334.752Z-4ad473: results.jsonl": "mcpeval: results in ~/" + moduleName + "/evaltest/out/runs/<run>: results.jsonl",
		"run 20261120T101500Z-3fa2c1 started 2026-11-29 04:38, stored 2026-11-29T04:38:22.123Z":                        "run <run> started <time>, stored <time>",
		"3 passed; 0.8s, then 1m10s, 250ms and 41 s":                                                                   "3 passed; <duration>, then <duration>, <duration> and <duration>",
		"OPENAI_BASE_URL=http://127.0.0.1:43117/v1 and localhost:8000":                                                 "OPENAI_BASE_URL=http://127.0.0.1:<port>/v1 and localhost:<port>",
		"against c14a7a2, entrez 99694174, get_variant_dbnsfp (219), cl100k_base":                                      "against <hash>, entrez 99694174, get_variant_dbnsfp (219), cl100k_base",
		"trailing  \r\nspaces\t": "trailing\nspaces",
	} {
		assert.Equal(t, want, normalise(in), in)
	}
}

func TestExcerptOf(t *testing.T) {
	out := "ok 1.2s\nmcpeval: a\nmcpeval: b, c, d\nmcpeval: e\nmcpeval: f\n"
	for _, c := range []struct {
		want string
		ok   bool
	}{
		{"mcpeval: a\nmcpeval: b, c, d\n", true},
		{"ok 3s\n", true},
		{"mcpeval: a\nmcpeval: b, ...\n", true},
		{"mcpeval: a\n...\nmcpeval: f\n", true},
		{"mcpeval: a\nmcpeval: e\n", false},
		{"mcpeval: b, c, d\nmcpeval: a\n", false},
		{"mcpeval: x\n", false},
	} {
		ok, reason := excerptOf(c.want, out)
		assert.Equal(t, c.ok, ok, "%q: %s", c.want, reason)
		if !c.ok {
			assert.Contains(t, reason, "--- page", c.want)
		}
	}
	// The diff is against the part of the output that came closest.
	for want, lines := range map[string][2]string{
		"mcpeval: a\nmcpeval: B, c, d\n": {"mcpeval: B, c, d", "mcpeval: b, c, d"},
		"mcpeval: A\nmcpeval: b, c, d\n": {"mcpeval: A", "mcpeval: a"},
	} {
		_, reason := excerptOf(want, out)
		assert.Contains(t, reason, fmt.Sprintf("-%s\n+%s\n", lines[0], lines[1]), want)
	}
}
