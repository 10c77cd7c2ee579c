//go:build unix

package conformance

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalWidth is the width of the terminal f in columns, 0 when unknown.
func terminalWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
