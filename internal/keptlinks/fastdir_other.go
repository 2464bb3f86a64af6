//go:build !linux

package keptlinks

// fastDir is "": the system's temporary directory.
func fastDir() string { return "" }
