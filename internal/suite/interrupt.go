package suite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpeval/mcpeval/internal/prose"
)

// Interrupted is the reason a run stops on its first interrupt.
const Interrupted = "interrupted (Ctrl-C)"

// ErrInterrupted is the cause of the cases a second interrupt cancels.
var ErrInterrupted = errors.New("interrupted again (a second Ctrl-C): the case was cancelled")

// notFinished begins the reason of a case an interrupt cancelled.
const notFinished = "not finished: "

// ExitInterrupted is the exit status of a run a third interrupt ends, as
// a shell gives a command killed by SIGINT.
const ExitInterrupted = 130

// WatchInterrupts handles interrupts (Ctrl-C, SIGTERM) until stop is
// called, saying what it does with say (nil: on the run's log). The first stops the run: no case starts any more, the running
// ones finish and are kept, and the run ends as usual, its closing line
// and summary saying it was interrupted. The second cancels the running
// cases through the returned context: each is recorded as not run. The
// third exits at once with ExitInterrupted, after the records written so
// far (each is written as its case ends).
func (s *Run) WatchInterrupts(say func(line string)) (ctx context.Context, stop func()) {
	if say == nil {
		say = func(line string) { fmt.Fprintln(s.log, line) }
	}
	ch := make(chan os.Signal, 3)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan struct{})
	go func() {
		for n := 1; ; n++ {
			select {
			case <-done:
				return
			case <-ch:
			}
			switch n {
			case 1:
				s.Stop(Interrupted)
				say(fmt.Sprintf("mcpeval: interrupted: no case starts any more; the running ones finish and are kept (%s); Ctrl-C again cancels them", prose.Plural(int(s.running.Load()), "cases")))
			case 2:
				say(fmt.Sprintf("mcpeval: interrupted again: the running cases (%s) are cancelled and recorded as not run; Ctrl-C once more exits at once", prose.Plural(int(s.running.Load()), "cases")))
				cancel(ErrInterrupted)
			default:
				say("mcpeval: interrupted a third time: exiting; the records written so far are kept, the run has no summary")
				os.Exit(ExitInterrupted)
			}
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}
