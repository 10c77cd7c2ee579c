package traffic_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/traffic"
	"github.com/e2e-conform/toolkit/fixtures/example"
	"github.com/e2e-conform/toolkit/protocol/schema"
	"github.com/e2e-conform/toolkit/protocol/server"
)

var schemas = schema.MustLoad()

// manifest is the example engine's, as JSON.
func manifest() string {
	b, err := json.Marshal(server.DescribeEngine(example.New()))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// sink keeps what the rules report.
type sink struct {
	violations []traffic.Violation
	observed   map[string]int
}

func (s *sink) Observed(id, what string) {
	if s.observed == nil {
		s.observed = map[string]int{}
	}
	s.observed[id]++
}

func (s *sink) Violation(v traffic.Violation) { s.violations = append(s.violations, v) }

func (s *sink) names() []string {
	var out []string
	for _, v := range s.violations {
		out = append(out, fmt.Sprintf("%s %s", v.Side, v.Requirement))
	}
	return out
}

// msg is one frame's content and who wrote it.
type msg struct {
	from    traffic.Side
	content string
}

func h(s string) msg { return msg{traffic.Harness, s} }
func e(s string) msg { return msg{traffic.Engine, s} }

var (
	hInit        = h(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"t"},"role":"worker"}}`)
	eInit        = e(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"manifest":` + manifest() + `}}`)
	hInitialized = h(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	hs           = []msg{hInit, eInit, hInitialized}
)

// TestConnRules: each rule of Conn on a short exchange; the side and
// requirement named, and nothing on the exchanges that follow the rules
// (the cases a careless rule would get wrong).
func TestConnRules(t *testing.T) {
	cases := []struct {
		name string
		msgs []msg
		want string // "side requirement" of every violation, space-joined; "" for none
	}{
		{"a clean handshake and unknown method", append(hs, h(`{"jsonrpc":"2.0","id":2,"method":"foo/bar"}`), e(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`)), ""},
		{"a stray response", append(hs, e(`{"jsonrpc":"2.0","id":9,"result":null}`)), "engine WIRE-008"},
		{"an id-null answer is no stray", append(hs, h(`{"jsonrpc":"2.0","id":true,"method":"x"}`), e(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad id"}}`)), ""},
		{"a reused pending id: both answers expected, neither stray", append(hs, h(`{"jsonrpc":"2.0","id":2,"method":"foo/bar"}`), h(`{"jsonrpc":"2.0","id":2,"method":"foo/baz"}`),
			e(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`), e(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`)), "harness §1.4"},
		{"an id reused after its answer", append(hs, h(`{"jsonrpc":"2.0","id":2,"method":"foo/bar"}`), e(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`), h(`{"jsonrpc":"2.0","id":2,"method":"foo/bar"}`)), ""},
		{"LIFE-005: a notification before initialized", []msg{hInit, eInit, e(`{"jsonrpc":"2.0","method":"engine/log","params":{"line":"hi"}}`), hInitialized}, "engine LIFE-005"},
		{"LIFE-003: before initialize, answered -32600", []msg{h(`{"jsonrpc":"2.0","id":5,"method":"shutdown"}`), e(`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"no"}}`)}, "harness §2.2 engine LIFE-003"},
		{"LIFE-003: before initialize, answered -32002", []msg{h(`{"jsonrpc":"2.0","id":5,"method":"shutdown"}`), e(`{"jsonrpc":"2.0","id":5,"error":{"code":-32002,"message":"no"}}`)}, "harness §2.2"},
		{"LIFE-002: protocolVersion 2 accepted", []msg{h(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2,"clientInfo":{"name":"t"},"role":"worker"}}`), eInit}, "harness §5.13 engine LIFE-002"},
		{"LIFE-004: second initialize answered", append(hs, h(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"t"},"role":"worker"}}`), e(`{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":1,"manifest":`+manifest()+`}}`)), "engine LIFE-004"},
		{"LIFE-006 and CLI-013: a request after shutdown served", append(hs, h(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`), e(`{"jsonrpc":"2.0","id":2,"result":null}`), h(`{"jsonrpc":"2.0","id":3,"method":"foo/bar"}`), e(`{"jsonrpc":"2.0","id":3,"result":null}`)), "harness CLI-013 engine LIFE-006"},
		{"the close sequence", append(hs, h(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`), e(`{"jsonrpc":"2.0","id":2,"result":null}`), h(`{"jsonrpc":"2.0","method":"exit"}`)), ""},
		{"exit before the shutdown result", append(hs, h(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`), h(`{"jsonrpc":"2.0","method":"exit"}`)), "harness CLI-013"},
		{"shutdown while a request is pending is not judged (the budget may have run out)", append(hs, h(`{"jsonrpc":"2.0","id":2,"method":"foo/bar"}`), h(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`)), ""},
		{"exit after shutdown's error answer", append(hs, h(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`), e(`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"no"}}`), h(`{"jsonrpc":"2.0","method":"exit"}`)), ""},
		{"exit without shutdown", append(hs, h(`{"jsonrpc":"2.0","method":"exit"}`)), "harness CLI-013"},
		{"after a failed initialize", []msg{h(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"t"},"role":"worker"}}`), e(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`), h(`{"jsonrpc":"2.0","method":"exit"}`)}, ""},
		{"ids compared by value: 1.0 answered as 1", append(hs, h(`{"jsonrpc":"2.0","id":2.0,"method":"foo/bar"}`), e(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`)), ""},
		{"ids compared by type: \"2\" answered as 2", append(hs, h(`{"jsonrpc":"2.0","id":"2","method":"foo/bar"}`), e(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`)), "engine WIRE-008"},
		{"two $/abort for one id", append(hs, h(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":7}}`), h(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":7}}`)), "harness CLI-007"},
		{"$/abort again after a request carried the id", append(hs, h(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":7}}`),
			h(`{"jsonrpc":"2.0","id":2,"method":"lifecycle/settleAttempt","params":{"signal":{"id":7},"timeoutMs":10}}`), h(`{"jsonrpc":"2.0","method":"$/abort","params":{"id":7}}`)), ""},
		{"aborted: false and a reason without aborted", append(hs, h(`{"jsonrpc":"2.0","id":2,"method":"lifecycle/settleAttempt","params":{"signal":{"id":7,"aborted":false},"timeoutMs":10}}`),
			h(`{"jsonrpc":"2.0","id":3,"method":"lifecycle/settleAttempt","params":{"signal":{"id":8,"reason":{"code":-32000,"message":"x","data":{"type":"engine","code":"CANCELLED","retryable":false}}},"timeoutMs":10}}`)), "harness §7.1 harness §7.1"},
		{"S2C-001: a notification outside the attempt", append(hs, e(`{"jsonrpc":"2.0","method":"attempt/navigation","params":{"attemptId":"a9","line":"x"}}`)), "engine S2C-001"},
		{"S2C-001: inside the attempt", append(hs, h(`{"jsonrpc":"2.0","id":2,"method":"lifecycle/startAttempt","params":{"attemptId":"a1","artifactsDir":"/tmp","signal":{"id":1},"screens":false}}`),
			e(`{"jsonrpc":"2.0","method":"attempt/navigation","params":{"attemptId":"a1","line":"x"}}`)), ""},
		{"S2C-004: a request of another method", append(hs, e(`{"jsonrpc":"2.0","id":1,"method":"attempt/ping","params":{}}`)), "engine S2C-001 engine S2C-004"},
		{"S2C-004: a reused pending id", append(hs, e(`{"jsonrpc":"2.0","id":1,"method":"attempt/resolveSecret","params":{"attemptId":"a1","name":"pw"}}`), e(`{"jsonrpc":"2.0","id":1,"method":"attempt/resolveSecret","params":{"attemptId":"a1","name":"pw"}}`)), "engine S2C-001 engine S2C-001 engine S2C-004"},
		{"WIRE-009: an unknown method answered with a result", append(hs, h(`{"jsonrpc":"2.0","id":2,"method":"foo/bar"}`), e(`{"jsonrpc":"2.0","id":2,"result":null}`)), "engine WIRE-009"},
		{"WIRE-009 is not judged for a malformed request (WIRE-005: -32600)", append(hs, h(`{"jsonrpc":"2.0","id":true,"method":"foo/bar"}`), h(`{"jsonrpc":"2.0","id":3,"method":7}`), h(`{"id":4,"method":"foo/bar"}`),
			e(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}`), e(`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"no"}}`), e(`{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"no"}}`)), ""},
		{"WIRE-009 is not judged before initialize's result", []msg{hInit, h(`{"jsonrpc":"2.0","id":2,"method":"foo/bar"}`), eInit, e(`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"no"}}`)}, "harness §2.2"},
		{"CLI-014: the client answers another server request -32601", append(hs, e(`{"jsonrpc":"2.0","id":1,"method":"attempt/ping","params":{}}`), h(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`)), "engine S2C-001 engine S2C-004"},
		{"CLI-014: the client answers it with a result", append(hs, e(`{"jsonrpc":"2.0","id":1,"method":"attempt/ping","params":{}}`), h(`{"jsonrpc":"2.0","id":1,"result":null}`)), "engine S2C-001 engine S2C-004 harness CLI-014"},
		{"a client answer to no server request", append(hs, h(`{"jsonrpc":"2.0","id":4,"result":{"value":"x"}}`)), "harness §1.4"},
		{"a batch from each side", append(hs, h(`[{"jsonrpc":"2.0","id":2,"method":"foo/bar"}]`), e(`[{"jsonrpc":"2.0","id":2,"result":null}]`)), "harness §1.4 engine WIRE-008"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := traffic.NewConn(traffic.Rules{Schemas: schemas})
			s := &sink{}
			for _, m := range tc.msgs {
				c.Frame(s, m.from, []byte(m.content))
			}
			if got := strings.Join(s.names(), " "); got != tc.want {
				t.Errorf("violations %q, want %q: %v", got, tc.want, s.violations)
			}
			for _, v := range s.violations {
				if v.Section == "" || v.Message == "" {
					t.Errorf("a violation without section or message: %+v", v)
				}
			}
		})
	}
}

// TestDeframer: frames split anywhere are cut whole; a header field the
// engine may not write is WIRE-002, noise on a spawned engine's stdout is
// WIRE-001 and TRN-001, the same from the harness §1.1; the direction is
// then lost.
func TestDeframer(t *testing.T) {
	frame := func(s string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(s), s) }
	two := frame(`{"a":1}`) + frame(`{"b":"ü"}`)
	cases := []struct {
		name   string
		from   traffic.Side
		spawn  bool
		stream string
		frames int
		want   string
	}{
		{"two frames", traffic.Engine, true, two, 2, ""},
		{"an extra header field", traffic.Engine, false, "Content-Length: 2\r\nX-Trace: 1\r\n\r\n{}", 1, "engine WIRE-002"},
		{"stdout noise", traffic.Engine, true, "hello\n" + two, 0, "engine WIRE-001 engine TRN-001"},
		{"noise over a socket", traffic.Engine, false, "hello\n" + two, 0, "engine WIRE-001"},
		{"a length too short", traffic.Engine, false, "Content-Length: 3\r\n\r\n{\"a\":1}", 0, "engine WIRE-001"},
		{"harness noise", traffic.Harness, false, "hello\n" + two, 0, "harness §1.1"},
	}
	for _, tc := range cases {
		for _, step := range []int{1, 3, 1 << 20} {
			t.Run(fmt.Sprintf("%s/by %d", tc.name, step), func(t *testing.T) {
				d := &traffic.Deframer{From: tc.from, Spawn: tc.spawn}
				s := &sink{}
				n := 0
				b := []byte(tc.stream)
				for i := 0; i < len(b); i += step {
					d.Feed(s, b[i:min(i+step, len(b))], func(c []byte) bool {
						if !json.Valid(c) {
							return false
						}
						n++
						return true
					})
				}
				if got := strings.Join(s.names(), " "); got != tc.want || n != tc.frames {
					t.Errorf("%d frames, violations %q; want %d, %q", n, got, tc.frames, tc.want)
				}
				if d.Lost() != (tc.frames == 0) {
					t.Errorf("lost %v", d.Lost())
				}
			})
		}
	}
}
