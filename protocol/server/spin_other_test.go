//go:build !linux

package server_test

// serveChild: spawned server modes are linux-only (spin_linux_test.go).
func serveChild() {}
