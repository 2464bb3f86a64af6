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
	// line (its credentials masked, see Display), or its name in a servers
	// file.
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
	// Roots are the directories (or file:// URIs) offered to this server
	// as the client's roots (a servers file's "roots"); see Server.roots.
	Roots []string
	// Isolation keeps the cases of a stateful server apart (a servers
	// file's "isolation", "state" and "reset"; see Set.ForCase).
	Isolation Isolation
	// Protocol, when set, is the one protocol revision the server is
	// spoken to in (a servers file's "protocol", or EVAL_SERVER_PROTOCOL):
	// a revision before 2026-07-28 starts with the handshake, for servers
	// whose tools need its flows (requests of their own during a call).
	Protocol string
}

// Isolation is how the cases of a stateful server are kept apart: each
// case a fresh process of its own, with a fresh copy of the files and
// directories the server writes (PerCase, State), or one server reset
// before each case that calls it, the cases that call it running one at a
// time (Reset, a command run with the server's environment in its
// directory).
type Isolation struct {
	PerCase bool
	// State are the paths as the servers file writes them and Paths the
	// same made absolute; a case's copy replaces either wherever the
	// server's arguments, environment, directory and roots name it.
	State, Paths []string
	Reset        string
}

// Describe says how the cases are kept apart, for the tool view: "" when
// they are not.
func (i Isolation) Describe() string {
	switch {
	case i.PerCase && len(i.State) > 0:
		return "a fresh process per case, with a fresh copy of " + strings.Join(i.State, ", ")
	case i.PerCase:
		return "a fresh process per case"
	case i.Reset != "":
		return "reset before each case that calls it (" + i.Reset + "), one such case at a time"
	}
	return ""
}

// Display is how the run's summary names the server: its spec, or for a
// server of a servers file its name and its command line or URL. The
// environment and the headers, which may hold secrets, are left out, and
// the credentials of a URL or a command line (see Secrets) are masked,
// however short.
func (s Spec) Display() string {
	if !s.FromFile {
		return s.Name
	}
	target := redact.MaskURL(s.URL)
	if s.Command != "" {
		target = strings.Join(maskArgs(append([]string{s.Command}, s.Args...)), " ")
	}
	return s.Name + " (" + target + ")"
}

// Secrets returns the values that a run treats as secrets: the values of
// the environment whose names look secret or that look like credentials
// (an ordinary value such as LOG_LEVEL=warning is data), every header's
// value and the credentials of an authorization scheme's, the credentials
// of the URL (password, secret-looking query parameters), and on the
// command line the values of secret-looking NAME=value words and flags
// (`--token=T`, `--api-key T`) and the credentials of URLs.
func (s Spec) Secrets() []string {
	var out []string
	words := append([]string{s.Command}, s.Args...)
	for i, word := range words {
		if value, ok := flagSecret(word, words[i+1:]); ok {
			out = append(out, value)
		}
		out = append(out, redact.URLSecrets(word)...)
	}
	for _, kv := range s.Env {
		name, v, _ := strings.Cut(kv, "=")
		if inURL := redact.URLSecrets(v); len(inURL) > 0 && !redact.SecretName(name) {
			out = append(out, inURL...)
		} else if redact.SecretName(name) || redact.LooksLikeCredential(v) {
			out = append(out, v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		// A header is data (X-Region: europe) unless its name or its value
		// says it holds a credential.
		if v := s.Headers[k]; redact.SecretName(k) || redact.LooksLikeCredential(v) || authScheme(v) {
			out = append(out, redact.HeaderSecrets(v)...)
		}
	}
	return append(out, redact.URLSecrets(s.URL)...)
}

// authScheme reports whether a header value is a credential with its
// scheme: "Bearer ...", "Basic ...", "Token ...".
func authScheme(v string) bool {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(v), " ")
	return ok && strings.TrimSpace(cred) != "" && slices.Contains([]string{"bearer", "basic", "token", "digest", "apikey"}, strings.ToLower(scheme))
}

// flagSecret returns the secret a command-line word gives: the value of a
// secret-looking NAME=value or --name=value word, or the next word after a
// secret-looking flag without a value (`--token T`).
func flagSecret(word string, rest []string) (string, bool) {
	if name, value, ok := strings.Cut(word, "="); ok {
		return value, redact.SecretName(strings.TrimLeft(name, "-"))
	}
	if strings.HasPrefix(word, "-") && redact.SecretName(strings.TrimLeft(word, "-")) && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		return rest[0], true
	}
	return "", false
}

// maskArgs returns the words of a command line with their secrets (see
// flagSecret) and the credentials of URLs replaced by redact.Mark.
func maskArgs(words []string) []string {
	out := slices.Clone(words)
	for i, word := range words {
		if name, _, ok := strings.Cut(word, "="); ok {
			if _, secret := flagSecret(word, nil); secret {
				out[i] = name + "=" + redact.Mark
				continue
			}
		} else if _, secret := flagSecret(word, words[i+1:]); secret {
			out[i+1] = redact.Mark
		}
		if out[i] == word {
			out[i] = redact.MaskURL(word)
		}
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
		spec.URL, spec.Name = text, redact.MaskURL(text)
		return spec, nil
	case strings.HasPrefix(text, "sse:"):
		spec.URL, spec.SSE = strings.TrimPrefix(text, "sse:"), true
		spec.Name = "sse:" + redact.MaskURL(spec.URL)
		return spec, nil
	}
	argv, err := shlex.Split(text)
	if err != nil {
		return Spec{}, fmt.Errorf("cannot parse command line %q: %v", strings.Join(maskArgs(strings.Fields(text)), " "), err)
	}
	if len(argv) == 0 {
		return Spec{}, fmt.Errorf("empty command line %q", text)
	}
	spec.Command, spec.Args = argv[0], argv[1:]
	if masked := maskArgs(argv); !slices.Equal(masked, argv) {
		// The name keeps the words as written, but no credential.
		spec.Name = strings.Join(masked, " ")
	}
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
