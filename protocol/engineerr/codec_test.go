package engineerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

func obj(code int64, msg, data string) *wire.ErrorObject {
	o := &wire.ErrorObject{Code: code, Message: msg}
	if data != "" {
		o.Data = json.RawMessage(data)
	}
	return o
}

func TestDecodeClassifies(t *testing.T) {
	cases := []struct {
		name      string
		in        *wire.ErrorObject
		wantType  string // engine, e2e, remote
		wantCode  string
		retryable bool
		category  Category
	}{
		{"engine stale retryable", obj(-32000, "gone", `{"type":"engine","code":"NODE_STALE","retryable":true}`), "engine", "NODE_STALE", true, ""},
		{"frame not found retryable", obj(-32000, "no frame", `{"type":"engine","code":"FRAME_NOT_FOUND","retryable":true}`), "engine", "FRAME_NOT_FOUND", true, ""},
		{"coercion: retryable NOT_ACTIONABLE", obj(-32000, "covered", `{"type":"engine","code":"NOT_ACTIONABLE","retryable":true}`), "engine", "ENGINE_FAILURE", false, ""},
		{"coercion: retryable COMMITTED", obj(-32000, "x", `{"type":"engine","code":"ACTION_MAY_HAVE_COMMITTED","retryable":true}`), "engine", "ENGINE_FAILURE", false, ""},
		{"unknown engine code", obj(-32000, "x", `{"type":"engine","code":"WAT","retryable":false}`), "engine", "ENGINE_FAILURE", false, ""},
		{"missing retryable", obj(-32000, "x", `{"type":"engine","code":"NODE_STALE"}`), "engine", "NODE_STALE", false, ""},
		{"non-boolean retryable", obj(-32000, "x", `{"type":"engine","code":"NODE_STALE","retryable":"yes"}`), "engine", "NODE_STALE", false, ""},
		{"e2e", obj(-32000, "bad", `{"type":"e2e","category":"test","code":"INVALID_ARGUMENT","retryable":false,"details":{"a":1}}`), "e2e", "INVALID_ARGUMENT", false, CategoryTest},
		{"e2e retryable kept", obj(-32000, "x", `{"type":"e2e","category":"test","code":"ACTION_FAILED","retryable":true}`), "e2e", "ACTION_FAILED", true, CategoryTest},
		{"e2e unknown category", obj(-32000, "x", `{"type":"e2e","category":"cosmic","code":"X","retryable":false}`), "e2e", "ENGINE_FAILURE", false, CategoryInfrastructure},
		{"-32000 without data", obj(-32000, "x", ""), "e2e", "ENGINE_FAILURE", false, CategoryInfrastructure},
		{"unknown type", obj(-32000, "x", `{"type":"alien"}`), "e2e", "ENGINE_FAILURE", false, CategoryInfrastructure},
		{"other code", obj(-32603, "boom", `{"stack":"s"}`), "remote", "-32603", false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Decode(tc.in)
			var ee *EngineError
			var e2 *E2EError
			var re *RemoteError
			switch {
			case errors.As(err, &ee):
				if tc.wantType != "engine" || string(ee.Code) != tc.wantCode || ee.Retryable != tc.retryable || ee.Message != tc.in.Message {
					t.Fatalf("got %#v", ee)
				}
			case errors.As(err, &e2):
				if tc.wantType != "e2e" || e2.Code != tc.wantCode || e2.Retryable != tc.retryable || e2.Category != tc.category || e2.Message != tc.in.Message {
					t.Fatalf("got %#v", e2)
				}
			case errors.As(err, &re):
				if tc.wantType != "remote" || fmt.Sprint(re.Code) != tc.wantCode {
					t.Fatalf("got %#v", re)
				}
			default:
				t.Fatalf("unclassified %T", err)
			}
			if IsRetryable(err) != tc.retryable {
				t.Errorf("IsRetryable = %v", IsRetryable(err))
			}
		})
	}
}

func TestEncode(t *testing.T) {
	wrapped := fmt.Errorf("click failed: %w", New(NotActionable, "covered by #overlay"))
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"engine", New(NodeStale, "gone"), `{"code":-32000,"message":"gone","data":{"type":"engine","code":"NODE_STALE","retryable":false}}`},
		{"retryable stale", Retryable(NodeStale, "gone"), `{"code":-32000,"message":"gone","data":{"type":"engine","code":"NODE_STALE","retryable":true}}`},
		{"coerced", &EngineError{Code: NotActionable, Message: "m", Retryable: true}, `{"code":-32000,"message":"m","data":{"type":"engine","code":"ENGINE_FAILURE","retryable":false}}`},
		{"wrapped keeps outer message", wrapped, `{"code":-32000,"message":"click failed: NOT_ACTIONABLE: covered by #overlay","data":{"type":"engine","code":"NOT_ACTIONABLE","retryable":false}}`},
		{"e2e", NewE2E(CategoryConfiguration, "SESSION_INVALID", "unknown format"), `{"code":-32000,"message":"unknown format","data":{"type":"e2e","category":"configuration","code":"SESSION_INVALID","retryable":false}}`},
		{"aborted", ErrAborted, `{"code":-32000,"message":"This operation was aborted","data":{"type":"engine","code":"CANCELLED","retryable":false}}`},
		{"plain", errors.New("boom"), `{"code":-32603,"message":"boom"}`},
		{"errno", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), `{"code":-32603,"message":"dial: connection refused","data":{"errno":"ECONNREFUSED","cause":{"code":-32603,"message":"connection refused","data":{"errno":"ECONNREFUSED"}}}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := json.Marshal(Encode(tc.err))
			if string(b) != tc.want {
				t.Fatalf("got  %s\nwant %s", b, tc.want)
			}
		})
	}
}

func TestVerbatimRoundTrip(t *testing.T) {
	in := obj(-32000, "test timed out after 120000 ms", `{"type":"e2e","category":"test","code":"TEST_TIMEOUT","retryable":false,"x-extra":1}`)
	out := Encode(Decode(in))
	a, _ := json.Marshal(in)
	b, _ := json.Marshal(out)
	if string(a) != string(b) {
		t.Fatalf("reason not verbatim:\n in %s\nout %s", a, b)
	}
}

func TestBounds(t *testing.T) {
	long := strings.Repeat("é", MaxMessageBytes) // 2 bytes each
	o := Encode(New(EngineFailure, "%s", long))
	if len(o.Message) > MaxMessageBytes || !strings.HasPrefix(long, o.Message) {
		t.Fatalf("message not cut at a rune boundary: %d bytes", len(o.Message))
	}
	// a cause chain deeper than 8 is cut
	var err error = New(EngineFailure, "leaf")
	for i := 0; i < 20; i++ {
		err = &EngineError{Code: EngineFailure, Message: fmt.Sprint(i), Details: Details{Cause: err}}
	}
	depth := 0
	for c := Encode(err); c != nil; depth++ {
		var d struct {
			Cause *wire.ErrorObject `json:"cause"`
		}
		_ = json.Unmarshal(c.Data, &d)
		c = d.Cause
	}
	if depth != MaxCauseDepth+1 {
		t.Fatalf("depth %d, want %d", depth, MaxCauseDepth+1)
	}
}

func TestIsAndAs(t *testing.T) {
	err := fmt.Errorf("ctx: %w", Decode(obj(-32000, "gone", `{"type":"engine","code":"NODE_STALE","retryable":true}`)))
	if !errors.Is(err, New(NodeStale, "")) {
		t.Error("errors.Is by code failed")
	}
	if errors.Is(err, New(NotActionable, "")) {
		t.Error("errors.Is matched another code")
	}
	if CodeOf(err) != NodeStale {
		t.Error("CodeOf")
	}
	if !errors.Is(Infrastructure("x"), NewE2E(CategoryInfrastructure, "ENGINE_FAILURE", "")) {
		t.Error("e2e Is")
	}
}
