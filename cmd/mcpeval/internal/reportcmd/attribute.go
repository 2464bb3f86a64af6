package reportcmd

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/baseline"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/suite"
	"github.com/mcpeval/mcpeval/internal/testname"
)

// confirm checks the causes of the flips by asking again: a flip the
// judge's verdict explains is confirmed by grading the baseline's answer
// with the current judge (when the settings configure one); with
// o.Attribute the flips are re-run on the baseline's recorded tool
// results. The gate then weighs the causes found.
func confirm(c *baseline.Comparison, baseDir, dir string, o Options, p base.Process) error {
	if !o.Attribute && keepReplays(c, dir, p) > 0 {
		c.Regate()
	}
	judged := flips(c, eval.CauseJudge)
	if len(judged) == 0 && !o.Attribute {
		return nil
	}
	st, err := settings.ResolveArgs(nil)
	switch {
	case err != nil && o.Attribute:
		return fmt.Errorf("-attribute: configuration: %w", err)
	case err != nil:
		fmt.Fprintln(p.Stderr, "mcpeval report: the judge's flips are not re-judged: configuration:", err)
		return nil
	}
	if len(judged) > 0 && st.JudgeEnabled() {
		if err := confirmJudge(judged, st, p); err != nil {
			return err
		}
	}
	if o.Attribute {
		if err := replayFlips(flips(c, eval.CauseSurface, eval.CauseData, eval.CauseModel), st, baseDir, dir, o, p); err != nil {
			return err
		}
	}
	c.Regate()
	return nil
}

// maxCompareJSON bounds the compare.json an earlier report wrote that is
// read back.
const maxCompareJSON = 64 << 20

// keepReplays keeps what an earlier mcpeval report -attribute found: when
// the run's compare.json compares the same two runs and holds re-runs on
// the baseline's tool results, each flip they re-ran is weighed by them
// again, so a report written later without -attribute does not write a
// poorer comparison over it. It returns how many flips it weighed.
func keepReplays(c *baseline.Comparison, dir string, p base.Process) int {
	path := filepath.Join(dir, "compare.json")
	data, err := files.ReadRegular(path, maxCompareJSON)
	if err != nil {
		return 0 // none, or none to trust: the comparison is written anew
	}
	var earlier baseline.ComparisonJSON
	if json.Unmarshal(data, &earlier) != nil || earlier.Baseline != c.Base.RunID || earlier.Run != c.Current.RunID {
		return 0
	}
	kept, run := 0, ""
	replayable := flips(c, eval.CauseSurface, eval.CauseData, eval.CauseModel) // before weigh changes their causes
	for _, f := range earlier.Flips {
		if f.Attribution == nil || f.Replay == nil || f.Replay.Runs < 1 || f.Replay.AsBaseline < 0 || f.Replay.AsBaseline > f.Replay.Runs || !runs.ValidID(f.Replay.Run) {
			continue
		}
		for _, d := range replayable {
			if d.Name == f.Name && d.Model == f.Model && d.Change == f.Change {
				weigh(d.Attribution, &baseline.ReplayCheck{Run: f.Replay.Run, Runs: f.Replay.Runs, AsBaseline: f.Replay.AsBaseline})
				kept++
				run = f.Replay.Run
			}
		}
	}
	if kept > 0 {
		fmt.Fprintf(p.Stdout, "attribution: kept the re-runs of %s on the baseline's tool results (run %s) that an earlier -attribute made for this comparison; -attribute runs them again\n",
			prose.Plural(kept, "flipped cases"), run)
	}
	return kept
}

// flips returns the flipped cases of the causes given.
func flips(c *baseline.Comparison, causes ...string) []*baseline.CaseDiff {
	var out []*baseline.CaseDiff
	for i := range c.Cases {
		if a := c.Cases[i].Attribution; a != nil && slices.Contains(causes, a.Cause) {
			out = append(out, &c.Cases[i])
		}
	}
	return out
}

// confirmJudge grades the baseline's answer of each flip the judge
// explains with the current case and judge: the same outcome as now
// confirms that the judge changed its mind; the baseline's outcome again
// says the answer changed, which makes the flip the model's.
func confirmJudge(judged []*baseline.CaseDiff, st settings.Settings, p base.Process) error {
	cases, err := evalcase.LoadPath(st.Cases)
	if err != nil {
		return fmt.Errorf("re-judging the baseline's answers: %w", err)
	}
	regrader, err := suite.NewRegrader(st, cases, p.Stderr)
	if err != nil {
		return fmt.Errorf("re-judging the baseline's answers: %w", err)
	}
	var wg sync.WaitGroup
	for _, d := range judged {
		a := d.Attribution
		baseRec, curRec := d.Records()
		i := slices.IndexFunc(cases, func(c eval.Case) bool { return c.Name == d.Name })
		if i < 0 {
			a.JudgeCheck = "not re-judged: the case is no longer in the case files"
			continue
		}
		wg.Go(func() {
			r, err := regrader.Grade(context.Background(), cases[i], *baseRec)
			switch {
			case err != nil:
				a.JudgeCheck = "not re-judged: " + err.Error()
			case r.Status == curRec.Status:
				a.JudgeCheck = fmt.Sprintf("confirmed: the current judge (%s) grades the baseline's answer %s too", r.JudgeModel, r.Status)
			default:
				a.JudgeCheck = fmt.Sprintf("not confirmed: the current judge (%s) grades the baseline's answer %s, as then: the answer changed, not the judge", r.JudgeModel, r.Status)
				a.Decide(eval.CauseModel, a.Why, eval.CauseJudge) // the evidence stands; the judge's check says what it means
			}
		})
	}
	wg.Wait()
	return nil
}

// replayFlips re-runs the flipped cases o.AttributeRuns times on the
// baseline's recorded tool results (go test o.Pkg -replay-tools), in a run
// of their own under dir/attribution, and weighs each flip's cause by
// what the re-runs did: mostly the baseline's outcome again says the tool
// results moved the model (data, or surface when the surface changed);
// mostly the current one says the model changed on the same data.
func replayFlips(flipped []*baseline.CaseDiff, st settings.Settings, baseDir, dir string, o Options, p base.Process) error {
	if len(flipped) == 0 {
		return nil
	}
	var tests []testname.Name
	for _, d := range flipped {
		if _, cur := d.Records(); cur != nil && cur.Test != "" {
			name, err := testname.Parse(cur.Test)
			if err != nil {
				return fmt.Errorf("-attribute: case %q: %w", d.Name, err)
			}
			tests = append(tests, name)
		}
	}
	if len(tests) == 0 {
		return nil
	}
	root, err := files.ModuleRoot()
	if err != nil {
		return fmt.Errorf("-attribute: %w", err)
	}
	out, id := filepath.Join(dir, "attribution"), runs.NewID(time.Now())
	fmt.Fprintf(p.Stdout, "attribution: re-running %s %d times on the tool results recorded by the baseline %s\n",
		prose.Plural(len(flipped), "flipped cases"), o.AttributeRuns, filepath.Base(baseDir))
	cmd := exec.Command("go", "test", cmp.Or(o.Pkg, "./evaltest"), "-count="+strconv.Itoa(o.AttributeRuns), "-run", testname.Pattern(tests),
		"-replay-tools="+baseDir, "-run-id="+id)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "EVAL_OUT="+out, "EVAL_PROGRESS=off")
	output, runErr := cmd.CombinedOutput() // failed cases fail go test: the records tell
	records, err := runs.ReadRecords(filepath.Join(out, runs.Dir, id, eval.RecordsFile))
	if err == nil && len(records) == 0 {
		err = errors.New("no records")
	}
	if err != nil {
		return fmt.Errorf("-attribute: the re-runs left no records (%v): %s", runErr, lastLines(string(output), 10))
	}
	for _, d := range flipped {
		n, asBase := 0, 0
		for _, r := range records {
			if r.Name == d.Name && (d.Model == "" || r.ArmName() == d.Model) && r.Status != eval.NotRun {
				n++
				if (r.Status == eval.Pass) == d.Base.Passed {
					asBase++
				}
			}
		}
		if n > 0 {
			weigh(d.Attribution, &baseline.ReplayCheck{Run: id, Runs: n, AsBaseline: asBase})
		}
	}
	return nil
}

// weigh sets a flip's cause by its re-runs on the baseline's tool results.
func weigh(a *baseline.Attribution, r *baseline.ReplayCheck) {
	a.Replay = r
	switch {
	case 2*r.AsBaseline > r.Runs: // the old tool results give the old outcome
		r.Sure = float64(r.AsBaseline) / float64(r.Runs)
		if a.Cause == eval.CauseModel {
			a.Decide(eval.CauseData, a.Why+"; the model does as before on the baseline's tool results: the data moved and the model followed", eval.CauseModel)
		}
	case 2*r.AsBaseline < r.Runs: // the old tool results give the new outcome
		r.Sure = float64(r.Runs-r.AsBaseline) / float64(r.Runs)
		if a.Cause != eval.CauseModel {
			// The tools' changes stay named after it: their evidence holds,
			// it did not decide the verdict.
			a.Decide(eval.CauseModel, "on the baseline's tool results the model does as now: the model changed on the same data")
		}
	default:
		r.Sure = 0.5
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
