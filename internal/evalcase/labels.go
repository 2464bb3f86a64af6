package evalcase

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/yamlbound"
)

// Label files hold labelled answers (eval.Label): a YAML list of maps
//
//	- case: "CADD phred score"          # optional: the case it answers
//	  question: "What is the CADD phred score ...?"
//	  expected: "CADD phred score is 8.103."
//	  answer: "The CADD score is 81.03."
//	  verdict: "no"
//	  why: "the right digits in the wrong number"
//	  kind: "wrong number"              # optional
//
// or a map that declares where the labels come from, with the list under
// labels:
//
//	provenance: blind                   # or beside-the-checks
//	author: "who wrote them"            # required for blind
//	commit: c14a7a2                     # the commit they were written against; required for blind
//	set: blind-1                        # the set every label belongs to (optional)
//	spent: "defects fixed at 5f1dcc2"   # a blind set tuned on since: its figures measure nothing
//	labels:
//	  - case: ...
//
// Blind labels were written by someone who had not read the grading code,
// and are never tuned on: only their figures say how far the verdicts can
// be trusted. A list without the declaration is beside-the-checks.
//
// Their names end in .labels.yaml (or .labels.yml), so that they can sit
// beside case files, which never load them as cases.

// IsLabelFile reports whether path names a label file.
func IsLabelFile(path string) bool {
	base := strings.ToLower(filepath.Base(path))
	return strings.HasSuffix(base, ".labels.yaml") || strings.HasSuffix(base, ".labels.yml")
}

func isYAML(path string) bool {
	return strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")
}

// LabelFiles returns the label files of path: path itself when it is a
// file, or every label file below a directory, in lexical order. A path
// that does not exist has none.
func LabelFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("load labels: %w", err)
	case !info.IsDir():
		return []string{path}, nil
	}
	files, err := filesUnder(path, IsLabelFile)
	if err != nil {
		return nil, fmt.Errorf("load labels from %s: %w", path, err)
	}
	return files, nil
}

// LabelsBeside returns the label files that belong to a case path: those
// below a case directory, or for a case file "x.yaml" the file
// "x.labels.yaml" beside it when it exists.
func LabelsBeside(casePath string) ([]string, error) {
	info, err := os.Stat(casePath)
	if err != nil {
		return nil, fmt.Errorf("load labels: %w", err)
	}
	if info.IsDir() {
		return LabelFiles(casePath)
	}
	ext := filepath.Ext(casePath)
	beside := strings.TrimSuffix(casePath, ext) + ".labels" + ext
	if _, err := os.Stat(beside); err != nil {
		return nil, nil
	}
	return []string{beside}, nil
}

// LoadLabels loads the labelled answers of the given label files. Decoding
// is strict, like that of case files: every problem is an error naming the
// file and line.
func LoadLabels(files []string) ([]eval.Label, error) {
	var all []eval.Label
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("load labels: %w", err)
		}
		labels, err := ParseLabels(f, data)
		if err != nil {
			return nil, err
		}
		all = append(all, labels...)
	}
	return all, nil
}

// labelFile is a label file that declares its provenance.
type labelFile struct {
	Provenance string       `yaml:"provenance"`
	Author     string       `yaml:"author"`
	Commit     string       `yaml:"commit"`
	Set        string       `yaml:"set"`
	Spent      string       `yaml:"spent"`
	Labels     []eval.Label `yaml:"labels"`
}

// ParseLabels decodes the labelled answers of one file's content.
func ParseLabels(path string, data []byte) ([]eval.Label, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(path, data, err)
	}
	if len(root.Content) == 0 || root.Content[0].Tag == "!!null" {
		return nil, fmt.Errorf("%s:1: empty label file: expected a list of labelled answers", path)
	}
	top := resolve(root.Content[0])
	list := top
	file := labelFile{Provenance: eval.BesideTheChecks}
	switch top.Kind {
	case yaml.SequenceNode:
	case yaml.MappingNode:
		if !hasKey(top, "labels") && !hasKey(top, "provenance") {
			return nil, fmt.Errorf("%s:%d: expected a list of labelled answers, found a map", path, top.Line)
		}
		file = labelFile{}
		if err := decodeLabelFile(path, data, top, &file); err != nil {
			return nil, err
		}
		for i := 0; i+1 < len(top.Content); i += 2 {
			if top.Content[i].Value == "labels" {
				list = resolve(top.Content[i+1])
			}
		}
		if list == top || list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
			return nil, fmt.Errorf("%s:%d: expected labels: with a list of labelled answers", path, top.Line)
		}
	default:
		return nil, fmt.Errorf("%s:%d: expected a list of labelled answers, found %s", path, top.Line, kindName(top))
	}
	labels := file.Labels
	if top.Kind == yaml.SequenceNode {
		var err error
		if labels, err = decodeList[eval.Label](path, data, top, "labels"); err != nil {
			return nil, err
		}
	}
	for i := range labels {
		l := &labels[i]
		l.File, l.Line = path, resolve(list.Content[i]).Line
		l.Provenance, l.Author, l.Commit, l.Spent = file.Provenance, file.Author, file.Commit, file.Spent
		if l.Set == "" {
			l.Set = file.Set
		}
		if err := validateLabel(l); err != nil {
			return nil, fmt.Errorf("%s: %w", l.Where(), err)
		}
	}
	return labels, nil
}

// decodeLabelFile decodes a label file that declares its provenance, and
// checks the declaration.
func decodeLabelFile(path string, data []byte, top *yaml.Node, file *labelFile) error {
	if size, at := yamlbound.Expanded(top, MaxFileSize); size > MaxFileSize {
		return fmt.Errorf("%s:%d: the file's aliases (*name) expand it to more than the limit of %d MiB", path, at, MaxFileSize>>20)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(file); err != nil && !errors.Is(err, io.EOF) {
		return yamlError(path, data, err)
	}
	switch file.Provenance {
	case eval.Blind:
		if strings.TrimSpace(file.Author) == "" || strings.TrimSpace(file.Commit) == "" {
			return fmt.Errorf("%s:%d: blind labels must say who wrote them and against which commit (author:, commit:)", path, top.Line)
		}
	case eval.BesideTheChecks:
	case "":
		return fmt.Errorf("%s:%d: a label file written as a map must declare its provenance: %q or %q", path, top.Line, eval.Blind, eval.BesideTheChecks)
	default:
		return fmt.Errorf("%s:%d: provenance %q: expected %q (written without reading the grading code) or %q", path, top.Line, file.Provenance, eval.Blind, eval.BesideTheChecks)
	}
	return nil
}

func validateLabel(l *eval.Label) error {
	var missing []string
	for _, f := range []struct{ name, value string }{{"answer", l.Answer}, {"verdict", l.Verdict}, {"why", l.Why}} {
		if strings.TrimSpace(f.value) == "" {
			missing = append(missing, f.name)
		}
	}
	if l.Case == "" {
		for _, f := range []struct{ name, value string }{{"question", l.Question}, {"expected", l.Expected}} {
			if strings.TrimSpace(f.value) == "" {
				missing = append(missing, f.name+" (or case)")
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("label: missing required field(s): %s", strings.Join(missing, ", "))
	}
	switch v := strings.ToLower(strings.TrimSpace(l.Verdict)); v {
	case "yes", "no":
		l.Verdict = v
	default:
		return fmt.Errorf("label: verdict must be \"yes\" or \"no\", not %q", l.Verdict)
	}
	return nil
}

// LinkLabels joins labels to the loaded cases they name. A label of a
// loaded case takes the case's question and expected answer when it gives
// none. A label that gives them must repeat the case's exactly: one that
// differs was written for another version of the case (or for another
// case of the same name) and stands alone, with a warning naming its file
// and line. A label that stands alone needs its own question and expected
// answer; one without is an error. The result holds each label's case, or
// nil.
func LinkLabels(labels []eval.Label, cases []eval.Case) (links []*eval.Case, warnings []string, err error) {
	byName := make(map[string]*eval.Case, len(cases))
	for i := range cases {
		byName[cases[i].Name] = &cases[i]
	}
	links = make([]*eval.Case, len(labels))
	var errs []error
	for i := range labels {
		l := &labels[i]
		c := byName[l.Case]
		if c != nil {
			if differs := differsFrom(*l, *c); differs != "" {
				warnings = append(warnings, fmt.Sprintf("%s: the label's %s differs from that of case %q (%s): it is measured on the judge only; update the label or the case", l.Where(), differs, c.Name, c.Where()))
				c = nil
			}
		}
		if c == nil {
			if strings.TrimSpace(l.Question) == "" || strings.TrimSpace(l.Expected) == "" {
				errs = append(errs, fmt.Errorf("%s: label names case %q, which is not loaded, and gives no question and expected answer of its own", l.Where(), l.Case))
			}
			continue
		}
		if strings.TrimSpace(l.Question) == "" {
			l.Question = c.Input
		}
		if strings.TrimSpace(l.Expected) == "" {
			l.Expected = c.Expected
		}
		links[i] = c
	}
	return links, warnings, errors.Join(errs...)
}

// differsFrom names what a label gives that differs from its case: "question",
// "expected answer", or "" when nothing does.
func differsFrom(l eval.Label, c eval.Case) string {
	var parts []string
	if q := strings.TrimSpace(l.Question); q != "" && q != strings.TrimSpace(c.Input) {
		parts = append(parts, "question")
	}
	if e := strings.TrimSpace(l.Expected); e != "" && e != strings.TrimSpace(c.Expected) {
		parts = append(parts, "expected answer")
	}
	return strings.Join(parts, " and ")
}
