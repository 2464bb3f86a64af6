//go:build !race

package cache

// raceDetector is set when the tests run with the race detector, which
// makes encoding JSON about ten times slower.
const raceDetector = false
