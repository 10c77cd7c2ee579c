//go:build !unix

package server

import (
	"io"
	"os"
)

// pollable returns f: only unix systems get a pollable stdin and stdout.
func pollable(f *os.File, name string) *os.File { return f }

// stdioEnd returns f.
func stdioEnd(f *os.File, name string, input bool) io.ReadWriteCloser { return f }
