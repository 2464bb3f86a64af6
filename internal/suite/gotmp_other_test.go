//go:build !linux

package suite_test

// fastGoTemp is "" here: the go command keeps its work directories in the
// system's temporary directory.
func fastGoTemp() string { return "" }
