package schema

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The client checks observe and locate results with wire.DecodeSnapshot and
// wire.DecodeNodes instead of a schema run; these tests hold the two to the
// same verdicts.

var snapshotCases = []struct {
	name, raw string
	valid     bool
}{
	{"minimal", `{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1,"height":1}}`, true},
	{"full node", `{"location":"http://x/","root":{"ref":{"id":"root","revision":""},"children":[{"ref":{"id":"n1","revision":"b2"},"role":"button","name":"Save","text":"t","value":"v","testId":"s","inputPurpose":"none","states":{"checked":true,"focused":false},"level":2,"attributes":{"placeholder":"p"},"rect":{"x":-1,"y":2,"width":3,"height":4},"selector":"#s","framePath":["iframe"]}]},"viewport":{"width":800,"height":600},"truncated":false,"maskedRegionCount":0}`, true},
	{"pixels", `{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1,"height":1},"pixels":{"data":"iVBORw==","mediaType":"image/png","width":1,"height":1,"scale":1}}`, true},
	{"fallback", `{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1,"height":1},"treeUnavailable":true,"pixels":{"data":"iVBORw==","mediaType":"image/png","width":1,"height":1,"scale":2}}`, true},
	{"extra members", `{"root":{"ref":{"id":"root","revision":"","x":1},"y":2},"viewport":{"width":1,"height":1},"z":3}`, true},
	{"no root", `{"viewport":{"width":1,"height":1}}`, false},
	{"no viewport", `{"root":{"ref":{"id":"root","revision":""}}}`, false},
	{"zero width", `{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":0,"height":1}}`, false},
	{"empty id", `{"root":{"ref":{"id":"","revision":""}},"viewport":{"width":1,"height":1}}`, false},
	{"no revision", `{"root":{"ref":{"id":"root"}},"viewport":{"width":1,"height":1}}`, false},
	{"child without ref", `{"root":{"ref":{"id":"root","revision":""},"children":[{"role":"button"}]},"viewport":{"width":1,"height":1}}`, false},
	{"null name", `{"root":{"ref":{"id":"root","revision":""},"name":null},"viewport":{"width":1,"height":1}}`, false},
	{"null location", `{"location":null,"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1,"height":1}}`, false},
	{"secure with value", `{"root":{"ref":{"id":"root","revision":""},"states":{"secure":true},"value":"x"},"viewport":{"width":1,"height":1}}`, false},
	{"level 0", `{"root":{"ref":{"id":"root","revision":""},"level":0},"viewport":{"width":1,"height":1}}`, false},
	{"level 1.5", `{"root":{"ref":{"id":"root","revision":""},"level":1.5},"viewport":{"width":1,"height":1}}`, false},
	{"bad purpose", `{"root":{"ref":{"id":"root","revision":""},"inputPurpose":"email"},"viewport":{"width":1,"height":1}}`, false},
	{"name not string", `{"root":{"ref":{"id":"root","revision":""},"name":5},"viewport":{"width":1,"height":1}}`, false},
	{"negative rect", `{"root":{"ref":{"id":"root","revision":""},"rect":{"x":0,"y":0,"width":-1,"height":1}},"viewport":{"width":1,"height":1}}`, false},
	{"unpadded pixels", `{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1,"height":1},"pixels":{"data":"iVBORw","mediaType":"image/png","width":1,"height":1,"scale":1}}`, false},
	{"pixels scale 0", `{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1,"height":1},"pixels":{"data":"iVBORw==","mediaType":"image/png","width":1,"height":1,"scale":0}}`, false},
	{"fallback without pixels", `{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1,"height":1},"treeUnavailable":true}`, false},
	{"fallback with a full root", `{"root":{"ref":{"id":"root","revision":""},"name":"x"},"viewport":{"width":1,"height":1},"treeUnavailable":true,"pixels":{"data":"iVBORw==","mediaType":"image/png","width":1,"height":1,"scale":1}}`, false},
	{"treeUnavailable false", `{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1,"height":1},"treeUnavailable":false}`, false},
	{"negative masked", `{"root":{"ref":{"id":"root","revision":""}},"viewport":{"width":1,"height":1},"maskedRegionCount":-1}`, false},
	{"not an object", `[]`, false},
}

func TestDecodeSnapshotAgreesWithSchema(t *testing.T) {
	s := MustLoad()
	for _, tc := range snapshotCases {
		t.Run(tc.name, func(t *testing.T) {
			schemaOK := s.ValidateResult("engine/observe", []byte(tc.raw)) == nil
			_, err := wire.DecodeSnapshot([]byte(tc.raw))
			if schemaOK != tc.valid {
				t.Fatalf("schema says valid=%v, the table %v", schemaOK, tc.valid)
			}
			if (err == nil) != tc.valid {
				t.Fatalf("DecodeSnapshot: %v, want valid=%v", err, tc.valid)
			}
		})
	}
}

// FuzzDecodeSnapshot: whatever the schema accepts, DecodeSnapshot accepts
// (the fast path never fails a valid observation).
func FuzzDecodeSnapshot(f *testing.F) {
	for _, tc := range snapshotCases {
		f.Add([]byte(tc.raw))
	}
	s := MustLoad()
	f.Fuzz(func(t *testing.T, raw []byte) {
		if s.ValidateResult("engine/observe", raw) != nil || hasDuplicateKeys(raw) || hasCaseVariantKeys(raw) {
			// Duplicate member names, and names that differ from a known one
			// only by case, are degenerate JSON the two read differently:
			// DecodeSnapshot refuses the latter on purpose (wire/check.go).
			return
		}
		if _, err := wire.DecodeSnapshot(raw); err != nil {
			t.Fatalf("schema-valid snapshot refused: %v\n%s", err, raw)
		}
	})
}

// hasDuplicateKeys reports whether any object in raw repeats a member name.
func hasDuplicateKeys(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	type frame struct {
		obj  bool
		keys map[string]bool
		key  bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := func() *frame {
			if len(stack) == 0 {
				return nil
			}
			return stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				if f := top(); f != nil && f.obj {
					f.key = true
				}
				stack = append(stack, &frame{obj: true, keys: map[string]bool{}, key: true})
			case '[':
				if f := top(); f != nil && f.obj {
					f.key = true
				}
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if f := top(); f != nil && f.obj && f.key {
				if f.keys[v] {
					return true
				}
				f.keys[v] = true
				f.key = false
				continue
			}
			if f := top(); f != nil && f.obj {
				f.key = true
			}
		default:
			if f := top(); f != nil && f.obj {
				f.key = true
			}
		}
	}
}

// hasCaseVariantKeys reports whether raw has a member name that differs from
// a snapshot member name only by case.
func hasCaseVariantKeys(raw []byte) bool {
	known := strings.Fields(`root viewport pixels location truncated treeUnavailable maskedRegionCount
		ref id revision role name text value selection testId inputPurpose states level attributes rect
		selector framePath children x y width height data mediaType scale
		checked disabled selected expanded pressed focused hidden secure`)
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if s, ok := tok.(string); ok {
			for _, k := range known {
				if s != k && strings.EqualFold(s, k) {
					return true
				}
			}
		}
	}
}
