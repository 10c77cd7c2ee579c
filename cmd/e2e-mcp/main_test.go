package main_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/e2e-conform/toolkit/conformance/fixture/web"
)

func build(t *testing.T, dir, pkg string) string {
	t.Helper()
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	f := strings.Fields(string(b))
	return err == nil && len(f) > 2 && f[2] != "Z"
}

// children lists the pids whose parent is pid.
func children(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}

// TestSubprocess runs the built binary through the SDK's CommandTransport:
// a session on a spawned engine and an app command, then the client goes
// away; no engine or app process may survive the host.
func TestSubprocess(t *testing.T) {
	bin := t.TempDir()
	host := build(t, bin, "github.com/e2e-conform/toolkit/cmd/e2e-mcp")
	sab := build(t, bin, "github.com/e2e-conform/toolkit/fixtures/saboteur/cmd/saboteur")
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer app.Close()
	proj := t.TempDir()
	cfg := `{"targets":[{"name":"sab","engine":{"command":"` + sab + `"},"app":{"url":"` + app.URL + `/counter","command":"sleep","args":["300"]}}],
	 "secrets":{"apiKey":{"env":"CANARY_KEY"}}}`
	if err := os.WriteFile(filepath.Join(proj, "e2e.config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(host, "--max-sessions", "2")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "CANARY_KEY=canary-value-42")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "open_session", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("open: %v %+v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !regexp.MustCompile(`^Session \S+ open on target "sab" \(platform saboteur, engine saboteur`).MatchString(text) {
		t.Errorf("open text:\n%s", text)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "call", Arguments: map[string]any{"tool": "observe"}})
	if err != nil || res.IsError {
		t.Fatalf("observe: %v %+v", err, res)
	}
	kids := children(cmd.Process.Pid)
	if len(kids) < 2 {
		t.Errorf("expected an engine and an app child, got %v", kids)
	}
	if err := cs.Close(); err != nil { // closes stdin: client disconnected
		t.Logf("close: %v", err)
	}
	if st := cmd.ProcessState; st == nil || st.ExitCode() != 0 {
		t.Errorf("exit: %v\n%s", st, stderr.String())
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range kids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // polling the process table
		}
		if alive(pid) {
			t.Errorf("child %d survived the host", pid)
		}
	}
	log := stderr.String()
	for _, want := range []string{"e2e mcp: [info] e2e mcp", "serving " + proj, "client disconnected; closing every session"} {
		if !strings.Contains(log, want) {
			t.Errorf("stderr lacks %q:\n%s", want, log)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		if !strings.HasPrefix(line, "e2e mcp: ") {
			t.Errorf("stderr line without prefix: %q", line)
		}
	}
	if strings.Contains(log, "canary-value-42") {
		t.Error("secret value on stderr")
	}
}

func TestUsage(t *testing.T) {
	host := build(t, t.TempDir(), "github.com/e2e-conform/toolkit/cmd/e2e-mcp")
	for _, args := range [][]string{{"--max-sessions", "0"}, {"--max-sessions", "17"}, {"--max-sessions", "abc"}, {"--headless"}} {
		cmd := exec.Command(host, args...)
		out, _ := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != 2 {
			t.Errorf("%v: exit %d", args, cmd.ProcessState.ExitCode())
		}
		if args[0] == "--max-sessions" && !strings.Contains(string(out), "must be an integer from 1 through 16") {
			t.Errorf("%v: %s", args, out)
		}
	}
}

// marked lists the processes whose environment carries marker=value, with
// their command names.
func marked(marker, value string) map[int]string {
	want := []byte(marker + "=" + value + "\x00")
	out := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, want) || !alive(pid) {
			continue
		}
		comm, _ := os.ReadFile("/proc/" + e.Name() + "/comm")
		out[pid] = strings.TrimSpace(string(comm))
	}
	return out
}

// TestNoSurvivors runs the built host with the built-in web engine
// (zero-config open of a fixture page, a recording running so ffmpeg is
// up too) and checks that no process started under it — Chromium, ffmpeg,
// the app command and a grandchild of it that called setsid — outlives it, once (a) the client closes normally and
// once (b) the host gets SIGTERM. Every process the host starts inherits
// a marker variable set on the host only; /proc is polled for it. The
// host's TMPDIR is a fresh directory: nothing the sessions (Chromium
// included) put there is left once the host has exited.
func TestNoSurvivors(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries and starts Chromium")
	}
	host := build(t, t.TempDir(), "github.com/e2e-conform/toolkit/cmd/e2e-mcp")
	app := httptest.NewServer(web.Handler())
	defer app.Close()
	for _, how := range []string{"client close", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			const marker = "E2E_MCP_TEST_MARKER"
			value := fmt.Sprintf("%s-%d-%d", strings.ReplaceAll(how, " ", "-"), os.Getpid(), time.Now().UnixNano())
			proj := t.TempDir()
			// The app command of a config target joins the scan too; it
			// leaves a grandchild that called setsid (out of its process
			// group, so only the host's subreaper brings it back, issue 12).
			cfg := `{"targets":[{"name":"web","engine":{"builtin":"web"},"app":{"url":"` + app.URL + `/counter","command":"sh","args":["-c","setsid sleep 301 & exec sleep 300"]}}]}`
			if err := os.WriteFile(filepath.Join(proj, "e2e.config.json"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			tmp, err := os.MkdirTemp("", "mcp") // short: Chromium's singleton socket goes below it
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(tmp)
			cmd := exec.Command(host)
			cmd.Dir = proj
			cmd.Env = append(os.Environ(), marker+"="+value, "TMPDIR="+tmp)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			call := func(name string, args map[string]any) string {
				t.Helper()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				if err != nil || res.IsError {
					t.Fatalf("%s: %v %+v\n%s", name, err, res, stderr.String())
				}
				return res.Content[0].(*mcp.TextContent).Text
			}
			// Zero config opens the built-in engine on a fixture page.
			text := call("open_session", map[string]any{"engine": "web", "app": map[string]any{"url": app.URL + "/counter"}})
			if !strings.Contains(text, "path /counter") {
				t.Errorf("zero-config open:\n%s", text)
			}
			zero := regexp.MustCompile(`^Session (\S+) open`).FindStringSubmatch(text)
			if zero == nil {
				t.Fatalf("no session id:\n%s", text)
			}
			call("open_session", nil) // the config target: an app command
			// A running recording: ffmpeg is up when the host goes.
			call("call", map[string]any{"tool": "start_recording", "session": zero[1]})
			before := marked(marker, value)
			names := map[string]bool{}
			for _, c := range before {
				// The headless shell's command name is cut to
				// "chromium-headle" (15 bytes of comm).
				if strings.HasPrefix(c, "chromium") {
					c = "chromium"
				}
				names[c] = true
			}
			if !names["chromium"] || !names["sleep"] || !names["ffmpeg"] {
				t.Fatalf("expected chromium, ffmpeg and the app command under the host, got %v", before)
			}
			t.Logf("processes under the host: %d (%v)", len(before), names)
			switch how {
			case "client close":
				if err := cs.Close(); err != nil {
					t.Logf("close: %v", err)
				}
			case "SIGTERM":
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				_ = cs.Close() // waits for the host to exit
			}
			if st := cmd.ProcessState; st == nil || st.ExitCode() != 0 {
				t.Errorf("exit: %v\n%s", st, stderr.String())
			}
			deadline := time.Now().Add(10 * time.Second)
			left := marked(marker, value)
			for len(left) > 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond) // polling the process table
				left = marked(marker, value)
			}
			if len(left) > 0 {
				t.Errorf("processes survived the host: %v\n%s", left, stderr.String())
			}
			if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 0 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("the host's TMPDIR holds %q after it exited (%v)", names, err)
			}
		})
	}
}
