// Package recordings keeps the tool results of every case run, content
// addressed: a result is stored once however many calls, cases and runs
// returned it, under its fingerprint (the hex SHA-256 of its text), and
// each tool call of a record names the fingerprint of its result
// (eval.ToolCall.ResultFingerprint). A replay (package replay) answers
// tool calls from them; the comparison of two runs tells the calls whose
// results changed by their fingerprints.
//
// The store is a directory beside the result cache, holding one pack
// file, results.pack: entries appended one after another, each a header
// line and its payload,
//
//	R <fingerprint> <raw|flate> <payload bytes>\n<payload>\n
//
// the payload being the result's text as it is, or compressed with DEFLATE
// when that saves at least an eighth of it. Appends happen under an
// exclusive lock on results.lock (lockedfile: flock on Unix, LockFileEx on
// Windows) with one write each, so processes sharing the store lose
// nothing; a reader that meets an entry still being written stops before
// it, and the next writer under the lock cuts off an entry a killed writer
// left half written; a damaged entry with whole entries after it is passed
// over (Skipped), never cut. [Store.Prune] rewrites the pack with the entries still
// referenced, into a temporary file renamed over it; a Store that finds
// the pack replaced reads it again.
//
// The store also lists, in outputs, the output directories whose runs
// wrote to it, so that pruning one of them keeps what another's runs
// still name.
package recordings

import (
	"bufio"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/lockedfile"
)

// Names inside the store's directory.
const (
	// DirName is the store's directory, beside the cache file.
	DirName  = "recordings"
	packName = "results.pack"
	lockName = "results.lock"
	// outputsName lists the output directories of the runs that wrote
	// to the store, one a line.
	outputsName = "outputs"
)

// MaxResult bounds a recorded result: the largest message the suite reads
// from an MCP server (a larger reply is an error, never a result), so a
// result the model was given is recorded whole.
const MaxResult = 8 << 20

// DirBeside returns the store's directory for the cache file cache.
func DirBeside(cache string) string { return filepath.Join(filepath.Dir(cache), DirName) }

// Fingerprint returns the fingerprint of a result's text: its hex SHA-256.
func Fingerprint(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// ValidFingerprint reports whether s has the form Fingerprint gives.
func ValidFingerprint(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// Store is an open store. Its methods are safe for concurrent use.
type Store struct {
	dir string

	mu sync.Mutex
	// pack is the pack file as last read, read up to end; index holds
	// where each entry's payload is in it.
	pack  *os.File
	end   int64
	index map[string]entry
	// skipped counts the bytes of damaged entries passed over.
	skipped int64
}

// Skipped returns how many bytes of damaged entries reading the pack
// passed over (their results are lost; the entries after them are not).
func (s *Store) Skipped() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.skipped
}

// entry is where an entry's payload lies in the pack.
type entry struct {
	at, size int64
	flate    bool
}

// Open opens the store in dir, creating it if needed. The pack is read
// when a method first needs it: a run served from the cache never does.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("recordings: %w", err)
	}
	return &Store{dir: dir, index: map[string]entry{}}, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Close closes the pack.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pack == nil {
		return nil
	}
	err := s.pack.Close()
	s.pack = nil
	return err
}

func (s *Store) path(name string) string { return filepath.Join(s.dir, name) }

// reopen opens the pack afresh and reads its index; a missing pack is an
// empty one.
func (s *Store) reopen() error {
	if s.pack != nil {
		s.pack.Close()
		s.pack = nil
	}
	s.index, s.end = map[string]entry{}, 0
	f, err := os.Open(s.path(packName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("recordings: %w", err)
	}
	s.pack = f
	_, err = s.catchUp()
	return err
}

// replaced reports whether the pack on disk is another file than the one
// open (a prune rewrote it, or it appeared since).
func (s *Store) replaced() bool {
	info, err := os.Stat(s.path(packName))
	if err != nil {
		return s.pack != nil
	}
	if s.pack == nil {
		return true
	}
	open, err := s.pack.Stat()
	return err != nil || !os.SameFile(info, open)
}

// refresh brings the index up to the pack as it is now: the pack is
// opened again when another process replaced it (a prune), else read on
// from end.
func (s *Store) refresh() error {
	if s.replaced() {
		return s.reopen()
	}
	_, err := s.catchUp()
	return err
}

// catchUp reads the entries appended since end into the index. It stops
// before an entry that is not whole (being written, or left half written
// by a killed writer) and reports whether the pack goes on past end.
func (s *Store) catchUp() (torn bool, err error) {
	if s.pack == nil {
		return false, nil
	}
	info, err := s.pack.Stat()
	if err != nil {
		return false, fmt.Errorf("recordings: %w", err)
	}
	size := info.Size()
	r := bufio.NewReaderSize(io.NewSectionReader(s.pack, s.end, size-s.end), 64<<10)
	for s.end < size {
		line, err := r.ReadSlice('\n')
		fp, e, ok := parseHeader(line)
		if err != nil || !ok || s.end+int64(len(line))+e.size+1 > size {
			// A damaged entry with whole entries after it is passed over;
			// only a tail with none (one being written, or left half
			// written) is torn.
			next, found := s.nextEntry(s.end+1, size)
			if !found {
				return true, nil
			}
			s.skipped += next - s.end
			s.end = next
			r.Reset(io.NewSectionReader(s.pack, next, size-next))
			continue
		}
		e.at = s.end + int64(len(line))
		next := e.at + e.size + 1
		if int(e.size) < r.Buffered() {
			r.Discard(int(e.size))
			if b, err := r.ReadByte(); err != nil || b != '\n' {
				return true, nil
			}
		} else {
			// A payload past what is buffered is not read: only the
			// newline that ends it, and the next header from there.
			var b [1]byte
			if _, err := s.pack.ReadAt(b[:], next-1); err != nil || b[0] != '\n' {
				return true, nil
			}
			r.Reset(io.NewSectionReader(s.pack, next, size-next))
		}
		if _, dup := s.index[fp]; !dup {
			s.index[fp] = e
		}
		s.end = next
	}
	return false, nil
}

// nextEntry finds the first whole entry that starts after a newline at or
// after from: its header parses and its payload ends with a newline
// within size.
func (s *Store) nextEntry(from, size int64) (int64, bool) {
	r := bufio.NewReaderSize(io.NewSectionReader(s.pack, from, size-from), 64<<10)
	at := from
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			at += int64(len(line))
			continue
		}
		if err != nil {
			return 0, false
		}
		at += int64(len(line))
		head := make([]byte, 128)
		n, _ := s.pack.ReadAt(head, at)
		if i := bytes.IndexByte(head[:n], '\n'); i >= 0 {
			if _, e, ok := parseHeader(head[:i+1]); ok {
				end := at + int64(i+1) + e.size
				var b [1]byte
				if end < size {
					if _, err := s.pack.ReadAt(b[:], end); err == nil && b[0] == '\n' {
						return at, true
					}
				}
			}
		}
	}
}

// parseHeader reads an entry's header line.
func parseHeader(line []byte) (fp string, e entry, ok bool) {
	f := strings.Fields(string(line))
	if len(f) != 4 || f[0] != "R" || !ValidFingerprint(f[1]) || (f[2] != "raw" && f[2] != "flate") {
		return "", entry{}, false
	}
	n, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil || n < 0 || n > 2*MaxResult {
		return "", entry{}, false
	}
	return f[1], entry{size: n, flate: f[2] == "flate"}, true
}

// Put stores a result's text, unless the store holds it already, and
// returns its fingerprint. A text over MaxResult is an error.
func (s *Store) Put(text string) (string, error) {
	return s.put(text, true)
}

// PutUncompressed is Put for a text read often and whole, such as a
// cached record (package cache): it is stored as it is, never
// compressed, so that reading it costs one read.
func (s *Store) PutUncompressed(text string) (string, error) {
	return s.put(text, false)
}

func (s *Store) put(text string, compress bool) (string, error) {
	fp := Fingerprint(text)
	if len(text) > MaxResult {
		return fp, fmt.Errorf("recordings: a result of %d bytes is over the %d bytes a recording may have", len(text), MaxResult)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.index[fp]; ok {
		return fp, nil
	}
	unlock, err := lockedfile.MutexAt(s.path(lockName)).Lock()
	if err != nil {
		return fp, fmt.Errorf("recordings: lock: %w", err)
	}
	defer unlock()
	if s.replaced() {
		if err := s.reopen(); err != nil {
			return fp, err
		}
	}
	torn, err := s.catchUp()
	if err != nil {
		return fp, err
	}
	if _, ok := s.index[fp]; ok {
		return fp, nil
	}
	return fp, s.appendEntry(fp, text, torn, compress)
}

// appendEntry appends the entry of text under the lock; torn says that
// the pack ends with an entry a killed writer left half written, which is
// cut off first.
func (s *Store) appendEntry(fp, text string, torn, compress bool) error {
	f, err := os.OpenFile(s.path(packName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("recordings: %w", err)
	}
	defer f.Close()
	if torn {
		if err := f.Truncate(s.end); err != nil {
			return fmt.Errorf("recordings: cut off a half-written entry: %w", err)
		}
	}
	payload, compressed := []byte(text), false
	if compress {
		payload, compressed = encode(text)
	}
	var b bytes.Buffer
	writeEntry(&b, fp, compressed, int64(len(payload)), bytes.NewReader(payload))
	if _, err := f.Write(b.Bytes()); err != nil { // one write: the entry is appended whole or not at all
		return fmt.Errorf("recordings: %w", err)
	}
	if s.pack == nil {
		if s.pack, err = os.Open(s.path(packName)); err != nil {
			return fmt.Errorf("recordings: %w", err)
		}
	}
	_, err = s.catchUp()
	return err
}

// encode returns the payload of text, compressed (flate) when that saves
// at least an eighth of it.
func encode(text string) (payload []byte, compressed bool) {
	if len(text) >= 64 {
		var b bytes.Buffer
		w, _ := flate.NewWriter(&b, flate.DefaultCompression)
		io.WriteString(w, text)
		w.Close()
		if b.Len() <= len(text)-len(text)/8 {
			return b.Bytes(), true
		}
	}
	return []byte(text), false
}

// writeEntry writes an entry of the pack: its header line ("R", the
// fingerprint, the encoding and the payload's size), the payload, and a
// newline.
func writeEntry(w io.Writer, fp string, compressed bool, size int64, payload io.Reader) error {
	enc := "raw"
	if compressed {
		enc = "flate"
	}
	if _, err := fmt.Fprintf(w, "R %s %s %d\n", fp, enc, size); err != nil {
		return err
	}
	if _, err := io.Copy(w, payload); err != nil {
		return err
	}
	_, err := w.Write([]byte{'\n'})
	return err
}

// Get returns the text of the result with fingerprint fp; ok is false when
// the store does not hold it.
func (s *Store) Get(fp string) (text string, ok bool, err error) {
	data, ok, err := s.Bytes(fp)
	return string(data), ok, err
}

// Bytes is Get returning the text's bytes, which the caller owns.
func (s *Store) Bytes(fp string) (data []byte, ok bool, err error) {
	s.mu.Lock()
	e, ok := s.index[fp]
	if !ok {
		if err := s.refresh(); err != nil {
			s.mu.Unlock()
			return nil, false, err
		}
		if e, ok = s.index[fp]; !ok {
			s.mu.Unlock()
			return nil, false, nil
		}
	}
	payload := make([]byte, e.size)
	_, err = s.pack.ReadAt(payload, e.at)
	s.mu.Unlock()
	if err != nil {
		return nil, false, fmt.Errorf("recordings: read %s: %w", fp, err)
	}
	// Decompressing and checking run outside the lock: concurrent reads
	// overlap.
	data, err = s.check(fp, e, payload)
	return data, err == nil, err
}

// read reads the text of the entry e, whose fingerprint is fp; the caller
// holds mu.
func (s *Store) read(fp string, e entry) ([]byte, error) {
	payload := make([]byte, e.size)
	if _, err := s.pack.ReadAt(payload, e.at); err != nil {
		return nil, fmt.Errorf("recordings: read %s: %w", fp, err)
	}
	return s.check(fp, e, payload)
}

// check returns the text of the entry e, whose fingerprint is fp, from its
// payload: decompressed, and checked against fp.
func (s *Store) check(fp string, e entry, payload []byte) ([]byte, error) {
	if e.flate {
		r := flate.NewReader(bytes.NewReader(payload))
		defer r.Close()
		raw, err := io.ReadAll(io.LimitReader(r, MaxResult+1))
		if err != nil {
			return nil, fmt.Errorf("recordings: read %s: %w", fp, err)
		}
		payload = raw
	}
	if sum := sha256.Sum256(payload); hex.EncodeToString(sum[:]) != fp {
		return nil, fmt.Errorf("recordings: the entry of %s does not hold its result (the pack %s is damaged)", fp, s.path(packName))
	}
	return payload, nil
}

// Has reports whether the store holds the result with fingerprint fp.
func (s *Store) Has(fp string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.index[fp]; ok {
		return true
	}
	if s.refresh() != nil {
		return false
	}
	_, ok := s.index[fp]
	return ok
}
