package grading

import (
	"context"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// CheckAnswerWithin is CheckAnswer bounded by ctx, the case's context: when
// ctx ends first (a large regexp on a large answer can run for minutes) it
// returns ctx's error at once, so that the case ends on time with its
// record. Go's regexp cannot be stopped: the checks still running finish in
// the background and their result is dropped.
func CheckAnswerWithin(ctx context.Context, c eval.Case, answer string) ([]eval.CheckResult, error) {
	done := make(chan []eval.CheckResult, 1)
	go func() { done <- CheckAnswer(c, answer) }()
	select {
	case out := <-done:
		return out, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}
