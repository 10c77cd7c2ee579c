//go:build !linux

package transport

import (
	"errors"
	"fmt"
)

func startProcess(t *spawnTransport, path, dir string, env []string) (Conn, error) {
	return nil, fmt.Errorf("the spawn transport is supported on Linux only: %w", errors.ErrUnsupported)
}
