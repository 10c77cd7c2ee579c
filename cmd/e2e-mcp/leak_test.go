package main_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run when a goroutine a test started (a pipe copier of
// a host process, an HTTP fixture) outlives it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
