//go:build race

package locate_test

// raceEnabled: the race detector makes sync.Pool drop items, so regexp
// matching allocates and allocation counts mean nothing.
const raceEnabled = true
