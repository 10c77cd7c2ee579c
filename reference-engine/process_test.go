package webengine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/fixture/web"
	conformreport "github.com/e2e-conform/toolkit/conformance/report"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/transport"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// build compiles the commands into a temporary directory once per test.
func build(t *testing.T, pkgs ...string) string {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{"build", "-o", dir + "/"}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

// marked returns the live (not zombie) processes whose environment holds
// marker: the engine and everything it started (Chromium and its helpers,
// ffmpeg inherit the environment).
func marked(marker string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte(marker)) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// state is the field after the parenthesised command name
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i > 0 && i+2 < len(s) && s[i+2] == 'Z' {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		name := strings.SplitN(string(cmdline), "\x00", 2)[0]
		out = append(out, fmt.Sprintf("%d %s", pid, filepath.Base(name)))
	}
	return out
}

// waitNone polls until no marked process but keep is left, or fails
// after d.
func waitNone(t *testing.T, marker string, keep int, d time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		var left []string
		for _, p := range marked(marker) {
			if !strings.HasPrefix(p, strconv.Itoa(keep)+" ") {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d process(es) outlived the engine: %v", what, len(left), left)
		}
		time.Sleep(50 * time.Millisecond) // polling the process table
	}
}

// TestNoProcessOutlivesTheEngine starts the engine binary with a marker in
// its environment, makes it start Chromium and an ffmpeg recording, then
// ends it (a) with shutdown and exit and (b) with SIGKILL to the engine
// alone, and checks that no Chromium or ffmpeg process is left.
func TestNoProcessOutlivesTheEngine(t *testing.T) {
	bin := build(t, "./cmd/e2e-web-engine")
	srv := httptest.NewServer(web.Handler())
	defer srv.Close()
	for _, how := range []string{"shutdown", "sigkill"} {
		t.Run(how, func(t *testing.T) {
			var b [8]byte
			rand.Read(b[:])
			marker := "E2E_LEAK_MARKER=" + hex.EncodeToString(b[:])
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			port := l.Addr().(*net.TCPAddr).Port
			l.Close()
			cmd := exec.Command(filepath.Join(bin, "e2e-web-engine"), "--listen", fmt.Sprintf("127.0.0.1:%d", port))
			cmd.Env = append(os.Environ(), marker)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			defer func() {
				cmd.Process.Kill()
				<-exited
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var c *client.Conn
			for {
				c, err = client.Open(ctx, client.ConnConfig{Transport: transport.Socket(transport.SocketOptions{Host: "127.0.0.1", Port: port}),
					Context: transport.Context{Role: wire.RoleWorker, Env: map[string]string{}}})
				if err == nil {
					break
				}
				if ctx.Err() != nil {
					t.Fatalf("connecting: %v\n%s", err, stderr.String())
				}
				time.Sleep(50 * time.Millisecond) // waiting for the listener
			}
			if err := c.Init(ctx, wire.InitParams{RunID: "run-1", TargetName: "leak", Env: map[string]string{}}); err != nil {
				t.Fatal(err)
			}
			if err := c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: "a-1", ArtifactsDir: t.TempDir()}); err != nil {
				t.Fatal(err)
			}
			op := client.Op{RunID: "run-1", AttemptID: "a-1"}
			if err := c.Open(ctx, op, srv.URL+"/counter"); err != nil {
				t.Fatal(err)
			}
			if err := c.StartVideo(ctx, op); err != nil {
				t.Fatal(err)
			}
			running := marked(marker)
			var chromium, ffmpeg bool
			for _, p := range running {
				chromium = chromium || strings.Contains(p, "chromium") || strings.Contains(p, "chrome")
				ffmpeg = ffmpeg || strings.Contains(p, "ffmpeg")
			}
			if !chromium || !ffmpeg {
				t.Fatalf("expected Chromium and ffmpeg running under the engine, found %v", running)
			}
			switch how {
			case "shutdown":
				// The connection ends; the listening engine stays, and
				// what it started for the connection goes.
				if err := c.Close(10 * time.Second); err != nil {
					t.Fatalf("close: %v", err)
				}
				waitNone(t, marker, cmd.Process.Pid, 15*time.Second, "after shutdown")
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			case "sigkill":
				if err := syscall.Kill(cmd.Process.Pid, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				t.Fatalf("the engine did not exit")
			}
			waitNone(t, marker, 0, 15*time.Second, how)
			if how == "sigkill" {
				c.Close(time.Second)
			}
		})
	}
}

// TestFullProfileIsConformant runs the conformance suite's full profile
// against the engine binary over the spawn transport, as `make conform`
// does: the verdict must be conformant with nothing failed.
func TestFullProfileIsConformant(t *testing.T) {
	bin := build(t, "./cmd/e2e-web-engine", "./cmd/e2e-conform")
	res, _ := fullProfile(t, bin, filepath.Join(bin, "e2e-web-engine"))
	t.Logf("full profile: %d passed, %d not applicable, %d not verified", res.Counts[conformreport.Passed], res.Counts[conformreport.NotApplicable], res.Counts[conformreport.NotVerified])
}

// TestFullProfileThroughAPoolIsConformant runs the full profile against
// engines attached to a browser pool (a listening Chromium stands in for
// it, its token in the endpoint's query): every engine the suite spawns
// attaches to that one browser instead of launching its own. The verdict
// must be conformant, the browser must still run and hold exactly what it
// held before (no browser context or target of the engines left), and the
// token must appear in no output or report.
func TestFullProfileThroughAPoolIsConformant(t *testing.T) {
	bin := build(t, "./cmd/e2e-web-engine", "./cmd/e2e-conform")
	p := newPool(t)
	targets, contexts := p.contents(t)
	spawn := filepath.Join(bin, "e2e-web-engine") + " --cdp-endpoint " + p.WebSocketURL + "?token=" + poolToken
	res, out := fullProfile(t, bin, spawn)
	p.leavesNothing(t, targets, contexts)
	if strings.Contains(out, poolToken) {
		t.Errorf("the pool's token appears in e2e-conform's output")
	}
	t.Logf("full profile through a pool: %d passed, %d not applicable, %d not verified", res.Counts[conformreport.Passed], res.Counts[conformreport.NotApplicable], res.Counts[conformreport.NotVerified])
}

// fullProfile runs e2e-conform --profile full --spawn spawn and fails t
// unless the verdict is conformant with nothing failed; it returns the
// result and the output with the JSON report appended (the token checks
// read both).
func fullProfile(t *testing.T, bin, spawn string) (conformreport.Result, string) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report.json")
	// The run's TMPDIR is a fresh directory: what e2e-conform, the engines
	// it spawns and their Chromiums put there must be gone once the run
	// has exited (issue 12).
	tmp := shortTempDir(t)
	cmd := exec.Command(filepath.Join(bin, "e2e-conform"), "--profile", "full", "--spawn", spawn, "--json", report)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	if left := names(t, tmp); len(left) != 0 {
		t.Errorf("after the full profile, the run's TMPDIR holds %q", left)
	}
	data, rerr := os.ReadFile(report)
	if rerr != nil {
		t.Fatalf("no report (%v): %v\n%s", err, rerr, out)
	}
	var res conformreport.Result
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if err != nil || res.Verdict != "conformant" || res.Counts[conformreport.Failed] != 0 {
		tail := string(out)
		if len(tail) > 20000 {
			tail = tail[len(tail)-20000:]
		}
		t.Fatalf("verdict %q (%v), %d failed\n%s", res.Verdict, err, res.Counts[conformreport.Failed], tail)
	}
	return res, string(out) + string(data)
}
