package cli

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them (the
// forwarder, the drain on SIGTERM and the session registry run here).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
