package monitor

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/e2e-conform/toolkit/conformance/traffic"
	"github.com/e2e-conform/toolkit/protocol/frame"
)

// TestSecretsRedacted: the value the harness answers to
// attempt/resolveSecret is redacted from every text of the report (a
// violation's message and exchange), raw and JSON-escaped.
func TestSecretsRedacted(t *testing.T) {
	m, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	const secret = `hunter2-"secret"-value`
	esc, _ := json.Marshal(secret)
	c := m.newConn()
	feed := func(from traffic.Side, msg string) {
		m.rec.accept(m.schemas, chunk{conn: c, from: from, data: frame.Append(nil, []byte(msg)), at: time.Now(), seq: c.seq.Add(1)}, true)
	}
	feed(traffic.Harness, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"t"},"role":"worker"}}`)
	feed(traffic.Engine, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"manifest":{}}}`)
	feed(traffic.Harness, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	feed(traffic.Harness, `{"jsonrpc":"2.0","id":2,"method":"foo/bar","params":{}}`)
	feed(traffic.Engine, `{"jsonrpc":"2.0","id":7,"method":"attempt/resolveSecret","params":{"attemptId":"a1","name":"pw"}}`)
	feed(traffic.Harness, `{"jsonrpc":"2.0","id":7,"result":{"value":`+string(esc)+`}}`)
	// The engine quotes the secret in an error whose code is a string
	// (WIRE-008): the violation's message and exchange carry it.
	feed(traffic.Engine, `{"jsonrpc":"2.0","id":2,"error":{"code":"-32601","message":"no foo/bar for `+string(esc[1:len(esc)-1])+`"}}`)
	r := m.build(0)
	if len(r.Monitor.Violations) == 0 {
		t.Fatal("no violation")
	}
	b, _ := json.Marshal(r)
	for _, form := range []string{secret, string(esc[1 : len(esc)-1])} {
		if strings.Contains(string(b), form) {
			t.Errorf("the report carries the secret as %q:\n%s", form, b)
		}
	}
	if !strings.Contains(string(b), "[redacted]") {
		t.Errorf("nothing redacted:\n%s", b)
	}
}

// TestJUnitHarnessViolationFails: a violation of a harness rule named by
// its section (no catalog row) is a JUnit failure, not a skipped case or a
// warning; a requirement exercised without violation is skipped.
func TestJUnitHarnessViolationFails(t *testing.T) {
	m, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	c := m.newConn()
	feed := func(from traffic.Side, msg string) {
		m.rec.accept(m.schemas, chunk{conn: c, from: from, data: frame.Append(nil, []byte(msg)), at: time.Now(), seq: c.seq.Add(1)}, true)
	}
	feed(traffic.Harness, `{"jsonrpc":"2.0","id":1,"method":"engine/observe","params":{}}`)
	r := m.build(0)
	path := t.TempDir() + "/junit.xml"
	if err := r.writeJUnit(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ts struct {
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(b, &ts); err != nil {
		t.Fatal(err)
	}
	failed := map[string]bool{}
	for _, c := range ts.Cases {
		failed[strings.Fields(c.Name)[0]] = c.Failure != nil
	}
	if !failed["§2.2"] || !failed["§5.13"] || ts.Skipped == 0 {
		t.Errorf("JUnit: %d failures, %d skipped, cases %v\n%s", ts.Failures, ts.Skipped, failed, b)
	}
}

// TestReadsJudgedInSeqOrder: a connection's reads reach the judge in the
// order they were handed over, after they were relayed; the judge takes
// them in seq order (taken before relaying), so an answer handed over
// before its request is still judged after it, and is no stray.
func TestReadsJudgedInSeqOrder(t *testing.T) {
	m, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	c := m.newConn()
	read := func(from traffic.Side, msg string) chunk {
		return chunk{conn: c, from: from, data: frame.Append(nil, []byte(msg)), at: time.Now(), seq: c.seq.Add(1)}
	}
	hello := []chunk{
		read(traffic.Harness, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"t"},"role":"worker"}}`),
		read(traffic.Engine, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`),
	}
	// The answer is handed over first, then the request.
	m.rec.accept(m.schemas, hello[1], true)
	if m.rec.frames != 0 {
		t.Fatalf("a read was judged before the one before it: %d frames", m.rec.frames)
	}
	m.rec.accept(m.schemas, hello[0], true)
	r := m.build(0)
	if r.Monitor.Frames != 2 || len(r.Monitor.Violations) != 0 {
		t.Errorf("%d frames, violations %v", r.Monitor.Frames, r.Monitor.Violations)
	}
}
