package mcpconn

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/internal/redact"
)

// serverEntry is one server of a client configuration file, as Claude
// Desktop, Claude Code (.mcp.json), Cursor and VS Code write them. Fields
// other clients add (timeouts, tool approvals) are ignored.
type serverEntry struct {
	Type     string            `json:"type"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	Cwd      string            `json:"cwd"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Disabled bool              `json:"disabled"`
	// Extensions of the suite's: the directories offered to the server as
	// the client's roots; how its cases are kept apart ("isolation":
	// "case", with the "state" it writes; or a "reset" command).
	Roots     []string `json:"roots"`
	Isolation string   `json:"isolation"`
	State     []string `json:"state"`
	Reset     string   `json:"reset"`
	// Protocol holds the server to one protocol revision (see
	// ParseProtocol).
	Protocol string `json:"protocol"`
}

// ServersFile is the servers of a client configuration file, in the file's
// order.
type ServersFile struct {
	Path    string
	Servers []Spec
	// Disabled names the servers marked "disabled": true.
	Disabled []string
	// Secrets are the values the file took from variables whose names
	// look secret (${API_TOKEN}) or that look like credentials: secrets
	// wherever they land (an argument, a URL, an environment value).
	Secrets []string
}

// Names returns the names of the file's servers, in order.
func (f *ServersFile) Names() []string {
	names := make([]string, len(f.Servers))
	for i, s := range f.Servers {
		names[i] = s.Name
	}
	return names
}

// Select returns the servers named, in the order given; no name selects
// every server not disabled. An unknown name is an error that lists the
// file's servers.
func (f *ServersFile) Select(names []string) ([]Spec, error) {
	if len(names) == 0 {
		var out []Spec
		for _, s := range f.Servers {
			if !slices.Contains(f.Disabled, s.Name) {
				out = append(out, s)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: every server is disabled: name one to use it", f.Path)
		}
		return out, nil
	}
	var out []Spec
	for _, name := range names {
		i := slices.IndexFunc(f.Servers, func(s Spec) bool { return s.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("%s has no server %q; its servers: %s", f.Path, name, strings.Join(f.Names(), ", "))
		}
		out = append(out, f.Servers[i])
	}
	return out, nil
}

// LoadServersFile reads the servers of a client configuration file: the
// "mcpServers" object (or VS Code's "servers") mapping each name to a
// command (with args, env and cwd) or a url (with headers, and type "sse"
// for an SSE endpoint). ${VAR} and ${VAR:-default} in any of these values
// are replaced with lookup's value of VAR; a variable that is not set and
// has no default is an error. A relative cwd is taken from the file's
// directory.
func LoadServersFile(path string, lookup func(string) (string, bool)) (*ServersFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read servers file: %w", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonError(path, data, err)
	}
	raw, ok := top["mcpServers"]
	if !ok {
		raw, ok = top["servers"]
	}
	if !ok {
		return nil, fmt.Errorf("%s: no \"mcpServers\" object (the format of .mcp.json and claude_desktop_config.json: {\"mcpServers\": {\"name\": {\"command\": ..., \"args\": [...]}}})", path)
	}
	names, err := objectKeys(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: \"mcpServers\" must be an object of servers by name: %v", path, err)
	}
	var entries map[string]serverEntry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	f := &ServersFile{Path: path}
	x := expander{lookup: lookup}
	for _, name := range names {
		e := entries[name]
		spec, err := e.spec(name, filepath.Dir(path), &x)
		if err != nil {
			return nil, fmt.Errorf("%s: server %q: %w", path, name, err)
		}
		f.Servers = append(f.Servers, spec)
		if e.Disabled {
			f.Disabled = append(f.Disabled, name)
		}
	}
	if len(f.Servers) == 0 {
		return nil, fmt.Errorf("%s: \"mcpServers\" holds no server", path)
	}
	f.Secrets = x.secrets
	return f, nil
}

func (e serverEntry) spec(name, dir string, x *expander) (Spec, error) {
	s := Spec{Name: name, FromFile: true, Command: x.expand(e.Command), URL: x.expand(e.URL), Dir: x.expand(e.Cwd)}
	for _, a := range e.Args {
		s.Args = append(s.Args, x.expand(a))
	}
	for _, k := range slices.Sorted(maps.Keys(e.Env)) {
		s.Env = append(s.Env, k+"="+x.expand(e.Env[k]))
	}
	if len(e.Headers) > 0 {
		s.Headers = map[string]string{}
		for k, v := range e.Headers {
			s.Headers[k] = x.expand(v)
		}
	}
	if x.err != nil {
		return Spec{}, x.err
	}
	switch strings.ToLower(e.Type) {
	case "", "stdio", "http", "streamable-http", "streamablehttp":
	case "sse":
		s.SSE = true
	default:
		return Spec{}, fmt.Errorf("type %q is not one of stdio, http, sse", e.Type)
	}
	switch {
	case s.Command != "" && s.URL != "":
		return Spec{}, errors.New("has both a command and a url: give one")
	case s.Command == "" && s.URL == "":
		return Spec{}, errors.New("has neither a command nor a url")
	case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
		return Spec{}, fmt.Errorf("url %q is not an http(s) URL", s.URL)
	case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0):
		return Spec{}, errors.New("args and env apply to a command, not to a url")
	case s.Command != "" && len(s.Headers) > 0:
		return Spec{}, errors.New("headers apply to a url, not to a command")
	}
	if s.Dir != "" && !filepath.IsAbs(s.Dir) {
		s.Dir = filepath.Join(dir, s.Dir)
	}
	for _, r := range e.Roots {
		r = x.expand(r)
		if !strings.HasPrefix(r, "file://") && !filepath.IsAbs(r) {
			r = filepath.Join(dir, r)
		}
		s.Roots = append(s.Roots, r)
	}
	iso, err := e.isolation(s, dir, x)
	if err != nil {
		return Spec{}, err
	}
	s.Isolation = iso
	if s.Protocol, err = ParseProtocol(x.expand(e.Protocol)); err != nil {
		return Spec{}, fmt.Errorf(`"protocol": %w`, err)
	}
	if x.err != nil {
		return Spec{}, x.err
	}
	return s, nil
}

// isolation reads how the server's cases are kept apart: "isolation":
// "case" (a fresh process per case, which needs a command) with the
// "state" it writes (relative paths are from its cwd, else the file's
// directory), or a "reset" command.
func (e serverEntry) isolation(s Spec, dir string, x *expander) (Isolation, error) {
	var iso Isolation
	switch strings.ToLower(strings.TrimSpace(e.Isolation)) {
	case "":
	case "case", "per-case", "per case":
		if s.Command == "" {
			return iso, errors.New(`"isolation": "case" starts a process per case, which needs a command, not a url: give a "reset" command instead`)
		}
		iso.PerCase = true
	default:
		return iso, fmt.Errorf(`"isolation" %q: the one kind is "case" (a fresh process per case); for a server to reset, give "reset"`, e.Isolation)
	}
	base := cmp.Or(s.Dir, dir)
	for _, st := range e.State {
		st = x.expand(st)
		if strings.TrimSpace(st) == "" {
			return iso, errors.New(`"state" holds an empty path`)
		}
		abs := st
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(base, abs)
		}
		iso.State, iso.Paths = append(iso.State, st), append(iso.Paths, filepath.Clean(abs))
	}
	if len(iso.State) > 0 && !iso.PerCase {
		return iso, errors.New(`"state" is copied for each case of "isolation": "case": give that too`)
	}
	iso.Reset = strings.TrimSpace(x.expand(e.Reset))
	if iso.Reset != "" && iso.PerCase {
		return iso, errors.New(`give "isolation": "case" or a "reset" command, not both`)
	}
	return iso, nil
}

// varRef matches ${NAME} and ${NAME:-default}.
var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`)

// expander replaces variable references, keeping the first error and
// the secrets it put in (see ServersFile.Secrets).
type expander struct {
	lookup  func(string) (string, bool)
	err     error
	secrets []string
}

func (x *expander) expand(s string) string {
	return varRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := varRef.FindStringSubmatch(ref)
		if v, ok := x.lookup(m[1]); ok && v != "" {
			if redact.SecretName(m[1]) || redact.LooksLikeCredential(v) {
				x.secrets = append(x.secrets, v)
			}
			return v
		}
		if strings.Contains(ref, ":-") {
			return m[2]
		}
		if x.err == nil {
			x.err = fmt.Errorf("${%s} is not set: set %s in the environment or the .env file, or write ${%s:-default}", m[1], m[1], m[1])
		}
		return ""
	})
}

// objectKeys returns the keys of a JSON object in the order written.
func objectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := t.(string)
		if slices.Contains(keys, key) {
			return nil, fmt.Errorf("server %q is defined twice", key)
		}
		keys = append(keys, key)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// jsonError locates a JSON syntax error by line.
func jsonError(path string, data []byte, err error) error {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		line := 1 + bytes.Count(data[:min(int(syntax.Offset), len(data))], []byte("\n"))
		return fmt.Errorf("%s:%d: %v", path, line, err)
	}
	return fmt.Errorf("%s: %v", path, err)
}
