//go:build !unix

package conformance

import "os"

// ginkgoToStderr runs fn. Elsewhere than on unix ginkgo's output is left
// where it is (stdout) and is not redacted: the reports still are.
func ginkgoToStderr(redact func(string) string, fn func()) { fn() }

// isTerminal is false elsewhere than on unix: no colours.
func isTerminal(*os.File) bool { return false }
