package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/e2e-conform/toolkit/mcp/screen"
)

// TestAcceptance is the scripted session of issue 16 through the Go SDK's
// client over CommandTransport, running the built e2e-mcp on the saboteur
// engine: log forwarding after logging/setLevel (protocol 2025-11-25: the
// SDK sends no log notification before it), a call cancelled while it
// waits for the session's previous call (it never runs), the running call
// cancelled (aborted through its signal), and the byte-limit truncation
// marker of a config's maxObservationBytes.
func TestAcceptance(t *testing.T) {
	bin := t.TempDir()
	host := build(t, bin, "github.com/e2e-conform/toolkit/cmd/e2e-mcp")
	sab := build(t, bin, "github.com/e2e-conform/toolkit/fixtures/saboteur/cmd/saboteur")
	arrived, aborted, release := make(chan struct{}, 4), make(chan struct{}, 4), make(chan struct{})
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/hold" {
			return
		}
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
			aborted <- struct{}{}
		}
	}))
	defer app.Close()
	defer close(release)
	proj := t.TempDir()
	cfg := `{"targets":[{"name":"sab","engine":{"command":"` + sab + `"},"app":{"url":"` + app.URL + `/counter"}}],"maxObservationBytes":256}`
	if err := os.WriteFile(filepath.Join(proj, "e2e.config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(host)
	cmd.Dir = proj
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	logs := make(chan *mcp.LoggingMessageParams, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "t"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			select {
			case logs <- r.Params:
			default:
			}
		}})
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	waitLog := func(sub string) *mcp.LoggingMessageParams {
		t.Helper()
		for l := range logs {
			if s, _ := l.Data.(string); strings.Contains(s, sub) {
				return l
			}
		}
		return nil
	}
	call := func(ctx context.Context, tool string, args map[string]any) (string, bool) {
		t.Helper()
		a := map[string]any{"tool": tool}
		if args != nil {
			a["args"] = args
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "call", Arguments: a})
		if err != nil {
			return err.Error(), true
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "open_session", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("open: %v %+v\n%s", err, res, stderr.String())
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.HasSuffix(text, "\n"+screen.ByteMarker) || strings.Contains(text, "engine stopped listing") {
		t.Errorf("first screen not cut at the byte limit:\n%s", text)
	}
	if l := waitLog("session opened"); l.Logger != "e2e" || l.Level != "info" {
		t.Errorf("log notification %+v", l)
	}

	ctx1, cancel1 := context.WithCancel(ctx)
	defer cancel1()
	done1 := make(chan struct{})
	go func() { defer close(done1); call(ctx1, "navigate", map[string]any{"url": app.URL + "/hold"}) }()
	<-arrived // the navigate runs, waiting on the app
	ctx2, cancel2 := context.WithCancel(ctx)
	done2 := make(chan struct{})
	go func() { defer close(done2); call(ctx2, "observe", nil) }()
	waitLog("call observe waits for the session's previous call")
	cancel2() // notifications/cancelled for the queued observe
	<-done2
	waitLog("call observe was cancelled while it waited for the session's previous call; it did not run")
	cancel1()
	<-done1
	<-aborted // the engine gave up the app's request: its signal aborted
	waitLog("call navigate was cancelled while it ran")

	obs, isErr := call(ctx, "observe", nil)
	// b1 was the first screen: neither cancelled call observed.
	if isErr || !strings.HasPrefix(obs, "Current screen (revision b2, path /counter, ") || !strings.HasSuffix(obs, "\n"+screen.ByteMarker) {
		t.Errorf("observe:\n%s", obs)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if st := cmd.ProcessState; st == nil || st.ExitCode() != 0 {
		t.Errorf("exit: %v\n%s", st, stderr.String())
	}
}

// TestSlowReader: 40 resources/read e2e://guide requests sent while the
// client reads nothing (their answers fill the pipe and block the host's
// writes) all get their answer once it reads, and the host goes on (spec
// mcp.md §7.1).
func TestSlowReader(t *testing.T) {
	host := build(t, t.TempDir(), "github.com/e2e-conform/toolkit/cmd/e2e-mcp")
	cmd := exec.Command(host)
	cmd.Dir = t.TempDir()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// The smallest pipe buffer (one page): the 40 answers are many times
	// what it holds, so the host's writes block until the client reads.
	const pipeSize = 4096
	if f, ok := stdout.(*os.File); !ok {
		t.Fatal("stdout pipe is not a file")
	} else if _, err := unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, pipeSize); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReaderSize(stdout, 1<<20)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write: %v\n%s", err, stderr.String())
		}
	}
	type answer struct {
		ID     int `json:"id"`
		Result *struct {
			Contents []struct {
				Text string `json:"text"`
			} `json:"contents"`
		} `json:"result"`
	}
	recv := func() answer {
		t.Helper()
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("the host stopped answering: %v\n%s", err, stderr.String())
		}
		var a answer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("%.200q: %v", line, err)
		}
		return a
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	recv()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	const n = 40
	for i := range n {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"e2e://guide"}}`, 100+i))
	}
	// Only now read: the answers waited in the pipe and in the host.
	got := map[int]bool{}
	size := 0
	for range n {
		a := recv()
		if a.Result == nil || len(a.Result.Contents) != 1 || a.Result.Contents[0].Text == "" {
			t.Fatalf("answer %d without the guide", a.ID)
		}
		size = len(a.Result.Contents[0].Text)
		got[a.ID] = true
	}
	if len(got) != n {
		t.Errorf("%d distinct answers, want %d", len(got), n)
	}
	if size*n < 4*pipeSize {
		t.Errorf("the answers (%d bytes) do not exceed a pipe's buffer: the reader was not slow", size*n)
	}
	// The host goes on.
	send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if a := recv(); a.ID != 2 {
		t.Errorf("ping answered with id %d", a.ID)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v\n%s", err, stderr.String())
	}
}
