package mcpconn

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/shlex"

	"github.com/mcpeval/mcpeval/internal/redact"
)

// Spec says how to reach one MCP server: a command started as a stdio
// subprocess, or the URL of a streamable HTTP or SSE endpoint.
type Spec struct {
	// Name names the server in messages: the spec as written on a command
	// line, or its name in a servers file.
	Name string
	// Command and Args start a stdio server in Dir (default: the current
	// directory). Env is added to its environment (see Options.Env).
	Command string
	Args    []string
	Env     []string
	Dir     string
	// URL is the endpoint of a streamable HTTP server, or of an SSE server
	// when SSE is set. Headers are sent with every request.
	URL     string
	SSE     bool
	Headers map[string]string
	// FromFile is true for a server of a servers file: its display then
	// names it and its command or URL.
	FromFile bool
}

// Display is how the run's summary names the server: its spec, or for a
// server of a servers file its name and its command line or URL. The
// environment and the headers, which may hold secrets, are left out.
func (s Spec) Display() string {
	if !s.FromFile {
		return s.Name
	}
	target := s.URL
	if s.Command != "" {
		target = strings.Join(append([]string{s.Command}, s.Args...), " ")
	}
	return s.Name + " (" + target + ")"
}

// Secrets returns the values the spec's environment and headers give
// (they may be keys, so a run treats them as secrets), and the values of
// NAME=value words of its command line whose names look secret, as in
// `env SERVER_API_KEY=... server`.
func (s Spec) Secrets() []string {
	var out []string
	for _, word := range append([]string{s.Command}, s.Args...) {
		if name, value, ok := strings.Cut(word, "="); ok && redact.SecretName(name) {
			out = append(out, value)
		}
	}
	for _, kv := range s.Env {
		if _, v, ok := strings.Cut(kv, "="); ok {
			out = append(out, v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		out = append(out, s.Headers[k])
	}
	return out
}

// ParseSpec reads a spec as written on a command line: an http(s) URL is a
// streamable HTTP endpoint, "sse:" followed by a URL an SSE endpoint, and
// anything else a command line, split like a shell's (quotes and
// backslashes) but never run by one.
func ParseSpec(text string) (Spec, error) {
	text = strings.TrimSpace(text)
	spec := Spec{Name: text}
	switch {
	case strings.HasPrefix(text, "http://"), strings.HasPrefix(text, "https://"):
		spec.URL = text
		return spec, nil
	case strings.HasPrefix(text, "sse:"):
		spec.URL, spec.SSE = strings.TrimPrefix(text, "sse:"), true
		return spec, nil
	}
	argv, err := shlex.Split(text)
	if err != nil {
		return Spec{}, fmt.Errorf("cannot parse command line %q: %v", text, err)
	}
	if len(argv) == 0 {
		return Spec{}, fmt.Errorf("empty command line %q", text)
	}
	spec.Command, spec.Args = argv[0], argv[1:]
	return spec, nil
}

// SplitSpecs splits a list of specs separated by ';'. A ';' inside single
// or double quotes, or after a backslash, belongs to its spec, so
// `sh -c 'a; b'` and `sh -c a\;b` are one spec each. Empty entries are
// left out.
func SplitSpecs(list string) []string {
	var out []string
	var quote rune
	start, escaped := 0, false
	for i, r := range list {
		switch {
		case escaped:
			escaped = false
		case r == '\\' && quote != '\'':
			escaped = true
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ';':
			out = appendSpec(out, list[start:i])
			start = i + 1
		}
	}
	return appendSpec(out, list[start:])
}

func appendSpec(out []string, spec string) []string {
	if spec = strings.TrimSpace(spec); spec != "" {
		out = append(out, spec)
	}
	return out
}

// ParseSpecs parses specs written on command lines (see ParseSpec).
func ParseSpecs(texts []string) ([]Spec, error) {
	specs := make([]Spec, 0, len(texts))
	for _, t := range texts {
		s, err := ParseSpec(t)
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	return specs, nil
}
