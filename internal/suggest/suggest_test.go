package suggest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClosest(t *testing.T) {
	fields := []string{"name", "category", "input", "expected", "kind", "checks", "tools", "reference", "budget"}
	tests := []struct {
		name, want string
		near       bool
	}{
		{"chekcs", "checks", true},
		{"refrence", "reference", true},
		{"expect", "expected", true}, // a prefix
		{"zzzzzzzz", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, near := Closest(tt.name, fields)
			assert.Equal(t, tt.near, near)
			if tt.near {
				assert.Equal(t, tt.want, got)
			}
		})
	}
	assert.Equal(t, " (did you mean openai/gpt-4.1-mini?)", DidYouMean("openai/gpt-4.1-mnii", []string{"openai/gpt-4.1-mini", "openai/gpt-4o"}))
	assert.Equal(t, "", DidYouMean("llama", []string{"openai/gpt-4.1-mini"}))
	assert.Equal(t, "EVAL_JUDGE_MODE or EVAL_JUDGE_MODEL", first(Closest("EVAL_JUDGE", []string{"EVAL_JUDGE_MODEL", "EVAL_JUDGE_MODE", "EVAL_CASES"})))
}

func first(s string, _ bool) string { return s }
