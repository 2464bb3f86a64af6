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
)

// errJournalReplaced reports that the journal this Cache was reading was
// deleted or replaced (by a compaction or Clear of another process).
var errJournalReplaced = errors.New("journal replaced")

// journalRecord is one line of the journal as it is read.
type journalRecord struct {
	Version int             `json:"version"`
	Key     string          `json:"key"`
	Entry   json.RawMessage `json:"entry"` // "null" removes the key
}

// journalLine returns the journal line, newline included, that stores the
// compact JSON entry under key, or removes key when entry is nil.
func journalLine(key string, entry []byte) []byte {
	quotedKey, _ := json.Marshal(key) // a string always encodes
	line := make([]byte, 0, len(entry)+len(quotedKey)+40)
	line = append(line, `{"version":`...)
	line = strconv.AppendInt(line, FormatVersion, 10)
	line = append(line, `,"key":`...)
	line = append(line, quotedKey...)
	line = append(line, `,"entry":`...)
	if entry == nil {
		line = append(line, "null"...)
	} else {
		line = append(line, entry...)
	}
	return append(line, "}\n"...)
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
// line without its newline was cut short by a writer that died: as the
// caller holds the file lock, no writer is still at work on it, so it is
// truncated away and the next append starts on a line of its own.
func (c *Cache) replayJournal(size int64) error {
	lines := bufio.NewReaderSize(io.NewSectionReader(c.journal, c.journalRead, size-c.journalRead), 64<<10)
	for {
		line, err := lines.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				if err := c.journal.Truncate(c.journalRead); err != nil {
					return fmt.Errorf("drop cut-off line of cache journal: %w", err)
				}
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("read cache journal: %w", err)
		}
		c.journalRead += int64(len(line))
		c.journalLines++
		line = line[:len(line)-1]
		key, raw, err := decodeLine(line)
		if err != nil {
			c.badLines = append(c.badLines, line)
			c.warn(fmt.Sprintf("line %d of cache journal %s cannot be read (%v); skipped", c.journalLines, c.journalPath, err))
			continue
		}
		c.mu.Lock()
		if raw == nil {
			delete(c.entries, key)
		} else {
			c.entries[key] = raw
		}
		c.mu.Unlock()
	}
}

// decodeLine decodes one journal line (without its newline) into its key
// and the entry encoded for the cache file, nil for a removal.
func decodeLine(line []byte) (key string, raw []byte, err error) {
	var rec journalRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		return "", nil, err
	}
	switch {
	case rec.Version != FormatVersion:
		return "", nil, fmt.Errorf("format version %d, not %d", rec.Version, FormatVersion)
	case rec.Key == "":
		return "", nil, errors.New("no key")
	case rec.Entry == nil:
		return "", nil, errors.New("no entry")
	case string(rec.Entry) == "null":
		return rec.Key, nil, nil
	}
	raw, err = indentEntry(rec.Entry)
	return rec.Key, raw, err
}

// appendJournal writes the lines of changes to the journal with a single
// write, creating the journal if needed; the caller holds diskMu and the
// file lock and has read the journal to its end. A failed write is cut
// off again so that the journal keeps ending with a whole line.
func (c *Cache) appendJournal(changes map[string]change) error {
	size := 0
	for _, ch := range changes {
		size += len(ch.line)
	}
	buf := make([]byte, 0, size)
	for _, ch := range changes {
		buf = append(buf, ch.line...)
	}
	if c.journal == nil {
		f, err := os.OpenFile(c.journalPath, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("create cache journal: %w", err)
		}
		c.journal, c.journalRead, c.journalLines = f, 0, 0
	}
	n, err := c.journal.Write(buf)
	if err != nil {
		if n > 0 {
			c.journal.Truncate(c.journalRead)
		}
		return fmt.Errorf("append to cache journal: %w", err)
	}
	c.journalRead += int64(n)
	c.journalLines += len(changes)
	return nil
}

// closeJournal forgets the journal this Cache was reading.
func (c *Cache) closeJournal() {
	if c.journal != nil {
		c.journal.Close()
	}
	c.journal, c.journalRead, c.journalLines, c.badLines = nil, 0, 0, nil
}

// joinLines joins lines, ending each with a newline.
func joinLines(lines [][]byte) []byte {
	var buf bytes.Buffer
	for _, line := range lines {
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}
