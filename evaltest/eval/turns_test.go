package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTurnsOfACase(t *testing.T) {
	ref := func(tool string) []RefCall { return []RefCall{{Tool: tool}} }
	c := Case{
		Input: "first", Expected: "final answer", Reference: ref("a"),
		Turns: []Turn{{User: "second", ReplyExpect: ReplyExpect{Expected: "second reply"}, Reference: ref("b")}, {User: "third", Reference: ref("c")}},
	}
	assert.Equal(t, []string{"first", "second", "third"}, c.UserMessages())
	assert.Equal(t, []string{"", "second reply", "final answer", ""},
		[]string{c.TurnExpected(0), c.TurnExpected(1), c.TurnExpected(2), c.TurnExpected(3)},
		"the first turn of a conversation expects no particular reply, the last the case's answer")
	assert.Equal(t, ref("b"), c.TurnReference(1))
	assert.Nil(t, c.TurnReference(3))
	assert.Equal(t, append(append(ref("a"), ref("b")...), ref("c")...), c.AllReference())

	single := Case{Input: "only", Expected: "answer", Reference: ref("a")}
	assert.Equal(t, []string{"only"}, single.UserMessages())
	assert.Equal(t, "answer", single.TurnExpected(0), "a case without turns expects its answer at its one turn")
}

func TestTurnLines(t *testing.T) {
	turns := []TurnResult{
		{Turn: 1, User: "What is the CADD score of\nc.187C>T?", Reply: "It is 8.103.", Status: Pass, Reason: "nothing is checked"},
		{Turn: 2, User: "I meant c.1087C>A.", Reply: "", Status: Fail, Reason: "the model gave an empty answer"},
		{Turn: 3, User: "Which is higher?", Status: NotRun},
	}
	assert.Equal(t, []string{
		"turn 1 of 3 pass: What is the CADD score of c.187C>T? → It is 8.103.",
		`turn 2 of 3 fail: I meant c.1087C>A. → "" (the model gave an empty answer)`,
		"turn 3 of 3 not_run: Which is higher? (not sent)",
	}, TurnLines(turns))
}

func TestTurnLinesMarkTheSimulatedUser(t *testing.T) {
	turns := []TurnResult{
		{Turn: 1, User: "Which gene is at chr17:7675088?", Reply: "Which build?", Status: Pass},
		{Turn: 2, User: "GRCh38.", Reply: "TP53.", Status: Pass, Simulated: true},
		{Turn: 3, User: "And hg38.", Reply: "TP53.", Status: Fail, Reason: "no", Simulated: true, Leaks: []string{"GRCh38", "female"}},
	}
	assert.Equal(t, []string{
		"turn 1 of 3 pass: Which gene is at chr17:7675088? → Which build?",
		"turn 2 of 3 pass (simulated user): GRCh38. → TP53.",
		"turn 3 of 3 fail (simulated user, leaked GRCh38; female): And hg38. → TP53. (no)",
	}, TurnLines(turns))
}
