package suite

import (
	"github.com/mcpeval/mcpeval/cache"
	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Cache entries written before records held their grading version were
// keyed by the rules of the checks and the judge prompt of the day; a run
// finds them under that key and grades their answers again (see
// regradeCached), so that they are not run and paid for again.

// legacyCheckRules and legacyJudgePrompt are the check rules and judge
// prompt those keys hold.
const legacyCheckRules = 3

const legacyJudgePrompt = `You grade an AI assistant's answer against the expected answer for the same question.

Accept the answer (verdict "yes") when it contains the expected information, even with extra details,
its core facts match the expected answer, and any extra information is accurate and relevant.
Reject it (verdict "no") only when it contradicts the expected information, misses key expected
information, or is factually wrong.

Report your decision by calling the submit_verdict tool with: verdict "yes" or "no"; reason, one line
that says why; and answer_is_correct, your own restatement of the verdict (true for yes, false for no).
Write nothing else. If you cannot call tools, reply with only this JSON object:
{"verdict": "yes" or "no", "reason": "...", "answer_is_correct": true or false}`

// legacyKeyInput returns the key input such an entry was stored under.
func legacyKeyInput(in cache.KeyInput, c eval.Case, e expectations) cache.KeyInput {
	in.Expectations = legacyExpectations{c.Kind, c.Checks, legacyCheckRules, c.Tools, c.Budget, e.MaxRecovery, c.Elicitation, e.LinksShownOnly}
	if in.JudgeModel != "" {
		in.JudgePrompt = legacyJudgePrompt
	}
	return in
}

// legacyExpectations is the shape the expectations of such a key had.
type legacyExpectations struct {
	Kind        eval.Kind          `json:"kind"`
	Checks      eval.Checks        `json:"checks"`
	CheckRules  int                `json:"check_rules"`
	Tools       eval.ToolExpect    `json:"tools"`
	Budget      eval.Budget        `json:"budget"`
	MaxRecovery int                `json:"max_recovery,omitempty"`
	Elicitation []eval.ElicitReply `json:"elicitation,omitempty"`
	// LinksShownOnly: the model is not offered to read linked resources
	// (-follow-links=false).
	LinksShownOnly bool `json:"links_shown_only,omitempty"`
}
