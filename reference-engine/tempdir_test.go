package webengine

import (
	"context"
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
	bin := build(t, "./cmd/e2e-web-engine")
	srv := httptest.NewServer(web.Handler())
	defer srv.Close()
	tmp := shortTempDir(t)
	run := func(kill bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		rt := &recording{Transport: transport.Spawn(transport.SpawnOptions{
			Command: filepath.Join(bin, "e2e-web-engine"),
			Env:     map[string]string{"TMPDIR": tmp, "PATH": os.Getenv("PATH")},
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
		if err := c.Open(ctx, client.Op{RunID: "run-1", AttemptID: "a-1"}, srv.URL+"/counter"); err != nil {
			t.Fatal(err)
		}
		sc := rt.conns[0].(transport.SpawnConn)
		own := chromium.DirPrefix + strconv.Itoa(sc.Pid()) + "-"
		var mine []string
		for _, n := range names(t, tmp) {
			if strings.HasPrefix(n, own) {
				mine = append(mine, n)
			}
		}
		if len(mine) != 1 {
			t.Fatalf("while Chromium runs, TMPDIR holds %q: want one %s* directory", names(t, tmp), own)
		}
		if !kill {
			if err := c.Close(10 * time.Second); err != nil {
				t.Fatalf("close: %v", err)
			}
			if left := names(t, tmp); len(left) != 0 {
				t.Errorf("after shutdown and exit, TMPDIR holds %q", left)
			}
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
	}
	run(true)
	run(false)
}
