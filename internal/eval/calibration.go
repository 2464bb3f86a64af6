package eval

import (
	"strconv"
	"time"
)

// Label is a labelled answer: a candidate answer to a question, with the
// verdict a fair judge must give it and why. Labelled answers measure how
// far the judge, and the deterministic checks, can be trusted.
type Label struct {
	// Case names the case the answer was written for; when that case is
	// loaded, its deterministic checks are measured on the answer too.
	Case     string `yaml:"case" json:"case,omitempty"`
	Question string `yaml:"question" json:"question"`
	Expected string `yaml:"expected" json:"expected"`
	Answer   string `yaml:"answer" json:"answer"`
	// Verdict is "yes" (a fair judge accepts the answer) or "no".
	Verdict string `yaml:"verdict" json:"verdict"`
	Why     string `yaml:"why" json:"why"`
	// Kind says what the answer tries ("paraphrase", "negation",
	// "wrong unit", ...); optional.
	Kind string `yaml:"kind" json:"kind,omitempty"`
	// Set names a group of labels that calibrations also measure on a
	// line of their own ("adversarial": answers written to break the
	// checks, not to agree with them); optional.
	Set string `yaml:"set" json:"set,omitempty"`

	// File and Line locate the label in its source file.
	File string `yaml:"-" json:"file"`
	Line int    `yaml:"-" json:"line"`
}

// Where returns "file:line" for messages.
func (l Label) Where() string {
	return l.File + ":" + strconv.Itoa(l.Line)
}

// Calibration is the content of calibration.json: how often the judge, and
// the deterministic checks, give labelled answers the verdict they must
// get.
type Calibration struct {
	Generated time.Time `json:"generated"`
	// Labels are the label files read.
	Labels []string `json:"labels"`
	Items  int      `json:"items"`
	// Checks measures the deterministic checks on the labelled answers
	// whose case is loaded and has answer checks; nil when none has.
	Checks *Agreement `json:"checks,omitempty"`
	// ChecksSets measures the checks on each set of labels (Label.Set),
	// by name.
	ChecksSets []SetAgreement `json:"checks_sets,omitempty"`
	// Judge measures the judge; nil when no judge was configured.
	Judge   *JudgeCalibration `json:"judge,omitempty"`
	Results []LabelResult     `json:"results"`
}

// JudgeCalibration is the agreement of one judge configuration with the
// labels.
type JudgeCalibration struct {
	// Models are the judge models, Mode how several decide, PromptHash
	// identifies the judge prompt and Provider is the endpoint's URL.
	Models     []string `json:"models"`
	Mode       string   `json:"mode,omitempty"`
	PromptHash string   `json:"prompt_hash"`
	Provider   string   `json:"provider,omitempty"`
	// Unusable counts the labelled answers the judge could not decide (an
	// unclear reply, twice); they count as "no".
	Unusable int `json:"unusable"`
	// Disagreements counts the labelled answers on which several judges
	// did not all agree.
	Disagreements int `json:"disagreements,omitempty"`
	// Cached counts the verdicts reused from the result cache.
	Cached int `json:"cached"`
	Agreement
	// Sets measures the judge on each set of labels (Label.Set), by name.
	Sets []SetAgreement `json:"sets,omitempty"`
}

// What decided a run's verdicts (Summary.Verdicts).
const (
	VerdictsByJudge  = "judge"
	VerdictsByChecks = "checks only"
)

// ChecksCalibration is how far verdicts that the deterministic checks alone
// decided can be trusted: the checks' agreement with the labelled answers
// written for the run's cases, overall and for each set of labels (the
// adversarial answers on their own). summary.json holds it for a run
// without a judge.
type ChecksCalibration struct {
	// Labels are the label files read.
	Labels []string `json:"labels,omitempty"`
	// Agreement is nil when nothing could be measured; Unmeasured says why.
	Agreement  *Agreement     `json:"agreement,omitempty"`
	Sets       []SetAgreement `json:"sets,omitempty"`
	Unmeasured string         `json:"unmeasured,omitempty"`
}

// Lines says, in a line for the labelled answers as a whole and one for
// each set of them (the adversarial ones), how far the verdicts of a run
// that the checks alone decided can be trusted.
func (c *ChecksCalibration) Lines() []string {
	const head = "checks only: no judge ran; the deterministic checks decided every verdict"
	if c.Agreement == nil {
		return []string{head + ", and their agreement with labelled answers is not measured: " + c.Unmeasured}
	}
	measured := func(a Agreement) string {
		kappa := "undefined"
		if a.Kappa != nil {
			kappa = strconv.FormatFloat(*a.Kappa, 'f', 2, 64)
		}
		return strconv.FormatFloat(100*a.Agreement, 'f', 1, 64) + "% (kappa " + kappa + ")"
	}
	lines := []string{head + "; on " + strconv.Itoa(c.Agreement.Items) + " labelled answers (make calibrate) they agree with the labels " + measured(*c.Agreement)}
	for _, s := range c.Sets {
		lines = append(lines, "checks only: on the "+strconv.Itoa(s.Items)+" "+s.Set+" labelled answers alone: "+measured(s.Agreement))
	}
	return lines
}

// SetAgreement is the agreement on the labels of one set (Label.Set).
type SetAgreement struct {
	Set string `json:"set"`
	Agreement
}

// Agreement compares verdicts with labels; "yes" is the positive class. A
// verdict may be "undecided" (the checks were not sure, the judge could
// not decide): such answers count in Items and Undecided, not in the rates.
type Agreement struct {
	// Items counts the labelled answers measured (decided or not); Errors
	// those that could not be (a provider failure, a token limit), which
	// are left out.
	Items  int `json:"items"`
	Errors int `json:"errors,omitempty"`
	// Undecided counts the answers that got no verdict; Decided is the
	// share of Items that got one.
	Undecided int     `json:"undecided"`
	Decided   float64 `json:"decided"`
	// Agreement is the share of decided verdicts equal to the label.
	Agreement float64 `json:"agreement"`
	// PassPrecision is the share of "yes" verdicts whose label is "yes",
	// FailPrecision the share of "no" verdicts whose label is "no"; each
	// is null without such verdicts.
	PassPrecision *float64 `json:"pass_precision"`
	FailPrecision *float64 `json:"fail_precision"`
	// WrongPassed is the share of answers labelled "no" (decided or not)
	// that got "yes", RightFailed the share labelled "yes" that got "no".
	WrongPassed *float64 `json:"wrong_passed"`
	RightFailed *float64 `json:"right_failed"`
	// TPR is the share of decided answers labelled "yes" that got "yes";
	// TNR the share of decided answers labelled "no" that got "no". Each is
	// null without such labels.
	TPR *float64 `json:"tpr"`
	TNR *float64 `json:"tnr"`
	// Kappa is Cohen's kappa on the decided answers: agreement beyond what
	// chance gives with the same rates of "yes"; null when chance alone
	// would agree on every answer (every label and every verdict the same).
	Kappa     *float64  `json:"kappa"`
	Confusion Confusion `json:"confusion"`
}

// Confusion is the confusion matrix of verdicts against labels.
type Confusion struct {
	// YesYes counts answers labelled "yes" that got "yes", YesNo those
	// labelled "yes" that got "no", YesUndecided those labelled "yes" that
	// got no verdict, and so on.
	YesYes       int `json:"label_yes_verdict_yes"`
	YesNo        int `json:"label_yes_verdict_no"`
	YesUndecided int `json:"label_yes_undecided,omitempty"`
	NoYes        int `json:"label_no_verdict_yes"`
	NoNo         int `json:"label_no_verdict_no"`
	NoUndecided  int `json:"label_no_undecided,omitempty"`
}

// LabelResult is what the checks and the judge said of one labelled answer.
type LabelResult struct {
	Label
	// Checks is the deterministic checks' verdict: "yes" when all held,
	// "no" when one failed, "undecided" when none failed and one could not
	// decide; "" when the label's case is not loaded or has no answer
	// checks.
	Checks      string        `json:"checks,omitempty"`
	CheckDetail []CheckResult `json:"check_results,omitempty"`
	// Judge is the judge's verdict ("no" for an unusable reply), "" when
	// no judge ran or it failed (Error says why).
	Judge       string         `json:"judge,omitempty"`
	JudgeReason string         `json:"judge_reason,omitempty"`
	Judges      []JudgeVerdict `json:"judges,omitempty"`
	Unusable    bool           `json:"unusable,omitempty"`
	Cached      bool           `json:"cached,omitempty"`
	Error       string         `json:"error,omitempty"`
}
