// Package cache keeps the results of finished evaluation cases in a JSON
// file so that a later run reuses them instead of paying for them again.
//
// What is stored: a case that passed or hit the token limit
// ([ShouldStore]). Storing any other outcome (a fail or an error) removes
// the older entry for that key instead, so the file never claims a pass
// that the latest run contradicted. [Cache.Get] returns only such
// reusable entries.
//
// Keys: [Key] hashes everything that can change a case's outcome (see its
// documentation for the exact list); a change to any of it is a miss.
//
// The file (by default [DefaultPath]) is pretty-printed JSON:
//
//	{
//	  "version": 1,
//	  "revision": "<random, changes on every write>",
//	  "entries": {
//	    "<key>": {"name": ..., "stored_at": ..., "record": {...}}
//	  }
//	}
//
// A file with another "version" (or none, like the file of the original
// Python tool) is not read: it is renamed to "<path>.v<N>-<timestamp>" and
// an empty cache starts. A file that cannot be read or parsed is renamed to
// "<path>.corrupt-<timestamp>". Either way [Cache.Warnings] names the
// backup; nothing is silently emptied.
//
// Durability and sharing: [Cache.Put] returns once the entry is on disk
// (written to a temporary file, synced and renamed over the cache file),
// so a run stopped by a timeout, Ctrl-C or a crash keeps every result it
// stored. Puts from many goroutines that arrive while a write is running
// are written together by the next write. Processes sharing the file
// serialise on an exclusive flock of "<path>.lock" and merge: each write
// re-reads the file if another process changed it, so no process's entry
// is lost. (Without flock, on systems other than Linux, macOS and the BSDs,
// only goroutines of one process are coordinated.)
package cache

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/mcpeval/mcpeval/result"
)

// DefaultPath is the cache file's path relative to the module root.
const DefaultPath = "evaltest/.cache/test_results_cache.json"

// ShouldStore reports whether a finished case's record belongs in the
// cache: a pass or a token-limit result of a real model run. Fails and
// errors are run again next time; records of the reference agent are not
// model results and are never stored.
func ShouldStore(r result.Record) bool {
	return !r.Reference && (r.Status == result.Pass || r.Status == result.TokenLimit)
}

// Cache is an open cache file. Its methods are safe for concurrent use.
type Cache struct {
	path     string
	lockPath string

	// writeMu serialises the writes (and Clear) of this process.
	writeMu sync.Mutex

	mu sync.Mutex // guards the fields below
	// view is what Get consults: the file as last read or written, with
	// every Put applied.
	view map[string][]byte
	// onDisk holds the entries of the file as last read or written, and
	// stamp identifies that version of the file.
	onDisk map[string][]byte
	stamp  fileStamp
	// pending collects the Puts that no write has taken yet.
	pending  *batch
	warnings []string
}

// batch is a set of Puts written together. A nil value removes its key.
type batch struct {
	changes map[string][]byte
	written bool  // guarded by Cache.writeMu
	err     error // the write's outcome, set before written
}

// Open opens the cache file at path, creating its directory if needed. A
// missing file is an empty cache. A corrupt file or one of another format
// version is moved aside (see the package documentation) and reported by
// Warnings; Open fails only when the file cannot be read, moved or locked.
func Open(path string) (*Cache, error) {
	c := &Cache{path: path, lockPath: path + ".lock"}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open cache %s: %w", path, err)
	}
	unlock, err := lockFile(c.lockPath)
	if err != nil {
		return nil, fmt.Errorf("open cache %s: %w", path, err)
	}
	defer unlock()
	removeStaleTemps(path)
	entries, stamp, err := c.load()
	if err != nil {
		return nil, fmt.Errorf("open cache: %w", err)
	}
	c.onDisk, c.stamp, c.view = entries, stamp, maps.Clone(entries)
	return c, nil
}

// Path returns the cache file's path.
func (c *Cache) Path() string { return c.path }

// Warnings returns what went wrong without stopping the cache so far: a
// file moved aside (naming the backup) or an entry that could not be read.
func (c *Cache) Warnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.warnings)
}

// Get returns the stored record for key if it can be reused (see
// ShouldStore), with Cached set to true. It consults the file as this Cache
// last read or wrote it, plus its own Puts; it never reads the disk.
func (c *Cache) Get(key string) (result.Record, bool) {
	c.mu.Lock()
	raw, ok := c.view[key]
	c.mu.Unlock()
	if !ok {
		return result.Record{}, false
	}
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		c.warn(fmt.Sprintf("cache entry %s in %s cannot be read (%v); the case runs again", key, c.path, err))
		return result.Record{}, false
	}
	if !ShouldStore(e.Record) {
		return result.Record{}, false
	}
	e.Record.Cached = true
	return e.Record, true
}

// Put records the outcome of the case run identified by key and returns
// once the file on disk reflects it. A record that ShouldStore accepts is
// stored (with Cached false); any other record removes the key's entry.
// When the write fails, Put returns the error and the next Put's write
// carries the change again.
func (c *Cache) Put(key string, r result.Record) error {
	if key == "" {
		return errors.New("cache put: empty key")
	}
	var raw []byte
	if ShouldStore(r) {
		r.Cached = false
		encoded, err := encodeEntry(entry{Name: r.Name, StoredAt: time.Now().UTC(), Record: r})
		if err != nil {
			return fmt.Errorf("cache put %q: %w", r.Name, err)
		}
		raw = encoded
	}

	c.mu.Lock()
	if raw == nil {
		delete(c.view, key)
	} else {
		c.view[key] = raw
	}
	if c.pending == nil {
		c.pending = &batch{changes: make(map[string][]byte)}
	}
	b := c.pending
	b.changes[key] = raw
	c.mu.Unlock()

	if err := c.commit(b); err != nil {
		return fmt.Errorf("cache put %q: %w", r.Name, err)
	}
	return nil
}

// commit waits until batch b is written, writing it (together with every
// Put that joined it meanwhile) unless another goroutine already did.
func (c *Cache) commit(b *batch) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if b.written {
		return b.err
	}
	// b is still c.pending: only a holder of writeMu takes a batch.
	c.mu.Lock()
	c.pending = nil
	c.mu.Unlock()
	b.err = c.write(b.changes)
	b.written = true
	if b.err != nil {
		c.requeue(b.changes)
	}
	return b.err
}

// requeue puts the changes of a failed write back into the pending batch,
// behind any newer Put of the same key, so the next write carries them.
func (c *Cache) requeue(changes map[string][]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = &batch{changes: make(map[string][]byte)}
	}
	for key, raw := range changes {
		if _, newer := c.pending.changes[key]; !newer {
			c.pending.changes[key] = raw
		}
	}
}

// write applies changes to the file under the file lock, merging in what
// other processes wrote since this Cache last read or wrote the file.
func (c *Cache) write(changes map[string][]byte) error {
	unlock, err := lockFile(c.lockPath)
	if err != nil {
		return err
	}
	defer unlock()

	c.mu.Lock()
	base, stamp := c.onDisk, c.stamp
	c.mu.Unlock()
	changedElsewhere := !unchangedSince(c.path, stamp)
	if changedElsewhere {
		if base, stamp, err = c.load(); err != nil {
			return err
		}
	}

	next := maps.Clone(base)
	modified := false
	for key, raw := range changes {
		if raw != nil {
			next[key] = raw
			modified = true
		} else if _, ok := next[key]; ok {
			delete(next, key)
			modified = true
		}
	}
	if modified {
		if stamp, err = writeFile(c.path, next); err != nil {
			return err
		}
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	c.onDisk, c.stamp = next, stamp
	if changedElsewhere {
		c.view = maps.Clone(next)
		if c.pending != nil {
			apply(c.view, c.pending.changes)
		}
	}
	return nil
}

// Clear removes the cache file (for a fresh run) and forgets every entry.
func (c *Cache) Clear() error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	unlock, err := lockFile(c.lockPath)
	if err != nil {
		return fmt.Errorf("clear cache: %w", err)
	}
	defer unlock()
	if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear cache: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onDisk, c.stamp, c.view = map[string][]byte{}, fileStamp{}, map[string][]byte{}
	if c.pending != nil {
		apply(c.view, c.pending.changes)
	}
	return nil
}

// load reads the file's entries; the caller holds the file lock. A file
// that cannot be used is moved aside with a warning and reads as empty.
func (c *Cache) load() (map[string][]byte, fileStamp, error) {
	data, info, err := readFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string][]byte{}, fileStamp{}, nil
	}
	if err != nil {
		return c.setAside("corrupt", fmt.Sprintf("cannot be read (%v)", err))
	}
	var doc fileDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return c.setAside("corrupt", fmt.Sprintf("is not a valid cache file (%v)", err))
	}
	version := 0
	if doc.Version != nil {
		version = *doc.Version
	}
	if version != FormatVersion {
		reason := fmt.Sprintf("has format version %d, not %d", version, FormatVersion)
		if doc.Version == nil {
			reason = "has no format version (an older or foreign cache file)"
		}
		return c.setAside(fmt.Sprintf("v%d", version), reason)
	}
	entries := make(map[string][]byte, len(doc.Entries))
	for key, raw := range doc.Entries {
		entries[key] = raw
	}
	stamp := fileStamp{exists: true, size: info.Size(), modTime: info.ModTime(), revision: doc.Revision}
	return entries, stamp, nil
}

// setAside moves the unusable file away, records a warning naming the
// backup and returns an empty cache.
func (c *Cache) setAside(tag, reason string) (map[string][]byte, fileStamp, error) {
	backup, err := moveAside(c.path, tag)
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("cache file %s %s and cannot be moved aside: %w", c.path, reason, err)
	}
	c.warn(fmt.Sprintf("cache file %s %s; moved it to %s and started an empty cache", c.path, reason, backup))
	return map[string][]byte{}, fileStamp{}, nil
}

func (c *Cache) warn(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.warnings = append(c.warnings, msg)
}

// apply applies a batch's changes to entries.
func apply(entries, changes map[string][]byte) {
	for key, raw := range changes {
		if raw == nil {
			delete(entries, key)
		} else {
			entries[key] = raw
		}
	}
}
