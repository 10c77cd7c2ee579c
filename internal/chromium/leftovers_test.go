package chromium

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/internal/procs"
)

// TestNamesPathIn: an argument names a path inside the root when it is
// the root or below it, bare or as the value of --name=value; a sibling
// whose name merely starts like the root does not.
func TestNamesPathIn(t *testing.T) {
	root := "/tmp/e2e-chromium-1-2-ab/3"
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"--user-data-dir=/tmp/e2e-chromium-1-2-ab/3/p"}, true},
		{[]string{"chrome_crashpad_handler", "--monitor-self", "--database=/tmp/e2e-chromium-1-2-ab/3/c", "--url=https://x"}, true},
		{[]string{"--metrics-dir=/tmp/e2e-chromium-1-2-ab/3/p/"}, true},
		{[]string{"/tmp/e2e-chromium-1-2-ab/3"}, true},
		{[]string{"--database=/tmp/e2e-chromium-1-2-ab/3/../3/c"}, true},
		{[]string{"--database=/tmp/e2e-chromium-1-2-ab/30/c"}, false},           // another instance
		{[]string{"--database=/tmp/e2e-chromium-1-2-ab/c"}, false},              // the engine's directory, not the instance's
		{[]string{"--database=/tmp/e2e-chromium-1-2-ab/3/../4/c"}, false},       // leaves the root
		{[]string{"--database", "relative/tmp/e2e-chromium-1-2-ab/3/c"}, false}, // not absolute
		{[]string{"x=/tmp/e2e-chromium-1-2-ab/3/c"}, false},                     // not a --name=value flag
		{nil, false},
	} {
		if got := namesPathIn(c.args, root); got != c.want {
			t.Errorf("namesPathIn(%q, %s) = %v, want %v", c.args, root, got, c.want)
		}
	}
	if namesPathIn([]string{"/x"}, "/") || namesPathIn([]string{"/x/y"}, "x") {
		t.Error("the root / or a relative root matched")
	}
}

// TestKillLeftoversKillsCrashpadHandlers: removing an instance kills the
// processes that name a path inside it, the crashpad handlers'
// --database=<instance>/c as well as a helper's --user-data-dir; a process
// of another instance is left alone.
func TestKillLeftoversKillsCrashpadHandlers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("processes are read from /proc")
	}
	dir := shortTempDir(t)
	root := filepath.Join(dir, "1")
	start := func(arg string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "--type=crashpad-handler", arg)
		cmd.Env = []string{sleepEnv + "=1"}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	crashpad := start("--database=" + filepath.Join(root, "c"))
	helper := start("--user-data-dir=" + filepath.Join(root, "p"))
	other := start("--database=" + filepath.Join(dir, "10", "c"))
	// Each has its arguments in place (exec done) before the kill.
	for _, cmd := range []*exec.Cmd{crashpad, helper, other} {
		deadline := time.Now().Add(10 * time.Second)
		for len(procs.Cmdline(cmd.Process.Pid)) != 3 || procs.Cmdline(cmd.Process.Pid)[2] != cmd.Args[2] {
			if time.Now().After(deadline) {
				t.Fatalf("%v has not started", cmd.Args)
			}
			time.Sleep(time.Millisecond)
		}
	}
	killLeftovers(root, time.Now().Add(5*time.Second))
	for _, cmd := range []*exec.Cmd{crashpad, helper} {
		if _, err := os.Stat("/proc/" + strconv.Itoa(cmd.Process.Pid)); err == nil {
			t.Errorf("%v survived (or is an unreaped zombie)", cmd.Args[1:])
		}
	}
	if p, ok := procs.Read(other.Process.Pid); !ok || p.Zombie() {
		t.Errorf("%v, of another instance, was killed", other.Args[1:])
	}
}
