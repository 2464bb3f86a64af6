package recordings

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/mcpeval/mcpeval/internal/files"
)

// Register adds the output directory out (absolute) to those whose runs
// write to the store, unless it is listed already.
func (s *Store) Register(out string) error {
	out, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("recordings: %w", err)
	}
	unlock, err := lockedfile.MutexAt(s.path(lockName)).Lock()
	if err != nil {
		return fmt.Errorf("recordings: lock: %w", err)
	}
	defer unlock()
	listed, err := s.Outputs()
	if err != nil || slices.Contains(listed, out) {
		return err
	}
	f, err := os.OpenFile(s.path(outputsName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("recordings: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString(out + "\n"); err != nil {
		return fmt.Errorf("recordings: %w", err)
	}
	return nil
}

// Outputs returns the output directories whose runs wrote to the store.
func (s *Store) Outputs() ([]string, error) {
	data, err := os.ReadFile(s.path(outputsName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("recordings: %w", err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !slices.Contains(out, line) {
			out = append(out, line)
		}
	}
	return out, nil
}

// forgetGoneOutputs drops from the output directories those that are
// gone (deleted, or the attribution runs of a comparison cleaned up); the
// caller holds the lock.
func (s *Store) forgetGoneOutputs() error {
	listed, err := s.Outputs()
	if err != nil {
		return err
	}
	var kept []string
	for _, out := range listed {
		if _, err := os.Stat(out); err == nil {
			kept = append(kept, out+"\n")
		}
	}
	if len(kept) == len(listed) {
		return nil
	}
	return files.WriteAtomic(s.path(outputsName), 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, strings.Join(kept, ""))
		return err
	})
}

// fingerprintField matches a record's result fingerprint, or a cache
// entry's fingerprint of its whole record, in compact or indented JSON.
var fingerprintField = regexp.MustCompile(`"(?:result|record)_fingerprint":\s*"([0-9a-f]{64})"`)

// Referenced adds to refs every fingerprint named in the files at paths
// (results.jsonl files, the cache file and its journal): of tool results,
// and of the whole records of cache entries; a path that does not exist
// names none.
func Referenced(refs map[string]bool, paths ...string) error {
	for _, path := range paths {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("recordings: %w", err)
		}
		err = scanFingerprints(f, refs)
		f.Close()
		if err != nil {
			return fmt.Errorf("recordings: read %s: %w", path, err)
		}
	}
	return nil
}

// scanFingerprints adds the fingerprints r names to refs, reading it in
// chunks whose ends overlap by more than a field's length.
func scanFingerprints(r io.Reader, refs map[string]bool) error {
	const overlap = 128
	br := bufio.NewReaderSize(r, 1<<20)
	buf := make([]byte, 0, 1<<20+overlap)
	chunk := make([]byte, 1<<20)
	for {
		n, err := io.ReadFull(br, chunk)
		buf = append(buf, chunk[:n]...)
		for _, m := range fingerprintField.FindAllSubmatch(buf, -1) {
			refs[string(m[1])] = true
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil
			}
			return err
		}
		if len(buf) > overlap {
			buf = append(buf[:0], buf[len(buf)-overlap:]...)
		}
	}
}

// Pruned says what Prune did.
type Pruned struct {
	Kept, Removed           int
	BytesBefore, BytesAfter int64
}

// Prune rewrites the pack with the results whose fingerprints keep holds,
// and drops the others. The pack is replaced whole: a prune cut short
// leaves it as it was.
func (s *Store) Prune(keep map[string]bool) (Pruned, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := lockedfile.MutexAt(s.path(lockName)).Lock()
	if err != nil {
		return Pruned{}, fmt.Errorf("recordings: lock: %w", err)
	}
	defer unlock()
	if err := s.forgetGoneOutputs(); err != nil {
		return Pruned{}, err
	}
	if err := s.reopen(); err != nil {
		return Pruned{}, err
	}
	p := Pruned{BytesBefore: s.end}
	if s.pack == nil {
		return p, nil
	}
	type kept struct {
		fp string
		e  entry
	}
	var list []kept
	for fp, e := range s.index {
		if keep[fp] {
			list = append(list, kept{fp, e})
			p.Kept++
		} else {
			p.Removed++
		}
	}
	if p.Removed == 0 {
		p.BytesAfter = p.BytesBefore
		return p, nil
	}
	slices.SortFunc(list, func(a, b kept) int { return int(a.e.at - b.e.at) }) // in the order written
	err = files.WriteAtomic(s.path(packName), 0o644, func(w io.Writer) error {
		for _, k := range list {
			if err := writeEntry(w, k.fp, k.e.flate, k.e.size, io.NewSectionReader(s.pack, k.e.at, k.e.size)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return p, fmt.Errorf("recordings: prune: %w", err)
	}
	if err := s.reopen(); err != nil {
		return p, err
	}
	p.BytesAfter = s.end
	return p, nil
}
