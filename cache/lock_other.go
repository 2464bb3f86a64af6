//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package cache

// lockFile does nothing on systems without flock: goroutines of one
// process are still serialised, but two processes sharing one cache file
// may lose each other's entries there.
func lockFile(path string) (unlock func(), err error) {
	return func() {}, nil
}
