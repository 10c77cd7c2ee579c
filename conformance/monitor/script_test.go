package monitor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/monitor"
	"github.com/e2e-conform/toolkit/protocol/frame"
)

// step is one move of a scripted harness: write send (one or more frames
// in one write), then read until await responses came, or a message of
// method awaitMethod.
type step struct {
	send        []string
	await       int
	awaitMethod string
}

// Frames a scripted harness sends.
const (
	initialize   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"script"},"role":"worker"}}`
	initialized  = `{"jsonrpc":"2.0","method":"initialized","params":{}}`
	lifeInit     = `{"jsonrpc":"2.0","id":2,"method":"lifecycle/init","params":{"runId":"r1","targetName":"t","projectRoot":"/tmp","app":{},"env":{},"headed":false,"workerSlot":0,"signal":{"id":100}}}`
	startAttempt = `{"jsonrpc":"2.0","id":3,"method":"lifecycle/startAttempt","params":{"attemptId":"a1","artifactsDir":"/tmp","signal":{"id":101},"screens":false}}`
	unknown      = `{"jsonrpc":"2.0","id":4,"method":"foo/bar","params":{}}`
	shutdown     = `{"jsonrpc":"2.0","id":90,"method":"shutdown"}`
	exit         = `{"jsonrpc":"2.0","method":"exit"}`
)

// handshake is initialize, its answer, initialized.
var handshake = []step{{send: []string{initialize}, await: 1}, {send: []string{initialized}}}

// closing is the close sequence of §2.9.
var closing = []step{{send: []string{shutdown}, await: 1}, {send: []string{exit}}}

// script runs steps against engine behind the monitor and returns the
// monitor's report; the bytes crossing the monitor are checked both ways.
func script(t *testing.T, steps []step, engine ...string) *monitor.Report {
	t.Helper()
	s := start(t, monitor.Config{}, engine...)
	fr := frame.NewReader(s.outR, frame.Options{Mode: frame.Lenient})
	frames := make(chan []byte)
	go func() {
		defer close(frames)
		for {
			f, err := fr.Next()
			if err != nil {
				return
			}
			frames <- f.Content
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i, st := range steps {
		var b []byte
		for _, m := range st.send {
			b = frame.Append(b, []byte(m))
		}
		if _, err := s.inW.Write(b); err != nil {
			t.Fatalf("step %d: writing: %v", i, err)
		}
		got := 0
		for got < st.await || st.awaitMethod != "" {
			select {
			case c, ok := <-frames:
				if !ok {
					t.Fatalf("step %d: the engine's side ended", i)
				}
				var m struct {
					Method string          `json:"method"`
					ID     json.RawMessage `json:"id"`
				}
				_ = json.Unmarshal(c, &m)
				switch {
				case m.Method == "" && got < st.await:
					got++
				case m.Method != "" && m.Method == st.awaitMethod:
					st.awaitMethod = ""
				}
			case <-ctx.Done():
				t.Fatalf("step %d: no answer: %v", i, ctx.Err())
			}
		}
	}
	s.inW.Close()
	go func() {
		for range frames {
		}
	}()
	r := s.end()
	s.checkBytes()
	if s.err != nil {
		t.Fatalf("monitor: %v", s.err)
	}
	return r
}

// seq concatenates step lists.
func seq(parts ...[]step) []step {
	var out []step
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// violationsBy lists the report's violations as "side requirement".
func violationsBy(r *monitor.Report) map[string]int {
	out := map[string]int{}
	for _, v := range r.Monitor.Violations {
		out[fmt.Sprintf("%s %s", v.Side, v.Requirement)]++
	}
	return out
}

// TestScriptedBadClient: a harness breaking its side's rules, against the
// healthy example engine, is named at fault with the right rule, and the
// engine is not.
func TestScriptedBadClient(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
		want  string
	}{
		{"reused request id", seq(handshake, []step{{send: []string{lifeInit, lifeInit}, await: 2}}, closing), "harness §1.4"},
		{"two $/abort for one id", seq(handshake, []step{{send: []string{`{"jsonrpc":"2.0","method":"$/abort","params":{"id":77}}`}}, {send: []string{`{"jsonrpc":"2.0","method":"$/abort","params":{"id":77}}`, unknown}, await: 1}}, closing), "harness CLI-007"},
		{"a request before initialize", seq([]step{{send: []string{lifeInit}, await: 1}}, handshake, closing), "harness §2.2"},
		{"params breaking the schema", seq(handshake, []step{{send: []string{`{"jsonrpc":"2.0","id":5,"method":"engine/observe","params":{"operation":5}}`}, await: 1}}, closing), "harness §5.13"},
		{"exit before the shutdown result", seq(handshake, []step{{send: []string{shutdown, exit}}}), "harness CLI-013"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := script(t, c.steps, bins.Path(t, "example-engine"))
			got := violationsBy(r)
			if got[c.want] == 0 {
				t.Errorf("want a violation %q, got %v", c.want, got)
			}
			for k := range got {
				if k[:6] == "engine" {
					t.Errorf("the healthy engine was put at fault: %v", r.Monitor.Violations)
				}
			}
			if !r.Failed() || r.Verdict != monitor.VerdictViolations {
				t.Errorf("verdict %q", r.Verdict)
			}
		})
	}
}

// TestBadClientAndEngine: both sides at fault in one exchange, each named:
// the engine sends a request other than attempt/resolveSecret (S2C-004)
// and the harness answers it with a result instead of -32601 (CLI-014).
func TestBadClientAndEngine(t *testing.T) {
	steps := seq(handshake, []step{{send: []string{lifeInit}, await: 1}, {send: []string{startAttempt}, await: 1, awaitMethod: "attempt/ping"}}, closing)
	ping := func(answer string) []step {
		out := append([]step(nil), steps[:4]...)
		return append(append(out, step{send: []string{answer}}), steps[4:]...)
	}
	for _, c := range []struct {
		answer string
		want   map[string]int
	}{
		{`{"jsonrpc":"2.0","id":"saboteur-ping","result":null}`, map[string]int{"engine S2C-004": 1, "harness CLI-014": 1}},
		{`{"jsonrpc":"2.0","id":"saboteur-ping","error":{"code":-32601,"message":"no"}}`, map[string]int{"engine S2C-004": 1}},
	} {
		r := script(t, ping(c.answer), bins.Path(t, "saboteur"), "--fault", "bad-server-request")
		got := violationsBy(r)
		for k := range got {
			if c.want[k] == 0 {
				t.Errorf("answer %s: unexpected violation %s: %v", c.answer, k, r.Monitor.Violations)
			}
		}
		for k := range c.want {
			if got[k] == 0 {
				t.Errorf("answer %s: want %s, got %v", c.answer, k, got)
			}
		}
	}
}

// faultCase is a saboteur fault, a session that provokes it, and the
// violations it must give ("side requirement").
type faultCase struct {
	fault string
	steps []step
	want  []string
}

// TestEngineFaults: a saboteur fault per rule family behind the monitor is
// named at fault with its requirement, and the scripted harness (which
// follows its rules) is not.
func TestEngineFaults(t *testing.T) {
	cases := []faultCase{
		{"stdout-banner", []step{{send: []string{initialize}}}, []string{"engine WIRE-001", "engine TRN-001"}},
		{"error-code-string", seq(handshake, []step{{send: []string{unknown}, await: 1}}, closing), []string{"engine WIRE-008"}},
		{"null-error-data", seq(handshake, []step{{send: []string{unknown}, await: 1}}, closing), []string{"engine WIRE-012", "engine WIRE-013"}},
		{"empty-error-message", seq(handshake, []step{{send: []string{unknown}, await: 1}}, closing), []string{"engine ERR-006"}},
		{"early-notification", seq([]step{{send: []string{initialize}, await: 1, awaitMethod: "engine/log"}, {send: []string{initialized}}}, closing), []string{"engine LIFE-005"}},
		{"after-shutdown-served", seq(handshake, []step{{send: []string{shutdown}, await: 1}, {send: []string{`{"jsonrpc":"2.0","id":91,"method":"shutdown"}`}, await: 1}, {send: []string{exit}}}), []string{"engine LIFE-006"}},
		{"bad-server-request", seq(handshake, []step{{send: []string{lifeInit}, await: 1}, {send: []string{startAttempt}, await: 1, awaitMethod: "attempt/ping"}}, closing), []string{"engine S2C-004"}},
		{"log-as-request", seq(handshake, []step{{send: []string{lifeInit}, await: 1}, {send: []string{startAttempt}, await: 1, awaitMethod: "engine/log"}}, closing), []string{"engine S2C-004"}},
		{"notify-other-attempt", seq(handshake, []step{{send: []string{lifeInit}, await: 1}, {send: []string{startAttempt}, await: 1, awaitMethod: "attempt/navigation"}}, closing), []string{"engine S2C-001"}},
		{"retryable-reason-kept", seq(handshake, []step{{send: []string{lifeInit}, await: 1}, {send: []string{startAttempt}, await: 1},
			{send: []string{`{"jsonrpc":"2.0","id":6,"method":"engine/observe","params":{"operation":{"runId":"r1","attemptId":"a1","origin":"test","timeoutMs":1000,"signal":{"id":102,"aborted":true,"reason":{"code":-32000,"message":"stale","data":{"type":"engine","code":"NODE_STALE","retryable":true}}}}}}`}, await: 1}}, closing), []string{"engine SIG-005"}},
	}
	attempt := []step{{send: []string{lifeInit}, await: 1}, {send: []string{startAttempt}, await: 1}}
	observe := func(id int, signal string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"engine/observe","params":{"operation":{"runId":"r1","attemptId":"a1","origin":"test","timeoutMs":1000,"signal":%s}}}`, id, signal)
	}
	cases = append(cases,
		faultCase{"non-ascii-method-rejected", seq(handshake, []step{{send: []string{`{"jsonrpc":"2.0","id":4,"method":"föö/bär","params":{}}`}, await: 1}}, closing), []string{"engine WIRE-009"}},
		faultCase{"multiline-log", seq(handshake, []step{{send: []string{lifeInit}, await: 1, awaitMethod: "engine/log"}}, closing), []string{"engine S2C-003"}},
		faultCase{"null-optional-member", seq(handshake, attempt, []step{{send: []string{observe(7, `{"id":103}`)}, await: 1}}, closing), []string{"engine WIRE-012", "engine WIRE-013"}},
		faultCase{"act-on-aborted", seq(handshake, attempt, []step{{send: []string{observe(7, `{"id":103,"aborted":true}`)}, await: 1}}, closing), []string{"engine §7.5"}},
	)
	for _, c := range cases {
		t.Run(c.fault, func(t *testing.T) {
			r := script(t, c.steps, bins.Path(t, "saboteur"), "--fault", c.fault)
			got := violationsBy(r)
			for _, w := range c.want {
				if got[w] == 0 {
					t.Errorf("want a violation %q, got %v", w, r.Monitor.Violations)
				}
			}
			for k := range got {
				if k[:7] == "harness" {
					t.Errorf("the scripted harness was put at fault: %v", r.Monitor.Violations)
				}
			}
		})
	}
	t.Run("healthy saboteur", func(t *testing.T) {
		r := script(t, seq(handshake, []step{{send: []string{lifeInit}, await: 1}, {send: []string{startAttempt}, await: 1}, {send: []string{unknown}, await: 1}}, closing), bins.Path(t, "saboteur"))
		if len(r.Monitor.Violations) > 0 {
			t.Errorf("violations on the healthy saboteur: %v", r.Monitor.Violations)
		}
	})
}
