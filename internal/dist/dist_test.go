package dist

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// shipped are the binaries `make dist` releases.
var shipped = []string{"e2e-conform", "e2e-mcp", "e2e-web-engine"}

// tools are the other binaries of cmd/, which answer --version too.
var tools = []string{"e2e-mutate", "engine-smoke"}

// TestForeignTargetBuilds cross-compiles e2e-conform, the binary with the
// most platform-specific code (terminal, process groups, transports), for
// darwin/arm64 as `make dist` does, so that a break on another platform
// than the test machine's is caught here and not at release.
func TestForeignTargetBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the standard library and the dependencies")
	}
	goos, goarch := "darwin", "arm64"
	if runtime.GOOS == goos {
		goos = "linux"
	}
	out := filepath.Join(t.TempDir(), "e2e-conform")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "../../cmd/e2e-conform")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=%s GOARCH=%s go build ./cmd/e2e-conform: %v\n%s", goos, goarch, err, b)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Fatalf("no binary: %v", err)
	}
}

// TestVersionOnEveryBinary: each binary of cmd/ prints one line with its
// name, its module version, the module path, a VCS revision and the Go
// version for --version, and exits 0.
func TestVersionOnEveryBinary(t *testing.T) {
	dir := t.TempDir()
	args := []string{"build", "-buildvcs=auto", "-o", dir + string(os.PathSeparator)}
	all := append(append([]string(nil), shipped...), tools...)
	for _, c := range all {
		args = append(args, "../../cmd/"+c)
	}
	if b, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	head := stampedRevision(t)
	line := regexp.MustCompile(`^(\S+) (\S+) \(github\.com/e2e-conform/toolkit, revision (\S+?)(, modified)?, go1\.\d+`)
	for _, c := range all {
		out, err := exec.Command(filepath.Join(dir, c), "--version").Output()
		if err != nil {
			t.Errorf("%s --version: %v", c, err)
			continue
		}
		m := line.FindStringSubmatch(strings.TrimSpace(string(out)))
		if m == nil || m[1] != c || strings.Count(string(out), "\n") != 1 {
			t.Errorf("%s --version printed %q, want one line \"%s VERSION (github.com/e2e-conform/toolkit, revision REV, goX.Y)\"", c, out, c)
			continue
		}
		if head != "" && m[3] != head {
			t.Errorf("%s --version names revision %q, want the checkout's HEAD %s", c, m[3], head)
		}
	}
}

// stampedRevision is the HEAD commit the go command stamps into a binary
// built in this checkout, or "" when it stamps none: outside a git
// checkout, or in a linked worktree (its .git is a file, and the go command
// does not stamp builds there).
func stampedRevision(t *testing.T) string {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Logf("not a git checkout (%v): the revision is not compared", err)
		return ""
	}
	if st, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !st.IsDir() {
		t.Logf("a linked git worktree: the go command stamps no revision, which is not compared")
		return ""
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v", err)
	}
	return strings.TrimSpace(string(rev))
}
