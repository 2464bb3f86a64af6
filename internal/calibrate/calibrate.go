// Package calibrate measures how far verdicts can be trusted. It gives
// labelled answers (eval.Label: a candidate answer with the verdict a fair
// judge must give it) to the deterministic checks of the cases they were
// written for and to the configured judges, and compares each side's
// verdicts with the labels: agreement, true-positive and true-negative
// rates, Cohen's kappa and the confusion matrix. The result is
// calibration.json, which the report shows beside a run's verdicts.
//
// Judge verdicts are cached like case results, in the same cache: the key
// holds the question, expected answer and graded answer, the judge models,
// mode and prompt and the token limit. A stored record's status is pass
// when the judges gave a usable verdict (whatever it was), so a later
// calibration reuses every verdict instead of asking again until the judge
// happens to agree; an undecided judge and errors are asked again.
package calibrate

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpeval/mcpeval/cache"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/grading"
	"github.com/mcpeval/mcpeval/internal/labelled"
	"github.com/mcpeval/mcpeval/internal/llm"
	"github.com/mcpeval/mcpeval/internal/redact"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/suite"
	"github.com/mcpeval/mcpeval/internal/tokens"
)

// Inputs are the labelled answers to measure on (see labelled.Inputs).
type Inputs = labelled.Inputs

// Load reads the labels of st.Labels and those next to the cases of
// st.Cases, and links them to the loaded cases.
func Load(st settings.Settings) (Inputs, error) {
	cases, err := evalcase.LoadPath(st.Cases)
	if err != nil {
		return Inputs{}, err
	}
	return labelled.Load(st.Cases, st.Labels, cases, false)
}

// Run measures the deterministic checks and, when st configures a judge,
// the judges on the inputs. log receives progress and warnings.
func Run(ctx context.Context, st settings.Settings, in Inputs, log io.Writer) (eval.Calibration, error) {
	cal := eval.Calibration{Generated: time.Now().UTC(), Items: len(in.Labels)}
	for _, w := range in.Warnings {
		fmt.Fprintln(log, "calibrate: warning:", w)
	}
	for _, f := range in.Files {
		cal.Labels = append(cal.Labels, labelled.Relative(st.Root, f))
	}
	cal.Results, cal.Checks, cal.ChecksSets = labelled.Checks(in, st.Root)
	if !st.JudgeEnabled() {
		return cal, nil
	}
	j, err := judge(ctx, st, in, cal.Results, log)
	if err != nil {
		return cal, err
	}
	cal.Judge = j
	return cal, nil
}

// judge asks the judges about every label (or reuses their cached
// verdicts), fills the results' judge fields and measures the judges.
func judge(ctx context.Context, st settings.Settings, in Inputs, results []eval.LabelResult, log io.Writer) (*eval.JudgeCalibration, error) {
	panel := suite.Panel(st)
	redactor := st.Redactor(os.Environ())
	counter, err := tokens.ForModel(panel.Models[0])
	if err != nil {
		return nil, err
	}
	c, err := cache.Open(st.Cache)
	if err != nil {
		return nil, err
	}
	if st.Clear {
		if err := c.Clear(); err != nil {
			c.Close()
			return nil, err
		}
	}
	limiter := llm.NewLimiter(st.Concurrency)
	g := grader{st: st, panel: panel, chat: suite.NewChat(st, limiter), cache: c, redactor: redactor,
		cfg: agent.Config{TokenLimit: st.MaxTokens, Counter: counter}}

	var wg sync.WaitGroup
	for i := range in.Labels {
		if err := limiter.Acquire(ctx); err != nil {
			results[i].Error = "not asked: " + err.Error()
			continue
		}
		wg.Go(func() {
			defer limiter.Release()
			g.grade(ctx, in.Labels[i], in.Cases[i], &results[i])
		})
	}
	wg.Wait()
	closeErr := c.Close()
	for _, w := range c.Warnings() {
		fmt.Fprintln(log, "calibrate: warning:", redactor.String(w))
	}

	jc := &eval.JudgeCalibration{Models: panel.Models, PromptHash: grading.JudgePromptHash(), Provider: redactor.String(st.BaseURL)}
	if len(panel.Models) > 1 {
		jc.Mode = panel.Mode
	}
	var pairs []labelled.Pair
	errs := 0
	for _, r := range results {
		switch {
		case r.Error != "":
			errs++
			continue
		case r.Unusable:
			jc.Unusable++
		}
		if r.Cached {
			jc.Cached++
		}
		if disagree(r.Judges) {
			jc.Disagreements++
		}
		pairs = append(pairs, labelled.PairOf(r.Label, r.Judge))
	}
	jc.Agreement, jc.Sets = labelled.AgreeBySet(pairs)
	jc.Agreement.Errors = errs
	return jc, closeErr
}

func disagree(judges []eval.JudgeVerdict) bool {
	for _, j := range judges {
		if j.Verdict != judges[0].Verdict {
			return true
		}
	}
	return false
}

// grader asks the judges about labelled answers.
type grader struct {
	st       settings.Settings
	panel    grading.Panel
	chat     llm.Chatter
	cache    *cache.Cache
	redactor *redact.Redactor
	cfg      agent.Config
}

// grade fills r with the judges' verdict on l, the answer to c (nil when
// no loaded case matches the label), from the cache when it holds one. A
// case graded by claims is judged claim by claim.
func (g grader) grade(ctx context.Context, l eval.Label, c *eval.Case, r *eval.LabelResult) {
	var claims []eval.Claim
	var coverage float64
	if c != nil && len(c.Claims) > 0 {
		claims, coverage = c.Claims, c.Coverage()
	}
	key, keyErr := g.key(l, claims, coverage)
	if keyErr == nil && !g.st.Force {
		if rec, ok := g.cache.Get(key); ok {
			setJudged(r, rec)
			return
		}
	}
	start := time.Now()
	rec := eval.Record{Name: "label " + l.Where(), Category: "judge calibration", File: l.File, Line: l.Line,
		Question: l.Question, Expected: l.Expected, Response: l.Answer, JudgeModel: strings.Join(g.panel.Models, ","),
		StartedAt: start.UTC(), ToolCalls: []eval.ToolCall{}}
	var v grading.Verdict
	var err error
	if len(claims) > 0 {
		v, err = g.panel.JudgeCase(ctx, g.chat, g.cfg, *c, l.Answer)
	} else {
		v, err = g.panel.Judge(ctx, g.chat, g.cfg, l.Question, l.Expected, l.Answer)
	}
	rec.Seconds = time.Since(start).Seconds()
	rec.Usage, rec.Judges, rec.JudgeDisagreement = v.Usage, v.Judges, v.Disagreement
	switch {
	case err != nil:
		rec.Status, rec.Reason = eval.Error, "judge: "+llm.Describe(err)
	case v.Skipped != "":
		rec.Status, rec.Reason = eval.TokenLimit, v.Skipped
	case v.Verdict == "":
		rec.Status, rec.Reason, rec.JudgeRaw = eval.Fail, v.Reason, v.Raw
	default:
		rec.Status, rec.Verdict, rec.Reason = eval.Pass, v.Verdict, v.Reason
	}
	g.redactor.Value(&rec)
	if keyErr == nil && rec.Status != eval.Error {
		if err := g.cache.Put(key, rec); err != nil {
			r.Error = "cache: " + err.Error()
		}
	}
	setJudged(r, rec)
}

// setJudged copies a judged record into a label's result.
func setJudged(r *eval.LabelResult, rec eval.Record) {
	r.Cached, r.Judges, r.JudgeReason = rec.Cached, rec.Judges, rec.Reason
	switch rec.Status {
	case eval.Pass:
		r.Judge = rec.Verdict
	case eval.Fail: // no usable verdict: undecided, as in a run
		r.Judge, r.Unusable = labelled.Undecided, true
	default:
		r.Error = rec.Reason
	}
}

// key is the cache key of the judges' verdict on a labelled answer (to a
// case graded by claims, when claims are given).
func (g grader) key(l eval.Label, claims []eval.Claim, coverage float64) (string, error) {
	in := cache.KeyInput{
		Question: l.Question, Expected: l.Expected,
		Expectations: struct {
			Kind     string       `json:"kind"`
			Answer   string       `json:"answer"`
			Claims   []eval.Claim `json:"claims,omitempty"`
			Coverage float64      `json:"pass_coverage,omitempty"`
		}{"judge calibration", l.Answer, claims, coverage},
		BaseURL: g.redactor.String(g.st.BaseURL), TokenLimit: g.st.MaxTokens,
	}
	in.JudgeModel, in.JudgeMode, in.JudgePrompt = suite.JudgeKey(g.st)
	if len(claims) > 0 {
		in.JudgePrompt = grading.ClaimsPrompt
	}
	return cache.Key(in)
}

// Write writes calibration.json into dir.
func Write(dir string, cal eval.Calibration) (string, error) {
	path := filepath.Join(dir, eval.CalibrationFile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, files.WriteJSON(path, cal)
}
