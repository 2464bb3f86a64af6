package progress

import (
	"bytes"
	"io"
	"os"
	"sync"
)

// marker starts the framing lines of go test's output in JSON mode.
const marker = '\x16'

// tap stands in for os.Stdout while a run goes: it copies everything the
// test binary prints to the real standard output, and puts the reporter's
// lines in between whole lines only. In JSON mode (go test
// -test.v=test2json) a line it adds is framed as the package's output
// ("=== NAME" with no test) and then the test the output belonged to is
// named again, so go test attributes every line as it would have without
// it. On a terminal, hook clears the live line before go test's output and
// draws it again after each whole line.
type tap struct {
	real *os.File
	r, w *os.File
	hook func(before bool)
	json bool

	mu       sync.Mutex
	mid      bool   // the last byte copied did not end a line
	line     []byte // the start of the current line, to recognise framing
	lastName string // the test the last framing line named
	pending  []string
	done     chan struct{}
}

// newTap replaces os.Stdout with a pipe that it copies to the real one.
// When the pipe cannot be made it gives nil, and lines go straight to
// os.Stdout.
func newTap(hook func(before bool)) *tap {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	t := &tap{real: os.Stdout, r: r, w: w, hook: hook, done: make(chan struct{})}
	os.Stdout = w
	go t.copy()
	return t
}

func (t *tap) framed(json bool) {
	if t != nil {
		t.json = json
	}
}

func (t *tap) copy() {
	defer close(t.done)
	buf := make([]byte, 32<<10)
	for {
		n, err := t.r.Read(buf)
		if n > 0 {
			t.write(buf[:n])
		}
		if err != nil {
			if err != io.EOF {
				io.Copy(t.real, t.r)
			}
			return
		}
	}
}

// write copies a chunk of go test's output, with the pending lines after
// its last whole line.
func (t *tap) write(p []byte) {
	if t.hook != nil {
		t.hook(true)
	}
	t.mu.Lock()
	t.note(p)
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 && len(t.pending) > 0 {
		t.real.Write(p[:i+1])
		t.mid = false
		t.flushPending()
		p = p[i+1:]
	}
	if len(p) > 0 {
		t.real.Write(p)
		t.mid = p[len(p)-1] != '\n'
	}
	t.mu.Unlock()
	if t.hook != nil {
		t.hook(false)
	}
}

// note follows the framing lines in p, to know which test go test
// attributes plain lines to.
func (t *tap) note(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(t.line) < 512 {
				t.line = append(t.line, p...)
			}
			return
		}
		if len(t.line) < 512 {
			t.line = append(t.line, p[:i]...)
		}
		t.frame(t.line)
		t.line, p = t.line[:0], p[i+1:]
	}
}

// frame notes the test a framing line names: "=== RUN   TestX",
// "--- PASS: TestX (0.01s)"; the final "PASS" or "FAIL" names none.
func (t *tap) frame(line []byte) {
	if len(line) == 0 || line[0] != marker {
		return
	}
	line = bytes.TrimRight(line[1:], "\r")
	switch {
	case bytes.Equal(line, []byte("PASS")), bytes.Equal(line, []byte("FAIL")), bytes.HasPrefix(line, []byte("FAIL ")):
		t.lastName = ""
	case bytes.HasPrefix(line, []byte("=== ")):
		if _, name, ok := bytes.Cut(line[4:], []byte(" ")); ok {
			t.lastName = string(bytes.TrimSpace(name))
		}
	default:
		line = bytes.TrimLeft(line, " ")
		if bytes.HasPrefix(line, []byte("--- ")) {
			if _, name, ok := bytes.Cut(line, []byte(": ")); ok {
				if i := bytes.LastIndex(name, []byte(" (")); i >= 0 {
					name = name[:i]
				}
				t.lastName = string(name)
			}
		}
	}
}

// insert adds a line of the reporter's own, at once if go test's output is
// between lines, else after its current line.
func (t *tap) insert(line string) {
	if t == nil {
		os.Stdout.WriteString(line)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending = append(t.pending, line)
	if !t.mid {
		t.flushPending()
	}
}

func (t *tap) flushPending() {
	for _, line := range t.pending {
		if t.json {
			line = string(marker) + "=== NAME  \n" + line + string(marker) + "=== NAME  " + t.lastName + "\n"
		}
		t.real.WriteString(line)
	}
	t.pending = t.pending[:0]
}

// midLine reports whether go test's output stopped inside a line.
func (t *tap) midLine() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mid
}

// close gives os.Stdout back once everything written is copied.
func (t *tap) close() {
	if t == nil {
		return
	}
	os.Stdout = t.real
	if os.Stderr == t.w {
		// go test -json's testing package points os.Stderr at os.Stdout
		// (then the tap's pipe) to keep the two in order.
		os.Stderr = t.real
	}
	t.w.Close()
	<-t.done
	t.r.Close()
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) > 0 {
		if t.mid {
			t.real.WriteString("\n")
		}
		t.flushPending()
	}
}
