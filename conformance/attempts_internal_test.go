package conformance

import (
	"encoding/json"
	"fmt"
	"testing"
)

// The S2C-001 window of one connection: open from the startAttempt the
// suite writes until a successful endAttempt response it reads; a failed
// startAttempt closes nothing (§4.4: "from its receipt until the
// lifecycle/endAttempt response … lifecycle/endAttempt still follows" a
// failure), a failed endAttempt closes nothing.
func TestAttemptWindow(t *testing.T) {
	start := func(id int, attempt string) step {
		return step{write: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"lifecycle/startAttempt","params":{"attemptId":%q}}`, id, attempt)}
	}
	end := func(id int) step {
		return step{write: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"lifecycle/endAttempt","params":{}}`, id)}
	}
	ok := func(id int) step { return step{read: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":null}`, id)} }
	fail := func(id int) step {
		return step{read: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32000,"message":"no"}}`, id)}
	}
	cases := []struct {
		name  string
		steps []step
		admit map[string]bool
	}{
		{"before any startAttempt", nil, map[string]bool{"a": false}},
		{"after startAttempt is written", []step{start(1, "a")}, map[string]bool{"a": true, "b": false}},
		{"after a successful startAttempt", []step{start(1, "a"), ok(1)}, map[string]bool{"a": true}},
		{"after a failed startAttempt, before endAttempt", []step{start(1, "a"), fail(1)}, map[string]bool{"a": true}},
		{"after a failed startAttempt and its endAttempt", []step{start(1, "a"), fail(1), end(2), ok(2)}, map[string]bool{"a": false}},
		{"while endAttempt is unanswered", []step{start(1, "a"), ok(1), end(2)}, map[string]bool{"a": true}},
		{"after a failed endAttempt", []step{start(1, "a"), ok(1), end(2), fail(2)}, map[string]bool{"a": true}},
		{"after a successful endAttempt", []step{start(1, "a"), ok(1), end(2), ok(2)}, map[string]bool{"a": false}},
		{"the next attempt", []step{start(1, "a"), ok(1), end(2), ok(2), start(3, "b")}, map[string]bool{"a": false, "b": true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var w attemptWindow
			for _, s := range tc.steps {
				s.apply(t, &w)
			}
			for attempt, want := range tc.admit {
				if got := w.admits(attempt); got != want {
					t.Errorf("admits(%q) = %v, want %v", attempt, got, want)
				}
			}
		})
	}
	t.Run("past its bound it admits every attempt until a successful endAttempt", func(t *testing.T) {
		var w attemptWindow
		for i := range attemptWindowBound + 1 {
			start(i, fmt.Sprint("a", i)).apply(t, &w)
		}
		if !w.admits("never-started") {
			t.Error("a window past its bound failed an attempt it may have forgotten")
		}
		end(-1).apply(t, &w)
		ok(-1).apply(t, &w)
		if w.admits("a1") {
			t.Error("a successful endAttempt left the window open")
		}
	})
}

// step is one frame the suite writes or reads on the connection.
type step struct{ write, read string }

func (s step) apply(t *testing.T, w *attemptWindow) {
	t.Helper()
	if s.write != "" {
		w.sent([]byte(s.write))
		return
	}
	f := &frame{Content: []byte(s.read)}
	if err := json.Unmarshal(f.Content, &f.Msg); err != nil {
		t.Fatal(err)
	}
	w.response(f)
}

// S2C-004's id clause: a server request id is pending from its read until
// the suite writes the response with that id; reading it again meanwhile
// is a reuse, after the answer it is not.
func TestServerRequestIDs(t *testing.T) {
	var r serverRequests
	if r.read("7") {
		t.Fatal("a first id was reported reused")
	}
	if !r.read("7") {
		t.Error("an id read again while pending was not reported reused")
	}
	if r.read(`"7"`) {
		t.Error(`the string id "7" was taken for the number 7`)
	}
	r.sent([]byte(`{"jsonrpc":"2.0","id":7,"method":"engine/observe","params":{}}`))
	if !r.read("7") {
		t.Error("a request the suite wrote with the same id answered the server's request")
	}
	r.sent([]byte(`{"jsonrpc":"2.0","id":7,"result":{"value":"x"}}`))
	if r.read("7") {
		t.Error("an id reused after the suite answered it was reported reused")
	}
}
