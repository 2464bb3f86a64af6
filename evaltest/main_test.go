package evaltest

import (
	"testing"

	"github.com/mcpeval/mcpeval/internal/sampleserver"
)

// evaluation is this repository's suite: the cases in cases/ against the
// bundled sample server, unless configured otherwise.
var evaluation = New(Config{Generated: generatedCategories, Server: sampleserver.New, CodeCheck: sampleserver.CheckPandas})

func TestMain(m *testing.M) { evaluation.Main(m) }

// TestOtherCategories serves every loaded category that has no test
// function of its own (see categories_test.go, made by `make generate`).
func TestOtherCategories(t *testing.T) { evaluation.RunOther(t) }
