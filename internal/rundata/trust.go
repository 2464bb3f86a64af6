package rundata

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// TrustedKappa is the Cohen's kappa below which the report says a judge's
// verdicts cannot be trusted alone.
const TrustedKappa = 0.8

// The levels of Trust.
const (
	// TrustMeasured: the run's judge is calibrated with a kappa of at least
	// TrustedKappa.
	TrustMeasured = "measured"
	// TrustWeak: the run's judge is calibrated, with a kappa below
	// TrustedKappa (or an undefined one).
	TrustWeak = "weak"
	// TrustNone: the run's judge has no calibration (none at all, or one of
	// other judges or another judge prompt).
	TrustNone = "none"
	// TrustChecks: no judge ran; the deterministic checks decided.
	TrustChecks = "checks"
)

// Trust says how far the run's verdicts can be trusted, from the
// calibration.json beside the run's records (written by make calibrate).
type Trust struct {
	Level string `json:"level"`
	// Message says it in words.
	Message string `json:"message"`
	// Judge is the calibration of the run's judge; Checks that of the
	// deterministic checks. Each is nil when there is none.
	Judge  *eval.JudgeCalibration `json:"judge,omitempty"`
	Checks *eval.Agreement        `json:"checks,omitempty"`
	// Sets holds the checks' agreement on each set of labels (the
	// adversarial answers), and Lines says each on a line of its own.
	Sets  []eval.SetAgreement `json:"sets,omitempty"`
	Lines []string            `json:"lines,omitempty"`
	// Labels is the number of labelled answers and Calibrated when they
	// were measured; zero without a calibration.
	Labels     int       `json:"labels,omitempty"`
	Calibrated time.Time `json:"calibrated,omitzero"`
}

// trustOf compares the run's judge with the calibration.
func trustOf(run eval.Summary, cal *eval.Calibration) Trust {
	var t Trust
	if cal != nil {
		t.Checks, t.Labels, t.Calibrated = cal.Checks, cal.Items, cal.Generated
	}
	if run.JudgeModel == "" && run.ChecksCalibration != nil {
		// The run measured the checks that decided it.
		c := run.ChecksCalibration
		lines := c.Lines()
		t.Level, t.Checks, t.Sets, t.Lines = TrustChecks, nil, nil, lines[1:]
		t.Message = "Checks only: " + strings.TrimPrefix(lines[0], "checks only: ") + "."
		t.Labels, t.Calibrated = 0, time.Time{}
		for _, s := range c.Sets {
			if s.Trusted() { // only a blind set's figures measure trust
				t.Sets = append(t.Sets, s)
				if t.Checks == nil {
					agreement := s.Agreement
					t.Checks, t.Labels = &agreement, s.Items
				}
			}
		}
		return t
	}
	if run.JudgeModel == "" {
		t.Level = TrustChecks
		var blind []eval.SetAgreement
		if cal != nil {
			for _, s := range cal.ChecksSets {
				if s.Trusted() {
					blind = append(blind, s)
				}
			}
		}
		switch {
		case t.Checks == nil:
			t.Message = "No judge: the deterministic checks decided where they were sure and left the rest undecided. They have no calibration: run make calibrate to measure them on labelled answers."
		case len(blind) == 0:
			t.Message = "No judge: the deterministic checks decided where they were sure and left the rest undecided. How far they can be trusted is unmeasured: no blind label set was measured (labels written beside the checks guard against regressions and measure nothing)."
		default:
			parts := make([]string, len(blind))
			for i, s := range blind {
				parts[i] = fmt.Sprintf("on blind label set %s (%d answers, written by %s against %s): %s", s.Set, s.Items, s.Author, s.Commit, s.Agreement.Figures())
			}
			t.Message = "No judge: the deterministic checks decided where they were sure and left the rest undecided; " + strings.Join(parts, "; ") + "."
			t.Sets = blind
		}
		return t
	}
	judge := judgeName(run.JudgeModel, run.JudgeMode)
	switch {
	case cal == nil:
		t.Level = TrustNone
		t.Message = fmt.Sprintf("The judge %s has no calibration: nobody knows how often its verdicts are right. Run make calibrate with the same EVAL_JUDGE_MODEL to measure it on labelled answers.", judge)
		return t
	case cal.Judge == nil:
		t.Level = TrustNone
		t.Message = fmt.Sprintf("The judge %s has no calibration: calibration.json measured the deterministic checks only. Run make calibrate with EVAL_JUDGE_MODEL=%s and a provider to measure the judge.", judge, run.JudgeModel)
		return t
	}
	if other := mismatch(run, cal.Judge); other != "" {
		t.Level = TrustNone
		t.Message = fmt.Sprintf("The judge %s has no calibration: calibration.json measured %s. Run make calibrate with this run's judge.", judge, other)
		return t
	}
	t.Judge = cal.Judge
	j := cal.Judge
	measured := fmt.Sprintf("on %d labelled answers: %s", j.Items, j.Agreement.Figures())
	switch {
	case j.Kappa == nil:
		t.Level = TrustWeak
		t.Message = fmt.Sprintf("The judge %s has an undefined kappa %s: its calibration says nothing. Do not trust its verdicts alone.", judge, measured)
	case *j.Kappa < TrustedKappa:
		t.Level = TrustWeak
		t.Message = fmt.Sprintf("The judge %s has a kappa of %.2f, below %.1f, %s. Do not trust its verdicts alone.", judge, *j.Kappa, TrustedKappa, measured)
	default:
		t.Level = TrustMeasured
		t.Message = fmt.Sprintf("The judge %s has a kappa of %.2f %s.", judge, *j.Kappa, measured)
	}
	return t
}

// mismatch names the judge a calibration measured when it is not the
// run's: other models, another mode or another judge prompt. The run's
// prompt is compared when the run's summary names it.
func mismatch(run eval.Summary, j *eval.JudgeCalibration) string {
	calibrated := judgeName(strings.Join(j.Models, ","), j.Mode)
	runModels := strings.Split(run.JudgeModel, ",")
	if !slices.Equal(slices.Sorted(slices.Values(runModels)), slices.Sorted(slices.Values(j.Models))) {
		return "the judge " + calibrated
	}
	if len(runModels) > 1 && run.JudgeMode != "" && j.Mode != "" && run.JudgeMode != j.Mode {
		return "the judges in " + j.Mode + " mode"
	}
	if run.JudgePromptHash != "" && run.JudgePromptHash != j.PromptHash {
		return "the judge " + calibrated + " with another judge prompt (" + shortHash(j.PromptHash) + ", this run's is " + shortHash(run.JudgePromptHash) + ")"
	}
	return ""
}

func judgeName(models, mode string) string {
	if mode == "" || !strings.Contains(models, ",") {
		return models
	}
	return models + " (" + mode + ")"
}

func shortHash(h string) string {
	if len(h) > len("sha256:")+12 {
		return h[:len("sha256:")+12]
	}
	return h
}
