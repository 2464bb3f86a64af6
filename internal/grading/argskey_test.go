package grading

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestArgsKeyIsExactLooseMatching holds that two argument objects share a
// key exactly when each matches the other as an exact args expectation.
func TestArgsKeyIsExactLooseMatching(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{`{"pos":99694174}`, `{"pos":"99694174"}`},
		{`{"gene":"NUTM2G"}`, `{"gene":"nutm2g"}`},
		{`{"gene":" NUTM2G "}`, `{"gene":"NUTM2G"}`},
		{`{"gene":"NUTM2G","build":"hg19"}`, `{"build":"HG19","gene":"NUTM2G"}`},
		{`{"gene":"NUTM2G"}`, `{"gene":"NUTM2G","build":"hg19"}`},
		{`{"gene":"MECP2"}`, `{"gene":"NUTM2G"}`},
		{`{"x":null}`, `{"x":""}`},
		{`{"x":[1,2]}`, `{"x":[2,1]}`},
		{`{"x":{"a":1}}`, `{"x":{"A":1}}`},
		{`{"unit":"\u212a"}`, `{"unit":"k"}`}, // the Kelvin sign folds to k
		{`{"s":"\u017f"}`, `{"s":"S"}`},       // so does the long s to s
		{`{}`, `{}`},
		{`{"a":"1"}`, `{"b":"1"}`},
	} {
		var a, b map[string]any
		require.NoError(t, json.Unmarshal([]byte(tc.a), &a))
		require.NoError(t, json.Unmarshal([]byte(tc.b), &b))
		match := argsMatch(a, b, true) && argsMatch(b, a, true)
		assert.Equal(t, match, ArgsKey(a) == ArgsKey(b), "%s vs %s", tc.a, tc.b)
	}
}
