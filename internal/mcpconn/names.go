package mcpconn

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Tool is one tool of a Set: the name the model is offered, and the server
// and name it has on that server.
type Tool struct {
	// Offered is the name the model sees and calls: the server's own name
	// when providers accept it and no other server offers it, else a safe
	// form (see offeredName).
	Offered string
	// Name is the tool's name on its server; Server names the server (see
	// Server.Name).
	Name   string
	Server string
	// Listed is the tool as its server listed it.
	Listed eval.Tool
	server *Server
}

// validName is what OpenAI-style APIs accept as a function name (others
// refuse a request that offers any other: dots, slashes, spaces, more
// than 64 characters).
var validName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// maxName is the longest function name providers accept.
const maxName = 64

// offeredNames gives each tool the name the model is offered. A tool keeps
// its own name when it is valid and no other server offers that name. A
// name offered by several servers is qualified by its server
// (server__name). A name providers would refuse is offered in a safe form
// that depends on it alone, so that it stays the same whatever other
// servers join: its letters and digits (accents dropped), each run of
// other characters one "_", and a short hash of the name (see safeName).
// Should a safe form be taken all the same, it gets a hash of the server
// and name. The result depends only on the servers' names and tools,
// never on the order of calls.
func offeredNames(tools []Tool) {
	count := map[string]int{}
	for _, t := range tools {
		count[t.Name]++
	}
	taken := map[string]bool{}
	for i := range tools {
		if t := &tools[i]; count[t.Name] == 1 && validName.MatchString(t.Name) {
			t.Offered = t.Name
			taken[t.Name] = true
		}
	}
	for i := range tools {
		t := &tools[i]
		if t.Offered != "" {
			continue
		}
		name := safeName(t.Name)
		if count[t.Name] > 1 {
			name = t.Server + "__" + t.Name
			if !validName.MatchString(name) {
				name = safeName(t.Server + "__" + t.Name)
			}
		}
		if taken[name] {
			name = withSuffix(name, "_"+shortHash(t.Server+"\x00"+t.Name))
		}
		t.Offered = name
		taken[name] = true
	}
}

// latin drops the accents of Latin letters (é becomes e).
var latin = transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)

// nonName matches runs of characters providers refuse in a name.
var nonName = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// safeName is a name providers accept for name: its letters and digits,
// accents dropped, each run of other characters one "_", then "_" and a
// short hash of name, within the length providers accept. A name of no
// Latin letter or digit at all is "tool" with the hash.
func safeName(name string) string {
	ascii, _, err := transform.String(latin, name)
	if err != nil {
		ascii = name
	}
	s := strings.Trim(nonName.ReplaceAllString(ascii, "_"), "_")
	if s == "" {
		s = "tool"
	}
	return withSuffix(s, "_"+shortHash(name))
}

// withSuffix ends s with suffix, cutting s so that the whole fits
// maxName.
func withSuffix(s, suffix string) string {
	if len(s)+len(suffix) > maxName {
		s = s[:maxName-len(suffix)]
	}
	return s + suffix
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// serverNames gives each server a short name, unique in the run: its name
// in a servers file, else the name it gives in its serverInfo, else
// "server"; a second server of the same name gets "-2", and so on.
func serverNames(servers []*Server) []string {
	names := make([]string, len(servers))
	seen := map[string]int{}
	for i, s := range servers {
		name := s.spec.Name
		if !s.spec.FromFile {
			name, _ = s.Info()
		}
		name = strings.TrimSpace(name)
		if name == "" {
			name = "server"
		}
		seen[name]++
		if n := seen[name]; n > 1 {
			name = fmt.Sprintf("%s-%d", name, n)
		}
		names[i] = name
	}
	return names
}

// selected reports whether a tool is offered under the patterns of
// Options.Tools: with none, every tool is. A pattern is a path.Match
// pattern of tool names ("get_gene_*"), or of a server's tools
// ("memory/*", "marrvel/get_gene_by_symbol"); one starting with "!" leaves
// the tools it matches out. With any pattern that is not an exclusion,
// only the tools such a pattern matches are offered, less those excluded.
func selected(patterns []string, server, name string) bool {
	included, anyInclude := false, false
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		exclude := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		if p == "" {
			continue
		}
		match := matchTool(p, server, name)
		switch {
		case exclude && match:
			return false
		case !exclude:
			anyInclude = true
			included = included || match
		}
	}
	return included || !anyInclude
}

func matchTool(pattern, server, name string) bool {
	if s, n, ok := strings.Cut(pattern, "/"); ok {
		ms, _ := path.Match(s, server)
		mn, _ := path.Match(n, name)
		return ms && mn
	}
	m, _ := path.Match(pattern, name)
	return m
}

// CheckPatterns reports a tool pattern that path.Match cannot read.
func CheckPatterns(patterns []string) error {
	for _, p := range patterns {
		for _, part := range strings.SplitN(strings.TrimPrefix(strings.TrimSpace(p), "!"), "/", 2) {
			if _, err := path.Match(part, ""); err != nil {
				return fmt.Errorf("tool pattern %q: %w", p, err)
			}
		}
	}
	return nil
}

// TooManyToolsError is a tool surface larger than the provider accepts in
// one request.
type TooManyToolsError struct {
	Offered, Max int
	// PerServer counts the offered tools of each server, in the run's order.
	PerServer []ServerCount
}

// ServerCount is how many tools a server offers.
type ServerCount struct {
	Server string
	Tools  int
}

func (e *TooManyToolsError) Error() string {
	parts := make([]string, len(e.PerServer))
	for i, c := range e.PerServer {
		parts[i] = fmt.Sprintf("%s: %d", c.Server, c.Tools)
	}
	return fmt.Sprintf("the servers offer %d tools (%s), more than the %d a provider accepts in one request", e.Offered, strings.Join(parts, ", "), e.Max)
}

// CheckToolCount returns a *TooManyToolsError when the set offers more
// than max tools (0: no limit).
func (s *Set) CheckToolCount(max int) error {
	if max <= 0 || len(s.tools) <= max {
		return nil
	}
	e := &TooManyToolsError{Offered: len(s.tools), Max: max}
	for i, srv := range s.Servers {
		n := 0
		for _, t := range s.entries {
			if t.server == srv {
				n++
			}
		}
		e.PerServer = append(e.PerServer, ServerCount{Server: s.names[i], Tools: n})
	}
	return e
}

// Lookup finds a tool by the name the model was offered, or by its own
// name when only one server offers it (a model may call a tool by the name
// it read in a description, a reference trajectory names tools so).
func (s *Set) Lookup(name string) (Tool, bool) {
	if i, ok := s.byOffered[name]; ok {
		return s.entries[i], true
	}
	var found []Tool
	for _, t := range s.entries {
		if t.Name == name || t.Server+"/"+t.Name == name {
			found = append(found, t)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return Tool{}, false
}

// Entries returns every tool of the set, in the order the model is
// offered them.
func (s *Set) Entries() []Tool { return slices.Clone(s.entries) }
