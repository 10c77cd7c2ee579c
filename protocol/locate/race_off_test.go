//go:build !race

package locate_test

const raceEnabled = false
