package chromium

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/chromedp/chromedp"

	"github.com/e2e-conform/toolkit/internal/procs"
)

// helperEnv makes the test binary a tiny engine: it creates a Dir in the
// directory the variable names, prints its path and waits to be killed.
const helperEnv = "E2E_CHROMIUM_DIR_HELPER"

// sleepEnv makes the test binary sleep, whatever its arguments: a stand-in
// for a Chromium helper process.
const sleepEnv = "E2E_CHROMIUM_SLEEP_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(sleepEnv) != "" {
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	if parent := os.Getenv(helperEnv); parent != "" {
		d, err := NewDir(parent)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		fmt.Println(d.Path())
		select {}
	}
	goleak.VerifyTestMain(m)
}

// entries lists what dir holds.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestStartStopLeavesNothing starts and stops a real Chromium with TMPDIR
// pointing at a fresh directory: its engine directory was there while it
// ran, and nothing is left after stop.
func TestStartStopLeavesNothing(t *testing.T) {
	if _, err := os.Stat(DefaultPath); err != nil {
		t.Skip("no Chromium at", DefaultPath)
	}
	tmp := shortTempDir(t)
	t.Setenv("TMPDIR", tmp)
	bctx, stop, err := Start(DefaultPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(bctx, chromedp.Navigate("about:blank")); err != nil {
		stop()
		t.Fatal(err)
	}
	during := entries(t, tmp)
	pid := chromedp.FromContext(bctx).Browser.Process().Pid
	start := time.Now()
	stop()
	t.Logf("stop took %s", time.Since(start))
	if len(during) != 1 || !strings.HasPrefix(during[0], DirPrefix) {
		t.Errorf("while Chromium ran, TMPDIR held %q, want one %s* directory", during, DirPrefix)
	}
	if left := entries(t, tmp); len(left) != 0 {
		t.Errorf("after stop, TMPDIR holds %q", left)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil && runtime.GOOS == "linux" {
		t.Errorf("Chromium (pid %d) outlived stop", pid)
	}
}

// TestInstanceEnvironment: a Chromium's TMPDIR, HOME and XDG directories
// and its profile are inside its instance directory, and crash reporting
// is off.
func TestInstanceEnvironment(t *testing.T) {
	d, err := NewDir(shortTempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	in, err := d.NewInstance()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(in.Profile(), in.Root()+string(filepath.Separator)) {
		t.Errorf("profile %s is not inside %s", in.Profile(), in.Root())
	}
	seen := map[string]bool{}
	for _, kv := range in.env {
		k, v, _ := strings.Cut(kv, "=")
		seen[k] = true
		if k != "XAUTHORITY" && v != in.Root() && !strings.HasPrefix(v, in.Root()+string(filepath.Separator)) {
			t.Errorf("%s is outside the instance directory", kv)
		}
	}
	for _, k := range []string{"TMPDIR", "HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"} {
		if !seen[k] {
			t.Errorf("%s is not set for Chromium", k)
		}
	}
	if got := in.flags["crash-dumps-dir"]; !strings.HasPrefix(got, in.Root()) {
		t.Errorf("crash-dumps-dir %q is outside the instance directory", got)
	}
	in2, err := d.NewInstance()
	if err != nil {
		t.Fatal(err)
	}
	if in2.Root() == in.Root() {
		t.Error("two instances share a directory")
	}
	if err := in.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(in.Root()); !os.IsNotExist(err) {
		t.Errorf("instance directory still there after Remove: %v", err)
	}
}

// shortTempDir returns a new directory with a short path (t.TempDir's
// are too long for a Chromium's singleton socket below them), removed at
// cleanup.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// deadPid returns the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestSweep: a sweep removes the directories of dead owners and nothing
// else: not a live owner's (this process's, another's, one whose start
// time matches), not a symbolic link nor what it points to, not a name
// that is not an engine directory.
func TestSweep(t *testing.T) {
	parent := t.TempDir()
	self := os.Getpid()
	pp, ok := procs.Read(os.Getppid())
	if !ok {
		t.Skip("no /proc to read the parent's start time from")
	}
	dead := deadPid(t)
	target := t.TempDir()
	os.WriteFile(filepath.Join(target, "keep"), []byte("x"), 0o600)
	cases := []struct {
		name  string
		make  func(path string) error
		swept bool
	}{
		{fmt.Sprintf("%s%d-0-aa", DirPrefix, dead), mkdirWithFile, true},
		{fmt.Sprintf("%s%d-0-bb", DirPrefix, self), mkdirWithFile, false},
		{fmt.Sprintf("%s%d-%d-cc", DirPrefix, pp.Pid, pp.Start), mkdirWithFile, false},
		{fmt.Sprintf("%s%d-0-cd", DirPrefix, pp.Pid), mkdirWithFile, false},
		// the parent's pid with another start time: a reused pid, the
		// owner is gone
		{fmt.Sprintf("%s%d-%d-ce", DirPrefix, pp.Pid, pp.Start+1), mkdirWithFile, true},
		{fmt.Sprintf("%s%d-0-dd", DirPrefix, dead), func(p string) error { return os.Symlink(target, p) }, false},
		{fmt.Sprintf("other-%d-0-ee", dead), mkdirWithFile, false},
		{fmt.Sprintf("%s%d-0", DirPrefix, dead), mkdirWithFile, false},
		{fmt.Sprintf("%s%d-0-ff", DirPrefix, dead), func(p string) error { return os.WriteFile(p, nil, 0o600) }, false},
	}
	for _, c := range cases {
		if err := c.make(filepath.Join(parent, c.name)); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := Sweep(parent)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		_, err := os.Lstat(filepath.Join(parent, c.name))
		if gone := os.IsNotExist(err); gone != c.swept {
			t.Errorf("%s: swept %v, want %v", c.name, gone, c.swept)
		}
	}
	if len(removed) != 2 {
		t.Errorf("removed %q, want two directories", removed)
	}
	if _, err := os.Stat(filepath.Join(target, "keep")); err != nil {
		t.Errorf("the sweep followed a symbolic link: %v", err)
	}
}

func mkdirWithFile(p string) error {
	if err := os.MkdirAll(filepath.Join(p, "profile"), 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(p, "profile", "f"), nil, 0o600)
}

// TestNewDirSweepsAKilledEngine: an engine killed with SIGKILL cannot
// remove its directory; the next NewDir in the same parent does.
func TestNewDirSweepsAKilledEngine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("owner liveness is read from /proc")
	}
	parent := shortTempDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+parent)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	old := strings.TrimSpace(line)
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("the helper's directory %q: %v", old, err)
	}
	// A live owner's directory is not swept.
	d, err := NewDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("a live engine's directory was swept: %v", err)
	}
	d.Remove()
	cmd.Process.Kill()
	cmd.Wait()
	d, err = NewDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the killed engine's directory %s was not swept: %v", old, err)
	}
	if got := entries(t, parent); len(got) != 1 || got[0] != filepath.Base(d.Path()) {
		t.Errorf("parent holds %q, want only the new directory", got)
	}
}
