package report

import "testing"

// TestRequestUnderTest: the sent line of an explanation is the request the
// failure is about, never the suite's answer to a server request nor the
// close sequence (issue 28 §5).
func TestRequestUnderTest(t *testing.T) {
	const (
		fill    = `conn 5 (raw) send {"jsonrpc":"2.0","id":5,"method":"engine/perform","params":{"action":{"kind":"fill"}}}`
		ask     = `conn 5 (raw) recv {"id":1,"jsonrpc":"2.0","method":"attempt/resolveSecret","params":{"name":"login"}}`
		answer  = `conn 5 (raw) send {"jsonrpc":"2.0","id":1,"result":{"value":"[redacted]"}}`
		exit    = `conn 5 (raw) send {"jsonrpc":"2.0","method":"exit"}`
		abort   = `conn 18 (raw) send {"jsonrpc":"2.0","method":"$/abort","params":{"id":990001}}`
		probe   = `conn 18 (raw) send {"jsonrpc":"2.0","id":3,"method":"e2e-conform/probe"}`
		errNull = `conn 18 (raw) recv {"error":{"code":-32600,"message":"$/abort is not a request"},"id":null,"jsonrpc":"2.0"}`
		open    = `conn 18 (raw) send {"jsonrpc":"2.0","id":5,"method":"session/open","params":{"url":"slow"}}`
		observe = `conn 18 (raw) send {"jsonrpc":"2.0","id":6,"method":"engine/observe","params":{}}`
		opened  = `conn 18 (raw) recv {"id":5,"error":{"code":-32000,"message":"This operation was aborted"},"jsonrpc":"2.0"}`
		init0   = `conn 1 (raw) send {"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`
		bad     = `conn 3 (raw) send {"jsonrpc":"2.0","id":7,"method":"foo/bar"}`
		badErr  = `conn 3 (raw) recv {"id":7,"error":{"code":-32601,"message":"no"},"jsonrpc":"2.0"}`
		noise   = `conn 3 (raw) recv saboteur: a request failed`
		exit3   = `conn 3 (raw) send {"jsonrpc":"2.0","method":"exit"}`
		rawTwo  = "conn 3 (raw) send Content-Length: 60\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a/b\"}Content-Length: 43\n\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"foo/bar\"}"
	)
	lines := func(ls ...string) string {
		s := ""
		for _, l := range ls {
			s += "  " + l + "\n"
		}
		return s
	}
	for _, tc := range []struct {
		name, exchange, reason, came, want string
	}{
		{"a server request's id reused: the request it came during, not the suite's answer",
			lines(fill, ask, answer, exit) + "  around the first S2C-004 violation (x):\n" + lines(fill, ask, ask),
			"during the run: attempt/resolveSecret reused the id 1 (in the request attempt/resolveSecret (id 1), conn 5 (raw))", "", fill},
		{"no context: the last request, not the answer to the secret nor exit",
			lines(fill, ask, answer, exit), "want null, got an error", "", fill},
		{"the method the failure names",
			lines(abort, abort, probe, errNull), "$/abort for ids the server never saw: want no response", `{"error":{}}`, abort},
		{"the request a response that came answers",
			lines(open, abort, observe, opened), "session/open of the slow page answered CANCELLED after $/abort", opened, open},
		{"the suite's request a run-wide violation was read after",
			lines(init0) + "  around the first WIRE-002 violation (x):\n" + lines(init0),
			`the server wrote the header field "X" (in reading the frame after the suite's request initialize (id 0), conn 1 (raw))`, "", init0},
		{"before the server's last frame: the request whose answer the noise followed",
			lines(bad, badErr, noise, exit3), "stdout: want only framed messages until it closes, got the stream broke", "the stream broke", bad},
		{"a raw write of two frames, whole",
			lines(rawTwo), "a request for the unknown method followed by one for foo/bar", "no answer", rawTwo},
		{"nothing sent", "", "anything", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := requestUnderTest(tc.exchange, tc.reason, tc.came); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestRequestUnderTestKeepsMalformedWrites: a frame that is no message
// (WIRE-004's bad JSON, a batch) can be the request under test; only the
// suite's answers are never.
func TestRequestUnderTestKeepsMalformedWrites(t *testing.T) {
	bad := `conn 3 (raw) send {"jsonrpc":"2.0","id":1,"method":`
	answer := `conn 3 (raw) send {"jsonrpc":"2.0","id":1,"result":null}`
	got := requestUnderTest("  "+bad+"\n  "+answer+"\n", "want -32700, got none", "none")
	if got != bad {
		t.Errorf("got %q, want %q", got, bad)
	}
	if !IsAnswerLine(answer) || IsAnswerLine(bad) {
		t.Errorf("answer() misjudges %q or %q", answer, bad)
	}
}
