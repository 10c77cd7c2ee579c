//go:build !unix

package server

import "os"

// pollable returns f: only unix systems get a pollable stdin and stdout.
func pollable(f *os.File, name string) *os.File { return f }
