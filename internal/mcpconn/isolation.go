package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// ForCase returns the set one case calls its tools through, and the
// function that ends the case's use of it, to call once the case is done.
// Without a server whose cases are kept apart (Spec.Isolation) it is the
// set itself. A server isolated per case is, for each case, a fresh
// process of its own, started at the case's first call with a fresh copy
// of the state it writes, and ended with the case. A server to reset is
// the run's own, reset before the case's first call to it; the case holds
// it until it ends, so the cases that call it run one at a time.
func (s *Set) ForCase() (*Set, func()) {
	own := map[*Server]*Server{}
	gates := map[*Server]*caseGate{}
	for _, srv := range s.Servers {
		switch iso := srv.spec.Isolation; {
		case iso.PerCase:
			own[srv] = srv.fork()
		case iso.Reset != "":
			gates[srv] = &caseGate{server: srv}
		}
	}
	if len(own) == 0 && len(gates) == 0 {
		return s, func() {}
	}
	c := &Set{names: s.names, byOffered: s.byOffered, tools: s.tools, view: true, gates: gates}
	for _, srv := range s.Servers {
		if f, ok := own[srv]; ok {
			srv = f
		}
		c.Servers = append(c.Servers, srv)
	}
	for _, t := range s.entries {
		if f, ok := own[t.server]; ok {
			t.server = f
		}
		c.entries = append(c.entries, t)
	}
	return c, func() {
		for _, f := range own {
			f.Close()
		}
		for _, g := range gates {
			g.leave()
		}
	}
}

// enter lets a case's call reach srv: a server to reset is reset first,
// once per case (see ForCase).
func (s *Set) enter(ctx context.Context, srv *Server) error {
	if g := s.gates[srv]; g != nil {
		return g.enter(ctx)
	}
	return nil
}

// Isolation says how the server's cases are kept apart, for the tool
// view; "" when they are not.
func (s *Server) Isolation() string { return s.spec.Isolation.Describe() }

// fork returns a server of the same spec, tools and serverInfo for one
// case, started at its first call (see Server.current) with a fresh copy
// of the state the spec names, which Close removes.
func (s *Server) fork() *Server {
	f := &Server{Spec: s.Spec, spec: s.spec, opts: s.opts, stderr: newTailBuffer(8 << 10), tools: s.tools,
		info: s.info, protocol: s.protocol, notices: s.notices, lazy: true}
	f.life, f.stop = context.WithCancel(context.Background())
	return f
}

// startFresh prepares a forked server's state and starts its first
// connection.
func (s *Server) startFresh(ctx context.Context) (*conn, error) {
	if len(s.spec.Isolation.Paths) > 0 {
		dir, err := os.MkdirTemp("", "mcpeval-state-")
		if err != nil {
			return nil, fmt.Errorf("server %s: a fresh copy of its state: %w", s.Spec, err)
		}
		s.mu.Lock()
		s.stateDir = dir
		s.mu.Unlock()
		spec, err := freshState(s.spec, dir)
		if err != nil {
			return nil, fmt.Errorf("server %s: a fresh copy of its state: %w", s.Spec, err)
		}
		s.spec = spec
	}
	return s.dial(ctx, 1)
}

// freshState copies each state path of spec (a file or a directory; one
// that does not exist stays absent, for the server to create) into dir,
// and returns spec with every mention of a path, as written or absolute,
// in its arguments, environment, directory and roots replaced by its copy.
func freshState(spec Spec, dir string) (Spec, error) {
	iso := spec.Isolation
	var pairs []string
	for i, p := range iso.Paths {
		dst := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(p)))
		if err := copyPath(p, dst); err != nil {
			return spec, err
		}
		pairs = append(pairs, p, dst)
		if w := iso.State[i]; w != p {
			pairs = append(pairs, w, dst)
		}
	}
	replace := func(v string) string {
		for i := 0; i < len(pairs); i += 2 {
			if v == pairs[i] {
				return pairs[i+1]
			}
		}
		return strings.NewReplacer(absolutePairs(pairs)...).Replace(v)
	}
	out := spec
	out.Args, out.Env, out.Roots = nil, nil, nil
	for _, a := range spec.Args {
		out.Args = append(out.Args, replace(a))
	}
	for _, kv := range spec.Env {
		name, value, ok := strings.Cut(kv, "=")
		if ok {
			kv = name + "=" + replace(value)
		}
		out.Env = append(out.Env, kv)
	}
	for _, r := range spec.Roots {
		out.Roots = append(out.Roots, replace(r))
	}
	out.Dir = replace(spec.Dir)
	return out, nil
}

// absolutePairs keeps the pairs whose path is absolute: only those are
// replaced inside longer values ("--db=/data/app.db").
func absolutePairs(pairs []string) []string {
	var out []string
	for i := 0; i < len(pairs); i += 2 {
		if filepath.IsAbs(pairs[i]) {
			out = append(out, pairs[i], pairs[i+1])
		}
	}
	return out
}

// copyPath copies the file or directory tree src to dst; a src that does
// not exist copies nothing.
func copyPath(src, dst string) error {
	info, err := os.Stat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return copyFile(src, dst, info.Mode())
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		i, err := d.Info()
		if err != nil {
			return err
		}
		if !i.Mode().IsRegular() {
			return nil // links, sockets: not state to copy
		}
		return copyFile(path, target, i.Mode())
	})
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode.Perm()|0o200)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// caseGate is one case's passage to a server to reset: at its first call
// the case takes the server (waiting while another case holds it) and
// resets it; it gives it back when it ends.
type caseGate struct {
	server *Server
	mu     sync.Mutex
	held   bool
	err    error
}

func (g *caseGate) enter(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held || g.err != nil {
		return g.err
	}
	select {
	case g.server.caseSlot() <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("server %s: waiting for another case to finish with it: %w", g.server.Spec, ctx.Err())
	}
	g.held = true
	if err := g.server.reset(ctx); err != nil {
		g.err = err
	}
	return g.err
}

func (g *caseGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held {
		<-g.server.caseSlot()
		g.held = false
	}
}

// caseSlot is the server's one place for a case, held by the case that
// uses a server to reset.
func (s *Server) caseSlot() chan struct{} {
	s.slotOnce.Do(func() { s.slot = make(chan struct{}, 1) })
	return s.slot
}

// reset runs the server's reset command, with the server's environment in
// its directory, through the system's shell.
func (s *Server) reset(ctx context.Context) error {
	shell, flag := "sh", "-c"
	if runtime.GOOS == "windows" {
		shell, flag = "cmd", "/C"
	}
	cmd := exec.CommandContext(ctx, shell, flag, s.spec.Isolation.Reset)
	cmd.Env = childEnv(os.Environ(), append(append([]string{}, s.opts.Env...), s.spec.Env...))
	cmd.Dir = s.spec.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return &ServerError{Spec: s.Spec, Err: fmt.Errorf("reset %q: %w", s.spec.Isolation.Reset, err), Stderr: strings.TrimSpace(string(out))}
	}
	return nil
}
