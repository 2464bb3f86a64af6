package scoring

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

func TestClassifyError(t *testing.T) {
	tests := []struct {
		msg  string
		want string
	}{
		// Upstream lost the exception type, so this became other_error.
		{"KeyError: 'age'", ColumnError},
		{"KeyError('age')", ColumnError},
		{"Traceback (most recent call last):\n  File \"<string>\", line 1\nKeyError: 'Salary'", ColumnError},
		{"SyntaxError: invalid syntax (<string>, line 1)", SyntaxError},
		{"IndentationError: unexpected indent", SyntaxError},
		{"TypeError: unsupported operand type(s) for +: 'int' and 'str'", TypeError},
		{"IndexError: single positional indexer is out-of-bounds", IndexError},
		{"AttributeError: 'DataFrame' object has no attribute 'sortvalues'", AttributeError},
		{"ValueError: could not convert string to float: 'abc'", ValueError},
		// The exception type wins over words in the message.
		{"ValueError: invalid literal for int() with base 10: 'x'", ValueError},
		{"TypeError: Could not convert column 'a' to numeric", TypeError},
		// Without a known exception, keywords decide.
		{"Column not found: salary", ColumnError},
		{"cannot astype a datetimelike from [datetime64[ns]] to [int32]: incompatible dtype", TypeError},
		{"list index out of range", IndexError},
		{"NameError: name 'dff' is not defined", OtherError},
		{"ZeroDivisionError: division by zero", OtherError},
		{"", OtherError},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ClassifyError(tt.msg), tt.msg)
	}
}

func fail(msg string) eval.Attempt { return eval.Attempt{Failed: true, Output: msg} }

var ok = eval.Attempt{}

func TestRecovery(t *testing.T) {
	tests := []struct {
		name      string
		attempts  []eval.Attempt
		max       int
		hasError  bool
		recovered bool
		qualities []float64
	}{
		{name: "no error", attempts: []eval.Attempt{ok}},
		{name: "no attempts at all", attempts: nil},
		{name: "recovered at once", attempts: []eval.Attempt{fail("KeyError: 'age'"), ok},
			hasError: true, recovered: true, qualities: []float64{1.0}},
		{name: "guide example: same class, then success",
			attempts: []eval.Attempt{fail("KeyError: 'age'"), fail("KeyError: 'Age'"), ok},
			hasError: true, recovered: true, qualities: []float64{0.1, 1.0}},
		{name: "progress without success",
			attempts: []eval.Attempt{fail("KeyError: 'age'"), fail("TypeError: bad"), fail("ValueError: bad")},
			hasError: true, qualities: []float64{0.5, 0.5}},
		{name: "no progress",
			attempts: []eval.Attempt{fail("KeyError: 'age'"), fail("KeyError: 'x'"), fail("KeyError: 'y'")},
			hasError: true, qualities: []float64{0.1, 0.1}},
		{name: "failure with no recovery attempt", attempts: []eval.Attempt{fail("KeyError: 'age'")},
			hasError: true},
		{name: "attempts beyond the limit are ignored",
			attempts: []eval.Attempt{fail("KeyError: 'a'"), fail("KeyError: 'b'"), fail("KeyError: 'c'"), ok},
			hasError: true, qualities: []float64{0.1, 0.1}},
		{name: "a larger limit counts them",
			attempts: []eval.Attempt{fail("KeyError: 'a'"), fail("KeyError: 'b'"), fail("KeyError: 'c'"), ok},
			max:      3, hasError: true, recovered: true, qualities: []float64{0.1, 0.1, 1.0}},
		{name: "nothing counts after the first success",
			attempts: []eval.Attempt{fail("KeyError: 'a'"), ok, fail("KeyError: 'b'")},
			hasError: true, recovered: true, qualities: []float64{1.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := codeRecovery(tt.attempts, tt.max)
			assert.Equal(t, tt.hasError, r.HasError)
			assert.Equal(t, tt.recovered, r.RecoverySuccess)
			require.Len(t, r.RecoveryDetails, len(tt.qualities))
			if !tt.hasError {
				assert.Equal(t, 1.0, r.RecoveryScore, "a clean success scores 1")
				assert.Equal(t, 0.0, r.RecoverySuccessRate)
				return
			}
			assert.Equal(t, tt.attempts[0].Output, r.ErrorMessage)
			rate, mean := 0.0, 0.0
			if tt.recovered {
				rate = 1 / float64(len(tt.qualities)) // the one success among the attempts
				assert.Equal(t, 1, r.SuccessfulRecoveries)
			} else {
				assert.Equal(t, 0, r.SuccessfulRecoveries)
			}
			for i, q := range tt.qualities {
				assert.Equal(t, i+1, r.RecoveryDetails[i].AttemptNumber)
				assert.Equal(t, q, r.RecoveryDetails[i].FixQuality)
				assert.Equal(t, q == 1.0, r.RecoveryDetails[i].Error == nil, "error is null exactly on success")
				mean += q / float64(len(tt.qualities))
			}
			n := float64(len(tt.qualities))
			assert.Equal(t, len(tt.qualities), r.RecoveryAttemptsCount)
			assert.InDelta(t, rate, r.RecoverySuccessRate, 1e-4)
			assert.InDelta(t, mean, r.ErrorFixQuality, 1e-4)
			assert.InDelta(t, 0.5*rate+0.3*mean+0.2*min(n/3, 1), r.RecoveryScore, 1e-4)
		})
	}
}

// The guide's example: a KeyError, a fix that fails with a KeyError again
// (fix quality 0.1), then one that works (1.0). Its output lists
// recovery_attempts_count 2, recovery_success_rate 0.5, error_fix_quality
// 0.75 and recovery_score 0.65. The rate follows from the guide's formula,
// successful_recoveries / total_attempts = 1 / 2 = 0.5. The other two do
// not: the mean fix quality is (0.1 + 1.0) / 2 = 0.55, not 0.75, and the
// score is
//
//	0.5 × 0.5 + 0.3 × 0.55 + 0.2 × min(2/3, 1) = 0.25 + 0.165 + 0.1333 = 0.5483
//
// (with the example's own 0.75 it would be 0.25 + 0.225 + 0.1333 = 0.6083,
// still not 0.65).
func TestRecoveryGuideExample(t *testing.T) {
	r := codeRecovery([]eval.Attempt{fail("KeyError: 'age'"), fail("KeyError: 'Age'"), ok}, defaultMaxRecoveryAttempts)
	assert.True(t, r.HasError)
	assert.Equal(t, "KeyError: 'age'", r.ErrorMessage)
	assert.Equal(t, ColumnError, r.ErrorClass)
	assert.Equal(t, 2, r.RecoveryAttemptsCount)
	assert.Equal(t, 1, r.SuccessfulRecoveries)
	assert.True(t, r.RecoverySuccess)
	assert.Equal(t, 0.5, r.RecoverySuccessRate, "the guide's own 0.5")
	assert.Equal(t, 0.55, r.ErrorFixQuality, "(0.1 + 1.0) / 2")
	assert.Equal(t, 0.5483, r.RecoveryScore, "0.5 × 0.5 + 0.3 × 0.55 + 0.2 × 2/3")
	assert.NotEqual(t, 0.75, r.ErrorFixQuality)
	assert.NotEqual(t, 0.65, r.RecoveryScore)
	require.Len(t, r.RecoveryDetails, 2)
	assert.Equal(t, 0.1, r.RecoveryDetails[0].FixQuality)
	assert.Equal(t, "KeyError: 'Age'", *r.RecoveryDetails[0].Error)
	assert.Equal(t, 1.0, r.RecoveryDetails[1].FixQuality)
	assert.Nil(t, r.RecoveryDetails[1].Error)
}

// failedRun is a first failure followed by n failed recovery attempts whose
// error class changes every time (changing) or never.
func failedRun(n int, changing bool) []eval.Attempt {
	run := []eval.Attempt{fail("KeyError: 'a'")}
	for i := 1; i <= n; i++ {
		msg := "KeyError: 'b'"
		if changing && i%2 == 1 {
			msg = "TypeError: c"
		}
		run = append(run, fail(msg))
	}
	return run
}

// A recovered error used to score exactly like no error. With the guide's
// rate (1/attempts for a recovery), clean > recovered > unrecovered holds
// for every limit up to 6 attempts.
func TestRecoveryOrdering(t *testing.T) {
	for _, limit := range []int{1, 2, 3, 4, 5, 6} {
		clean := codeRecovery([]eval.Attempt{ok}, limit).RecoveryScore
		worstRecovered, bestUnrecovered := 1.0, 0.0
		for n := 0; n <= limit; n++ {
			for _, changing := range []bool{false, true} {
				unrecovered := codeRecovery(failedRun(n, changing), limit)
				require.False(t, unrecovered.RecoverySuccess)
				bestUnrecovered = max(bestUnrecovered, unrecovered.RecoveryScore)
				if n == limit {
					continue // no attempt left to succeed
				}
				recovered := codeRecovery(append(failedRun(n, changing), ok), limit)
				require.True(t, recovered.RecoverySuccess)
				assert.LessOrEqual(t, recovered.RecoverySuccessRate, 1.0)
				worstRecovered = min(worstRecovered, recovered.RecoveryScore)
			}
		}
		assert.Equal(t, 1.0, clean)
		assert.Less(t, worstRecovered, clean, "limit %d", limit)
		assert.Less(t, bestUnrecovered, worstRecovered, "limit %d", limit)
	}
}

func TestRecoveryDefaultLimit(t *testing.T) {
	attempts := []eval.Attempt{fail("a"), fail("b"), fail("c"), fail("d")}
	assert.Equal(t, defaultMaxRecoveryAttempts, codeRecovery(attempts, 0).RecoveryAttemptsCount)
	assert.Equal(t, defaultMaxRecoveryAttempts, codeRecovery(attempts, 0).MaxRecoveryAttempts)
	assert.Equal(t, 3, codeRecovery(attempts, 7).RecoveryAttemptsCount)
}
