package suite

import (
	"fmt"
	"slices"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/arms"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/tokens"
)

// arm is one version of what the model is given, run on every case side
// by side with the others: an arm of the arms file, or, without one, each
// model of -models (or the one model).
type arm struct {
	// label names the arm in subtests, records and the summary: the
	// arm's name, else the model's.
	label string
	// name is the arm's name ("" without an arms file).
	name         string
	model        string
	systemPrompt string // "" : the run's
	tools        *mcpconn.Set
	// hash identifies the arm's tool surface (the cache key's), and
	// toolTokens counts the tokens its tool definitions add to every
	// request, in the model's encoding (set by countDefinitions, in the
	// background: read it after Run.definitionsCounted).
	hash       string
	toolTokens int
	// base and hidden are set on an arm leave_one_out made (see arms.Arm).
	base, hidden string
	noServer     bool
	// baseline is set on the arm the arms file names its baseline.
	baseline bool
	// overridden are the tools (server, name) whose definition the arm
	// replaces: its calls to them are not the server's (see
	// toolstats.Collector.SetOverridden).
	overridden [][2]string
}

// makeArms builds the run's arms: from the arms file, each a view of the
// connected servers (see mcpconn.Set.View), with leave_one_out expanded;
// else one per model. The models the arms use become the run's models.
func (s *Run) makeArms() error {
	st := &s.Settings
	if st.Arms == "" {
		models := st.Models
		if st.Reference || len(models) == 0 {
			models = []string{st.Model}
		}
		for _, m := range models {
			s.arms = append(s.arms, &arm{label: m, model: m, tools: s.tools})
		}
		s.hashArms()
		return nil
	}
	declared, err := arms.Load(st.Arms)
	if err != nil {
		return err
	}
	all, err := arms.Expand(declared, func(a arms.Arm) ([]string, error) {
		view, err := s.tools.View(a.Surface)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, t := range view.Entries() {
			names = append(names, t.Server+"/"+t.Name)
		}
		return names, nil
	})
	if err != nil {
		return err
	}
	var models []string
	for _, a := range all {
		view, err := s.tools.View(a.Surface)
		if err != nil {
			return fmt.Errorf("%s:%d: arm %q: %w", a.File, a.Line, a.Name, err)
		}
		model := a.Model
		if model == "" || st.Reference {
			model = st.Model
		}
		if !slices.Contains(models, model) {
			models = append(models, model)
		}
		var overridden [][2]string
		for _, t := range view.Entries() {
			_, byName := a.Surface.Override[t.Name]
			_, byKey := a.Surface.Override[t.Server+"/"+t.Name]
			if byName || byKey {
				overridden = append(overridden, [2]string{t.Server, t.Name})
			}
		}
		s.arms = append(s.arms, &arm{label: a.Name, name: a.Name, model: model, systemPrompt: a.SystemPrompt, tools: view,
			base: a.Base, hidden: a.Hidden, noServer: a.NoServer(), baseline: a.Baseline, overridden: overridden})
	}
	st.Models = models
	s.hashArms()
	return nil
}

// hashArms hashes each arm's tool surface: a part of its cache keys.
func (s *Run) hashArms() {
	for _, a := range s.arms {
		a.hash = a.tools.Hash()
	}
}

// counterFor returns the token counter of a model's encoding.
func (s *Run) counterFor(model string) (*tokens.Counter, error) {
	if c, ok := s.counters[model]; ok {
		return c, nil
	}
	c, err := tokens.ForModel(model)
	if err != nil {
		return nil, err
	}
	s.counters[model] = c
	return c, nil
}

// Arms returns the labels of the run's arms, in their order: what the
// cases run with side by side, one subtest each when there are several.
func (s *Run) Arms() []string {
	out := make([]string, len(s.arms))
	for i, a := range s.arms {
		out[i] = a.label
	}
	return out
}

// armOf returns the arm of a label.
func (s *Run) armOf(label string) *arm {
	for _, a := range s.arms {
		if a.label == label {
			return a
		}
	}
	return s.arms[0]
}

// describeArms adds to each arm's result what its arm gives the model:
// the model (when the arm is of an arms file), the tokens of its tool
// definitions, the arm it leaves a tool out of.
func (s *Run) describeArms(results []eval.ModelResult) {
	s.definitionsCounted()
	for i := range results {
		r := &results[i]
		for _, a := range s.arms {
			if a.label != r.Model {
				continue
			}
			r.ToolTokens, r.Tools = a.toolTokens, len(a.tools.Tools())
			if a.name != "" {
				r.Arm = &eval.ArmInfo{Model: a.model, NoServer: a.noServer, Base: a.base, Hidden: a.hidden, Baseline: a.baseline}
			}
		}
	}
}

// CaseRunOf names the run of a case with an arm (see Arms) in a
// repeat.
func (s *Run) CaseRunOf(name, arm string, repeat int) eval.CaseRun {
	a := s.armOf(arm)
	return eval.CaseRun{Name: name, Model: a.model, Arm: a.name, Repeat: repeat}
}
