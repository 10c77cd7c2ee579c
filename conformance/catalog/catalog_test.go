package catalog

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

func TestCatalogMatchesSpec(t *testing.T) {
	data, err := os.ReadFile("../../../shared/spec/engine-protocol.md")
	if err != nil {
		t.Fatalf("the specification must sit beside the repository: %v", err)
	}
	parsed, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(parsed, All()) {
		t.Fatal("catalog_gen.go is out of date: run go generate ./conformance/catalog")
	}
	if len(parsed) != 162 {
		t.Fatalf("%d requirements, the spec counts 162", len(parsed))
	}
}

// TestEveryAppliesWhenParses: no requirement evaluates to "unknown
// applicability" for any manifest.
func TestEveryAppliesWhenParses(t *testing.T) {
	full := wire.Manifest{Methods: wire.EngineMethods(), Actions: wire.LocatorActionKinds(), PointerActions: wire.PointerActionKinds(), TapModifiers: true}
	empty := wire.Manifest{}
	for _, r := range All() {
		for _, m := range []wire.Manifest{full, empty} {
			for _, tr := range []string{"spawn", "socket"} {
				_, why := r.Applies(Facts{Manifest: m, Transport: tr})
				if strings.Contains(why, "unknown applicability") {
					t.Errorf("%s: %s", r.ID, why)
				}
			}
		}
	}
}

func TestApplies(t *testing.T) {
	m := wire.Manifest{Methods: []string{wire.MethodObserve, wire.MethodPerform, wire.MethodOpen, wire.MethodRestart}, Actions: []string{"tap", "fill"}}
	f := Facts{Manifest: m, Transport: "spawn", Sent: func(w string) bool { return w == "attempt/resolveSecret" }}
	withDerivation := Facts{Manifest: m, Transport: "spawn", Sent: func(w string) bool { return true }}
	if r, _ := Lookup("S2C-005"); !func() bool { ok, _ := r.Applies(withDerivation); return ok }() {
		t.Error("S2C-005 does not apply once the server sent resolveSecret with derivation")
	}
	cases := map[string]bool{
		"WIRE-001": true,  // always
		"CLI-001":  false, // toolkit
		"LIFE-007": true,  // spawn
		"TRN-003":  false, // socket
		"OBS-001":  true,  // engine/observe
		"LOC-001":  false, // engine/locate
		"ACT-001":  true,  // action:tap, … part by part
		"ACT-002":  false, // action:longPress
		"ACT-017":  false, // action:tap, tapModifiers: true
		"ACT-018":  true,  // action:tap, no tapModifiers: true
		"SESS-004": true,  // (restart or reset) with open
		"SIG-009":  true,  // session/open, engine/observe
		"MAN-006":  false, // engine/locate or keyboard/*
		"MAN-007":  false, // state/* or artifacts/*
		"SIG-002":  true,  // an operation method
		"S2C-006":  true,  // when it sends attempt/resolveSecret
		"S2C-005":  false, // … with derivation
		"LIFE-016": false, // each when listed: none listed
		"KEY-005":  false, // keyboard/press or action:press
	}
	for id, want := range cases {
		r, ok := Lookup(id)
		if !ok {
			t.Fatalf("%s missing", id)
		}
		got, why := r.Applies(f)
		if got != want {
			t.Errorf("%s (%s): applies=%v (%s), want %v", id, r.AppliesWhen, got, why, want)
		}
		if !got && why == "" {
			t.Errorf("%s: no reason given", id)
		}
	}
	r, _ := Lookup("ACT-001")
	parts := r.Parts(f)
	if !parts["action:tap"] || parts["action:doubleTap"] || len(parts) != 3 {
		t.Errorf("ACT-001 parts %v", parts)
	}
}

// TestEverySectionIsAHeading: every requirement names the part of the
// specification it comes from, and that part is a heading of
// engine-protocol.md ("§4.10" is "### 4.10 …").
func TestEverySectionIsAHeading(t *testing.T) {
	data, err := os.ReadFile("../../../shared/spec/engine-protocol.md")
	if err != nil {
		t.Fatalf("the specification must sit beside the repository: %v", err)
	}
	heading := regexp.MustCompile(`(?m)^#{2,3} (\d+(?:\.\d+)?)\.? `)
	headings := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(string(data), -1) {
		headings[m[1]] = true
	}
	if len(headings) == 0 {
		t.Fatal("no numbered heading in the specification")
	}
	for _, r := range All() {
		sec, ok := strings.CutPrefix(r.Section, "§")
		if !ok || !headings[sec] {
			t.Errorf("%s: section %q is not a heading of the specification", r.ID, r.Section)
		}
	}
}
