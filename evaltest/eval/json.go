package eval

import (
	"bytes"
	"encoding/json"
)

// ArgumentsJSON encodes tool-call arguments (or any value a tool call or
// result carries) as compact JSON that keeps <, > and & as they are: a
// variant written c.187C>T reads so in records, reports and messages,
// not as c.187C\u003eT. A value JSON cannot encode gives "null".
func ArgumentsJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
