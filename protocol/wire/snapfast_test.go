package wire

import (
	"reflect"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/internal/jsonscan"
)

var fastSnapshotSeeds = []string{
	`{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1280,"height":720}}`,
	`{"location":"http://x/","root":{"ref":{"id":"root","revision":""},"children":[{"ref":{"id":"n1","revision":"b2"},"role":"button","name":"Save","text":"t","value":"v","selection":"s","testId":"s","inputPurpose":"none","states":{"checked":true,"focused":false,"x":1},"level":2,"attributes":{"placeholder":"p","\u0061":"b"},"rect":{"x":-1,"y":2.5,"width":3,"height":4e2},"selector":"#s","framePath":["iframe"],"children":[]}]},"viewport":{"width":800,"height":600},"truncated":false,"maskedRegionCount":0,"extra":[1,{"a":null}]}`,
	`{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1,"height":1},"treeUnavailable":true,"pixels":{"data":"iVBORw==","mediaType":"image/png","width":1,"height":1,"scale":2}}`,
	`{"root":{"ref":{"id":"r","revision":""},"states":{"checked":true},"states":{"hidden":true}},"viewport":{"width":1,"height":1}}`,
	`{"root":{"ref":{"id":"r","revision":""},"rect":{"x":1,"y":1,"width":1,"height":1},"rect":{"x":2}},"viewport":{"width":1,"height":1}}`,
	`{"root":{"ref":{"id":"r","revision":""},"level":1.0},"viewport":{"width":1,"height":1}}`,
	`{"root":{"ref":{"id":"r","revision":""},"level":1e400},"viewport":{"width":1e400,"height":1}}`,
	`{"root":{"ref":{"id":"r","revision":""},"name":5},"viewport":{"width":1,"height":1}}`,
	`{"root":{"ref":{"id":"r","revision":"","ID":"x"}},"viewport":{"width":1,"height":1}}`,
	`{"root":{"ref":{"id":"r","revision":""}},"\u0072oot":{"ref":{"id":"s","revision":""}},"viewport":{"width":1,"height":1}}`,
	`{"root":{"ref":{"id":"r","revision":""},"attributes":{"a":"1","a":"2"},"framePath":[]},"viewport":{"width":1,"height":1}}`,
}

// FuzzFastSnapshot: whatever fastSnapshot decodes, it decodes as
// Unmarshal does (on valid JSON that passes noNull, its precondition).
func FuzzFastSnapshot(f *testing.F) {
	for _, s := range fastSnapshotSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !jsonscan.Valid(raw) || len(raw) == 0 || raw[0] != '{' || noNull(raw) != nil {
			return
		}
		var fast EngineSnapshot
		if !fastSnapshot(raw, &fast) {
			return
		}
		var slow EngineSnapshot
		if err := Unmarshal(raw, &slow); err != nil {
			t.Fatalf("fastSnapshot decoded what Unmarshal refuses (%v): %s", err, raw)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("fastSnapshot %+v, Unmarshal %+v: %s", fast, slow, raw)
		}
	})
}

// TestFastSnapshotDecides: the snapshots engines send are decoded by the
// fast path (a fast path that always gave up would agree trivially).
func TestFastSnapshotDecides(t *testing.T) {
	for _, raw := range fastSnapshotSeeds[:3] {
		var s EngineSnapshot
		if !fastSnapshot([]byte(raw), &s) {
			t.Errorf("fastSnapshot gave up on %s", raw)
		}
	}
}
