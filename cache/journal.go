package cache

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/recordings"
)

// errJournalReplaced reports that the journal this Cache was reading was
// deleted or replaced (by a compaction or Clear of another process).
var errJournalReplaced = errors.New("journal replaced")

// journalRecord is one line of the journal as it is read.
type journalRecord struct {
	Version int             `json:"version"`
	Key     string          `json:"key"`
	Entry   json.RawMessage `json:"entry"` // "null" removes the key
	// Removed says when a key was removed and how long its run took.
	Removed *removal `json:"removed,omitempty"`
}

// change is one Put: its journal line, waiting to be appended.
type change struct {
	line []byte // the journal line, newline included
	// entry is the entry's compact JSON inside line, nil when the line
	// removes the key; sum is its checksum.
	entry []byte
	sum   uint32
	// removal is the removal a line without entry records.
	removal removal
	seq     uint64 // tells a Put from a later Put of the same key
}

// span is a part of the journal.
type span struct {
	offset int64
	length int
}

// linePrefix returns the start of the journal line of key, up to its
// entry.
func linePrefix(key string) []byte {
	quotedKey, _ := json.Marshal(key) // a string always encodes
	prefix := make([]byte, 0, len(quotedKey)+32)
	prefix = append(prefix, `{"version":`...)
	prefix = strconv.AppendInt(prefix, FormatVersion, 10)
	prefix = append(prefix, `,"key":`...)
	prefix = append(prefix, quotedKey...)
	return append(prefix, `,"entry":`...)
}

// journalLine returns the journal line, newline included, that stores the
// compact JSON entry under key.
func journalLine(key string, entry []byte) []byte {
	line := append(linePrefix(key), entry...)
	return append(line, "}\n"...)
}

// removalLine returns the journal line, newline included, that removes key.
func removalLine(key string, r removal) []byte {
	line := append(linePrefix(key), `null,"removed":`...)
	data, _ := json.Marshal(r) // a time and a number always encode
	line = append(line, data...)
	return append(line, "}\n"...)
}

// newChange encodes the Put of r under key: the entry of r when
// shouldStore accepts it (its whole record stored in store first), else
// the removal of key.
func newChange(store *recordings.Store, key string, r eval.Record) (change, error) {
	if !shouldStore(r) {
		rm := removal{At: time.Now().UTC(), Seconds: r.Seconds}
		return change{line: removalLine(key, rm), removal: rm}, nil
	}
	e, err := storeEntry(store, time.Now().UTC(), r)
	if err != nil {
		return change{}, err
	}
	line := journalLine(key, e)
	start := len(line) - 2 - len(e) // the line ends with "}\n"
	return change{line: line, entry: line[start : start+len(e)], sum: checksum(e)}, nil
}

// readJournal applies the journal lines appended since the last read to
// entries; the caller holds diskMu and the file lock. It opens the journal
// if this Cache has none open and one exists now. When the open journal
// is no longer the one at journalPath it returns errJournalReplaced.
func (c *Cache) readJournal() error {
	var size int64
	if c.journal == nil {
		f, err := os.OpenFile(c.journalPath, os.O_RDWR|os.O_APPEND, 0)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("open cache journal: %w", err)
		}
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return fmt.Errorf("open cache journal: %w", err)
		}
		c.journal, size = f, info.Size()
	} else {
		current, err := os.Stat(c.journalPath)
		if errors.Is(err, fs.ErrNotExist) {
			return errJournalReplaced
		}
		if err != nil {
			return fmt.Errorf("check cache journal: %w", err)
		}
		open, err := c.journal.Stat()
		if err != nil {
			return fmt.Errorf("check cache journal: %w", err)
		}
		// The open file keeps its inode in use, so no new file can take
		// its identity.
		if !os.SameFile(open, current) || current.Size() < c.journalRead {
			return errJournalReplaced
		}
		size = current.Size()
	}
	if size == c.journalRead {
		return nil
	}
	return c.replayJournal(size)
}

// replayJournal applies the lines between journalRead and size. A last
// line without its newline was either cut short by a writer that died or
// lost only its newline (a writer killed between the two, an edit by
// hand). As the caller holds the file lock, no writer is still at work on
// it: a complete line gets its newline and is applied, a cut-off one is
// truncated away, and either way the next append starts on a line of its
// own.
func (c *Cache) replayJournal(size int64) error {
	lines := bufio.NewReaderSize(io.NewSectionReader(c.journal, c.journalRead, size-c.journalRead), 64<<10)
	for {
		line, err := lines.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(line) == 0 {
				return nil
			}
			if _, _, _, _, decodeErr := decodeLine(line); decodeErr != nil {
				if err := c.journal.Truncate(c.journalRead); err != nil {
					return fmt.Errorf("drop cut-off line of cache journal: %w", err)
				}
				return nil
			}
			if _, err := c.journal.Write([]byte{'\n'}); err != nil {
				return fmt.Errorf("end the last line of cache journal: %w", err)
			}
			line = append(line, '\n')
		} else if err != nil {
			return fmt.Errorf("read cache journal: %w", err)
		}
		start := c.journalRead
		c.journalRead += int64(len(line))
		c.journalLines++
		line = line[:len(line)-1]
		key, entryAt, removed, version, err := decodeLine(line)
		if err != nil {
			c.badLines = append(c.badLines, span{offset: start, length: len(line)})
			c.warn(fmt.Sprintf("line %d of cache journal %s cannot be read (%v); skipped", c.journalLines, c.journalPath, err))
			continue
		}
		c.mu.Lock()
		if entryAt.length == 0 {
			delete(c.entries, key)
			c.removed[key] = removed
		} else {
			data := line[entryAt.offset : entryAt.offset+int64(entryAt.length)]
			c.entries[key] = location{file: c.journal, offset: start + entryAt.offset, length: entryAt.length, sum: checksum(data), indent: true,
				whole: version == formatWhole}
			delete(c.removed, key)
		}
		c.mu.Unlock()
	}
}

// decodeLine decodes one journal line (without its newline) into its key,
// where in the line its entry is, an empty span and the removal for a
// removal (a line without its time, of an older writer, has the zero
// time), and its format version (a line of version 1 holds a whole
// record).
func decodeLine(line []byte) (key string, entryAt span, removed removal, version int, err error) {
	var rec journalRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		return "", span{}, removal{}, 0, err
	}
	switch {
	case rec.Version != FormatVersion && rec.Version != formatWhole:
		return "", span{}, removal{}, 0, fmt.Errorf("format version %d, not %d or %d", rec.Version, formatWhole, FormatVersion)
	case rec.Key == "":
		return "", span{}, removal{}, 0, errors.New("no key")
	case rec.Entry == nil:
		return "", span{}, removal{}, 0, errors.New("no entry")
	case string(rec.Entry) == "null":
		if rec.Removed != nil {
			removed = *rec.Removed
		}
		return rec.Key, span{}, removed, rec.Version, nil
	}
	// The entry's JSON is a copy of bytes of the line: any place they
	// occur in it holds the entry. A line this package wrote ends with it.
	offset := len(line) - 1 - len(rec.Entry)
	if offset < 0 || !bytes.Equal(line[offset:len(line)-1], rec.Entry) {
		offset = bytes.LastIndex(line, rec.Entry)
	}
	return rec.Key, span{offset: int64(offset), length: len(rec.Entry)}, removal{}, rec.Version, nil
}

// appendJournal writes the lines of changes to the journal with a single
// write, creating the journal if needed, and returns where each entry is
// in it (no location for a removal); the caller holds diskMu and the file
// lock and has read the journal to its end. A failed write is cut off
// again so that the journal keeps ending with a whole line.
func (c *Cache) appendJournal(changes map[string]change) (map[string]location, error) {
	if c.journal == nil {
		f, err := os.OpenFile(c.journalPath, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("create cache journal: %w", err)
		}
		c.journal, c.journalRead, c.journalLines = f, 0, 0
	}
	size := 0
	for _, ch := range changes {
		size += len(ch.line)
	}
	buf := make([]byte, 0, size)
	placed := make(map[string]location, len(changes))
	for key, ch := range changes {
		if ch.entry != nil {
			entryOffset := len(ch.line) - 2 - len(ch.entry) // the line ends with "}\n"
			placed[key] = location{
				file: c.journal, offset: c.journalRead + int64(len(buf)+entryOffset),
				length: len(ch.entry), sum: ch.sum, indent: true,
			}
		} else {
			placed[key] = location{}
		}
		buf = append(buf, ch.line...)
	}
	n, err := c.journal.Write(buf)
	if err != nil {
		if n > 0 {
			c.journal.Truncate(c.journalRead)
		}
		return nil, fmt.Errorf("append to cache journal: %w", err)
	}
	c.journalRead += int64(n)
	c.journalLines += len(changes)
	return placed, nil
}

// readSpans reads the given parts of the journal, ending each with a
// newline.
func (c *Cache) readSpans(spans []span) ([]byte, error) {
	var buf bytes.Buffer
	for _, s := range spans {
		if _, err := io.Copy(&buf, io.NewSectionReader(c.journal, s.offset, int64(s.length))); err != nil {
			return nil, err
		}
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// closeJournal forgets the journal this Cache was reading; no entry may
// point into it any more.
func (c *Cache) closeJournal() {
	closeFile(c.journal)
	c.journal, c.journalRead, c.journalLines, c.badLines = nil, 0, 0, nil
}
