package suite

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cache"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// A cache written before records held their grading version is found: the
// legacy key of a case is the key the suite at c14a7a2 gave it (these
// values are that commit's Run.keyWith for the same case and settings,
// without a judge and with three).
func TestLegacyKeysAreThoseOfEarlierVersions(t *testing.T) {
	cases, err := evalcase.Parse("cases.yaml", []byte(`
- case:
    name: lookup
    input: What is the Entrez id of NUTM2G?
    expected: "441457"
    checks: {contains: [{any: ["441457", "Entrez 441457"], of: NUTM2G}], numbers: [{value: 441457}]}
    tools: {must_call: [get_gene_by_symbol]}
    budget: {tokens: 5000}
`))
	require.NoError(t, err)
	for judge, want := range map[string]string{
		"none":     "ed0b2db65e6339be5cd62add077b65d145746e056401e3bd0173a2b12374a704",
		"j1,j2,j3": "eb55b51509288bf93659377856a5497cc47ba2028efdf5e46a7d2c3dae7206f8",
	} {
		st := settings.Settings{Judge: judge, Model: "m", BaseURL: "http://localhost:1/v1", MaxIterations: 10,
			MaxTokens: 100000, CaseTimeout: time.Minute, FollowLinks: true}
		s, err := newRun(st, cases, io.Discard)
		require.NoError(t, err)
		in, e := s.keyInput(cases[0], &arm{model: "m"}, 0, "h")
		got, err := cache.Key(legacyKeyInput(in, cases[0], e))
		require.NoError(t, err)
		assert.Equal(t, want, got, "judge %s", judge)
		now, err := cache.Key(in)
		require.NoError(t, err)
		assert.NotEqual(t, want, now, "today's key holds no rules of grading")
	}
}
