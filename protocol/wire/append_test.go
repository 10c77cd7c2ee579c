package wire

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// appendCases are values whose AppendJSON must equal json.Marshal.
func appendCases() []interface {
	AppendJSON([]byte) ([]byte, bool)
} {
	odd := "a<b>&\"\\\n\u2028é\xff"
	lvl := int64(3)
	return []interface {
		AppendJSON([]byte) ([]byte, bool)
	}{
		ObserveParams{Operation: Operation{Signal: SignalRef{ID: IntSignalID(12)}, TimeoutMs: 30000, RunID: "r", AttemptID: "a", Origin: "test"}},
		ObserveParams{Operation: Operation{Signal: SignalRef{ID: StringSignalID(odd), Aborted: true}, TimeoutMs: 1e-7, RunID: odd, AttemptID: "a"}, Options: &EngineObserveOptions{}},
		ObserveParams{Operation: Operation{Signal: SignalRef{ID: IntSignalID(-1)}, TimeoutMs: 1e21}, Options: &EngineObserveOptions{Pixels: true, PixelFallback: true}},
		ObserveParams{Options: &EngineObserveOptions{PixelFallback: true}},
		OperationParams{Operation: Operation{Signal: SignalRef{ID: IntSignalID(5)}, TimeoutMs: 0.5, RunID: "r", AttemptID: "a", Origin: "agent"}},
		&EngineSnapshot{Root: SemanticNode{Ref: NodeRef{ID: "root"}}, Viewport: ViewportSize{Width: 1280, Height: 720}},
		&EngineSnapshot{Location: odd, Root: SemanticNode{Ref: NodeRef{ID: "root", Revision: "r1"}, Role: Str("button"), Name: Str(odd), Text: Str(""), Value: Str("v"),
			Selection: Str("s"), TestID: Str("t"), InputPurpose: "none", States: &NodeStates{Checked: Bool(true), Secure: Bool(false)}, Level: &lvl,
			Attributes: map[string]string{"z": "1", "a": odd, odd: ""}, Rect: &Rect{X: -0.0, Y: 5e-324, Width: 123456789012345678901234567890, Height: 1.5},
			Selector: Str("#s"), FramePath: []string{"iframe", odd}, Children: []SemanticNode{{Ref: NodeRef{ID: "c"}, States: &NodeStates{}}, {Ref: NodeRef{ID: "d"}, FramePath: []string{}}}},
			Viewport: ViewportSize{Width: 1, Height: 2}, Truncated: true, TreeUnavailable: true,
			Pixels: &ObservationPixels{Data: "iVBORw==", MediaType: "image/png", Width: 1, Height: 1, Scale: 2}, MaskedRegionCount: &lvl},
	}
}

func TestAppendJSONMatchesMarshal(t *testing.T) {
	for i, v := range appendCases() {
		checkAppend(t, i, v)
	}
}

func checkAppend(t *testing.T, i int, v interface {
	AppendJSON([]byte) ([]byte, bool)
}) {
	t.Helper()
	want, err := json.Marshal(v)
	got, ok := v.AppendJSON([]byte("prefix"))
	if err != nil {
		if ok {
			t.Fatalf("case %d: json.Marshal fails (%v), AppendJSON wrote %s", i, err, got)
		}
		return
	}
	if !ok {
		return // left to encoding/json
	}
	if !bytes.Equal(got, append([]byte("prefix"), want...)) {
		t.Fatalf("case %d:\nAppendJSON %s\njson.Marshal %s", i, got[len("prefix"):], want)
	}
}

func TestAppendJSONLeavesNaNToEncodingJSON(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, ok := (&EngineSnapshot{Viewport: ViewportSize{Width: f}}).AppendJSON(nil); ok {
			t.Errorf("AppendJSON wrote a snapshot with width %v", f)
		}
		if _, ok := (ObserveParams{Operation: Operation{TimeoutMs: f}}).AppendJSON(nil); ok {
			t.Errorf("AppendJSON wrote params with timeoutMs %v", f)
		}
	}
	if _, ok := (ObserveParams{Operation: Operation{Signal: SignalRef{Reason: &ErrorObject{Code: 1, Message: "x"}}}}).AppendJSON(nil); ok {
		t.Error("AppendJSON wrote a reason itself")
	}
}

// FuzzAppendJSON: for snapshots and params decoded from arbitrary JSON,
// AppendJSON writes what json.Marshal writes.
func FuzzAppendJSON(f *testing.F) {
	for _, v := range appendCases() {
		raw, _ := json.Marshal(v)
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var s EngineSnapshot
		if json.Unmarshal(raw, &s) == nil {
			checkAppend(t, 0, &s)
		}
		var p ObserveParams
		if json.Unmarshal(raw, &p) == nil {
			checkAppend(t, 1, p)
		}
		var o OperationParams
		if json.Unmarshal(raw, &o) == nil {
			checkAppend(t, 2, o)
		}
	})
}
