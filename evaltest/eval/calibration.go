package eval

import (
	"fmt"
	"strconv"
	"time"
)

// Label is a labelled answer: a candidate answer to a question, with the
// verdict a fair judge must give it and why. Labelled answers measure how
// far the judge, and the deterministic checks, can be trusted.
type Label struct {
	// Case names the case the answer was written for; when that case is
	// loaded, its deterministic checks are measured on the answer too.
	Case string `yaml:"case" json:"case,omitempty"`
	// Question is the question answered; a label of a loaded case may
	// leave it out and take the case's.
	Question string `yaml:"question" json:"question"`
	// Expected is the expected answer, taken from the case alike.
	Expected string `yaml:"expected" json:"expected"`
	// Answer is the candidate answer to grade.
	Answer string `yaml:"answer" json:"answer"`
	// Verdict is "yes" (a fair judge accepts the answer) or "no".
	Verdict string `yaml:"verdict" json:"verdict"`
	// Why says why the answer deserves its verdict.
	Why string `yaml:"why" json:"why"`
	// Kind says what the answer tries ("paraphrase", "negation",
	// "wrong unit", ...); optional.
	Kind string `yaml:"kind" json:"kind,omitempty"`
	// Set names a group of labels that calibrations also measure on a
	// line of their own ("adversarial": answers written to break the
	// checks, not to agree with them); optional.
	Set string `yaml:"set" json:"set,omitempty"`

	// Provenance says how the label's file says it was written: Blind or
	// BesideTheChecks (a file that declares nothing).
	Provenance string `yaml:"-" json:"provenance,omitempty"`
	// Author names who wrote a blind label's file; "" for others.
	Author string `yaml:"-" json:"author,omitempty"`
	// Commit is the commit a blind label's file was written against.
	Commit string `yaml:"-" json:"commit,omitempty"`
	// Spent, for a blind set whose defects have been fixed, says so: its
	// figures since then measure nothing.
	Spent string `yaml:"-" json:"spent,omitempty"`

	// File is the label's file; in a calibration's Results, relative to
	// the module root when it lies below it.
	File string `yaml:"-" json:"file"`
	// Line is the line of the label's list item in File.
	Line int `yaml:"-" json:"line"`
}

// The provenances of labels (Label.Provenance).
const (
	// Blind labels were written by someone who had not read the grading
	// code, and are never tuned on: their figures measure trust.
	Blind = "blind"
	// BesideTheChecks labels were written with the checks in view: they
	// keep the checks from regressing, and measure nothing.
	BesideTheChecks = "beside-the-checks"
)

// Where returns "file:line" for messages.
func (l Label) Where() string {
	return l.File + ":" + strconv.Itoa(l.Line)
}

// Calibration is the content of calibration.json: how often the judge, and
// the deterministic checks, give labelled answers the verdict they must
// get.
type Calibration struct {
	// Generated is when the calibration was made, in UTC.
	Generated time.Time `json:"generated"`
	// Labels are the label files read.
	Labels []string `json:"labels"`
	// Items counts the labelled answers read.
	Items int `json:"items"`
	// Checks measures the deterministic checks on the labelled answers
	// whose case is loaded and has answer checks; nil when none has.
	Checks *Agreement `json:"checks,omitempty"`
	// ChecksSets measures the checks on each set of labels (Label.Set),
	// by name.
	ChecksSets []SetAgreement `json:"checks_sets,omitempty"`
	// Judge measures the judge; nil when no judge was configured.
	Judge *JudgeCalibration `json:"judge,omitempty"`
	// Results hold each labelled answer with what the checks and the
	// judge said of it, in the order the labels were read.
	Results []LabelResult `json:"results"`
}

// JudgeCalibration is the agreement of one judge configuration with the
// labels.
type JudgeCalibration struct {
	// Models are the judge models.
	Models []string `json:"models"`
	// Mode says how several judges decide (majority, unanimous); "" with
	// one judge.
	Mode string `json:"mode,omitempty"`
	// PromptHash identifies the judge prompt ("sha256:...").
	PromptHash string `json:"prompt_hash"`
	// Provider is the provider's base URL, without credentials.
	Provider string `json:"provider,omitempty"`
	// Unusable counts the labelled answers the judge could not decide (an
	// unclear reply, twice); they count as undecided, as in a run.
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
	Agreement *Agreement `json:"agreement,omitempty"`
	// Sets measures the checks on each set of labels (Label.Set), by name.
	Sets []SetAgreement `json:"sets,omitempty"`
	// Unmeasured says why nothing could be measured; "" when Agreement is set.
	Unmeasured string `json:"unmeasured,omitempty"`
}

// Lines says how far the verdicts of a run without a judge can be trusted:
// the checks decide where they are sure and leave the rest undecided; the
// figures quoted are those of blind label sets of the run's cases only
// (one line each), and without one the checks' trust is unmeasured.
func (c *ChecksCalibration) Lines() []string {
	const head = "checks only: no judge ran; the deterministic checks decided where they were sure and left the rest undecided"
	if c.Agreement == nil {
		return []string{head + "; how far they can be trusted is unmeasured: " + c.Unmeasured}
	}
	var lines []string
	guard := 0
	for _, s := range c.Sets {
		if !s.Trusted() {
			guard += s.Items
			continue
		}
		lines = append(lines, fmt.Sprintf("checks only: on blind label set %s (%d answers to this run's cases, written by %s against %s): %s",
			s.Set, s.Items, s.Author, s.Commit, s.Agreement.Figures()))
	}
	if len(lines) == 0 {
		return []string{fmt.Sprintf("%s; how far they can be trusted is unmeasured: no blind label set covers this run's cases (the %d labelled answers found were written beside the checks, or tuned on: they guard against regressions and measure nothing)", head, guard)}
	}
	return append([]string{head}, lines...)
}

// Figures states the figures that measure trust in a verdict source:
// wrong answers passed, right answers failed, the share decided and kappa
// on what was decided.
func (a Agreement) Figures() string {
	pct := func(v *float64) string {
		if v == nil {
			return "n/a"
		}
		return strconv.FormatFloat(100**v, 'f', 1, 64) + "%"
	}
	kappa := "undefined"
	if a.Kappa != nil {
		kappa = strconv.FormatFloat(*a.Kappa, 'f', 2, 64)
	}
	decided := a.Decided
	return fmt.Sprintf("wrong answers passed %s, right answers failed %s, decided %s, kappa on the decided %s",
		pct(a.WrongPassed), pct(a.RightFailed), pct(&decided), kappa)
}

// SetAgreement is the agreement on the labels of one set (Label.Set), with
// the provenance its files declare (mixed when they differ).
type SetAgreement struct {
	// Set is the set's name; labels of no set form one named by their
	// provenance ("beside-the-checks").
	Set string `json:"set"`
	// Provenance is the labels' Label.Provenance, or "mixed".
	Provenance string `json:"provenance,omitempty"`
	// Author is the labels' Label.Author; "" when mixed.
	Author string `json:"author,omitempty"`
	// Commit is the labels' Label.Commit; "" when mixed.
	Commit string `json:"commit,omitempty"`
	// Spent is the labels' Label.Spent; "" when mixed.
	Spent string `json:"spent,omitempty"`
	Agreement
}

// Trusted reports whether the set's figures measure trust: blind labels
// that nobody has tuned on.
func (s SetAgreement) Trusted() bool { return s.Provenance == Blind && s.Spent == "" }

// Agreement compares verdicts with labels; "yes" is the positive class. A
// verdict may be "undecided" (the checks were not sure, the judge could
// not decide): such answers count in Items and Undecided, not in the rates.
type Agreement struct {
	// Items counts the labelled answers measured (decided or not).
	Items int `json:"items"`
	// Errors counts the labelled answers that could not be measured (a
	// provider failure, a token limit), which are left out; set for the
	// judge's overall agreement only.
	Errors int `json:"errors,omitempty"`
	// Undecided counts the answers that got no verdict.
	Undecided int `json:"undecided"`
	// Decided is the share of Items that got a verdict, in [0, 1].
	Decided float64 `json:"decided"`
	// Agreement is the share of decided verdicts equal to the label.
	Agreement float64 `json:"agreement"`
	// PassPrecision is the share of "yes" verdicts whose label is "yes";
	// null without such verdicts.
	PassPrecision *float64 `json:"pass_precision"`
	// FailPrecision is the share of "no" verdicts whose label is "no";
	// null without such verdicts.
	FailPrecision *float64 `json:"fail_precision"`
	// WrongPassed is the share of answers labelled "no" (decided or not)
	// that got "yes"; null without such labels.
	WrongPassed *float64 `json:"wrong_passed"`
	// RightFailed is the share of answers labelled "yes" (decided or not)
	// that got "no"; null without such labels.
	RightFailed *float64 `json:"right_failed"`
	// TPR is the share of decided answers labelled "yes" that got "yes";
	// null without such answers.
	TPR *float64 `json:"tpr"`
	// TNR is the share of decided answers labelled "no" that got "no";
	// null without such answers.
	TNR *float64 `json:"tnr"`
	// Kappa is Cohen's kappa on the decided answers: agreement beyond what
	// chance gives with the same rates of "yes"; null when chance alone
	// would agree on every answer (every label and every verdict the same)
	// or nothing was decided.
	Kappa *float64 `json:"kappa"`
	// Confusion counts the answers by label and verdict.
	Confusion Confusion `json:"confusion"`
}

// Confusion is the confusion matrix of verdicts against labels.
type Confusion struct {
	YesYes       int `json:"label_yes_verdict_yes"`         // labelled "yes", got "yes"
	YesNo        int `json:"label_yes_verdict_no"`          // labelled "yes", got "no"
	YesUndecided int `json:"label_yes_undecided,omitempty"` // labelled "yes", got no verdict
	NoYes        int `json:"label_no_verdict_yes"`          // labelled "no", got "yes"
	NoNo         int `json:"label_no_verdict_no"`           // labelled "no", got "no"
	NoUndecided  int `json:"label_no_undecided,omitempty"`  // labelled "no", got no verdict
}

// LabelResult is what the checks and the judge said of one labelled answer.
type LabelResult struct {
	Label
	// Checks is the deterministic checks' verdict: "yes" when all held,
	// "no" when one failed, "undecided" when none failed and one could not
	// decide; "" when the label's case is not loaded or has no answer
	// checks.
	Checks string `json:"checks,omitempty"`
	// CheckDetail holds each check's outcome (JSON "check_results"); nil
	// when Checks is "".
	CheckDetail []CheckResult `json:"check_results,omitempty"`
	// Judge is the judge's verdict ("undecided" for an unusable reply), "" when
	// no judge ran or it failed (Error says why).
	Judge string `json:"judge,omitempty"`
	// JudgeReason is the judge's reason (with several judges, how they
	// decided and each one's reason).
	JudgeReason string `json:"judge_reason,omitempty"`
	// Judges holds each judge's verdict on the answer.
	Judges []JudgeVerdict `json:"judges,omitempty"`
	// Unusable is true when the judge could not decide (an unclear reply,
	// twice).
	Unusable bool `json:"unusable,omitempty"`
	// Cached is true when the judge's verdict was reused from the result
	// cache.
	Cached bool `json:"cached,omitempty"`
	// Error says why the judge gave no verdict (a provider failure, a
	// token limit) or its verdict could not be cached; such an answer is
	// left out of the judge's agreement.
	Error string `json:"error,omitempty"`
}
