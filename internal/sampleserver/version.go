package sampleserver

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
)

// ServedVersion is the version the server gives in its serverInfo: Version
// with build metadata naming the data it answers from, its embedded fixture
// and the CSV datasets in datasetsDir ("1.0.0+data.3f9a0c21d4e7"). A run's
// cache key holds every server's version, so a change of the data re-runs
// cached cases as a change of the code does.
func ServedVersion(datasetsDir string) string {
	h := sha256.New()
	hashFiles(h, "fixture", dataFS, "data/*.json")
	if datasetsDir == "" {
		fmt.Fprintf(h, "datasets: none\n")
	} else {
		hashFiles(h, "datasets", os.DirFS(datasetsDir), "*.csv")
	}
	return Version + "+data." + hex.EncodeToString(h.Sum(nil))[:12]
}

// hashFiles adds the names, sizes and contents of the files of fsys
// matching pattern to h, in name order; a file that cannot be read adds
// its error instead, so that it too changes the sum.
func hashFiles(h hash.Hash, label string, fsys fs.FS, pattern string) {
	names, err := fs.Glob(fsys, pattern)
	if err != nil {
		fmt.Fprintf(h, "%s: %v\n", label, err)
		return
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(h, "%s/%s\n", label, path.Base(name))
		f, err := fsys.Open(name)
		if err != nil {
			fmt.Fprintf(h, "error: %v\n", err)
			continue
		}
		n, err := io.Copy(h, f)
		f.Close()
		fmt.Fprintf(h, "\n%d bytes, error: %v\n", n, err)
	}
}
