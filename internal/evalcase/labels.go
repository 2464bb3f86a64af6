package evalcase

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/internal/eval"
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
	if top.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: expected a list of labelled answers, found %s", path, top.Line, kindName(top))
	}
	labels, err := decodeList[eval.Label](path, data, top, "labels")
	if err != nil {
		return nil, err
	}
	for i := range labels {
		l := &labels[i]
		l.File, l.Line = path, resolve(top.Content[i]).Line
		if err := validateLabel(l); err != nil {
			return nil, fmt.Errorf("%s: %w", l.Where(), err)
		}
	}
	return labels, nil
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
