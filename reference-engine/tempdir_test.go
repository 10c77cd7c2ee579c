package webengine

import (
	"context"
	"encoding/hex"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/fixture/web"
	"github.com/e2e-conform/toolkit/internal/chromium"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// recording is a transport that keeps the connections it opened.
type recording struct {
	transport.Transport
	mu    sync.Mutex
	conns []transport.Conn
}

func (r *recording) Open(ctx context.Context, tc transport.Context) (transport.Conn, error) {
	c, err := r.Transport.Open(ctx, tc)
	if err == nil {
		r.mu.Lock()
		r.conns = append(r.conns, c)
		r.mu.Unlock()
	}
	return c, err
}

// shortTempDir is a fresh directory with a short path (a Chromium's
// singleton socket goes below it), removed at cleanup.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "we")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func names(t *testing.T, dir string) []string {
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

// TestNoTempEntryOutlivesTheEngine runs the engine binary over the spawn
// transport with TMPDIR pointing at a fresh directory, and makes it start
// Chromium on a page. (a) Killed with SIGKILL, the engine leaves its
// directory (e2e-chromium-<pid>-…) and nothing else; (b) the next engine
// in the same TMPDIR sweeps it, and once shut down and exited leaves the
// directory empty.
func TestNoTempEntryOutlivesTheEngine(t *testing.T) {
	noTempEntryLeft(t, shortTempDir(t), false)
}

// TestLongTempDirWorksAndLeavesNothing is TestNoTempEntryOutlivesTheEngine
// with a TMPDIR of 100 characters, too long for Chromium's singleton
// socket: the engine opens a page all the same, keeping one directory in
// TMPDIR and one short one in chromium.ShortParent (for each Chromium's
// TMPDIR), sweeps both of a killed engine, and leaves neither behind, nor
// any process.
func TestLongTempDirWorksAndLeavesNothing(t *testing.T) {
	noTempEntryLeft(t, longTempDir(t, 100), true)
}

// longTempDir returns a new directory whose path is n characters long (a
// padded name below a short one), removed at cleanup.
func longTempDir(t *testing.T, n int) string {
	t.Helper()
	base := shortTempDir(t)
	dir := filepath.Join(base, strings.Repeat("x", n-len(base)-1))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if len(dir) != n {
		t.Fatalf("made %d characters, want %d", len(dir), n)
	}
	return dir
}

// ownIn lists the engine directories of process pid in dir.
func ownIn(t *testing.T, dir string, pid int) []string {
	t.Helper()
	own := chromium.DirPrefix + strconv.Itoa(pid) + "-"
	var out []string
	for _, n := range names(t, dir) {
		if strings.HasPrefix(n, own) {
			out = append(out, n)
		}
	}
	return out
}

// noTempEntryLeft runs the checks of TestNoTempEntryOutlivesTheEngine in
// tmp; short: tmp is too long for Chromium's socket, so the engine also
// keeps a directory in chromium.ShortParent.
func noTempEntryLeft(t *testing.T, tmp string, short bool) {
	bin := build(t, "./cmd/e2e-web-engine")
	srv := httptest.NewServer(web.Handler())
	defer srv.Close()
	var killedShort []string
	run := func(kill bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		marker := "E2E_TMP_TEST_MARKER=" + hex.EncodeToString([]byte(t.Name()+strconv.FormatBool(kill)))
		k, v, _ := strings.Cut(marker, "=")
		rt := &recording{Transport: transport.Spawn(transport.SpawnOptions{
			Command: filepath.Join(bin, "e2e-web-engine"),
			Env:     map[string]string{"TMPDIR": tmp, "PATH": os.Getenv("PATH"), k: v},
		})}
		c, err := client.Open(ctx, client.ConnConfig{Transport: rt, Context: transport.Context{Role: wire.RoleWorker, Env: map[string]string{}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Init(ctx, wire.InitParams{RunID: "run-1", TargetName: "tmp", Env: map[string]string{}}); err != nil {
			t.Fatal(err)
		}
		if err := c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: "a-1", ArtifactsDir: t.TempDir()}); err != nil {
			t.Fatal(err)
		}
		op := client.Op{RunID: "run-1", AttemptID: "a-1"}
		if err := c.Open(ctx, op, srv.URL+"/counter"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Observe(ctx, op, nil); err != nil {
			t.Fatal(err)
		}
		sc := rt.conns[0].(transport.SpawnConn)
		mine := ownIn(t, tmp, sc.Pid())
		if len(mine) != 1 {
			t.Fatalf("while Chromium runs, TMPDIR holds %q: want one %s%d-* directory", names(t, tmp), chromium.DirPrefix, sc.Pid())
		}
		mineShort := ownIn(t, chromium.ShortParent, sc.Pid())
		if want := map[bool]int{true: 1, false: 0}[short]; len(mineShort) != want {
			t.Fatalf("while Chromium runs, %s holds %q of the engine: want %d directory", chromium.ShortParent, mineShort, want)
		}
		if !kill {
			if err := c.Close(10 * time.Second); err != nil {
				t.Fatalf("close: %v", err)
			}
			if left := names(t, tmp); len(left) != 0 {
				t.Errorf("after shutdown and exit, TMPDIR holds %q", left)
			}
			if left := ownIn(t, chromium.ShortParent, sc.Pid()); len(left) != 0 {
				t.Errorf("after shutdown and exit, %s holds %q", chromium.ShortParent, left)
			}
			for _, n := range killedShort {
				if _, err := os.Stat(filepath.Join(chromium.ShortParent, n)); !os.IsNotExist(err) {
					t.Errorf("the killed engine's short directory %s was not swept: %v", n, err)
				}
			}
			waitNone(t, marker, 0, 5*time.Second, "after shutdown and exit")
			return
		}
		if err := syscall.Kill(sc.Pid(), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		sc.Wait()
		c.Close(time.Second)
		if left := names(t, tmp); len(left) != 1 || left[0] != mine[0] {
			t.Errorf("after SIGKILL, TMPDIR holds %q: want only the killed engine's %s", left, mine[0])
		}
		killedShort = mineShort
		t.Cleanup(func() {
			for _, n := range killedShort {
				os.RemoveAll(filepath.Join(chromium.ShortParent, n))
			}
		})
		waitNone(t, marker, 0, 5*time.Second, "after SIGKILL")
	}
	run(true)
	run(false)
}
