package webengine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/server"
)

// TestInitReportsABrowserThatCannotStart: with a TMPDIR in which no
// directory can be made, Chromium cannot start; lifecycle/init answers
// with that cause (infrastructure ENGINE_FAILURE naming the directory), so
// that a conformance run's init probe reports the run incomplete instead
// of every operation failing. With a usable TMPDIR, init makes nothing
// that stays (TestChromiumStartsOnlyForAPage).
func TestInitReportsABrowserThatCannotStart(t *testing.T) {
	missing := filepath.Join(shortTempDir(t), "missing")
	t.Setenv("TMPDIR", missing)
	e := newEngine(Options{NoVideo: true}.withDefaults())
	t.Cleanup(func() { e.Close() })
	err := e.Init(context.Background(), server.InitInfo{Log: func(string) {}})
	var ee *engineerr.E2EError
	if !errors.As(err, &ee) || ee.Category != engineerr.CategoryInfrastructure || !strings.Contains(ee.Message, missing) {
		t.Fatalf("init with TMPDIR %s: %v; want an infrastructure error naming it", missing, err)
	}
	if b, d := started(e); b || d {
		t.Fatalf("a refused init started a browser (%v) or kept a directory (%v)", b, d)
	}
}
