package cli

import (
	"context"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/e2e-conform/toolkit/fixtures/example"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/transport"
)

// lockedBuf is a concurrency-safe stderr.
type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestDrain: a client that disconnects (stdin closes) and a SIGTERM both
// close every live session, each with its reason, and Main exits 0
// (spec mcp.md decision 9, §4.3, §7.2).
func TestDrain(t *testing.T) {
	for _, tt := range []struct{ how, reason string }{
		{how: "disconnect", reason: "client disconnected"},
		{how: "SIGTERM", reason: "server shutdown"},
	} {
		t.Run(tt.how, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(dir+"/.git", 0o755); err != nil {
				t.Fatal(err)
			}
			inR, inW := io.Pipe()   // client -> host
			outR, outW := io.Pipe() // host -> client
			sigs := make(chan os.Signal, 1)
			stderr := &lockedBuf{}
			code := make(chan int, 1)
			go func() {
				code <- Main(Env{Stdin: inR, Stdout: outW, Stderr: stderr, Cwd: dir, Signals: sigs,
					BuiltinWeb: func(bool) transport.Transport { return server.LoopbackTransport(example.New(), server.Options{}) }})
				_ = outW.Close()
			}()
			ctx := context.Background()
			c := mcp.NewClient(&mcp.Implementation{Name: "drain-test", Version: "1"}, nil)
			cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for range 2 {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "open_session", Arguments: map[string]any{"engine": "web"}})
				if err != nil || res.IsError {
					t.Fatalf("open_session: %v %+v", err, res)
				}
				m := regexp.MustCompile(`^Session (\S+) open`).FindStringSubmatch(res.Content[0].(*mcp.TextContent).Text)
				if m == nil {
					t.Fatalf("opening text %q", res.Content[0].(*mcp.TextContent).Text)
				}
				ids = append(ids, m[1])
			}
			switch tt.how {
			case "disconnect":
				if err := cs.Close(); err != nil {
					t.Fatal(err)
				}
			case "SIGTERM":
				sigs <- syscall.SIGTERM
			}
			if c := <-code; c != ExitOK {
				t.Errorf("exit %d\n%s", c, stderr)
			}
			if tt.how == "SIGTERM" {
				_ = cs.Close()
			}
			for _, id := range ids {
				if want := "Session " + id + " closed (" + tt.reason + "); 0 tool calls ran."; !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}
