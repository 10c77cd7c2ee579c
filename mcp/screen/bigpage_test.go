package screen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/mcp/screen"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// table is a table of rows rows (a row and two cells each) followed by
// the nodes after; cell text of row i is value(i).
func table(rows int, value func(i int) string, after ...wire.SemanticNode) *wire.EngineSnapshot {
	var rs []wire.SemanticNode
	for i := range rows {
		rs = append(rs, wire.SemanticNode{Ref: wire.NodeRef{ID: fmt.Sprintf("r%d", i)}, Role: wire.Str("row"), Children: []wire.SemanticNode{
			{Ref: wire.NodeRef{ID: fmt.Sprintf("a%d", i)}, Role: wire.Str("cell"), Name: wire.Str(fmt.Sprintf("Item %d", i))},
			{Ref: wire.NodeRef{ID: fmt.Sprintf("v%d", i)}, Role: wire.Str("cell"), Name: wire.Str(value(i))},
		}})
	}
	kids := append([]wire.SemanticNode{{Ref: wire.NodeRef{ID: "t"}, Role: wire.Str("table"), Children: rs}}, after...)
	return snap("http://a/table", false, kids...)
}

func dialog(id string, open bool) wire.SemanticNode {
	d := wire.SemanticNode{Ref: wire.NodeRef{ID: id}, Role: wire.Str("dialog"), Name: wire.Str("Details"), Children: []wire.SemanticNode{
		{Ref: wire.NodeRef{ID: id + "h"}, Role: wire.Str("heading"), Name: wire.Str("Row 17")},
		button(id+"c", "Close"),
	}}
	if !open {
		d.States = &wire.NodeStates{Hidden: wire.Bool(true)}
	}
	return d
}

func same(i int) string { return fmt.Sprintf("%d EUR", i) }

// TestCutListsModalFirst: a listing cut at the byte limit lists an open
// dialog that comes after the cut, with its ids valid, and marks the gap;
// a hidden dialog gets no such priority.
func TestCutListsModalFirst(t *testing.T) {
	o := screen.Options{MaxBytes: 2048}
	s := screen.New(table(300, same, dialog("d", true)), "b1", o)
	full := s.Full()
	if !s.ByteCut {
		t.Fatalf("not cut:\n%s", full)
	}
	for _, id := range []string{"d", "dh", "dc"} {
		if s.IDs[id] == nil {
			t.Errorf("#%s of the open dialog is not listed:\n%s", id, full)
		}
	}
	mustContainAll(t, full, "\n #d dialog \"Details\"\n  #dh heading \"Row 17\"\n  #dc button \"Close\"\n"+screen.ByteMarker, "nodes not listed here …]\n #d dialog")
	_, listing, _ := strings.Cut(full, "\n")
	if len(listing) > 2048 {
		t.Errorf("listing is %d bytes, over 2048", len(listing))
	}
	if s.IDs["r0"] == nil || s.IDs["r299"] != nil {
		t.Errorf("the rest is not a document-order prefix: r0 %v, r299 %v", s.IDs["r0"] != nil, s.IDs["r299"] != nil)
	}
	hidden := screen.New(table(300, same, dialog("d", false)), "b1", o)
	if hidden.IDs["d"] != nil {
		t.Errorf("a hidden dialog was listed first:\n%s", hidden.Full())
	}
}

// TestCutListsFocusRegion: the region (nearest row, form, dialog, …) of
// the focused node is listed in a cut listing even past the cut.
func TestCutListsFocusRegion(t *testing.T) {
	sn := table(300, same)
	row := &sn.Root.Children[0].Children[250]
	row.Children[1].States = &wire.NodeStates{Focused: wire.Bool(true)}
	s := screen.New(sn, "b1", screen.Options{MaxBytes: 2048})
	for _, id := range []string{"t", "r250", "a250", "v250"} {
		if s.IDs[id] == nil {
			t.Errorf("#%s (the focused node's row and what is above it) is not listed:\n%s", id, s.Full())
		}
	}
	if s.IDs["r249"] != nil || s.IDs["r251"] != nil {
		t.Errorf("neighbours of the focused row listed")
	}
}

// TestUpdateCoversCut: after an action on a cut listing the update shows
// a change past the cut (and makes its id valid), and reports a removal.
func TestUpdateCoversCut(t *testing.T) {
	o := screen.Options{MaxBytes: 2048}
	prev := screen.New(table(300, same), "b1", o)
	if prev.IDs["v290"] != nil {
		t.Fatal("v290 is listed: the test needs it past the cut")
	}
	changed := func(i int) string {
		if i == 290 {
			return "999 EUR"
		}
		return same(i)
	}
	cur := screen.New(table(299, changed), "b2", o)
	got := screen.Update(prev, cur, true)
	mustContainAll(t, got, "1 changed, 3 removed.", "past the listing's byte cut",
		`changed #v290 cell "999 EUR" (was: #v290 cell "290 EUR")`, `removed #r299 row`)
	if cur.IDs["v290"] == nil {
		t.Errorf("the changed node shown past the cut has no valid id")
	}
	if !prev.Same(screen.New(table(300, same), "b3", o)) || prev.Same(cur) {
		t.Errorf("Same does not compare the whole observation")
	}
}

// TestWithin lists one subtree, with its ids valid.
func TestWithin(t *testing.T) {
	s := screen.New(table(300, same, dialog("d", true)), "b4", screen.Options{MaxBytes: 2048})
	got, ok := s.Within("r280")
	if !ok {
		t.Fatal("r280 not found")
	}
	want := "Subtree of #r280 (revision b4, path /table, 3 nodes):\n#r280 row\n #a280 cell \"Item 280\"\n #v280 cell \"280 EUR\""
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if s.IDs["v280"] == nil {
		t.Error("an id of the subtree is not valid")
	}
	if _, ok := s.Within("nope"); ok {
		t.Error("an unknown id was found")
	}
}

func mustContainAll(t *testing.T, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
}
