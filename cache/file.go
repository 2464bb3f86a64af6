package cache

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/recordings"
)

// entry is one stored case result. In format version 2 Record is the
// record without its large texts (lean) and RecordFingerprint names the
// whole record's JSON in the recordings store; in format version 1 Record
// is whole and there is no RecordFingerprint.
type entry struct {
	Name              string      `json:"name"`
	StoredAt          time.Time   `json:"stored_at"`
	Record            eval.Record `json:"record"`
	RecordFingerprint string      `json:"record_fingerprint,omitempty"`
}

// storeEntry stores the whole record r (Cached false) in store and
// returns the compact JSON of its entry, which names it.
func storeEntry(store *recordings.Store, storedAt time.Time, r eval.Record) ([]byte, error) {
	r.Cached = false
	whole, err := marshal(r)
	if err != nil {
		return nil, err
	}
	fp, err := store.PutUncompressed(string(whole))
	if err != nil {
		return nil, err
	}
	return marshal(entry{Name: r.Name, StoredAt: storedAt, Record: lean(r), RecordFingerprint: fp})
}

// marshal encodes v as json.Encoder does (a record's lines in
// results.jsonl are written so), without the newline.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// upgrade returns the compact JSON, in the current format, of the entry
// of format version 1 data, storing its whole record in store.
func upgrade(store *recordings.Store, data []byte) ([]byte, error) {
	var e entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	if e.RecordFingerprint != "" {
		return data, nil
	}
	return storeEntry(store, e.StoredAt, e.Record)
}

// location is where the JSON of one entry is on disk: a span of the cache
// file or of the journal, in a file this Cache holds open. Neither file
// changes where an entry was read: the cache file is replaced by renaming
// a new file over it, and the journal only grows until it is deleted.
type location struct {
	file   *os.File
	offset int64
	length int
	// sum is the checksum of the span as it was read, so that a file
	// edited in place is noticed instead of misread.
	sum uint32
	// indent is set for an entry of the journal, whose JSON is compact:
	// the cache file holds it indented.
	indent bool
	// whole is set for an entry of format version 1, whose record is
	// whole: the next rewrite of the cache file upgrades it.
	whole bool
}

// read returns the entry's JSON, reusing buf's memory when it is large
// enough.
func (l location) read(buf []byte) ([]byte, error) {
	data := slices.Grow(buf[:0], l.length)[:l.length]
	if _, err := l.file.ReadAt(data, l.offset); err != nil {
		return nil, err
	}
	if checksum(data) != l.sum {
		return nil, errors.New("the file was changed in place since it was read")
	}
	return data, nil
}

func checksum(data []byte) uint32 {
	return crc32.ChecksumIEEE(data)
}

// fileVersion is one version of the cache file, open for reading: its
// entries located in it, its removals and its stamp. A missing file has no
// file.
type fileVersion struct {
	file    *os.File
	entries map[string]location
	removed map[string]removal
	stamp   fileStamp
}

// fileStamp identifies one version of the cache file: the file is taken
// as unchanged only when its size, modification time and header (with
// the random revision every write puts there) all match.
type fileStamp struct {
	exists   bool
	size     int64
	modTime  time.Time
	revision string
}

// header is the start of every file this package writes.
func header(revision string) string {
	return fmt.Sprintf("{\n  \"version\": %d,\n  \"revision\": %q,\n", FormatVersion, revision)
}

// unchangedSince reports whether the file at path is still the one stamp
// describes. Any doubt answers false, which costs a re-read, never an entry.
func unchangedSince(path string, stamp fileStamp) bool {
	info, err := os.Stat(path)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) && !stamp.exists
	}
	if !stamp.exists || !info.Mode().IsRegular() || info.Size() != stamp.size || !info.ModTime().Equal(stamp.modTime) {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	want := header(stamp.revision)
	head := make([]byte, len(want))
	if _, err := io.ReadFull(f, head); err != nil {
		return false
	}
	return string(head) == want
}

// fileIndex is what indexFile finds in a cache file.
type fileIndex struct {
	version  *int // nil when the file has none
	revision string
	entries  map[string]location
	removed  map[string]removal
}

// indexFile reads the cache file f from its start and locates its
// entries without keeping them. It accepts what json.Unmarshal accepts
// into {"version": *int, "revision": string, "entries": map of raw JSON,
// "removed": map of removals}:
// field names match case-insensitively, later fields win, unknown fields
// are skipped, a null document has no fields. Anything else is an error.
func indexFile(f *os.File) (fileIndex, error) {
	idx := fileIndex{entries: map[string]location{}, removed: map[string]removal{}}
	// Each entry is located, not decoded: the index is made at the start
	// of every run, and an entry is read only when its case asks for it.
	dec := jsontext.NewDecoder(bufio.NewReaderSize(f, 64<<10),
		jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	start, err := dec.ReadToken()
	if errors.Is(err, io.EOF) {
		return idx, io.ErrUnexpectedEOF
	}
	if err != nil {
		return idx, err
	}
	switch start.Kind() {
	case 'n': // null: a document without fields
	case '{':
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return idx, err
			}
			field := name.String()
			switch {
			case strings.EqualFold(field, "entries"):
				err = indexEntries(dec, f, idx.entries)
			case strings.EqualFold(field, "version"):
				err = decodeValue(dec, &idx.version)
			case strings.EqualFold(field, "revision"):
				err = decodeValue(dec, &idx.revision)
			case strings.EqualFold(field, "removed"):
				err = decodeValue(dec, &idx.removed)
			default:
				err = dec.SkipValue()
			}
			if err != nil {
				return idx, fmt.Errorf("field %q: %w", field, err)
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return idx, err
		}
	default:
		return idx, fmt.Errorf("the document is %v, not an object", start)
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return idx, fmt.Errorf("data after the document (%v)", err)
	}
	return idx, nil
}

// decodeValue decodes the next value of dec into v as encoding/json does.
func decodeValue(dec *jsontext.Decoder, v any) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// indexEntries reads the value of the "entries" field into entries: an
// object adds its members (later ones winning), null removes every entry.
func indexEntries(dec *jsontext.Decoder, f *os.File, entries map[string]location) error {
	start, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch start.Kind() {
	case 'n':
		clear(entries)
		return nil
	case '{':
	default:
		return fmt.Errorf("%v is not an object", start)
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		key := tok.String() // before the next read voids tok
		raw, err := dec.ReadValue()
		if err != nil {
			return fmt.Errorf("entry %q: %w", key, err)
		}
		// The decoder stops right after the value it read.
		end := dec.InputOffset()
		entries[key] = location{file: f, offset: end - int64(len(raw)), length: len(raw), sum: checksum(raw)}
	}
	_, err = dec.ReadToken()
	return err
}

// writeFile atomically replaces the file at path with entries, sorted by
// key and read from where they are (those of format version 1 upgraded,
// their whole records stored in store), and the removals younger than
// removalTTL, and returns the new file, open for reading, with its entries
// located in it. The data is written to a temporary file in the same
// directory and committed (files.Temp); only one entry at a time is held
// in memory.
func writeFile(path string, entries map[string]location, removed map[string]removal, store *recordings.Store) (fileVersion, error) {
	tmp, err := files.CreateTemp(path, tempPrefix(filepath.Base(path)))
	if err != nil {
		return fileVersion{}, err
	}
	defer tmp.Abort()

	revision := newRevision()
	written := make(map[string]location, len(entries))
	out := &offsetWriter{w: bufio.NewWriterSize(tmp, 256<<10)}
	out.writeString(header(revision))
	out.writeString(`  "entries": {`)
	var buf []byte
	var indented bytes.Buffer
	for i, key := range slices.Sorted(maps.Keys(entries)) {
		from := entries[key]
		data, err := from.read(buf)
		if err != nil {
			return fileVersion{}, fmt.Errorf("read entry %s: %w", key, err)
		}
		buf = data
		to := location{file: tmp.File, length: len(data), sum: from.sum}
		if from.whole {
			// An entry that cannot be read stays as it is: a miss
			// with a warning when it is looked up, as before.
			if upgraded, err := upgrade(store, data); err == nil {
				data, from.indent = upgraded, true
			}
		}
		if from.indent {
			indented.Reset()
			if err := json.Indent(&indented, data, "    ", "  "); err != nil {
				return fileVersion{}, fmt.Errorf("indent entry %s: %w", key, err)
			}
			data = indented.Bytes()
			to.length, to.sum = len(data), checksum(data)
		}
		quoted, err := json.Marshal(key)
		if err != nil {
			return fileVersion{}, fmt.Errorf("encode key %q: %w", key, err)
		}
		if i > 0 {
			out.writeString(",")
		}
		out.writeString("\n    ")
		out.write(quoted)
		out.writeString(": ")
		to.offset = out.offset
		out.write(data)
		written[key] = to
	}
	if len(entries) > 0 {
		out.writeString("\n  ")
	}
	out.writeString("}")
	kept, err := writeRemovals(out, removed)
	if err != nil {
		return fileVersion{}, err
	}
	out.writeString("\n}\n")
	if err := out.w.Flush(); err != nil {
		return fileVersion{}, fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Commit(0o644); err != nil {
		return fileVersion{}, err
	}
	info, err := tmp.Stat()
	if err != nil {
		return fileVersion{}, fmt.Errorf("stat %s: %w", path, err)
	}
	stamp := fileStamp{exists: true, size: info.Size(), modTime: info.ModTime(), revision: revision}
	return fileVersion{file: tmp.File, entries: written, removed: kept, stamp: stamp}, nil
}

// writeRemovals writes the "removed" field of the cache file, one removal
// a line sorted by key, leaving out those older than removalTTL, and
// returns the removals written.
func writeRemovals(out *offsetWriter, removed map[string]removal) (map[string]removal, error) {
	kept := make(map[string]removal, len(removed))
	cutoff := time.Now().Add(-removalTTL)
	for key, r := range removed {
		if r.At.After(cutoff) {
			kept[key] = r
		}
	}
	if len(kept) == 0 {
		return kept, nil
	}
	out.writeString(",\n  \"removed\": {")
	for i, key := range slices.Sorted(maps.Keys(kept)) {
		quoted, err := json.Marshal(key)
		if err != nil {
			return nil, fmt.Errorf("encode key %q: %w", key, err)
		}
		data, err := json.Marshal(kept[key])
		if err != nil {
			return nil, fmt.Errorf("encode removal of %s: %w", key, err)
		}
		if i > 0 {
			out.writeString(",")
		}
		out.writeString("\n    ")
		out.write(quoted)
		out.writeString(": ")
		out.write(data)
	}
	out.writeString("\n  }")
	return kept, nil
}

// offsetWriter buffers what it writes and counts it. A write error is
// kept by the bufio.Writer and returned by its Flush.
type offsetWriter struct {
	w      *bufio.Writer
	offset int64
}

func (o *offsetWriter) write(p []byte) {
	n, _ := o.w.Write(p)
	o.offset += int64(n)
}

func (o *offsetWriter) writeString(s string) {
	n, _ := o.w.WriteString(s)
	o.offset += int64(n)
}

// closeFile closes f unless it is nil. Only files read from are closed
// this way: nothing is lost when closing fails.
func closeFile(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// tempPrefix names the temporary files written next to the cache file.
func tempPrefix(base string) string {
	return "." + base + ".tmp-"
}

// removeStaleTemps removes temporary files left by a writer that was
// killed mid-write. It must run under the file lock, when no writer of
// any process has a temporary file open.
func removeStaleTemps(path string) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	stale, _ := filepath.Glob(filepath.Join(dir, globEscape(tempPrefix(base))+"*"))
	for _, name := range stale {
		os.Remove(name)
	}
}

// globEscape quotes the characters filepath.Match treats specially.
func globEscape(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch r {
		case '*', '?', '[', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// moveAside renames the file at path to a free backup name (see
// backupName) and returns that name.
func moveAside(path, tag string) (string, error) {
	backup := backupName(path, tag)
	if err := os.Rename(path, backup); err != nil {
		return "", err
	}
	return backup, nil
}

// saveAside writes data to a new file named by backupName and returns
// its name.
func saveAside(path, tag string, data []byte) (string, error) {
	for {
		backup := backupName(path, tag)
		f, err := os.OpenFile(backup, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue // taken since backupName looked
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if closeErr := f.Close(); err == nil {
			err = closeErr
		}
		if err != nil {
			os.Remove(backup)
			return "", err
		}
		return backup, nil
	}
}

// backupName returns "<path>.<tag>-<UTC timestamp>", with a numeric
// suffix if that name is taken.
func backupName(path, tag string) string {
	stem := fmt.Sprintf("%s.%s-%s", path, tag, time.Now().UTC().Format("20060102T150405Z"))
	backup := stem
	for n := 2; ; n++ {
		if _, err := os.Lstat(backup); errors.Is(err, fs.ErrNotExist) {
			return backup
		}
		backup = fmt.Sprintf("%s-%d", stem, n)
	}
}

func newRevision() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
