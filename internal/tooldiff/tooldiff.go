// Package tooldiff compares the tool surfaces of two runs: the tools added
// and removed, the tools whose description or input schema changed (with a
// readable diff of the schema), and the servers that appeared, disappeared
// or changed version. It also names the changes that may explain a case's
// regression: those of the tools the case called.
package tooldiff

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/tokens"
)

// Compare returns how the surface cur differs from old. Tools are matched
// by name (names are unique across a run's servers), servers by their
// serverInfo name. Schemas are compared as JSON values, so key order and
// white space do not count. Since is left to the caller.
func Compare(old, cur *eval.ToolSummary) eval.ToolChanges {
	var ch eval.ToolChanges
	oldTools, curTools := index(old), index(cur)
	for _, name := range sortedNames(curTools) {
		now := curTools[name]
		before, ok := oldTools[name]
		if !ok {
			ch.Added = append(ch.Added, eval.ToolRef{Tool: name, Server: now.server})
			continue
		}
		tc := eval.ToolChange{ToolRef: eval.ToolRef{Tool: name, Server: now.server}}
		if before.tool.Description != now.tool.Description {
			tc.DescriptionChanged = true
			tc.OldDescription, tc.NewDescription = before.tool.Description, now.tool.Description
		}
		a, b := canonical(before.tool.Parameters), canonical(now.tool.Parameters)
		if !bytes.Equal(a, b) {
			d := diff.Diff(name+" (before)", a, name+" (now)", b)
			// The first line repeats the names: "diff A B".
			_, rest, _ := bytes.Cut(d, []byte("\n"))
			tc.SchemaDiff = string(rest)
		}
		if tc.DescriptionChanged || tc.SchemaDiff != "" {
			ch.Changed = append(ch.Changed, tc)
		}
	}
	for _, name := range sortedNames(oldTools) {
		if _, ok := curTools[name]; !ok {
			ch.Removed = append(ch.Removed, eval.ToolRef{Tool: name, Server: oldTools[name].server})
		}
	}
	ch.Servers = compareServers(old, cur)
	ch.Tokens = compareTokens(old, cur)
	return ch
}

// compareTokens compares the size of the tool definitions of two runs
// that counted it in the same encoding.
func compareTokens(old, cur *eval.ToolSummary) *eval.TokenChange {
	if old == nil || cur == nil || old.DefinitionTokens == 0 || cur.DefinitionTokens == 0 || old.Encoding != cur.Encoding {
		return nil
	}
	tc := &eval.TokenChange{Encoding: cur.Encoding, Before: old.DefinitionTokens, Now: cur.DefinitionTokens}
	before := map[string]int{}
	for _, srv := range old.Servers {
		for _, st := range srv.Stats {
			before[st.Name] = st.DefinitionTokens
		}
	}
	for _, srv := range cur.Servers {
		for _, st := range srv.Stats {
			if st.DefinitionTokens > before[st.Name] {
				tc.Grew = append(tc.Grew, eval.ToolTokens{Tool: st.Name, Before: before[st.Name], Now: st.DefinitionTokens})
			}
		}
	}
	slices.SortStableFunc(tc.Grew, func(a, b eval.ToolTokens) int {
		return cmp.Or(cmp.Compare(b.Now-b.Before, a.Now-a.Before), cmp.Compare(a.Tool, b.Tool))
	})
	return tc
}

// Tokens says how the size of the tool definitions changed: "tool
// definitions grew 1,200 → 1,450 tokens (+250, +20.8%, cl100k_base)".
func Tokens(t *eval.TokenChange) string {
	verb := "shrank"
	if t.Growth() {
		verb = "grew"
	}
	pct := ""
	if t.Before > 0 {
		pct = fmt.Sprintf(", %+.1f%%", 100*float64(t.Now-t.Before)/float64(t.Before))
	}
	return fmt.Sprintf("tool definitions %s %s → %s tokens (%+d%s, %s)", verb, tokens.Grouped(t.Before), tokens.Grouped(t.Now), t.Now-t.Before, pct, t.Encoding)
}

// offered is a tool and the name of the server offering it.
type offered struct {
	tool   eval.Tool
	server string
}

func index(s *eval.ToolSummary) map[string]offered {
	out := map[string]offered{}
	if s == nil {
		return out
	}
	for _, srv := range s.Servers {
		for _, t := range srv.Surface {
			out[t.Name] = offered{tool: t, server: serverName(srv)}
		}
	}
	return out
}

func sortedNames(m map[string]offered) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// serverName is the server's serverInfo name, or how the run named it.
func serverName(s eval.ServerTools) string { return cmp.Or(s.Name, s.Server) }

func compareServers(old, cur *eval.ToolSummary) []eval.ServerChange {
	versions := func(s *eval.ToolSummary) map[string]string {
		out := map[string]string{}
		if s != nil {
			for _, srv := range s.Servers {
				out[serverName(srv)] = srv.Version
			}
		}
		return out
	}
	before, now := versions(old), versions(cur)
	var out []eval.ServerChange
	for name, v := range now {
		was, ok := before[name]
		switch {
		case !ok:
			out = append(out, eval.ServerChange{Name: name, NewVersion: v, Added: true})
		case was != v:
			out = append(out, eval.ServerChange{Name: name, OldVersion: was, NewVersion: v})
		}
	}
	for name, v := range before {
		if _, ok := now[name]; !ok {
			out = append(out, eval.ServerChange{Name: name, OldVersion: v, Removed: true})
		}
	}
	slices.SortFunc(out, func(a, b eval.ServerChange) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// canonical is a schema as indented JSON with sorted keys, one value a
// line, for a diff a person can read; text that is not JSON stays as it is.
func canonical(schema json.RawMessage) []byte {
	var v any
	if len(bytes.TrimSpace(schema)) == 0 || json.Unmarshal(schema, &v) != nil {
		return append(bytes.TrimSpace(schema), '\n')
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v) // a decoded value always encodes
	return b.Bytes()
}

// maxDiffLines bounds the lines of one schema diff that Lines shows;
// summary.json keeps the whole diff.
const maxDiffLines = 60

// maxGrew bounds the grown tools Lines lists.
const maxGrew = 10

func abs(n int) int { return max(n, -n) }

// maxDescription bounds the characters of a description that Lines shows.
const maxDescription = 400

// Count says in a few words what changed: "1 added, 2 changed, 1 server
// version". Surfaces that differ only in how a schema is written (key
// order, white space) change no tool: that is said too.
func Count(ch *eval.ToolChanges) string {
	var counts []string
	for _, c := range []struct {
		n    int
		what string
	}{{len(ch.Added), "%d added"}, {len(ch.Removed), "%d removed"}, {len(ch.Changed), "%d changed"}} {
		if c.n > 0 {
			counts = append(counts, fmt.Sprintf(c.what, c.n))
		}
	}
	if n := len(ch.Servers); n == 1 {
		counts = append(counts, "1 server changed")
	} else if n > 1 {
		counts = append(counts, fmt.Sprintf("%d servers changed", n))
	}
	if ch.Tokens.Changed() {
		verb := "shrank"
		if ch.Tokens.Growth() {
			verb = "grew"
		}
		counts = append(counts, fmt.Sprintf("definitions %s by %d tokens", verb, abs(ch.Tokens.Now-ch.Tokens.Before)))
	}
	if len(counts) == 0 {
		return "no tool changed in meaning (only how a schema is written)"
	}
	return strings.Join(counts, ", ")
}

// Lines describes each change for a terminal, one indented line each:
// server changes, tools added and removed, each changed tool with its old
// and new description and the diff of its schema. Texts from the servers
// are quoted, so no control character reaches the terminal.
func Lines(ch *eval.ToolChanges) []string {
	if ch.Empty() {
		return nil
	}
	var out []string
	if ch.Tokens.Changed() {
		line := "  " + Tokens(ch.Tokens)
		if ch.Tokens.Growth() {
			line += ": the context tax of every request went up"
		}
		out = append(out, line)
		for i, t := range ch.Tokens.Grew {
			if i == maxGrew {
				out = append(out, fmt.Sprintf("    … %d more tools grew (summary.json lists them)", len(ch.Tokens.Grew)-i))
				break
			}
			out = append(out, fmt.Sprintf("    %s: %s → %s tokens", Name(t.Tool), tokens.Grouped(t.Before), tokens.Grouped(t.Now)))
		}
	}
	for _, s := range ch.Servers {
		switch {
		case s.Added:
			out = append(out, fmt.Sprintf("  server added: %s %s", Name(s.Name), Name(s.NewVersion)))
		case s.Removed:
			out = append(out, fmt.Sprintf("  server removed: %s %s", Name(s.Name), Name(s.OldVersion)))
		default:
			out = append(out, fmt.Sprintf("  server %s: version %s → %s", Name(s.Name), Name(s.OldVersion), Name(s.NewVersion)))
		}
	}
	for _, t := range ch.Added {
		out = append(out, fmt.Sprintf("  added: %s (%s)", Name(t.Tool), Name(t.Server)))
	}
	for _, t := range ch.Removed {
		out = append(out, fmt.Sprintf("  removed: %s (%s)", Name(t.Tool), Name(t.Server)))
	}
	for _, t := range ch.Changed {
		out = append(out, fmt.Sprintf("  changed: %s (%s): %s", Name(t.Tool), Name(t.Server), What(t)))
		if t.DescriptionChanged {
			out = append(out, "    description was: "+quote(t.OldDescription, maxDescription),
				"    description now: "+quote(t.NewDescription, maxDescription))
		}
		if t.SchemaDiff != "" {
			out = append(out, "    input schema:")
			lines := strings.Split(strings.TrimRight(t.SchemaDiff, "\n"), "\n")
			for i, l := range lines {
				if i == maxDiffLines {
					out = append(out, fmt.Sprintf("      … %d more lines (summary.json holds the whole diff)", len(lines)-i))
					break
				}
				out = append(out, "      "+Printable(l))
			}
		}
	}
	return out
}

// What says what changed in a tool: "description", "input schema" or
// both.
func What(t eval.ToolChange) string {
	switch {
	case t.DescriptionChanged && t.SchemaDiff != "":
		return "description and input schema"
	case t.DescriptionChanged:
		return "description"
	}
	return "input schema"
}

// Explain lists the changes among the tools called (by name) that may
// explain a change in a case's outcome, such as "get_gene: input schema
// changed" or "old_tool: removed", sorted; names as Name shows them.
func Explain(ch *eval.ToolChanges, called []string) []string {
	if ch.Empty() {
		return nil
	}
	why := map[string]string{}
	for _, t := range ch.Added {
		why[t.Tool] = "added"
	}
	for _, t := range ch.Removed {
		why[t.Tool] = "removed"
	}
	for _, t := range ch.Changed {
		why[t.Tool] = What(t) + " changed"
	}
	var out []string
	seen := map[string]bool{}
	for _, name := range called {
		if w, ok := why[name]; ok && !seen[name] {
			seen[name] = true
			out = append(out, Name(name)+": "+w)
		}
	}
	slices.Sort(out)
	return out
}

// Name is a tool's or server's name as a terminal shows it, cut to 100
// characters: as it is when it holds only letters, digits and _ - . / :,
// else quoted, so that no server's or model's text can move the cursor or
// color the output.
func Name(name string) string {
	for _, r := range name {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-./:", r)) {
			return quote(name, 100)
		}
	}
	if r := []rune(name); len(r) > 100 {
		return string(r[:100]) + "…"
	}
	return name
}

// quote quotes a server's text for the terminal, cut to n characters.
func quote(s string, n int) string {
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return strconv.Quote(s)
}

// Printable replaces control characters and invalid UTF-8 in a line for
// the terminal: text from servers and models (JSON escapes them already;
// this guards text that was not JSON).
func Printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}
