// Package cache keeps the results of finished evaluation cases on disk so
// that a later run reuses them instead of paying for them again.
//
// What is stored: a case that passed or hit the token limit
// ([shouldStore]). Storing any other outcome (a fail or an error) removes
// the older entry for that key instead, so the cache never claims a pass
// that the latest run contradicted, and remembers the removal (when, and
// how long the run took) for 30 days: [Merge] needs it to let a later fail
// in one cache beat an older pass in another, and shards balanced by
// history the seconds. [Cache.Get] returns only reusable entries.
//
// Keys: [Key] hashes everything that can change a case's outcome (see its
// documentation for the exact list); a change to any of it is a miss.
//
// On disk the cache is two files. The cache file is pretty-printed JSON a
// person can read:
//
//	{
//	  "version": 2,
//	  "revision": "<random, changes on every rewrite>",
//	  "entries": {
//	    "<key>": {"name": ..., "stored_at": ..., "record": {...}, "record_fingerprint": "<hex SHA-256>"}
//	  },
//	  "removed": {
//	    "<key>": {"at": ..., "seconds": ...}
//	  }
//	}
//
// An entry's "record" is the record without its large texts (see Hit);
// "record_fingerprint" names the whole record's JSON, stored once in the
// recordings store beside the cache file (package recordings), which
// Lookup does not read. A file of version 1 (whole records, no
// fingerprint) is read and rewritten as version 2 when it is opened, under
// the same keys.
//
// Beside it, "<path>.journal" holds the changes made since the cache file
// was last rewritten, one JSON object a line, later lines winning:
//
//	{"version":2,"key":"<key>","entry":{"name": ..., "record": {...}, "record_fingerprint": ...}}
//	{"version":2,"key":"<key>","entry":null,"removed":{"at": ..., "seconds": ...}}
//
// [Cache.Put] appends one line, so its cost grows with the record, not
// with the cache. Compaction merges the journal into the cache file and
// deletes it. It runs at [Cache.Close] and, in the background, once the
// journal has more lines than the cache file has entries (and more than
// 256): the journal never costs much more to replay than the cache file
// costs to read, and the rewrites of a growing cache add up to about
// twice its final size. [Open] reads the cache file, then replays the
// journal. A last line without its newline (a writer killed mid-write) is
// dropped silently: its Put never returned. Any other line that cannot be
// read is skipped with a warning and, at the next compaction, saved to
// "<path>.journal.corrupt-<timestamp>". Deleting the cache file alone
// does not empty the cache; [Cache.Clear] deletes both files.
//
// A cache file with another "version" than 1 or 2 (or none, like the file
// of the original Python tool) is not read: it is renamed to
// "<path>.v<N>-<timestamp>" and an empty cache starts. A cache file that
// cannot be read or parsed is renamed to "<path>.corrupt-<timestamp>".
// Either way [Cache.Warnings] names the backup; nothing is silently
// emptied. Journal lines of another version than 1 or 2 are skipped as
// unreadable.
//
// Durability: [Cache.Put] returns once its line is written to the journal
// with a single write(2). The line is then in the kernel, so a run stopped
// by a timeout, Ctrl-C, a crash or SIGKILL keeps every result it stored.
// The journal is not fsynced: a power loss may lose the entries stored
// since the last compaction. A compaction writes a temporary file, fsyncs
// it, renames it over the cache file and fsyncs the directory before it
// deletes the journal; a compaction cut short leaves the old cache file
// and the whole journal, which replay to the same entries.
//
// Sharing: every disk operation (an append, a compaction, Clear, Open)
// holds an exclusive lock on "<path>.lock" (lockedfile: flock on Unix,
// LockFileEx on Windows), so goroutines and processes sharing the files
// lose nothing. Before appending, a Cache reads the journal lines other
// processes appended since its last look (and re-reads both files after
// another process compacted or cleared), so [Cache.Get] also sees the other
// processes' results as of this Cache's last Put.
//
// Memory: a Cache holds no entry in memory, only where each one is: a
// span of the cache file or of the journal, which it keeps open. [Cache.Get]
// reads its entry from there. Neither file changes under an open Cache
// where it has read (the cache file is replaced by a rename, the journal
// only grows until it is deleted), so Get answers from the files as this
// Cache last read them even after another process rewrote them; a file
// edited in place is noticed by a checksum and read again at the next
// Put. Compaction streams: it copies one entry at a time from the old
// files into the new one. A Put holds its record's bytes only until its
// line is appended.
package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/recordings"
)

// minCompactLines is the journal length below which no compaction runs
// before Close, however small the cache.
const minCompactLines = 256

// errClosed is the error of a Put or Clear after Close.
var errClosed = errors.New("cache is closed")

// shouldStore reports whether a finished case's record belongs in the
// cache: a pass or a token-limit result of a real model run. Fails and
// errors are run again next time; records of the reference agent are not
// model results and are never stored.
func shouldStore(r eval.Record) bool {
	return !r.Reference && (r.Status == eval.Pass || r.Status == eval.TokenLimit)
}

// Cache is an open cache. Its methods are safe for concurrent use. Call
// Close at the end of a run to merge the journal into the cache file.
type Cache struct {
	path        string
	journalPath string
	lockPath    string
	// store is the recordings store beside the cache file, which holds
	// the whole records of the entries.
	store *recordings.Store

	// diskMu serialises this process's disk operations and guards the
	// fields below it up to mu.
	diskMu sync.Mutex
	// file is the cache file as last read or written (nil when there was
	// none), stamp identifies it and fileEntries is its number of entries.
	file        *os.File
	stamp       fileStamp
	fileEntries int
	// journal is the open journal as far as it was read: its first
	// journalRead bytes, journalLines lines, are applied to entries. It is
	// nil when there was no journal at the last look.
	journal      *os.File
	journalRead  int64
	journalLines int
	// badLines are the unreadable lines of the journal, saved aside at
	// the next compaction.
	badLines []span
	// compactionQueued is set while a background compaction is pending.
	compactionQueued bool
	closed           bool
	background       sync.WaitGroup

	// mu guards the fields below. Get holds it for reading while it reads
	// an entry, so a file is closed only once entries, changed under mu
	// held for writing, no longer point into it.
	mu sync.RWMutex
	// entries locates the entries on disk: the cache file with the
	// journal applied up to journalRead; removed holds the removals
	// remembered there. They change only under diskMu too.
	entries map[string]location
	removed map[string]removal
	// pending holds the Puts of this process that no append has written
	// yet; Get consults it before entries.
	pending  map[string]change
	lastSeq  uint64
	warnings []string
}

// Open opens the cache at path (see the package documentation), creating
// its directory if needed. Missing files are an empty cache. A corrupt
// cache file or one of another format version is moved aside and
// reported by Warnings, as are unreadable journal lines; Open fails only
// when a file cannot be read, moved or locked.
func Open(path string) (*Cache, error) {
	c, err := newCache(path)
	if err != nil {
		return nil, err
	}
	unlock, err := lockFile(c.lockPath)
	if err != nil {
		return nil, fmt.Errorf("open cache %s: %w", path, err)
	}
	defer unlock()
	return c.openLocked()
}

// newCache returns the Cache of path, nothing read yet, creating the
// directory of the cache file and of its recordings store.
func newCache(path string) (*Cache, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open cache %s: %w", path, err)
	}
	store, err := recordings.Open(recordings.DirBeside(path))
	if err != nil {
		return nil, fmt.Errorf("open cache %s: %w", path, err)
	}
	return &Cache{
		path:        path,
		journalPath: path + journalSuffix,
		lockPath:    path + ".lock",
		store:       store,
		pending:     map[string]change{},
	}, nil
}

// openLocked reads the cache's files; the caller holds the file lock. A
// cache holding entries of format version 1 (whole records) is rewritten
// at once in the current format.
func (c *Cache) openLocked() (*Cache, error) {
	removeStaleTemps(c.path)
	err := c.reload()
	if err == nil && c.holdsWhole() {
		err = c.rewrite()
	}
	if err != nil {
		c.release()
		return nil, fmt.Errorf("open cache: %w", err)
	}
	return c, nil
}

// openUnderLock opens the cache at path for a caller that already holds
// its file lock.
func openUnderLock(path string) (*Cache, error) {
	c, err := newCache(path)
	if err != nil {
		return nil, err
	}
	return c.openLocked()
}

// holdsWhole reports whether an entry of format version 1 is located;
// the caller holds diskMu or the only reference.
func (c *Cache) holdsWhole() bool {
	for _, at := range c.entries {
		if at.whole {
			return true
		}
	}
	return false
}

// Warnings returns what went wrong without stopping the cache so far: a
// file moved aside (naming the backup), an entry or journal line that
// could not be read, or a background compaction that failed.
func (c *Cache) Warnings() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Clone(c.warnings)
}

// journalSuffix names the journal beside a cache file.
const journalSuffix = ".journal"

// Files returns the files that hold the cache at path: the cache file and
// its journal (either may not exist).
func Files(path string) []string { return []string{path, path + journalSuffix} }

// Get returns the whole stored record for key if it can be reused (see
// shouldStore), with Cached set to true: Lookup, then Hit.Full. It answers
// from the files as this Cache last read them, plus its own Puts; an entry
// that cannot be read is a miss with a warning. When the recordings store
// no longer holds the whole record, Get returns the record without its
// large texts, with a warning.
func (c *Cache) Get(key string) (eval.Record, bool) {
	h, ok := c.Lookup(key)
	if !ok {
		return eval.Record{}, false
	}
	r, err := h.Full()
	if err != nil {
		c.warn(fmt.Sprintf("cache entry %s in %s: %v; its outcome is used without its texts", key, c.path, err))
	}
	return r, true
}

// lookup returns the JSON of key's entry, nil when there is none. An entry
// on disk is read into *buf, which keeps the memory it grew to.
func (c *Cache) lookup(key string, buf *[]byte) ([]byte, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if ch, put := c.pending[key]; put {
		return ch.entry, nil
	}
	at, ok := c.entries[key]
	if !ok {
		return nil, nil
	}
	data, err := at.read(*buf)
	if err == nil {
		*buf = data[:0]
	}
	return data, err
}

// readBuffers are the buffers Get reads entries into: an entry is decoded
// (which copies what it keeps) before its buffer is put back, so a
// cached run's reads do not each allocate their entry's size.
var readBuffers = sync.Pool{New: func() any { return new([]byte) }}

// putReadBuffer puts a read buffer back, unless an unusually large entry
// grew it: the pool does not keep such memory.
func putReadBuffer(buf *[]byte) {
	if cap(*buf) <= 1<<20 {
		readBuffers.Put(buf)
	}
}

// Put records the outcome of the case run identified by key and returns
// once the journal holds it (see the package documentation for what that
// survives). A record that shouldStore accepts is stored (with Cached
// false); any other record removes the key's entry. When the append
// fails, Put returns the error and the next Put (or Close) carries the
// change again. Its cost grows with the record, not with the cache.
func (c *Cache) Put(key string, r eval.Record) error {
	if key == "" {
		return errors.New("cache put: empty key")
	}
	ch, err := newChange(c.store, key, r)
	if err != nil {
		return fmt.Errorf("cache put %q: %w", r.Name, err)
	}

	c.mu.Lock()
	c.lastSeq++
	ch.seq = c.lastSeq
	c.pending[key] = ch
	c.mu.Unlock()

	if err := c.flush(); err != nil {
		if errors.Is(err, errClosed) {
			c.mu.Lock()
			c.settle(map[string]change{key: ch}) // never to be written
			c.mu.Unlock()
		}
		return fmt.Errorf("cache put %q: %w", r.Name, err)
	}
	return nil
}

// flush appends every pending change to the journal in one write. Puts
// from many goroutines that wait here meanwhile are written together.
func (c *Cache) flush() error {
	c.diskMu.Lock()
	defer c.diskMu.Unlock()
	if c.closed {
		return errClosed
	}
	unlock, err := c.lockAndAppend()
	if err != nil {
		return err
	}
	defer unlock()
	if c.compactionDue() && !c.compactionQueued {
		c.compactionQueued = true
		c.background.Go(c.compactInBackground)
	}
	return nil
}

// lockAndAppend takes the file lock, brings entries up to date with the
// disk and appends every pending change to the journal; the caller holds
// diskMu and calls unlock when done with the files.
func (c *Cache) lockAndAppend() (unlock func(), err error) {
	unlock, err = lockFile(c.lockPath)
	if err != nil {
		return nil, err
	}
	if err = c.refresh(); err == nil {
		err = c.appendPending()
	}
	if err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// appendPending appends every pending change to the journal; the caller
// holds diskMu and the file lock and has refreshed entries.
func (c *Cache) appendPending() error {
	c.mu.RLock()
	changes := maps.Clone(c.pending)
	c.mu.RUnlock()
	if len(changes) == 0 {
		return nil // another goroutine's flush wrote them
	}
	placed, err := c.appendJournal(changes)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, at := range placed {
		if at.file == nil {
			delete(c.entries, key)
			c.removed[key] = changes[key].removal
		} else {
			c.entries[key] = at
			delete(c.removed, key)
		}
	}
	c.settle(changes)
	return nil
}

// compactInBackground runs a compaction that a Put found due. A failure
// leaves the journal as it was and is reported by Warnings.
func (c *Cache) compactInBackground() {
	c.diskMu.Lock()
	defer c.diskMu.Unlock()
	c.compactionQueued = false
	if c.closed {
		return
	}
	if err := c.compact(false); err != nil {
		c.warn(fmt.Sprintf("cache %s: compaction failed, the journal keeps the entries: %v", c.path, err))
	}
}

// Close merges the journal (with every change this Cache could not append
// yet) into the cache file. Afterwards Get still answers, from the files
// this Cache keeps open for it until it is garbage collected; Put and
// Clear fail. Closing twice does nothing.
func (c *Cache) Close() error {
	c.diskMu.Lock()
	if c.closed {
		c.diskMu.Unlock()
		return nil
	}
	c.closed = true
	err := c.compact(true)
	c.diskMu.Unlock()
	c.background.Wait() // a queued compaction finds the cache closed
	if err != nil {
		return fmt.Errorf("close cache: %w", err)
	}
	return nil
}

// compactionDue reports whether the journal outgrew its bound (see the
// package documentation); the caller holds diskMu.
func (c *Cache) compactionDue() bool {
	return c.journalLines > max(minCompactLines, c.fileEntries)
}

// compact appends the pending changes, rewrites the cache file with the
// journal applied, then deletes the journal; the caller holds diskMu.
// Unless always is set, it does so only if the journal, as read now, is
// still due (another process may have compacted it meanwhile).
func (c *Cache) compact(always bool) error {
	unlock, err := c.lockAndAppend()
	if err != nil {
		return err
	}
	defer unlock()
	if c.journal == nil || (!always && !c.compactionDue()) {
		return nil
	}
	return c.rewrite()
}

// rewrite writes the cache file anew from the entries located (the
// journal applied), in the current format, and deletes the journal; the
// caller holds diskMu (or the only reference) and the file lock, and has
// appended the pending changes.
func (c *Cache) rewrite() error {
	merged, err := writeFile(c.path, c.entries, c.removed, c.store) // they change only under diskMu
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.entries, c.removed = merged.entries, merged.removed
	c.mu.Unlock()
	closeFile(c.file)
	c.file, c.stamp, c.fileEntries = merged.file, merged.stamp, len(merged.entries)

	if len(c.badLines) > 0 {
		lines, err := c.readSpans(c.badLines)
		if err != nil {
			return fmt.Errorf("read unreadable journal lines: %w", err)
		}
		backup, err := saveAside(c.journalPath, "corrupt", lines)
		if err != nil {
			return fmt.Errorf("save unreadable journal lines: %w", err)
		}
		c.warn(fmt.Sprintf("%d unreadable line(s) of cache journal %s were saved to %s", len(c.badLines), c.journalPath, backup))
	}
	if err := os.Remove(c.journalPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove merged journal: %w", err)
	}
	c.closeJournal()
	return nil
}

// Clear deletes the cache file and the journal (for a fresh run) and
// forgets every entry.
func (c *Cache) Clear() error {
	c.diskMu.Lock()
	defer c.diskMu.Unlock()
	if c.closed {
		return fmt.Errorf("clear cache %s: %w", c.path, errClosed)
	}
	unlock, err := lockFile(c.lockPath)
	if err != nil {
		return fmt.Errorf("clear cache: %w", err)
	}
	defer unlock()
	for _, name := range []string{c.path, c.journalPath} {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("clear cache: %w", err)
		}
	}
	c.useFile(fileVersion{})
	return nil
}

// refresh brings entries up to date with the disk; the caller holds
// diskMu and the file lock. Lines appended by others are read
// incrementally; after another process rewrote the cache file or replaced
// the journal, both are read again.
func (c *Cache) refresh() error {
	if unchangedSince(c.path, c.stamp) {
		err := c.readJournal()
		if !errors.Is(err, errJournalReplaced) {
			return err
		}
	}
	return c.reload()
}

// reload reads the cache file and the whole journal; the caller holds the
// file lock.
func (c *Cache) reload() error {
	version, err := c.load()
	if err != nil {
		return err
	}
	c.useFile(version)
	return c.readJournal()
}

// useFile replaces the entries with those of the cache file version, no
// journal read yet, and closes the files read before; the caller holds
// diskMu.
func (c *Cache) useFile(version fileVersion) {
	c.mu.Lock()
	c.entries, c.removed = version.entries, version.removed
	if c.entries == nil {
		c.entries = map[string]location{}
	}
	if c.removed == nil {
		c.removed = map[string]removal{}
	}
	c.mu.Unlock()
	closeFile(c.file)
	c.closeJournal()
	c.file, c.stamp, c.fileEntries = version.file, version.stamp, len(version.entries)
}

// release closes the files of a Cache that is given up without a
// compaction.
func (c *Cache) release() {
	c.diskMu.Lock()
	defer c.diskMu.Unlock()
	c.useFile(fileVersion{})
}

// load opens and indexes the cache file; the caller holds the file lock.
// A file that cannot be used is moved aside with a warning and reads as
// empty.
func (c *Cache) load() (fileVersion, error) {
	f, err := os.Open(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileVersion{}, nil
	}
	if err != nil {
		return c.setAside("corrupt", fmt.Sprintf("cannot be read (%v)", err))
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%s)", info.Mode().Type())
	}
	if err != nil {
		f.Close()
		return c.setAside("corrupt", fmt.Sprintf("cannot be read (%v)", err))
	}
	idx, err := indexFile(f)
	if err != nil {
		f.Close()
		return c.setAside("corrupt", fmt.Sprintf("is not a valid cache file (%v)", err))
	}
	version := 0
	if idx.version != nil {
		version = *idx.version
	}
	if version == formatWhole {
		for key, at := range idx.entries {
			at.whole = true
			idx.entries[key] = at
		}
	} else if version != FormatVersion {
		f.Close()
		reason := fmt.Sprintf("has format version %d, not %d or %d", version, formatWhole, FormatVersion)
		if idx.version == nil {
			reason = "has no format version (an older or foreign cache file)"
		}
		return c.setAside(fmt.Sprintf("v%d", version), reason)
	}
	stamp := fileStamp{exists: true, size: info.Size(), modTime: info.ModTime(), revision: idx.revision}
	return fileVersion{file: f, entries: idx.entries, removed: idx.removed, stamp: stamp}, nil
}

// setAside moves the unusable cache file away, records a warning naming
// the backup and returns an empty cache.
func (c *Cache) setAside(tag, reason string) (fileVersion, error) {
	backup, err := moveAside(c.path, tag)
	if err != nil {
		return fileVersion{}, fmt.Errorf("cache file %s %s and cannot be moved aside: %w", c.path, reason, err)
	}
	c.warn(fmt.Sprintf("cache file %s %s; moved it to %s and started an empty cache", c.path, reason, backup))
	return fileVersion{}, nil
}

func (c *Cache) warn(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.warnings = append(c.warnings, msg)
}

// settle forgets the pending changes that are now on disk, keeping those
// a later Put replaced meanwhile; the caller holds mu.
func (c *Cache) settle(written map[string]change) {
	for key, ch := range written {
		if c.pending[key].seq == ch.seq {
			delete(c.pending, key)
		}
	}
}
