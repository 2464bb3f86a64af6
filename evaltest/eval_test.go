package evaltest

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/sampleserver"
	"github.com/mcpeval/mcpeval/internal/suite"
)

// errTestTimeout is the cause given to cases still running when go test's
// -timeout is about to expire.
var errTestTimeout = errors.New("go test -timeout is about to expire: finished cases are saved; raise it (e.g. -timeout 2h) to finish the run")

// runCategory runs the cases of one category as parallel subtests.
func runCategory(t *testing.T, category string) {
	t.Parallel()
	markUncacheable()
	cases := casesOf(category)
	if len(cases) == 0 {
		t.Skipf("no loaded case has category %q", category)
	}
	for _, c := range cases {
		t.Run(ev.Names[c.Name], func(t *testing.T) { runCase(t, c) })
	}
}

// otherCategories lists the loaded categories without a test function of
// their own.
func otherCategories() []string {
	var other []string
	for _, name := range categoryNames() {
		if !slices.Contains(generatedCategories, name) {
			other = append(other, name)
		}
	}
	return other
}

// TestOtherCategories serves every loaded category that has no test
// function of its own (see categories_test.go, made by `make generate`), so
// that no case is ever left out.
func TestOtherCategories(t *testing.T) {
	t.Parallel()
	markUncacheable()
	other := otherCategories()
	if len(other) == 0 {
		t.Skip("every loaded category has a test function of its own")
	}
	asCases := make([]eval.Case, len(other))
	for i, name := range other {
		asCases[i].Name = name
	}
	subtests := evalcase.SubtestNames(asCases)
	for i, name := range other {
		t.Logf("category %q has no test function of its own; it runs here (run `make generate` to give it one)", name)
		t.Run(subtests[i], func(t *testing.T) {
			for _, c := range casesOf(name) {
				t.Run(ev.Names[c.Name], func(t *testing.T) { runCase(t, c) })
			}
		})
	}
}

func runCase(t *testing.T, c eval.Case) {
	t.Parallel()
	if reason := ev.Aborted(); reason != "" {
		t.Skip("run stopped: " + reason)
	}
	ctx := context.Background()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, deadline.Add(-5*time.Second), errTestTimeout)
		defer cancel()
	}
	if reason := ev.Skip(c); reason != "" {
		t.Skip(reason)
	}
	if c.Kind == eval.KindCode && len(ev.Settings.Servers) == 0 {
		if _, err := sampleserver.PythonWithPandas(); err != nil {
			t.Skip("code case: the bundled server cannot run pandas: " + err.Error())
		}
	}
	rec, err := ev.Run(ctx, c, t.Name())
	if err != nil {
		t.Skip(err.Error() + ": " + ev.Aborted())
	}
	t.Attr("eval.status", string(rec.Status))
	if rec.Cached {
		t.Attr("eval.cached", "true")
	}
	if rec.Status == eval.Pass {
		t.Log(suite.FormatLine(rec))
		return
	}
	t.Error(suite.FormatFailure(rec))
}

// runMarker is a file in this package's directory that TestMain rewrites at
// the end of every run.
const runMarker = ".cache/last-run"

// markUncacheable keeps go test from replaying an evaluation from its own
// test cache (the model, the server or the result cache may have changed
// without go test knowing): it opens runMarker, and go test caches no result
// that read a file of the module modified in the last two seconds.
func markUncacheable() {
	if f, err := os.Open(runMarker); err == nil {
		f.Close()
	}
}
