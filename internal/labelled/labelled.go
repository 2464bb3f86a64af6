// Package labelled measures verdicts against labelled answers (eval.Label:
// a candidate answer with the verdict a fair judge must give it): the
// agreement of verdicts with labels (rates, Cohen's kappa, the confusion
// matrix), and the deterministic checks of the loaded cases on the
// labelled answers written for them. make calibrate adds the judge; a run
// decided by the checks alone states their measured agreement.
package labelled

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/grading"
)

// Inputs are the labelled answers to measure on, with the cases they link
// to (nil for a label whose case is not loaded).
type Inputs struct {
	Files  []string
	Labels []eval.Label
	Cases  []*eval.Case
	// Warnings name the labels that could not be joined to their case.
	Warnings []string
}

// Load reads the labels of labelsPath (a label file or a directory of
// them) and those next to the cases of casesPath, and links them to cases,
// the cases loaded from casesPath. A label that names a case not loaded
// must give its own question and expected answer (the judge can grade it
// alone); with forChecks, such labels are left out instead: the checks
// measure only the labels of loaded cases.
func Load(casesPath, labelsPath string, cases []eval.Case, forChecks bool) (Inputs, error) {
	configured, err := evalcase.LabelFiles(labelsPath)
	if err != nil {
		return Inputs{}, err
	}
	beside, err := evalcase.LabelsBeside(casesPath)
	if err != nil {
		return Inputs{}, err
	}
	var in Inputs
	seen := map[string]bool{}
	for _, f := range append(configured, beside...) {
		abs, err := filepath.Abs(f)
		if err != nil {
			return Inputs{}, err
		}
		if !seen[abs] {
			seen[abs] = true
			in.Files = append(in.Files, f)
		}
	}
	if len(in.Files) == 0 {
		msg := fmt.Sprintf("no labelled answers: put *.labels.yaml files next to the cases in %s, or point EVAL_LABELS (-labels) at a file or directory of them", casesPath)
		if _, err := os.Stat(labelsPath); err == nil {
			msg += fmt.Sprintf(" (%s has none)", labelsPath) // the default directory may well not exist: then it is not named
		}
		return Inputs{}, errors.New(msg)
	}
	if in.Labels, err = evalcase.LoadLabels(in.Files); err != nil {
		return Inputs{}, err
	}
	if forChecks {
		loaded := map[string]bool{}
		for _, c := range cases {
			loaded[c.Name] = true
		}
		in.Labels = slices.DeleteFunc(in.Labels, func(l eval.Label) bool { return !loaded[l.Case] })
	}
	if in.Cases, in.Warnings, err = evalcase.LinkLabels(in.Labels, cases); err != nil {
		return Inputs{}, err
	}
	return in, nil
}

// Checks runs the deterministic checks of each label's case on its answer.
// The results hold each label (its file relative to root) with the checks'
// verdict; the agreement, overall and by set, is over the labels whose
// case is loaded and checks its answer (nil when none does).
func Checks(in Inputs, root string) (results []eval.LabelResult, all *eval.Agreement, sets []eval.SetAgreement) {
	results = make([]eval.LabelResult, len(in.Labels))
	var pairs []Pair
	for i, l := range in.Labels {
		l.File = Relative(root, l.File)
		r := eval.LabelResult{Label: l}
		if c := in.Cases[i]; c != nil {
			if r.Checks, r.CheckDetail = grading.CheckVerdict(*c, l.Answer); r.Checks != "" {
				pairs = append(pairs, PairOf(l, r.Checks))
			}
		}
		results[i] = r
	}
	if len(pairs) == 0 {
		return results, nil, nil
	}
	a, sets := AgreeBySet(pairs)
	return results, &a, sets
}

// ChecksCalibration measures the deterministic checks of cases (loaded
// from casesPath) on the labelled answers of labelsPath and of the cases'
// directory, for a run whose verdicts the checks alone decide. It always
// returns a calibration: one that could not be measured says why.
func ChecksCalibration(casesPath, labelsPath, root string, cases []eval.Case) *eval.ChecksCalibration {
	in, err := Load(casesPath, labelsPath, cases, true)
	if err != nil {
		return &eval.ChecksCalibration{Unmeasured: err.Error()}
	}
	cal := &eval.ChecksCalibration{}
	for _, f := range in.Files {
		cal.Labels = append(cal.Labels, Relative(root, f))
	}
	if len(in.Labels) == 0 {
		cal.Unmeasured = "no labelled answer in " + strings.Join(cal.Labels, ", ") + " names one of the run's cases: put *.labels.yaml files next to the cases (see make calibrate)"
		return cal
	}
	_, all, sets := Checks(in, root)
	if all == nil {
		cal.Unmeasured = fmt.Sprintf("none of the %d labelled answers in %s belongs to a loaded case that checks its answer", len(in.Labels), strings.Join(cal.Labels, ", "))
		return cal
	}
	cal.Agreement, cal.Sets = all, sets
	return cal
}

// Relative returns path relative to root when it lies below it.
func Relative(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
