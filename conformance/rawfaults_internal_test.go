package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rawOutcome reads what a server wrote on a raw connection and says what
// the suite made of it: the frames delivered, the error that ended them,
// the WIRE-001/002 violations and the exchange recorded.
func rawOutcome(t *testing.T, wrote string) string {
	t.Helper()
	e := testEnv()
	e.beginSpec([]string{"WIRE-001", "WIRE-002"})
	r, serverOut, _ := fakeServer(t, e)
	go func() {
		_, _ = serverOut.Write([]byte(wrote))
		serverOut.Close()
	}()
	var b strings.Builder
	for {
		f, err := r.Next(t.Context())
		if err != nil {
			fmt.Fprintf(&b, "end: %v\n", err)
			break
		}
		fmt.Fprintf(&b, "frame %q %q\n", f.Header, f.Content)
	}
	<-r.Ended()
	for _, id := range []string{"WIRE-001", "WIRE-002"} {
		for _, v := range e.Violations(id) {
			fmt.Fprintf(&b, "%s: %s\n", id, v)
		}
	}
	fmt.Fprintf(&b, "exchange: %s\n", e.LastFrames())
	return b.String()
}

// rawFaultCases are server outputs that break §1.1 in every way the raw
// reader tells apart, and a few that do not.
var rawFaultCases = []struct{ name, wrote string }{
	{"a good frame", "Content-Length: 2\r\n\r\n{}"},
	{"an unknown field", "Content-Length: 2\r\nX-Saboteur: 1\r\n\r\n{}"},
	{"charset latin1", "Content-Type: application/vscode-jsonrpc; charset=iso-8859-1\r\nContent-Length: 2\r\n\r\n{}"},
	{"charset UTF8", "Content-Type: application/vscode-jsonrpc; charset=\"UTF8\"\r\nContent-Length: 2\r\n\r\n{}"},
	{"a Content-Type without charset", "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"},
	{"lower-case content-length", "content-length: 2\r\n\r\n{}"},
	{"a bare LF", "Content-Length: 2\n\r\n{}"},
	{"a bare LF after a field", "X-A: 1\r\nContent-Length: 2\n\r\n{}"},
	{"a line that is not a field", "Content-Length: 2\r\nnonsense\r\n\r\n{}"},
	{"a signed length", "Content-Length: +2\r\n\r\n{}"},
	{"a negative length", "Content-Length: -5\r\n\r\n{}"},
	{"a hex length", "Content-Length: 0x20\r\n\r\n{}"},
	{"an empty length", "Content-Length: \r\n\r\n{}"},
	{"two lengths that differ", "Content-Length: 9\r\nContent-Length: 2\r\n\r\n{}"},
	{"two lengths that agree", "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}"},
	{"no length", "X-A: 1\r\n\r\n{}"},
	{"an empty header part", "\r\n{}"},
	{"a length above the limit", "Content-Length: 67108865\r\n\r\n"},
	{"the end inside a header line", "Content-Length: 2\r\nX-A"},
	{"the end after a header line", "Content-Length: 2\r\n"},
	{"the end inside the content", "Content-Length: 10\r\n\r\n{\"a\":"},
	{"the end right after the header", "Content-Length: 10\r\n\r\n"},
	{"a length one byte short, then a frame", "Content-Length: 38\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}}Content-Length: 2\r\n\r\n{}"},
	{"a length 7 bytes long, then a frame", "Content-Length: 46\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}Content-Length: 2\r\n\r\n{}"},
	{"a header part of 4096 bytes", "Content-Length: 2\r\nX: " + strings.Repeat("x", 4096-19-5-2) + "\r\n\r\n{}"},
	{"a header part of 4097 bytes", "Content-Length: 2\r\nX: " + strings.Repeat("x", 4097-19-5-2) + "\r\n\r\n{}"},
	{"a 5000-byte header line", "Content-Length: 2\r\nX: " + strings.Repeat("x", 5000) + "\r\n\r\n{}"},
	{"a non-ASCII field", "Content-Length: 2\r\nX-A: \xc3\xa9\r\n\r\n{}"},
	{"content not JSON", "Content-Length: 3\r\n\r\n{x}"},
	{"a batch", "Content-Length: 2\r\n\r\n[]"},
	{"a Content-Type with charset UTF8", "Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=UTF8\r\n\r\n{}"},
	{"a Content-Type with a quoted charset", "Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=\"utf-8\"\r\n\r\n{}"},
	{"a Content-Type without charset", "Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n{}"},
	{"a Content-Type whose other parameter holds charset=utf-8", "Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; xcharset=utf-8\r\n\r\n{}"},
}

// The raw reader's verdicts and texts for each way of breaking §1.1 are
// pinned in testdata/rawfaults.golden (E2E_UPDATE_GOLDEN=1 rewrites it).
func TestRawFaultOutcomes(t *testing.T) {
	var b strings.Builder
	for _, tc := range rawFaultCases {
		fmt.Fprintf(&b, "== %s\n%s", tc.name, rawOutcome(t, tc.wrote))
	}
	golden(t, "testdata/rawfaults.golden", b.String())
}

// golden compares got with the file at path, or writes it when
// E2E_UPDATE_GOLDEN is set.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if os.Getenv("E2E_UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (E2E_UPDATE_GOLDEN=1 writes it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := "", ""
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("%s line %d:\ngot  %s\nwant %s", path, i+1, g, w)
			}
		}
	}
}
