package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// gomegaMessage returns the failure message gomega writes for one
// assertion.
func gomegaMessage(assert func(g gomega.Gomega)) string {
	var msg string
	g := gomega.NewGomega(func(m string, _ ...int) { msg = m })
	assert(g)
	return msg
}

func TestCleanFailureDropsValueDumps(t *testing.T) {
	wrapped := fmt.Errorf("waiting for the response to id 2: %w", errors.New("no message: spec timeout occurred"))
	cases := []struct {
		name   string
		msg    string
		want   []string // substrings of the cleaned message
		reject []string
	}{
		{"unexpected error with a description",
			gomegaMessage(func(g gomega.Gomega) { g.Expect(wrapped).NotTo(gomega.HaveOccurred(), "initialize") }),
			[]string{"initialize: waiting for the response to id 2: no message: spec timeout occurred"}, []string{"0x", "{", "occurred\n"}},
		{"unexpected error without a description",
			gomegaMessage(func(g gomega.Gomega) { g.Expect(wrapped).NotTo(gomega.HaveOccurred()) }),
			[]string{"got an error: waiting for the response to id 2"}, []string{"0x", "msg:"}},
		{"expected success",
			gomegaMessage(func(g gomega.Gomega) { g.Expect(wrapped).To(gomega.Succeed(), "writing part 1") }),
			[]string{"writing part 1: waiting for the response"}, []string{"0x", "msg:"}},
		{"pointer to an error object",
			gomegaMessage(func(g gomega.Gomega) {
				g.Expect(&wire.ErrorObject{Code: -32601, Message: "nope"}).To(gomega.BeNil(), "foo: want a result, got error -32601 \"nope\"")
			}),
			[]string{"foo: want a result, got error -32601"}, []string{"0x", "*wire.ErrorObject"}},
		{"equal without want",
			gomegaMessage(func(g gomega.Gomega) { g.Expect(`"1"`).To(gomega.Equal("1"), "protocolVersion of the result") }),
			[]string{`protocolVersion of the result: got \"1\", want it to equal 1`}, []string{"<string>", "\n"}},
		{"duration",
			gomegaMessage(func(g gomega.Gomega) {
				g.Expect(5*time.Second + 3*time.Millisecond).To(gomega.BeNumerically("<", time.Second))
			}),
			[]string{"5003 ms", "1000 ms"}, []string{"5003000000"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.msg == "" {
				t.Fatal("gomega wrote no failure")
			}
			got := cleanFailure(c.msg)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("cleaned %q\nwant it to contain %q", got, w)
				}
			}
			for _, r := range c.reject {
				if strings.Contains(got, r) {
					t.Errorf("cleaned %q\nstill contains %q", got, r)
				}
			}
		})
	}
}

func TestContentFaultShowsTheBytesAroundTheFault(t *testing.T) {
	long := strings.Repeat("a", 200)
	cases := []struct {
		name    string
		content string
		want    []string
	}{
		{"truncated value", `{"id":1,"result":null,"jsonrpc":"2.0"`, []string{"ends (37 bytes) before its JSON value", `\"2.0\""⟦here⟧`}},
		{"bad character after a long prefix", `{"id":1,"result":"` + long + `"}}` + "tail", []string{"at byte 220 of 225", `\"}"⟦here⟧"}tail"`}},
		{"invalid UTF-8", "{\"id\":1,\"x\":\"a\xffb\"}", []string{"byte 14", "0xff", `⟦here⟧"\xffb\"}"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := contentFault([]byte(c.content))
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("contentFault = %s\nwant it to contain %s", got, w)
				}
			}
		})
	}
	if got := contentFault([]byte(`{"ok":true}`)); got != "" {
		t.Errorf("valid JSON: %q", got)
	}
}

func TestExchangeIsBoundedWithAnElisionMarker(t *testing.T) {
	x := &exchange{}
	frame := strings.Repeat("x", 1000)
	for i := 0; i < 500; i++ {
		x.add(fmt.Sprintf("conn 1 (raw) send %d %s", i, frame))
	}
	out := x.render()
	if len(out) > exchangeCap+200 {
		t.Fatalf("%d bytes, over the %d cap", len(out), exchangeCap)
	}
	for _, w := range []string{"conn 1 (raw) send 0 ", "conn 1 (raw) send 499 ", "bytes elided] …"} {
		if !strings.Contains(out, w) {
			t.Errorf("the exchange lacks %q", w)
		}
	}
	big := elideMiddle(strings.Repeat("é", 20000), frameCap)
	if len(big) > frameCap+64 || !strings.Contains(big, "bytes elided") || !strings.HasPrefix(big, "é") || !strings.HasSuffix(big, "é") {
		t.Errorf("elideMiddle of a 40000-byte frame: %d bytes, %q…", len(big), big[:40])
	}
	small := &exchange{}
	small.add("conn 2 (client) send {}")
	if got := small.render(); got != "  conn 2 (client) send {}\n" {
		t.Errorf("a small exchange: %q", got)
	}
}

// pipeConn is a transport.Conn over in-memory pipes: the test plays the
// server.
type pipeConn struct {
	r *io.PipeReader // what the server writes
	w *io.PipeWriter // what the suite writes
}

func (p pipeConn) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeConn) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeConn) Close(time.Duration) error {
	p.r.Close()
	p.w.Close()
	return nil
}
func (p pipeConn) Diagnostics() string { return "exit status 3; stderr: boom" }

// fakeServer returns a raw connection whose server side the test drives.
func fakeServer(t *testing.T, e *runEnv) (*rawConn, *io.PipeWriter, *io.PipeReader) {
	t.Helper()
	fromServer, serverOut := io.Pipe()
	serverIn, toServer := io.Pipe()
	r := e.newRaw(pipeConn{r: fromServer, w: toServer}, e.newConn(roleRaw))
	t.Cleanup(func() { r.Close(time.Second); serverOut.Close(); serverIn.Close() })
	return r, serverOut, serverIn
}

func testEnv() *runEnv {
	e := &runEnv{}
	e.runChecker = runChecker{run: e, violations: map[string][]violationRec{}, sent: map[string]bool{}}
	return e
}

func TestAFramingFaultEndsTheStreamAtOnce(t *testing.T) {
	e := testEnv()
	e.beginSpec([]string{"LIFE-004"})
	r, serverOut, _ := fakeServer(t, e)
	go func() {
		content := `{"jsonrpc":"2.0","id":1,"result":null}`
		fmt.Fprintf(serverOut, "Content-Length: %d\r\n\r\n%s", len(content)-1, content) // one byte short
		fmt.Fprintf(serverOut, "Content-Length: 5\r\n\r\n")                             // the start of a next frame
	}()
	f, err := r.Next(t.Context())
	if err != nil || f.Msg != nil {
		t.Fatalf("the bad frame: %v, %v", f, err)
	}
	_, err = r.Next(t.Context()) // returns at once: nothing waits for the spec's budget
	if err == nil || !strings.Contains(err.Error(), "the stream broke at a frame of Content-Length 37") || !strings.Contains(err.Error(), "conn 1 (raw)") {
		t.Fatalf("Next after the fault: %v", err)
	}
	if b := e.brokenStream(); !strings.Contains(b, "the stream broke at") || !strings.Contains(b, `null"⟦here⟧`) {
		t.Errorf("the spec's broken stream: %q", b)
	}
	v := e.Violations("WIRE-001")
	if len(v) != 1 || !strings.Contains(v[0], "Content-Length (37)") || !strings.Contains(v[0], "conn 1 (raw)") {
		t.Errorf("WIRE-001 violations: %q", v)
	}
	x := e.LastFrames()
	if !strings.Contains(x, "conn 1 (raw) recv {\"jsonrpc\"") {
		t.Errorf("the exchange: %q", x)
	}
}

func TestAWriteToAClosedServerSaysSo(t *testing.T) {
	e := testEnv()
	r, serverOut, serverIn := fakeServer(t, e)
	serverIn.Close() // the server stops reading
	serverOut.Close()
	<-r.Ended()
	err := r.Write([]byte("Content-L"))
	if err == nil {
		t.Fatal("the write succeeded")
	}
	for _, w := range []string{`writing 9 bytes ("Content-L") on conn 1 (raw) failed`, "the server had closed the connection", "exit status 3; stderr: boom"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%v\nwant it to contain %q", err, w)
		}
	}
}

func TestViolationsNameTheMessageAndConnection(t *testing.T) {
	e := testEnv()
	c := e.newConn(roleClient)
	c.remember("conn 1 (client) send {\"id\":7,\"method\":\"engine/observe\"}")
	f := &frame{Msg: map[string]json.RawMessage{"jsonrpc": json.RawMessage(`"2.0"`), "id": json.RawMessage("7"), "error": json.RawMessage(`{"code":-32000,"message":""}`)}}
	mc := msgCtx{conn: c, where: describeMessage(f, "engine/observe (id 7)")}
	e.violationIn(mc, "ERR-006", "an error with an empty message (code %d)", -32000)
	v := e.violationRecords("ERR-006")
	if len(v) != 1 || v[0].msg != "an error with an empty message (code -32000) (in the answer to engine/observe (id 7), conn 1 (client))" {
		t.Fatalf("violations: %+v", v)
	}
	if !strings.Contains(v[0].exchange, "engine/observe") {
		t.Errorf("the violation's exchange: %q", v[0].exchange)
	}
}

func TestTimedOutSpecSaysWhatItWaitedFor(t *testing.T) {
	sr := types.SpecReport{State: types.SpecStateTimedout, RunTime: 30*time.Second + 12*time.Millisecond,
		Failure: types.Failure{Message: "A spec timeout occurred", AdditionalFailure: &types.AdditionalFailure{
			State: types.SpecStateFailed,
			Failure: types.Failure{Message: gomegaMessage(func(g gomega.Gomega) {
				g.Expect(errors.New("no message: spec timeout occurred")).NotTo(gomega.HaveOccurred(), "waiting for the answer to lifecycle/init")
			})},
		}}}
	got := failureText(sr)
	want := "the spec ran out of its 30012 ms budget while waiting for the answer to lifecycle/init: no message: spec timeout occurred"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A silent engine that used up the first spec's budget in the setup's
// lifecycle/init probe: the report names the request left unanswered, not
// ginkgo's "A spec timeout occurred" (issue 12).
func TestTimedOutSetupSaysWhatWentUnanswered(t *testing.T) {
	sr := types.SpecReport{State: types.SpecStateTimedout, RunTime: 10*time.Second + 66*time.Millisecond,
		Failure: types.Failure{Message: "A spec timeout occurred", AdditionalFailure: &types.AdditionalFailure{
			State: types.SpecStateFailed,
			Failure: types.Failure{Message: ginkgoAfterTimeout + "\nprobing lifecycle/init before the spec: " +
				(&rpc.NoAnswerError{Method: "lifecycle/init", ID: "1", Waited: 9725 * time.Millisecond, Err: errors.New("spec timeout occurred")}).Error()},
		}}}
	got := failureText(sr)
	want := "the spec ran out of its 10066 ms budget while probing lifecycle/init before the spec: no answer to lifecycle/init (id 1) within 9725 ms (spec timeout occurred)"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
