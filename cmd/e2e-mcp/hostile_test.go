package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestHostileInput sends the built host each malformed line the SDK's own
// transport died of, each followed by a valid request: every one is
// answered with its JSON-RPC error, the server goes on, and it exits 0 only
// when stdin closes (spec mcp.md §7.2).
func TestHostileInput(t *testing.T) {
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
	var stderr strings.Builder
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
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	recv := func() answer {
		t.Helper()
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("the host stopped answering: %v\n%s", err, stderr.String())
		}
		var a answer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		return a
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if a := recv(); a.Result == nil {
		t.Fatalf("initialize: %+v", a)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, tt := range []struct {
		name, line string
		code       int64
	}{
		{"invalid JSON", `{bad json`, -32700},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"x\":\"\xc3\x28\"}", -32700},
		{"batch", `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, -32600},
		{"nesting over 1000", strings.Repeat("[", 1001) + strings.Repeat("]", 1001), -32700},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":4,"method":"ping"}`, -32600},
		{"a line over 16 MiB", `{"jsonrpc":"2.0","id":5,"method":"ping","x":"` + strings.Repeat("y", 17<<20) + `"}`, -32700},
	} {
		send(tt.line)
		if a := recv(); a.Error == nil || a.Error.Code != tt.code {
			t.Errorf("%s: answer %+v, want error %d", tt.name, a, tt.code)
		}
		id := 100 + i
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id))
		if a := recv(); string(a.ID) != fmt.Sprint(id) || a.Result == nil {
			t.Errorf("%s: the next request got %+v", tt.name, a)
		}
	}
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after stdin closed: %v\n%s", err, stderr.String())
	}
	log := stderr.String()
	if !strings.Contains(log, "client line 3 refused: Parse error: the line is not valid JSON") || strings.Contains(log, "bad json") {
		t.Errorf("the operator log should say what was refused, without quoting it:\n%s", log)
	}
}
