package report

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/mcpeval/mcpeval/internal/htmlreport"
	"github.com/mcpeval/mcpeval/internal/junit"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/runs"
)

// Run is an evaluation run read for its report: its records joined with
// its tests' events, case by case.
type Run struct {
	data *rundata.Data
}

// Read reads the run in the directory dir and the go test -json output of
// the test binaries that ran it: one stream, or one per shard; none for the
// records alone. A stream with a Name method (an
// *os.File) is named by it in the report's problems.
//
// A file of dir that is missing is left out, and a line or a file that
// cannot be read is shown among the report's problems, above the cases.
// Read fails when a stream cannot be read, or when there is no case to
// report: no case test in the streams and no record in dir.
func Read(dir string, testJSON ...io.Reader) (*Run, error) {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // a link such as evaltest/out/latest: the run it names
	}
	streams := make([]rundata.Stream, len(testJSON))
	for i, r := range testJSON {
		streams[i] = rundata.Stream{Name: fmt.Sprintf("go test -json stream %d", i+1), R: r}
		if named, ok := r.(interface{ Name() string }); ok {
			streams[i].Name = named.Name()
		}
	}
	d, err := rundata.LoadLean(dir, streams)
	if err != nil {
		return nil, err
	}
	if parent := runs.Parent(dir); parent != "" {
		d.History = rundata.History(parent, d.Run)
	}
	return &Run{data: d}, nil
}

// WriteHTML writes the run's report as one self-contained HTML page.
func (r *Run) WriteHTML(w io.Writer) error {
	return htmlreport.Write(w, r.data)
}

// WriteJUnit writes the run as JUnit XML, as Jenkins, GitLab and GitHub
// read it: a testsuite per category, a testcase per case (its repeats
// together). The case files inside root (the module's root) are named
// relative to it, as CI annotations expect; with root "" they keep the
// paths the records give.
func (r *Run) WriteJUnit(w io.Writer, root string) error {
	return junit.Write(w, r.data, root)
}
