package conformance

import (
	"encoding/json"
	"fmt"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Abort reasons the specs send (§7.2): error objects encoded like a failed
// method's error. Each message is unique in the run, so an echo is not a
// coincidence.
func reasonE2E(tag string, retryable bool) string {
	return fmt.Sprintf(`{"code":-32000,"message":"e2e-conform: test timed out after 120000 ms (%s)","data":{"type":"e2e","category":"test","code":"TEST_TIMEOUT","retryable":%v}}`, tag, retryable)
}

func reasonEngine(tag, code string, retryable bool) string {
	return fmt.Sprintf(`{"code":-32000,"message":"e2e-conform: aborted by the suite (%s)","data":{"type":"engine","code":%q,"retryable":%v}}`, tag, code, retryable)
}

// abortAnswer reports whether eo is an answer an abort (with reason, when
// not "") or a timeout gives: CANCELLED, OPERATION_TIMEOUT, or the
// reason echoed.
func abortAnswer(eo *wire.ErrorObject, reason string) bool {
	if d := dataOf(eo); eo.Code == wire.CodeEngineError && d.Type == "engine" && (d.Code == "CANCELLED" || d.Code == "OPERATION_TIMEOUT") {
		return true
	}
	return reason != "" && echoesReason(eo, reason)
}

// echoesReason reports whether eo carries the code and message of the
// suite's abort reason: each reason's message names the spec that sent it,
// so no refusal of the page can carry it, whatever its data says (a server
// rewrites an echoed reason's retryable to false, §7.5, SIG-005). Whether
// the echo is exact is SIG-004's check, not this one's.
func echoesReason(eo *wire.ErrorObject, reason string) bool {
	var w wire.ErrorObject
	if json.Unmarshal([]byte(reason), &w) != nil {
		return false
	}
	return eo.Code == w.Code && eo.Message == w.Message
}

// sameError reports how error object got differs from the reason object
// want (code, message and data equal as JSON), "" when it does not.
func sameError(got *wire.ErrorObject, want string) string {
	var w wire.ErrorObject
	_ = json.Unmarshal([]byte(want), &w)
	if got.Code != w.Code || got.Message != w.Message {
		return fmt.Sprintf("want %d %q, got %d %q", w.Code, w.Message, got.Code, got.Message)
	}
	var gd, wd any
	_ = json.Unmarshal(got.Data, &gd)
	_ = json.Unmarshal(w.Data, &wd)
	gj, _ := json.Marshal(gd)
	wj, _ := json.Marshal(wd)
	if string(gj) != string(wj) {
		return fmt.Sprintf("want data %s, got %s", wj, gj)
	}
	return ""
}

// retryable reports whether an error object says retryable: true.
func retryable(eo *wire.ErrorObject) bool {
	d := dataOf(eo)
	return d.Retryable != nil && *d.Retryable
}
