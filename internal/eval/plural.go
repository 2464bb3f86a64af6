package eval

import (
	"fmt"
	"strings"
)

// Plural is n with the noun, singular for one: "1 case", "3 cases",
// "1 case run", "1 regression", "1 cached pass".
func Plural(n int, noun string) string {
	if n == 1 {
		noun = strings.Replace(noun, "cases", "case", 1)
		if strings.HasSuffix(noun, "sses") {
			noun = strings.TrimSuffix(noun, "es")
		} else {
			noun = strings.TrimSuffix(noun, "s")
		}
	}
	return fmt.Sprintf("%d %s", n, noun)
}
