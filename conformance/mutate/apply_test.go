package mutate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestApplyMember(t *testing.T) {
	const snap = `{"location":"http://a/","root":{"ref":{"id":"r","revision":""},"states":{"checked":true},"level":2,"children":[{"ref":{"id":"c1","revision":"1"}},{"ref":{"id":"c2","revision":"1"}}]},"viewport":{"width":800,"height":600.5}}`
	tests := []struct {
		op   Operator
		path string
		in   string
		want string // "" when the operator does not apply
		ptr  string
	}{
		{OpDrop, "/viewport", snap, `{"location":"http://a/","root":{"ref":{"id":"r","revision":""},"states":{"checked":true},"level":2,"children":[{"ref":{"id":"c1","revision":"1"}},{"ref":{"id":"c2","revision":"1"}}]}}`, "/viewport"},
		{OpDrop, "/root/children/*/ref/id", snap, `{"location":"http://a/","root":{"ref":{"id":"r","revision":""},"states":{"checked":true},"level":2,"children":[{"ref":{"revision":"1"}},{"ref":{"id":"c2","revision":"1"}}]},"viewport":{"width":800,"height":600.5}}`, "/root/children/0/ref/id"},
		{OpNull, "/location", `{"location":"x","a":1}`, `{"location":null,"a":1}`, "/location"},
		{OpNull, "", `{"a":1}`, `null`, ""},
		{OpNull, "/a", `{"a":null}`, "", ""},
		{OpUnknown, "", `{"a":1}`, `{"a":1,"e2eMutant":true}`, ""},
		{OpUnknown, "/root/states", snap[:0] + `{"root":{"states":{}}}`, `{"root":{"states":{"e2eMutant":true}}}`, "/root/states"},
		{OpUnknown, "/a", `{"a":1}`, "", ""},
		{OpRetype, "/b", `{"b":false}`, `{"b":"false"}`, "/b"},
		{OpRetype, "/n", `{"n":12.5}`, `{"n":"12.5"}`, "/n"},
		{OpRetype, "/s", `{"s":"abc"}`, `{"s":0}`, "/s"},
		{OpRetype, "/s", `{"s":"42"}`, `{"s":42}`, "/s"},
		{OpRetype, "/o", `{"o":{"x":1}}`, `{"o":[]}`, "/o"},
		{OpRetype, "/a", `{"a":[1]}`, `{"a":{}}`, "/a"},
		{OpRetype, "", `null`, `{}`, ""},
		{OpEnumCase, "/data/code", `{"data":{"code":"CANCELLED"}}`, `{"data":{"code":"cancelled"}}`, "/data/code"},
		{OpEnumCase, "/kind", `{"kind":"tap"}`, `{"kind":"TAP"}`, "/kind"},
		{OpEnumCase, "/v", `{"v":"2.0"}`, "", ""},
		{OpInc, "/viewport/width", snap, strings.Replace(snap, `"width":800`, `"width":801`, 1), "/viewport/width"},
		{OpDec, "/viewport/height", snap, strings.Replace(snap, `"height":600.5`, `"height":599.5`, 1), "/viewport/height"},
		{OpInc, "/location", snap, "", ""},
		{OpEmpty, "/location", `{"location":"x"}`, `{"location":""}`, "/location"},
		{OpEmpty, "/location", `{"location":""}`, "", ""},
		{OpDrop, "/attributes/*", `{"attributes":{"a/b":"1","c":"2"}}`, `{"attributes":{"c":"2"}}`, "/attributes/a~1b"},
		{OpDrop, "/missing", `{"a":1}`, "", ""},
		{OpDrop, "", `{"a":1}`, "", ""},
		{OpEmpty, "/s", `{"s":"<é>"}`, `{"s":""}`, "/s"},
		{OpRetype, "/s", `{"t":"<é>","s":true}`, `{"t":"<é>","s":"true"}`, "/s"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %s %s", tt.op, tt.path, tt.in), func(t *testing.T) {
			out, ptr, ok := ApplyMember(tt.op, tt.path, []byte(tt.in))
			if tt.want == "" {
				if ok {
					t.Fatalf("applied: %s", out)
				}
				return
			}
			if !ok {
				t.Fatal("did not apply")
			}
			if string(out) != tt.want || ptr != tt.ptr {
				t.Errorf("got %s at %q\nwant %s at %q", out, ptr, tt.want, tt.ptr)
			}
		})
	}
}

func TestApplyEnvelope(t *testing.T) {
	tests := []struct {
		op       Operator
		in, want string
	}{
		{OpIDType, `{"id":7,"result":null,"jsonrpc":"2.0"}`, `{"id":"7","result":null,"jsonrpc":"2.0"}`},
		{OpIDType, `{"id":"ab","result":null,"jsonrpc":"2.0"}`, `{"id":2,"result":null,"jsonrpc":"2.0"}`},
		{OpIDValue, `{"id":7,"result":null,"jsonrpc":"2.0"}`, `{"id":8,"result":null,"jsonrpc":"2.0"}`},
		{OpIDValue, `{"id":"a","result":null,"jsonrpc":"2.0"}`, `{"id":"a-","result":null,"jsonrpc":"2.0"}`},
		{OpNoJSONRPC, `{"id":7,"result":null,"jsonrpc":"2.0"}`, `{"id":7,"result":null}`},
		{OpNeither, `{"id":7,"result":null,"jsonrpc":"2.0"}`, `{"id":7,"jsonrpc":"2.0"}`},
		{OpNeither, `{"id":7,"error":{"code":1,"message":"m"},"jsonrpc":"2.0"}`, `{"id":7,"jsonrpc":"2.0"}`},
		{OpBoth, `{"id":7,"result":null,"jsonrpc":"2.0"}`, `{"id":7,"result":null,"jsonrpc":"2.0","error":{"code":-32603,"message":"e2e-mutate: both result and error"}}`},
		{OpBoth, `{"id":7,"error":{"code":1,"message":"m"},"jsonrpc":"2.0"}`, ""},
		{OpIDType, `{"id":null,"error":{"code":1,"message":"m"},"jsonrpc":"2.0"}`, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.op)+" "+tt.in, func(t *testing.T) {
			out, ok := ApplyEnvelope(tt.op, []byte(tt.in))
			if tt.want == "" {
				if ok {
					t.Fatalf("applied: %s", out)
				}
				return
			}
			if !ok || string(out) != tt.want {
				t.Errorf("got %s (%v), want %s", out, ok, tt.want)
			}
		})
	}
}

func TestApplyFrame(t *testing.T) {
	ascii := `{"a":1}`
	uni := `{"s":"é😀"}` // é: 2 bytes, 1 unit; 😀: 4 bytes, 2 units
	h := func(c string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n", len(c)) }
	tests := []struct {
		op      Operator
		content string
		want    string
	}{
		{OpUTF16Length, uni, "Content-Length: 11\r\n\r\n" + uni},
		{OpCharLength, uni, "Content-Length: 10\r\n\r\n" + uni},
		{OpUTF16Length, ascii, ""},
		{OpHeaderCase, ascii, "content-length: 7\r\n\r\n" + ascii},
		{OpExtraHeader, ascii, "X-E2e-Mutant: 1\r\nContent-Length: 7\r\n\r\n" + ascii},
		{OpConflictingLength, ascii, "Content-Length: 14\r\nContent-Length: 7\r\n\r\n" + ascii},
		{OpTruncate, ascii, "Content-Length: 7\r\n\r\n{\"a"},
	}
	for _, tt := range tests {
		t.Run(string(tt.op), func(t *testing.T) {
			out, ok := ApplyFrame(tt.op, []byte(h(tt.content)), []byte(tt.content))
			if tt.want == "" {
				if ok {
					t.Fatalf("applied: %q", out)
				}
				return
			}
			if !ok || string(out) != tt.want {
				t.Errorf("got %q (%v), want %q", out, ok, tt.want)
			}
		})
	}
}

func TestErrorOperators(t *testing.T) {
	e := `{"code":-32000,"message":"m","data":{"type":"engine","code":"CANCELLED","retryable":false}}`
	if out, ok := SwapCode([]byte(e), "CANCELLED", "ENGINE_FAILURE"); !ok || string(out) != strings.Replace(e, "CANCELLED", "ENGINE_FAILURE", 1) {
		t.Errorf("SwapCode: %s %v", out, ok)
	}
	if _, ok := SwapCode([]byte(e), "NODE_STALE", "ENGINE_FAILURE"); ok {
		t.Error("SwapCode applied to another code")
	}
	if out, ok := FlipRetryable([]byte(e), false); !ok || string(out) != strings.Replace(e, "false", "true", 1) {
		t.Errorf("FlipRetryable: %s %v", out, ok)
	}
	if _, ok := FlipRetryable([]byte(e), true); ok {
		t.Error("FlipRetryable(retryable codes) applied to CANCELLED")
	}
	plain := `{"code":-32601,"message":"m"}`
	if _, ok := FlipRetryable([]byte(plain), false); ok {
		t.Error("FlipRetryable applied to a plain error")
	}
}

func TestSitesFromSchema(t *testing.T) {
	sites, err := Sites()
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Site{}
	for _, s := range sites {
		by[s.String()] = s
	}
	for _, c := range []struct {
		site             string
		required, closed bool
	}{
		{"result:engine/observe#/root/ref/id", true, false},
		{"result:engine/observe#/viewport", true, false},
		{"result:engine/observe#/location", false, false},
		{"result:engine/observe#/root/states", false, true},
		{"result:initialize#/manifest", true, true},
		{"notification:attempt/appLog#/entry/level", true, false},
		{"error:#/message", true, false},
	} {
		s, ok := by[c.site]
		if !ok {
			t.Errorf("no site %s", c.site)
			continue
		}
		if s.Required != c.required || s.Closed != c.closed {
			t.Errorf("%s: required %v closed %v, want %v %v", c.site, s.Required, s.Closed, c.required, c.closed)
		}
	}
}

func TestClassification(t *testing.T) {
	tests := []struct {
		id    string
		class Class
		req   string
	}{
		{"drop@result:engine/observe#/root/ref/id", MustDetect, "WIRE-013"},
		{"drop@result:engine/observe#/location", BySchema, ""},
		{"drop@result:initialize#/manifest/actions", BySchema, ""}, // required with engine/perform (M2): an if/then rule
		{"null@result:engine/observe#/location", MustDetect, "WIRE-012"},
		{"unknown-member@result:engine/observe#/root/states", MustDetect, "WIRE-013"},
		{"unknown-member@result:engine/observe#", Equivalent, ""},
		{"unknown-member@result:initialize#/manifest", MustDetect, "MAN-001"},
		{"enum-case@error:#/data/code", MustDetect, "ERR-002"},
		{"split@frame", MustPass, ""},
		{"coalesce@frame", MustPass, ""},
		{"reorder@response", MustPass, ""},
		{"reorder-behind-shutdown@response", MustDetect, "LIFE-019"},
		{"never-sent@engine/observe", MustDetect, "WIRE-008"},
		{"retype@result:engine/observe#/viewport/width", BySchema, ""},
	}
	for _, tt := range tests {
		m, err := Lookup(tt.id)
		if err != nil {
			t.Errorf("%s: %v", tt.id, err)
			continue
		}
		if m.Class != tt.class || m.Requirement() != tt.req {
			t.Errorf("%s: %s %q (%s), want %s %q", tt.id, m.Class, m.Requirement(), m.Rule, tt.class, tt.req)
		}
	}
}

// recorder records the writes of the relay's client side.
type recorder struct {
	mu     sync.Mutex
	writes []string
	notify chan struct{}
}

func newRecorder() *recorder { return &recorder{notify: make(chan struct{}, 100)} }

func (r *recorder) Write(b []byte) (int, error) {
	r.mu.Lock()
	r.writes = append(r.writes, string(b))
	r.mu.Unlock()
	r.notify <- struct{}{}
	return len(b), nil
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string{}, r.writes...)
}

func frameOf(s string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(s), s) }

// nopCloser is the engine's stdin in the relay tests.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// relayRun runs a relay: the client sends client frames (then ends), the
// engine answers with engine frames once it has read all the client's
// bytes. It returns the client side's writes.
func relayRun(t *testing.T, m Mutant, client, engine []string) []string {
	t.Helper()
	clientIn := strings.NewReader(strings.Join(client, ""))
	var toEngine bytes.Buffer
	var mu sync.Mutex
	engineIn := &lockedWriter{mu: &mu, w: &toEngine}
	engineR, engineW := io.Pipe()
	rec := newRecorder()
	done := make(chan error, 1)
	go func() {
		done <- Relay(context.Background(), clientIn, nopCloser{engineIn}, engineR, rec, Options{Mutant: m})
	}()
	want := strings.Join(client, "")
	for deadline := time.Now().Add(5 * time.Second); ; {
		mu.Lock()
		got := toEngine.String()
		mu.Unlock()
		if got == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the engine got %q, want %q", got, want)
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := engineW.Write([]byte(strings.Join(engine, ""))); err != nil {
		t.Fatal(err)
	}
	engineW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return rec.all()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func TestRelay(t *testing.T) {
	req := func(id int, method string) string {
		return frameOf(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{}}`, id, method))
	}
	resp := func(id int, result string) string {
		return frameOf(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, id, result))
	}
	note := frameOf(`{"jsonrpc":"2.0","method":"engine/log","params":{"line":"hi"}}`)
	mut := func(id string) Mutant {
		m, err := Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	client := []string{req(1, "engine/observe"), req(2, "session/open")}
	engine := []string{note, resp(1, `{"root":{"ref":{"id":"r","revision":""}},"viewport":{"width":1,"height":1}}`), resp(2, "null")}
	tests := []struct {
		mutant string
		want   []string
	}{
		{"none", engine},
		{"never-sent@engine/observe", []string{note, engine[2]}},
		{"duplicate-response@response", []string{note, engine[1], engine[1], engine[2]}},
		{"drop@result:engine/observe#/viewport", []string{note, resp(1, `{"root":{"ref":{"id":"r","revision":""}}}`), engine[2]}},
		{"extra-header@frame", []string{"X-E2e-Mutant: 1\r\n" + note, engine[1], engine[2]}},
		{"coalesce@frame", []string{note + engine[1], engine[2]}},
		{"reorder@response", []string{note, engine[2], engine[1]}},
		{"split@frame", []string{note[:len(note)/2], note[len(note)/2:]}}, // first frame only checked below
	}
	for _, tt := range tests {
		t.Run(tt.mutant, func(t *testing.T) {
			got := relayRun(t, mut(tt.mutant), client, engine)
			if tt.mutant == "split@frame" {
				if strings.Join(got, "") != strings.Join(engine, "") || len(got) != 2*len(engine) {
					t.Errorf("split: %d writes %q", len(got), got)
				}
				return
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestRelayPassesUnframedBytes(t *testing.T) {
	got := relayRun(t, Mutant{}, nil, []string{frameOf(`{"a":1}`), "garbage\r\nmore"})
	if strings.Join(got, "") != frameOf(`{"a":1}`)+"garbage\r\nmore" {
		t.Errorf("got %q", got)
	}
}
