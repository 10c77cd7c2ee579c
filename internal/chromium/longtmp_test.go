package chromium

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// longTempDir returns a new directory whose path is n characters long
// (a short one with a padded name below it), removed at cleanup.
func longTempDir(t *testing.T, n int) string {
	t.Helper()
	base := shortTempDir(t)
	pad := n - len(base) - 1
	if pad < 1 {
		t.Fatalf("the temporary directory %s is longer than %d", base, n)
	}
	dir := filepath.Join(base, strings.Repeat("x", pad))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if len(dir) != n {
		t.Fatalf("made %d characters, want %d", len(dir), n)
	}
	return dir
}

// ownShortDirs lists this process's engine directories in ShortParent.
func ownShortDirs(t *testing.T) []string {
	t.Helper()
	own := DirPrefix + strconv.Itoa(os.Getpid()) + "-"
	var out []string
	for _, n := range entries(t, ShortParent) {
		if strings.HasPrefix(n, own) {
			out = append(out, n)
		}
	}
	return out
}

// TestLongTempDir: with a TMPDIR of 100 characters (too long for
// Chromium's singleton socket below it), NewDir keeps the directory under
// it and adds a short one under ShortParent, where each Chromium's TMPDIR
// and XDG_RUNTIME_DIR go; a real Chromium starts there, and once stopped
// neither directory holds anything of it.
func TestLongTempDir(t *testing.T) {
	tmp := longTempDir(t, 100)
	d, err := NewDir(tmp)
	if err != nil {
		t.Fatalf("NewDir under a 100-character directory: %v", err)
	}
	if d.Short() == "" || filepath.Dir(d.Short()) != ShortParent || !strings.HasPrefix(filepath.Base(d.Short()), DirPrefix) {
		d.Remove()
		t.Fatalf("short directory %q: want an engine directory under %s", d.Short(), ShortParent)
	}
	in, err := d.NewInstance()
	if err != nil {
		d.Remove()
		t.Fatal(err)
	}
	for _, kv := range in.env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "TMPDIR", "XDG_RUNTIME_DIR":
			if !strings.HasPrefix(v, in.Short()) || len(v)+len(socketSuffix) > maxSocketPath {
				t.Errorf("%s is not a short path inside %s", kv, in.Short())
			}
		case "HOME":
			if !strings.HasPrefix(v, in.Root()) {
				t.Errorf("%s is outside %s", kv, in.Root())
			}
		}
	}
	in.Remove()
	if _, err := os.Stat(in.Short()); !os.IsNotExist(err) {
		t.Errorf("the instance's short directory is still there after Remove: %v", err)
	}
	d.Remove()
	if left := entries(t, tmp); len(left) != 0 {
		t.Errorf("after Remove, TMPDIR holds %q", left)
	}
	if left := ownShortDirs(t); len(left) != 0 {
		t.Errorf("after Remove, %s holds %q", ShortParent, left)
	}
}

// TestStartStopWithALongTempDir starts and stops a real Chromium with a
// TMPDIR of 100 characters: it starts, and nothing of it is left in TMPDIR
// or ShortParent afterwards.
func TestStartStopWithALongTempDir(t *testing.T) {
	if _, err := os.Stat(DefaultPath); err != nil {
		t.Skip("no Chromium at", DefaultPath)
	}
	tmp := longTempDir(t, 100)
	t.Setenv("TMPDIR", tmp)
	bctx, stop, err := Start(DefaultPath)
	if err != nil {
		t.Fatalf("start with a 100-character TMPDIR: %v", err)
	}
	if _, err := chromedp.Run(bctx, chromedp.Navigate("about:blank")); err != nil {
		stop()
		t.Fatal(err)
	}
	during := ownShortDirs(t)
	pid := chromedp.FromContext(bctx).Browser.Process().Pid
	stop()
	if len(during) != 1 {
		t.Errorf("while Chromium ran, %s held %q of this process: want one directory", ShortParent, during)
	}
	if left := entries(t, tmp); len(left) != 0 {
		t.Errorf("after stop, TMPDIR holds %q", left)
	}
	if left := ownShortDirs(t); len(left) != 0 {
		t.Errorf("after stop, %s holds %q", ShortParent, left)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil && runtime.GOOS == "linux" {
		t.Errorf("Chromium (pid %d) outlived stop", pid)
	}
}
