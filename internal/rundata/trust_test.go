package rundata

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

func TestTrust(t *testing.T) {
	k := func(v float64) *float64 { return &v }
	judge := func(models []string, mode, hash string, kappa *float64) *eval.Calibration {
		return &eval.Calibration{Items: 100, Checks: &eval.Agreement{Items: 96, Agreement: 1, Kappa: k(1)},
			Judge: &eval.JudgeCalibration{Models: models, Mode: mode, PromptHash: hash,
				Agreement: eval.Agreement{Items: 100, Decided: 0.9, Agreement: 0.95, WrongPassed: k(0.04), RightFailed: k(0.03), TPR: k(0.96), TNR: k(0.94), Kappa: kappa}}}
	}
	run := eval.Summary{JudgeModel: "gpt", JudgePromptHash: "sha256:aaaa"}
	panel := eval.Summary{JudgeModel: "a,b,c", JudgeMode: "majority", JudgePromptHash: "sha256:aaaa"}
	tests := []struct {
		name    string
		run     eval.Summary
		cal     *eval.Calibration
		level   string
		message string
	}{
		{"calibrated", run, judge([]string{"gpt"}, "", "sha256:aaaa", k(0.9)), TrustMeasured,
			"The judge gpt has a kappa of 0.90 on 100 labelled answers: wrong answers passed 4.0%, right answers failed 3.0%, decided 90.0%, kappa on the decided 0.90."},
		{"weak", run, judge([]string{"gpt"}, "", "sha256:aaaa", k(0.79)), TrustWeak, "has a kappa of 0.79, below 0.8"},
		{"undefined kappa", run, judge([]string{"gpt"}, "", "sha256:aaaa", nil), TrustWeak, "has an undefined kappa"},
		{"no calibration", run, nil, TrustNone, "The judge gpt has no calibration: nobody knows how often its verdicts are right."},
		{"checks only", run, &eval.Calibration{Items: 10, Checks: &eval.Agreement{Items: 10}}, TrustNone, "calibration.json measured the deterministic checks only"},
		{"another judge", run, judge([]string{"claude"}, "", "sha256:aaaa", k(0.9)), TrustNone, "calibration.json measured the judge claude"},
		{"another prompt", run, judge([]string{"gpt"}, "", "sha256:bbbb", k(0.9)), TrustNone, "with another judge prompt (sha256:bbbb, this run's is sha256:aaaa)"},
		{"prompt unknown to the run", eval.Summary{JudgeModel: "gpt"}, judge([]string{"gpt"}, "", "sha256:bbbb", k(0.9)), TrustMeasured, "kappa of 0.90"},
		{"panel in any order", panel, judge([]string{"c", "a", "b"}, "majority", "sha256:aaaa", k(0.85)), TrustMeasured, "The judge a,b,c (majority) has a kappa of 0.85"},
		{"panel in another mode", panel, judge([]string{"a", "b", "c"}, "unanimous", "sha256:aaaa", k(0.85)), TrustNone, "the judges in unanimous mode"},
		{"part of the panel", panel, judge([]string{"a"}, "", "sha256:aaaa", k(0.85)), TrustNone, "measured the judge a."},
		{"no judge, checks measured beside them only", eval.Summary{Reference: true}, judge([]string{"gpt"}, "", "sha256:aaaa", k(0.9)), TrustChecks,
			"How far they can be trusted is unmeasured: no blind label set was measured"},
		{"no judge, checks measured blind", eval.Summary{Reference: true}, func() *eval.Calibration {
			c := judge([]string{"gpt"}, "", "sha256:aaaa", k(0.9))
			c.ChecksSets = []eval.SetAgreement{
				{Set: "blind-9", Provenance: eval.Blind, Author: "a reviewer", Commit: "abc1234",
					Agreement: eval.Agreement{Items: 120, Decided: 0.55, WrongPassed: k(0.02), RightFailed: k(0.01), Kappa: k(0.95)}},
				{Set: "blind-8", Provenance: eval.Blind, Author: "a reviewer", Commit: "abc1234", Spent: "fixed",
					Agreement: eval.Agreement{Items: 100, Decided: 0.9, WrongPassed: k(0), RightFailed: k(0), Kappa: k(1)}},
				{Set: eval.BesideTheChecks, Provenance: eval.BesideTheChecks, Agreement: eval.Agreement{Items: 400, Decided: 1, Kappa: k(1)}},
			}
			return c
		}(), TrustChecks,
			"on blind label set blind-9 (120 answers, written by a reviewer against abc1234): wrong answers passed 2.0%, right answers failed 1.0%, decided 55.0%, kappa on the decided 0.95."},
		{"no judge, no calibration", eval.Summary{Reference: true}, nil, TrustChecks, "They have no calibration: run make calibrate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := trustOf(tt.run, tt.cal)
			assert.Equal(t, tt.level, got.Level)
			assert.Contains(t, got.Message, tt.message)
			if tt.level == TrustMeasured || tt.level == TrustWeak {
				assert.Equal(t, tt.cal.Judge, got.Judge)
			} else {
				assert.Nil(t, got.Judge, "a calibration of another judge is not this run's")
			}
		})
	}
}
