package rundata

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Every metric has a label.
func TestMetricLabels(t *testing.T) {
	for _, name := range append([]string{overall}, eval.MetricNames()...) {
		assert.NotEmpty(t, metricLabels[name], name)
	}
}
