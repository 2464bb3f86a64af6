package scoring

import (
	"slices"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
)

// defaultMaxRecoveryAttempts is how many times a failed code execution is
// retried with a fix when the caller does not say.
const defaultMaxRecoveryAttempts = 2

// Fix quality of one recovery attempt (the guide's).
const (
	fixSucceeded    = 1.0
	fixChangedError = 0.5
	fixSameError    = 0.1
)

// codeRecovery scores how a code case recovered from its first failure.
// attempts[0] is the first execution and attempts[1:] the recovery attempts;
// only the first maxAttempts recovery attempts count (maxAttempts <= 0 means
// defaultMaxRecoveryAttempts), and none after the first success.
//
// No error (attempts[0] succeeded): has_error false, score 1.0, no success
// rate or fix quality (nothing to recover; written as null). A case without
// code has no recovery to score at all (see noCode). With an error, scoring
// starts at
// the first failure, with the guide's definitions:
//
//	recovery_success_rate = successful recoveries / recovery attempts
//	error_fix_quality     = mean fix quality of the attempts
//	recovery_score        = 0.5 × recovery_success_rate + 0.3 × error_fix_quality
//	                        + 0.2 × min(attempts / 3, 1)
//
// An attempt's fix quality is 1.0 on success, 0.5 when its error class
// differs from the error it set out to fix (progress), 0.1 when the class is
// the same; without attempts the rate and the mean do not apply. As the loop stops
// at the first success, a case has at most one successful recovery, so its
// rate is 1/attempts when it recovered and 0 when not: the guide's example
// (a failed fix, then a good one) has rate 1/2. Up to 6 allowed attempts,
// a clean run (1.0) scores above any recovered one, which scores above any
// unrecovered one.
func codeRecovery(attempts []eval.Attempt, maxAttempts int) eval.RecoveryMetric {
	if maxAttempts <= 0 {
		maxAttempts = defaultMaxRecoveryAttempts
	}
	m := eval.RecoveryMetric{MaxRecoveryAttempts: maxAttempts, RecoveryDetails: []eval.RecoveryAttempt{}}
	if len(attempts) == 0 || !attempts[0].Failed {
		m.RecoveryScore = 1
		return m
	}
	m.HasError = true
	m.ErrorMessage = attempts[0].Output
	m.ErrorClass = ClassifyError(attempts[0].Output)
	previous := m.ErrorClass
	for i, a := range attempts[1:min(len(attempts), maxAttempts+1)] {
		step := eval.RecoveryAttempt{AttemptNumber: i + 1, Success: !a.Failed, FixQuality: fixSucceeded}
		if a.Failed {
			step.Error = &a.Output
			step.ErrorClass = ClassifyError(a.Output)
			step.FixQuality = fixQuality(previous, step.ErrorClass)
			previous = step.ErrorClass
		}
		m.RecoveryDetails = append(m.RecoveryDetails, step)
		if !a.Failed {
			m.RecoverySuccess = true
			break
		}
	}
	finishRecovery(&m)
	return m
}

func fixQuality(previousClass, class string) float64 {
	if class == previousClass {
		return fixSameError
	}
	return fixChangedError
}

// finishRecovery fills the counts, the rate and the scores from
// RecoveryDetails, with the guide's formula. Successful recoveries are the
// successful attempts, so they never exceed the attempts.
func finishRecovery(m *eval.RecoveryMetric) {
	m.RecoveryAttemptsCount = len(m.RecoveryDetails)
	m.SuccessfulRecoveries = 0
	total := 0.0
	for _, a := range m.RecoveryDetails {
		total += a.FixQuality
		if a.Success {
			m.SuccessfulRecoveries++
		}
	}
	if m.RecoveryAttemptsCount > 0 {
		n := float64(m.RecoveryAttemptsCount)
		m.RecoverySuccessRate = unit(float64(m.SuccessfulRecoveries) / n)
		m.ErrorFixQuality = unit(total / n)
	}
	m.RecoveryScore = unit(0.5*m.RecoverySuccessRate + 0.3*m.ErrorFixQuality +
		0.2*min(float64(m.RecoveryAttemptsCount)/3, 1))
}

// Error classes of code execution errors.
const (
	ColumnError    = "column_error"
	SyntaxError    = "syntax_error"
	TypeError      = "type_error"
	IndexError     = "index_error"
	AttributeError = "attribute_error"
	ValueError     = "value_error"
	OtherError     = "other_error"
)

// exceptionClasses maps Python exception names (lower-cased) to classes.
var exceptionClasses = map[string]string{
	"keyerror":         ColumnError,
	"syntaxerror":      SyntaxError,
	"indentationerror": SyntaxError,
	"taberror":         SyntaxError,
	"typeerror":        TypeError,
	"indexerror":       IndexError,
	"attributeerror":   AttributeError,
	"valueerror":       ValueError,
}

// errorKeywords classify messages that name no known exception, first
// match wins (the guide's order).
var errorKeywords = []struct {
	class string
	cues  [][]string
}{
	{ColumnError, grading.Phrases("column", "columns")},
	{SyntaxError, grading.Phrases("syntax", "invalid syntax")},
	{TypeError, grading.Phrases("type", "dtype", "dtypes")},
	{IndexError, grading.Phrases("index", "out of range", "out of bounds")},
	{AttributeError, grading.Phrases("attribute", "has no attribute")},
	{ValueError, grading.Phrases("value")},
}

// ClassifyError returns the class of a code execution error message. The
// exception type decides when the message names one (the last one, as in a
// traceback): KeyError is column_error, SyntaxError and IndentationError
// syntax_error, TypeError type_error, IndexError index_error, AttributeError
// attribute_error, ValueError value_error. Otherwise keywords decide (column,
// syntax, type/dtype, index/out of range, attribute, value), else
// other_error.
func ClassifyError(msg string) string {
	toks := grading.Words(msg)
	for _, t := range slices.Backward(toks) {
		if class, ok := exceptionClasses[t]; ok {
			return class
		}
	}
	for _, k := range errorKeywords {
		if grading.HasPhrase(toks, k.cues) {
			return k.class
		}
	}
	return OtherError
}
