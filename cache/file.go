package cache

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mcpeval/mcpeval/result"
)

// fileDoc is the cache file as it is read. Entries stay raw: each is
// decoded only when Get asks for it, and written back byte for byte.
type fileDoc struct {
	Version  *int                       `json:"version"`
	Revision string                     `json:"revision"`
	Entries  map[string]json.RawMessage `json:"entries"`
}

// entry is one stored case result.
type entry struct {
	Name     string        `json:"name"`
	StoredAt time.Time     `json:"stored_at"`
	Record   result.Record `json:"record"`
}

// encodeEntry encodes e indented for its place inside the file's
// "entries" object.
func encodeEntry(e entry) ([]byte, error) {
	return json.MarshalIndent(e, "    ", "  ")
}

// indentEntry re-encodes a compact JSON entry as encodeEntry does.
func indentEntry(compact []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(compact) + len(compact)/4)
	if err := json.Indent(&buf, compact, "    ", "  "); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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

// readFile reads the cache file. A missing file is fs.ErrNotExist; a
// directory in its place is an error.
func readFile(path string) ([]byte, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("not a regular file (%s)", info.Mode().Type())
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	return data, info, nil
}

// writeFile atomically replaces the file at path with entries, sorted by
// key, and returns the stamp of the new file. The data is written to a
// temporary file in the same directory, synced, and renamed over path.
func writeFile(path string, entries map[string][]byte) (fileStamp, error) {
	revision := newRevision()
	keys := make([]string, 0, len(entries))
	size := 256
	for k, raw := range entries {
		keys = append(keys, k)
		size += len(k) + len(raw) + 16
	}
	slices.Sort(keys)

	var buf bytes.Buffer
	buf.Grow(size)
	buf.WriteString(header(revision))
	buf.WriteString(`  "entries": {`)
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		quoted, err := json.Marshal(k)
		if err != nil {
			return fileStamp{}, fmt.Errorf("encode key %q: %w", k, err)
		}
		buf.WriteString("\n    ")
		buf.Write(quoted)
		buf.WriteString(": ")
		buf.Write(entries[k])
	}
	if len(keys) > 0 {
		buf.WriteString("\n  ")
	}
	buf.WriteString("}\n}\n")

	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, tempPrefix(base)+"*")
	if err != nil {
		return fileStamp{}, fmt.Errorf("write %s: %w", path, err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		return fileStamp{}, fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fileStamp{}, fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return fileStamp{}, fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	info, err := tmp.Stat()
	if err != nil {
		return fileStamp{}, fmt.Errorf("stat %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fileStamp{}, fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fileStamp{}, fmt.Errorf("replace %s: %w", path, err)
	}
	committed = true
	syncDir(dir)
	return fileStamp{exists: true, size: info.Size(), modTime: info.ModTime(), revision: revision}, nil
}

// syncDir makes a rename in dir durable. Systems that cannot sync a
// directory still get the rename, just without that guarantee.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
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
