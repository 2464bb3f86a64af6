package evaltest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The public record types are aliases of the internal model, so go doc
// shows their fields only as their doc comments list them: every JSON
// field of the types must be listed there.
func TestDocumentedFields(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "model.go", nil, parser.ParseComments)
	require.NoError(t, err)
	docs := map[string]string{}
	ast.Inspect(file, func(n ast.Node) bool {
		if spec, ok := n.(*ast.TypeSpec); ok && spec.Doc != nil {
			docs[spec.Name.Name] = spec.Doc.Text()
		}
		return true
	})
	for name, typ := range map[string]reflect.Type{
		"Record":   reflect.TypeFor[Record](),
		"ToolCall": reflect.TypeFor[ToolCall](),
	} {
		doc := docs[name]
		require.NotEmpty(t, doc, name)
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			jsonName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			assert.Contains(t, doc, f.Name, "%s.%s is not in its doc comment", name, f.Name)
			assert.Contains(t, doc, jsonName, "%s.%s's JSON name %q is not in its doc comment", name, f.Name, jsonName)
		}
	}
}

// Every status has its exported constant, and Statuses lists them all.
func TestEveryStatusIsExported(t *testing.T) {
	exported := []Status{Pass, Fail, Undecided, TokenLimit, Error, Cut, NotRun}
	assert.Equal(t, exported, Statuses())
	for _, s := range Statuses() {
		assert.NotEmpty(t, s.Meaning(), "%s", s)
	}
}
