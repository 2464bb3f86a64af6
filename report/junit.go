package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// junitSuites mirrors the JUnit XML that gotestsum writes, keeping every
// element and attribute it uses so that a rewrite loses nothing.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Attrs   []xml.Attr   `xml:",any,attr"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Attrs      []xml.Attr  `xml:",any,attr"`
	Properties *junitProps `xml:"properties,omitempty"`
	Cases      []junitCase `xml:"testcase"`
	SystemOut  *junitText  `xml:"system-out,omitempty"`
}

type junitProps struct {
	Props []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"property"`
}

type junitCase struct {
	Classname  string        `xml:"classname,attr"`
	Name       string        `xml:"name,attr"`
	Time       string        `xml:"time,attr"`
	Properties *junitProps   `xml:"properties,omitempty"`
	Skipped    *junitMessage `xml:"skipped,omitempty"`
	Failure    *junitMessage `xml:"failure,omitempty"`
}

type junitMessage struct {
	Message  string `xml:"message,attr"`
	Type     string `xml:"type,attr,omitempty"`
	Contents string `xml:",chardata"`
}

type junitText struct {
	Contents string `xml:",chardata"`
}

// maxJUnitMessage bounds the failure message attribute; the full output
// stays in the failure's text.
const maxJUnitMessage = 1000

// AnnotateJUnit copies a JUnit XML file from r to w, setting the failure
// message of every failed eval case to its status, verdict and reason
// ("fail (judge: no): the answer names the wrong gene") and its type to the
// status, so CI pages show why a case failed without opening its output.
func AnnotateJUnit(r io.Reader, w io.Writer, d *Data) error {
	var doc junitSuites
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return fmt.Errorf("read JUnit XML: %w", err)
	}
	// A test run N times (go test -count=N) is N cases, and N test cases in
	// the file; gotestsum lists the failed ones first, in the order they
	// ran, so the k-th failure of a test is its k-th failed run.
	lastByTest := map[string]*Case{}
	failedByTest := map[string][]*Case{}
	for i := range d.Cases {
		c := &d.Cases[i]
		if c.Test == "" {
			continue
		}
		lastByTest[c.Test] = c
		if c.Event.Action == "fail" {
			failedByTest[c.Test] = append(failedByTest[c.Test], c)
		}
	}
	failures := map[string]int{}
	for i := range doc.Suites {
		for j := range doc.Suites[i].Cases {
			tc := &doc.Suites[i].Cases[j]
			c, ok := lastByTest[tc.Name]
			if !ok || tc.Failure == nil {
				continue
			}
			if k := failures[tc.Name]; k < len(failedByTest[tc.Name]) {
				c = failedByTest[tc.Name][k]
			}
			failures[tc.Name]++
			tc.Failure.Message = failureMessage(c)
			tc.Failure.Type = string(c.Status)
		}
	}
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

func failureMessage(c *Case) string {
	head := string(c.Status)
	if c.Record != nil && c.Record.Verdict != "" {
		head += " (judge: " + c.Record.Verdict + ")"
	}
	msg := head + ": " + strings.Join(strings.Fields(c.Reason), " ")
	if r := []rune(msg); len(r) > maxJUnitMessage {
		msg = string(r[:maxJUnitMessage]) + "…"
	}
	return msg
}
