//go:build !unix

package conformance

import "os"

// terminalWidth is 0 (unknown) elsewhere than on unix.
func terminalWidth(*os.File) int { return 0 }
