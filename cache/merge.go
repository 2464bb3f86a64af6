package cache

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpeval/mcpeval/internal/recordings"
)

// MergeInput is one cache a merge read.
type MergeInput struct {
	Path    string // the cache file, as given to Merge
	Entries int    // stored results
	Removed int    // remembered removals
	// Warnings are what opening it reported (unreadable journal lines).
	Warnings []string
}

// MergeResult says what Merge did.
type MergeResult struct {
	// Inputs are the caches read, in the order given.
	Inputs []MergeInput
	// Entries and Removed count what the merged cache holds.
	Entries, Removed int
	// Conflicts counts the keys the inputs disagree on, each settled by
	// the latest outcome.
	Conflicts int
}

// Merge combines the caches at inputs (each a cache file and its journal,
// as Open reads them) into the cache file out, by the rule one cache
// follows within a run: for each key the latest outcome wins, a stored
// result (a pass or a token-limit result) by when it was stored, a
// removal (a fail) by when it was removed. So the shards of a run, each
// started from the same cache, merge into what one process running every
// case would have left, and a fail in one shard is not undone by the
// older pass another shard carried along.
//
// Every input must have this package's FormatVersion, or version 1 (an
// input of version 1 is upgraded in place, as Open does); otherwise Merge
// fails, naming each input's version, and writes nothing. The whole
// records of the entries kept are copied into the recordings store beside
// out. out may be one
// of the inputs, even a cache a run is writing to: out is read, written
// and its journal removed under one hold of its lock, so that no line a
// run appends meanwhile is removed unread. A cache at out that is not an
// input is refused rather than overwritten.
func Merge(out string, inputs []string) (MergeResult, error) {
	var res MergeResult
	if len(inputs) == 0 {
		return res, errors.New("merge caches: no input")
	}
	if err := checkVersions(inputs); err != nil {
		return res, err
	}
	outIsInput := false
	for _, in := range inputs {
		outIsInput = outIsInput || samePath(in, out)
	}
	if !outIsInput && (exists(out) || exists(out+journalSuffix)) {
		return res, fmt.Errorf("merge caches: %s exists and is not an input: name it as an input to merge into it, or remove it", out)
	}

	type winner struct {
		at      time.Time
		entry   *location // nil for a removal
		removal removal
		// input is the index of the input the entry is from, and
		// fingerprint names its whole record there ("" when whole).
		input       int
		fingerprint string
	}
	winners := map[string]winner{}
	conflicts := map[string]bool{}
	// offer lets an outcome of key win when it is later than the winner
	// so far; at the same time a stored result wins.
	offer := func(key string, w winner) {
		best, ok := winners[key]
		if ok && !best.at.Equal(w.at) {
			conflicts[key] = true
		}
		if !ok || w.at.After(best.at) || (w.at.Equal(best.at) && best.entry == nil && w.entry != nil) {
			winners[key] = w
		}
	}
	// out is read, written and its journal removed under one hold of its
	// lock: a run appending to it meanwhile waits, and none of its lines
	// is removed unread. The other inputs are read first, each under its
	// own lock, so that no two locks are held at once.
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return res, fmt.Errorf("merge caches: %w", err)
	}
	opened := make([]*Cache, len(inputs))
	readInputs := func(readOut bool) error {
		for i, path := range inputs {
			if samePath(path, out) != readOut {
				continue
			}
			var c *Cache
			var err error
			if readOut {
				c, err = openUnderLock(path)
			} else {
				c, err = Open(path)
			}
			if err != nil {
				return fmt.Errorf("merge caches: %w", err)
			}
			opened[i] = c
		}
		return nil
	}
	defer func() {
		for _, c := range opened {
			if c != nil {
				c.release() // writeFile read the entries from its files
			}
		}
	}()
	if err := readInputs(false); err != nil {
		return res, err
	}
	unlock, err := lockFile(out + ".lock")
	if err != nil {
		return res, fmt.Errorf("merge caches: %w", err)
	}
	defer unlock()
	if err := readInputs(true); err != nil {
		return res, err
	}
	for i, path := range inputs {
		c := opened[i]
		res.Inputs = append(res.Inputs, MergeInput{Path: path, Entries: len(c.entries), Removed: len(c.removed), Warnings: c.Warnings()})
		for key, at := range c.entries {
			stored, fp, err := storedAt(at)
			if err != nil {
				return res, fmt.Errorf("merge caches: entry %s of %s: %w", key, path, err)
			}
			offer(key, winner{at: stored, entry: &at, input: i, fingerprint: fp})
		}
		for key, r := range c.removed {
			offer(key, winner{at: r.At, removal: r})
		}
	}
	res.Conflicts = len(conflicts)

	// The whole records of the entries kept go to the recordings store
	// beside out, from the store beside their input.
	store, err := recordings.Open(recordings.DirBeside(out))
	if err != nil {
		return res, fmt.Errorf("merge caches: %w", err)
	}
	defer store.Close()
	entries, removed := map[string]location{}, map[string]removal{}
	for key, w := range winners {
		if w.entry == nil {
			removed[key] = w.removal
			continue
		}
		entries[key] = *w.entry
		if w.fingerprint == "" || opened[w.input].store.Dir() == store.Dir() || store.Has(w.fingerprint) {
			continue
		}
		data, ok, err := opened[w.input].store.Bytes(w.fingerprint)
		if err == nil && !ok {
			err = fmt.Errorf("%s does not hold it", opened[w.input].store.Dir())
		}
		if err != nil {
			in := &res.Inputs[w.input]
			in.Warnings = append(in.Warnings, fmt.Sprintf("the whole record of entry %s cannot be read (%v): the merged cache keeps its outcome without its texts", key, err))
			continue
		}
		if _, err := store.PutUncompressed(string(data)); err != nil {
			return res, fmt.Errorf("merge caches: %w", err)
		}
	}
	written, err := writeFile(out, entries, removed, store)
	if err != nil {
		return res, fmt.Errorf("merge caches into %s: %w", out, err)
	}
	closeFile(written.file)
	if err := os.Remove(out + journalSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("merge caches: remove the merged journal: %w", err)
	}
	res.Entries, res.Removed = len(written.entries), len(written.removed)
	return res, nil
}

// storedAt reads when the entry at a location was stored, and the
// fingerprint of its whole record ("" in an entry of format version 1).
func storedAt(at location) (time.Time, string, error) {
	data, err := at.read(nil)
	if err != nil {
		return time.Time{}, "", err
	}
	var e struct {
		StoredAt          time.Time `json:"stored_at"`
		RecordFingerprint string    `json:"record_fingerprint"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return time.Time{}, "", err
	}
	return e.StoredAt, e.RecordFingerprint, nil
}

// checkVersions fails unless every input's cache file and journal lines
// have FormatVersion or version 1, naming each input's version(s). It
// only reads.
func checkVersions(inputs []string) error {
	var lines []string
	mismatch := false
	for _, path := range inputs {
		versions, err := versionsOf(path)
		if err != nil {
			return fmt.Errorf("merge caches: %w", err)
		}
		var desc []string
		for _, v := range versions {
			desc = append(desc, v.String())
			mismatch = mismatch || (v.version != FormatVersion && v.version != formatWhole)
		}
		lines = append(lines, fmt.Sprintf("%s has %s", path, strings.Join(desc, " and ")))
	}
	if mismatch {
		return fmt.Errorf("cannot merge caches of other format versions (this mcpeval reads versions %d and %d and writes version %d): %s", formatWhole, FormatVersion, FormatVersion, strings.Join(lines, "; "))
	}
	return nil
}

// fileVersionOf is the format version of one file of a cache.
type fileVersionOf struct {
	file    string
	version int
	none    bool // the file has no version field
}

func (v fileVersionOf) String() string {
	if v.none {
		return fmt.Sprintf("no format version in %s (an older or foreign cache file)", v.file)
	}
	return fmt.Sprintf("format version %d in %s", v.version, v.file)
}

// versionsOf returns the format versions of the cache at path: its file's
// and those of its journal's lines. A cache with neither file is an error.
func versionsOf(path string) ([]fileVersionOf, error) {
	var out []fileVersionOf
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		idx, err := indexFile(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s is not a cache file: %v", path, err)
		}
		v := fileVersionOf{file: filepath.Base(path), none: idx.version == nil}
		if idx.version != nil {
			v.version = *idx.version
		}
		out = append(out, v)
	}
	j, err := os.Open(path + journalSuffix)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if len(out) == 0 {
			return nil, fmt.Errorf("no cache at %s: neither the file nor its journal exists", path)
		}
		return out, nil
	case err != nil:
		return nil, err
	}
	defer j.Close()
	seen := map[int]bool{}
	lines := bufio.NewScanner(j)
	lines.Buffer(make([]byte, 0, 64<<10), 1<<30)
	for lines.Scan() {
		var rec struct {
			Version int `json:"version"`
		}
		if json.Unmarshal(lines.Bytes(), &rec) == nil && !seen[rec.Version] {
			seen[rec.Version] = true
			out = append(out, fileVersionOf{file: filepath.Base(path) + journalSuffix, version: rec.Version})
		}
	}
	return out, lines.Err()
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func samePath(a, b string) bool {
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(ia, ib)
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}
