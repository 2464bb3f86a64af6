// Package junit writes a run as JUnit XML, as Jenkins, GitLab and GitHub
// read it: a testsuite per category, a testcase per case.
package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/stats"
)

// JUnit XML, as Jenkins (junit-10.xsd), GitLab and GitHub reporters read it:
// one testsuite per category, one testcase per case (its repeats together;
// no testcase for the parent tests), the category as classname, the case's
// own running time and its file and line.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string      `xml:"name,attr"`
	Tests      int         `xml:"tests,attr"`
	Failures   int         `xml:"failures,attr"`
	Errors     int         `xml:"errors,attr"`
	Skipped    int         `xml:"skipped,attr"`
	Time       string      `xml:"time,attr"`
	Timestamp  string      `xml:"timestamp,attr,omitempty"`
	Properties *junitProps `xml:"properties,omitempty"`
	Cases      []junitCase `xml:"testcase"`
}

type junitProps struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      string        `xml:"line,attr,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message  string `xml:"message,attr"`
	Type     string `xml:"type,attr,omitempty"`
	Contents string `xml:",chardata"`
}

// maxJUnitMessage bounds a failure's message attribute; the full reason
// is in its text.
const maxJUnitMessage = 1000

// Write writes the run as JUnit XML. A case fails when one of its
// runs failed, errs when one errored (and none failed), and is skipped
// when all its runs were; a case run several times (go test -count=N)
// carries its pass rate, pass@k and pass^k in its output, and a flaky one
// says so in its message. With a pass-rate gate (the run's MinPassRate) a
// case fails only when its pass rate is below the gate. A case file inside
// root (the module's root, "" for none) is named relative to it, as CI
// annotations expect; one outside keeps its path.
func Write(w io.Writer, d *rundata.Data, root string) error {
	minPassRate := d.Run.MinPassRate
	doc := junitSuites{Name: "mcpeval"}
	if r := d.Run.Replay; r != nil {
		// Its tool results came from a recording, not the servers.
		doc.Name = "mcpeval (replay of run " + r.Source + ")"
	}
	index := map[string]int{}
	traces := map[string][]junitProp{} // by suite
	total := 0.0
	models := map[string]bool{}
	for _, g := range d.Groups {
		models[g.Model] = true
	}
	for _, g := range d.Groups {
		si, ok := index[g.Category]
		if !ok {
			si = len(doc.Suites)
			index[g.Category] = si
			doc.Suites = append(doc.Suites, junitSuite{Name: g.Category})
		}
		s := &doc.Suites[si]
		tc := junitTestcase(g, d.Cases, minPassRate, len(models) > 1, root)
		if flip := d.Flips[eval.CaseRun{Name: g.Name, Model: g.Model}]; flip != "" {
			for _, m := range []*junitMessage{tc.Failure, tc.Error} {
				if m != nil {
					m.Message = prose.Shorten(strings.ReplaceAll(flip, "\n", "; ")+"; "+m.Message, maxJUnitMessage) // one line
				}
			}
		}
		traces[s.Name] = append(traces[s.Name], traceProps(tc.Name, g, d.Cases)...)
		seconds := groupSeconds(g, d.Cases)
		total += seconds
		s.Tests++
		switch {
		case tc.Failure != nil:
			s.Failures++
		case tc.Error != nil:
			s.Errors++
		case tc.Skipped != nil:
			s.Skipped++
		}
		s.Time = addSeconds(s.Time, seconds)
		s.Cases = append(s.Cases, tc)
	}
	for i := range doc.Suites {
		s := &doc.Suites[i]
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		if !d.Run.Started.IsZero() {
			s.Timestamp = d.Run.Started.UTC().Format("2006-01-02T15:04:05")
		}
		if d.Run.Model != "" {
			s.Properties = &junitProps{Props: []junitProp{{Name: "model", Value: d.Run.Model}}}
		}
		// Each case run's trace: a property of the suite (the schema
		// Jenkins reads has none on a testcase), named by the testcase.
		for _, p := range traces[s.Name] {
			if s.Properties == nil {
				s.Properties = &junitProps{}
			}
			s.Properties.Props = append(s.Properties.Props, p)
		}
	}
	doc.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "\t")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// traceProps are the trace IDs of a case's runs (Record.TraceID), each a
// property named "trace_id NAME", or "trace_id NAME (run K)" for a case
// run several times.
func traceProps(name string, g rundata.Group, cases []rundata.Case) []junitProp {
	var props []junitProp
	for k, i := range g.Runs {
		r := cases[i].Record
		if r == nil || r.TraceID == "" {
			continue
		}
		p := junitProp{Name: "trace_id " + name, Value: r.TraceID}
		if len(g.Runs) > 1 {
			p.Name += fmt.Sprintf(" (run %d)", k+1)
		}
		props = append(props, p)
	}
	return props
}

// junitTestcase is the testcase of one case over its runs; when the run
// evaluated several models, its name says which.
func junitTestcase(g rundata.Group, cases []rundata.Case, minPassRate float64, named bool, root string) junitCase {
	shown := cases[g.Shown]
	tc := junitCase{Name: g.Name, Classname: g.Category, Time: seconds(groupSeconds(g, cases))}
	if named && g.Model != "" {
		tc.Name += " [" + g.Model + "]"
	}
	if r := shown.Record; r != nil && r.File != "" {
		tc.File = filepath.ToSlash(relativeTo(root, r.File))
		if r.Line > 0 {
			tc.Line = strconv.Itoa(r.Line)
		}
	}
	var out []string
	if len(g.Runs) > 1 {
		out = append(out, repeatsLine(g, cases))
	}
	out = append(out, leakLines(g, cases)...)
	if o := strings.TrimSpace(shown.Event.Output); o != "" {
		out = append(out, o)
	}
	tc.SystemOut = strings.Join(out, "\n")

	msg := junitMessage{Type: string(g.Status), Message: failureMessage(&shown), Contents: shown.Reason}
	if r := shown.Record; r != nil && len(r.Claims) > 0 {
		msg.Contents += "\n" + strings.Join(eval.ClaimLines(r.Claims), "\n")
	}
	if r := shown.Record; r != nil && len(r.Turns) > 0 {
		msg.Contents += "\n" + strings.Join(eval.TurnLines(r.Turns), "\n")
	}
	if len(g.Runs) > 1 {
		prefix := fmt.Sprintf("%d of %s passed", g.Passes, prose.Plural(g.Ran(cases), "runs"))
		if g.Flaky {
			prefix += " (flaky)"
		}
		if g.NotRun > 0 {
			prefix += fmt.Sprintf(", %d not run", g.NotRun)
		}
		msg.Message = prefix + "; " + msg.Message
	}
	gated := minPassRate > 0
	switch {
	case !rundata.Ran(g.Status):
		tc.Skipped = &junitMessage{Message: prose.OneLine(shown.Reason)}
	case gated && g.Rate(cases) >= minPassRate, g.Status == eval.Pass:
	case (g.Status == eval.Error || g.Status == eval.Cut) && !anyStatus(g, cases, eval.Fail, eval.TokenLimit),
		g.Status == eval.Undecided: // the judge could not decide: not the model's failure
		tc.Error = &msg
	default:
		tc.Failure = &msg
	}
	return tc
}

// leakLines names each turn of the case's runs whose simulated user gave
// a fact unasked (see eval.LeakLines), its run first when it ran
// several times: a leak makes a pass questionable, so a case shows it
// whatever its status.
func leakLines(g rundata.Group, cases []rundata.Case) []string {
	var out []string
	for i, ri := range g.Runs {
		r := cases[ri].Record
		if r == nil {
			continue
		}
		for _, line := range eval.LeakLines(r.Turns) {
			if len(g.Runs) > 1 {
				line = fmt.Sprintf("run %d of %d: %s", i+1, len(g.Runs), line)
			}
			out = append(out, line)
		}
	}
	return out
}

// repeatsLine describes a case's runs: "5 runs: pass rate 0.60, pass@2
// 0.90, pass^2 0.30, flaky; statuses pass fail pass error pass". The rates
// are over the runs that ran: "1 run (4 not run): pass rate 1.00; statuses
// pass not_run not_run not_run not_run".
func repeatsLine(g rundata.Group, cases []rundata.Case) string {
	var records []eval.Record
	statuses := make([]string, len(g.Runs))
	for i, ri := range g.Runs {
		statuses[i] = string(cases[ri].Status)
		if rundata.Ran(cases[ri].Status) {
			records = append(records, eval.Record{Name: g.Name, Status: cases[ri].Status, Repeat: i})
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s", prose.Plural(len(records), "runs"))
	if n := len(g.Runs) - len(records); n > 0 {
		fmt.Fprintf(&b, " (%d not run)", n)
	}
	if len(records) == 0 {
		b.WriteString("; statuses " + strings.Join(statuses, " "))
		return b.String()
	}
	r := stats.CaseResultOf(records)
	fmt.Fprintf(&b, ": pass rate %.2f", r.PassRate)
	for k := 2; k <= r.Runs; k++ {
		fmt.Fprintf(&b, ", pass@%d %.2f, pass^%d %.2f", k, r.PassAtK[k-1], k, r.PassHatK[k-1])
	}
	if r.Flaky {
		b.WriteString(", flaky")
	}
	b.WriteString("; statuses " + strings.Join(statuses, " "))
	return b.String()
}

func anyStatus(g rundata.Group, cases []rundata.Case, statuses ...eval.Status) bool {
	for _, i := range g.Runs {
		for _, s := range statuses {
			if cases[i].Status == s {
				return true
			}
		}
	}
	return false
}

// groupSeconds is the case's own running time over its runs (the record's,
// which leaves out the wait for a free slot), else the test's.
func groupSeconds(g rundata.Group, cases []rundata.Case) float64 {
	total := 0.0
	for _, i := range g.Runs {
		total += cases[i].Seconds
	}
	return total
}

func seconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }

func addSeconds(sum string, s float64) string {
	prev, _ := strconv.ParseFloat(sum, 64)
	return seconds(prev + s)
}

func failureMessage(c *rundata.Case) string {
	head := string(c.Status)
	if c.Record != nil && c.Record.Verdict != "" {
		head += " (judge: " + c.Record.Verdict + ")"
	}
	msg := head + ": " + prose.OneLine(c.Reason)
	if r := []rune(msg); len(r) > maxJUnitMessage {
		msg = string(r[:maxJUnitMessage]) + "…"
	}
	return msg
}

// relativeTo names path relative to root when it lies inside root.
func relativeTo(root, path string) string {
	if root == "" || !filepath.IsAbs(path) {
		return path
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}
