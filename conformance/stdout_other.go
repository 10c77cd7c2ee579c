//go:build !unix

package conformance

func ginkgoToStderr(fn func()) { fn() }
