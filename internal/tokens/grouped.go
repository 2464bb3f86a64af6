package tokens

import "strconv"

// Grouped writes a count as the suite shows counts: with a comma between
// groups of three digits (100,000).
func Grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
