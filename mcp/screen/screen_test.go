package screen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/mcp/screen"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

func node(id string, f func(n *wire.SemanticNode)) wire.SemanticNode {
	n := wire.SemanticNode{Ref: wire.NodeRef{ID: id}}
	if f != nil {
		f(&n)
	}
	return n
}

func TestNodeLine(t *testing.T) {
	redact := func(s string) string { return strings.ReplaceAll(s, "s3cret-value", "<secret:apiKey>") }
	o := screen.Options{Redact: redact, AppURL: "http://app.test:3000/base"}
	tests := []struct {
		name string
		n    wire.SemanticNode
		want string
	}{
		{"bare", node("n1", nil), "#n1"},
		{"role and name", node("n2", func(n *wire.SemanticNode) { n.Role, n.Name = wire.Str("button"), wire.Str("Increment") }), `#n2 button "Increment"`},
		{"text equal to name is omitted", node("n3", func(n *wire.SemanticNode) {
			n.Role, n.Name, n.Text = wire.Str("heading"), wire.Str("Hi"), wire.Str(" Hi ")
		}), `#n3 heading "Hi"`},
		{"text collapsed", node("n4", func(n *wire.SemanticNode) {
			n.Role, n.Name, n.Text = wire.Str("status"), wire.Str("Counter"), wire.Str("1\n  of 2")
		}), `#n4 status "Counter" text="1 of 2"`},
		{"no role", node("n5", func(n *wire.SemanticNode) { n.Text = wire.Str("plain") }), `#n5 text="plain"`},
		{"testid, same-origin href", node("n6", func(n *wire.SemanticNode) {
			n.Role, n.Name, n.TestID = wire.Str("link"), wire.Str("Next"), wire.Str("next")
			n.Attributes = map[string]string{"href": "http://app.test:3000/page?…"}
		}), `#n6 link "Next" testid="next" href="/page?…"`},
		{"other-origin href kept", node("n7", func(n *wire.SemanticNode) {
			n.Role, n.Attributes = wire.Str("link"), map[string]string{"href": "https://other.test/x#…"}
		}), `#n7 link href="https://other.test/x#…"`},
		{"longer port is another origin", node("n8", func(n *wire.SemanticNode) {
			n.Role, n.Attributes = wire.Str("link"), map[string]string{"href": "http://app.test:30001/x"}
		}), `#n8 link href="http://app.test:30001/x"`},
		{"placeholder only without name", node("n9", func(n *wire.SemanticNode) {
			n.Role, n.Attributes = wire.Str("textbox"), map[string]string{"placeholder": "Your name"}
		}), `#n9 textbox placeholder="Your name"`},
		{"placeholder hidden by name", node("n10", func(n *wire.SemanticNode) {
			n.Role, n.Name, n.Attributes = wire.Str("textbox"), wire.Str("Name"), map[string]string{"placeholder": "Your name"}
		}), `#n10 textbox "Name"`},
		{"secure value", node("n11", func(n *wire.SemanticNode) {
			n.Role, n.Name, n.InputPurpose, n.Value = wire.Str("textbox"), wire.Str("Password"), "password", wire.Str("")
			n.States = &wire.NodeStates{Secure: wire.Bool(true)}
		}), `#n11 textbox "Password" value=<secure> purpose=password [secure]`},
		{"redacted value and JSON quoting", node("n12", func(n *wire.SemanticNode) {
			n.Role, n.Name, n.Value = wire.Str("textbox"), wire.Str(`say "hi" <b>`), wire.Str("s3cret-value")
		}), `#n12 textbox "say \"hi\" <b>" value="<secret:apiKey>"`},
		{"states in order", node("n13", func(n *wire.SemanticNode) {
			n.Role, n.Name = wire.Str("checkbox"), wire.Str("Subscribe")
			n.States = &wire.NodeStates{Focused: wire.Bool(true), Checked: wire.Bool(true), Disabled: wire.Bool(false)}
		}), `#n13 checkbox "Subscribe" [checked focused]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, key := screen.NodeLine(&tc.n, o)
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if strings.Contains(key, "focused") {
				t.Errorf("diff key keeps focused: %s", key)
			}
		})
	}
}

func snap(loc string, truncated bool, kids ...wire.SemanticNode) *wire.EngineSnapshot {
	return &wire.EngineSnapshot{Location: loc, Truncated: truncated, Viewport: wire.ViewportSize{Width: 100, Height: 100},
		Root: wire.SemanticNode{Ref: wire.NodeRef{ID: "root"}, Role: wire.Str("document"), Children: kids}}
}

func button(id, name string) wire.SemanticNode {
	return node(id, func(n *wire.SemanticNode) { n.Role, n.Name = wire.Str("button"), wire.Str(name) })
}

func TestFullAndTruncation(t *testing.T) {
	// Indentation is capped at 10.
	deep := button("n0", "leaf")
	for i := 1; i <= 12; i++ {
		deep = wire.SemanticNode{Ref: wire.NodeRef{ID: fmt.Sprintf("g%d", i)}, Role: wire.Str("group"), Children: []wire.SemanticNode{deep}}
	}
	s := screen.New(snap("http://app.test/p?q=1#h", false, deep), "b1", screen.Options{})
	full := s.Full()
	if !strings.HasPrefix(full, "Current screen (revision b1, path /p?q=1#h, 14 nodes):\n#root document\n #g12 group") {
		t.Errorf("header:\n%s", full)
	}
	if !strings.Contains(full, "\n"+strings.Repeat(" ", 10)+"#n0 button \"leaf\"") || strings.Contains(full, strings.Repeat(" ", 11)+"#") {
		t.Errorf("indent not capped at 10:\n%s", full)
	}
	tr := screen.New(snap("", true, button("n1", "A")), "b2", screen.Options{}).Full()
	if tr != "Current screen (revision b2, 2 nodes):\n#root document\n #n1 button \"A\"\n[observation truncated: the engine stopped listing nodes at its limit]" {
		t.Errorf("truncated:\n%s", tr)
	}
	un := &wire.EngineSnapshot{TreeUnavailable: true, Location: "http://x/y"}
	if got := screen.New(un, "b3", screen.Options{}).Full(); !strings.HasPrefix(got, "Current screen (revision b3, path /y, semantic capture unavailable):\n[semantic capture unavailable: ") {
		t.Errorf("unavailable:\n%s", got)
	}
}

func TestUpdate(t *testing.T) {
	status := func(v string) wire.SemanticNode {
		return node("n9", func(n *wire.SemanticNode) {
			n.Role, n.Name, n.Text = wire.Str("status"), wire.Str("Counter"), wire.Str(v)
		})
	}
	many := func(n int, extra ...wire.SemanticNode) []wire.SemanticNode {
		var out []wire.SemanticNode
		for i := 0; i < n; i++ {
			out = append(out, button(fmt.Sprintf("n%d", 100+i), fmt.Sprintf("B%d", i)))
		}
		return append(out, extra...)
	}
	focused := button("n1", "A")
	focused.States = &wire.NodeStates{Focused: wire.Bool(true)}
	prev := screen.New(snap("http://a/", false, append(many(8), button("n1", "A"), button("n2", "B"), status("0"))...), "b1", screen.Options{})
	tests := []struct {
		name   string
		cur    *wire.EngineSnapshot
		expect bool
		want   []string // prefix, then lines that must follow in order
	}{
		{"changed, added, removed", snap("http://a/", false, append(many(8), button("n1", "A"), status("1"), button("n3", "C"))...), true, []string{
			"Screen changes since revision b1 (now revision b2, path /, 12 nodes): 1 added, 1 changed, 1 removed. Every node not listed as removed is still on screen under the id you have.",
			`changed #n9 status "Counter" text="1" (was: #n9 status "Counter" text="0")`,
			`added #n3 button "C"`,
			`removed #n2 button "B"`}},
		{"focus only is no change", snap("http://a/", false, append(many(8), focused, button("n2", "B"), status("0"))...), false, []string{
			"Screen unchanged since revision b1 (re-observed as revision b2, path /); the ids you have stay valid."}},
		{"no change where one was expected", snap("http://a/", false, append(many(8), button("n1", "A"), button("n2", "B"), status("0"))...), true, []string{
			"The screen did not change within the wait after this action (re-observed as revision b2, path /); the ids you have stay valid. If a change was expected, the control had no visible effect here: look for another way rather than repeating it."}},
		{"truncated: no removals", snap("http://a/", true, append(many(8), button("n1", "A"), status("1"))...), true, []string{
			"Screen changes since revision b1 (now revision b2, path /, 11 nodes): 1 changed. The listing is truncated, so nothing is reported removed;"}},
		{"substantial change", snap("http://a/other", false, button("x1", "X"), button("x2", "Y"), button("x3", "Z")), true, []string{
			"The screen changed substantially since revision b1. Current screen (revision b2, path /other, 4 nodes):"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := screen.Update(prev, screen.New(tc.cur, "b2", screen.Options{}), tc.expect)
			if !strings.HasPrefix(got, tc.want[0]) {
				t.Fatalf("got:\n%s\nwant prefix:\n%s", got, tc.want[0])
			}
			rest := got
			for _, w := range tc.want[1:] {
				i := strings.Index(rest, "\n"+w)
				if i < 0 {
					t.Fatalf("missing or out of order %q in:\n%s", w, got)
				}
				rest = rest[i+1:]
			}
		})
	}
}

func TestLocated(t *testing.T) {
	var nodes []wire.SemanticNode
	for i := 0; i < 12; i++ {
		nodes = append(nodes, button(fmt.Sprintf("l%d", i), "Go"))
	}
	secure := node("s", func(n *wire.SemanticNode) {
		n.Role, n.Name, n.Value = wire.Str("textbox"), wire.Str("Password"), wire.Str("x")
		n.States = &wire.NodeStates{Secure: wire.Bool(true), Focused: wire.Bool(true)}
	})
	tests := []struct {
		q     screen.Query
		nodes []wire.SemanticNode
		want  string
	}{
		{screen.Query{Role: "button", Name: "Go", Exact: true}, nodes[:1], "1 node matches role \"button\" named \"Go\".\nUse: screen.getByRole(\"button\", \"Go\")\n- #l0 button \"Go\""},
		{screen.Query{Role: "button", Name: "g", Exact: false}, nodes[:2], "2 nodes match role \"button\" named \"g\" (case-insensitive substring).\nA test action on screen.getByRole(\"button\", \"g\", { exact: false }) would fail with LOCATOR_AMBIGUOUS."},
		{screen.Query{Text: "nope", Exact: true}, nil, "0 nodes match text \"nope\".\nA test using this locator would fail with LOCATOR_NOT_FOUND."},
		{screen.Query{TestID: "pw", Exact: false}, []wire.SemanticNode{secure}, "1 node matches test id \"pw\".\nUse: screen.getByTestId(\"pw\")\n- #s textbox \"Password\" [focused, secure]"},
		{screen.Query{Label: "Email", Exact: true}, nodes, "12 nodes match label \"Email\".\n"},
	}
	for _, tc := range tests {
		got := screen.Located(tc.q, tc.nodes, screen.Options{})
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("got:\n%s\nwant prefix:\n%s", got, tc.want)
		}
	}
	got := screen.Located(screen.Query{Label: "Email", Exact: true}, nodes, screen.Options{})
	if lines := strings.Split(got, "\n"); len(lines) != 2+10+1 || lines[len(lines)-1] != "- and 2 more" {
		t.Errorf("more than 10:\n%s", got)
	}
	for q, want := range map[screen.Query]string{
		{Placeholder: "Your name", Exact: false}: `screen.getByPlaceholder("Your name", { exact: false })`,
		{Role: "button", Exact: true}:            `screen.getByRole("button")`,
		{Text: "x", Exact: true}:                 `screen.getByText("x")`,
	} {
		if got := q.Code(); got != want {
			t.Errorf("Code() = %s, want %s", got, want)
		}
	}
}

// TestCutFields: a string at its field limit (or ending in "…") is
// redacted as cut, a shorter one is not.
func TestCutFields(t *testing.T) {
	wrap := func(p string) screen.Redact {
		return func(s string) string {
			if s == "" {
				return ""
			}
			return p + "(" + s + ")"
		}
	}
	o := screen.Options{Redact: wrap("R"), Cut: wrap("C")}
	pad := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name string
		n    wire.SemanticNode
		want string
	}{
		{"name at 256", node("n1", func(n *wire.SemanticNode) { n.Name = wire.Str(pad(256)) }), `#n1 "C(` + pad(256) + `)"`},
		{"name at 255 (half a pair dropped)", node("n1", func(n *wire.SemanticNode) { n.Name = wire.Str(pad(255)) }), `#n1 "C(` + pad(255) + `)"`},
		{"name below", node("n1", func(n *wire.SemanticNode) { n.Name = wire.Str(pad(254)) }), `#n1 "R(` + pad(254) + `)"`},
		{"astral units count twice", node("n1", func(n *wire.SemanticNode) { n.Name = wire.Str(strings.Repeat("😀", 128)) }), `#n1 "C(` + strings.Repeat("😀", 128) + `)"`},
		{"text at 512", node("n1", func(n *wire.SemanticNode) { n.Text = wire.Str(pad(512)) }), `#n1 text="C(` + pad(512) + `)"`},
		{"value below", node("n1", func(n *wire.SemanticNode) { n.Value = wire.Str(pad(300)) }), `#n1 value="R(` + pad(300) + `)"`},
		{"value at 512", node("n1", func(n *wire.SemanticNode) { n.Value = wire.Str(pad(512)) }), `#n1 value="C(` + pad(512) + `)"`},
		{"href cut", node("n1", func(n *wire.SemanticNode) { n.Attributes = map[string]string{"href": "http://x.test/a…"} }), `#n1 href="C(http://x.test/a…)"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := screen.NodeLine(&tt.n, o); got != tt.want {
				t.Errorf("NodeLine = %.80q…, want %.80q…", got, tt.want)
			}
		})
	}
}

// TestByteLimit: the listing (node lines and marker) fits the resolved
// observation byte limit; the byte marker wins over the engine's; the root
// is listed even when it alone is over; ids past the cut are not valid.
func TestByteLimit(t *testing.T) {
	var kids []wire.SemanticNode
	for i := range 200 {
		kids = append(kids, button(fmt.Sprintf("c%d", i), fmt.Sprintf("Button %d", i)))
	}
	listing := func(full string) string { _, l, _ := strings.Cut(full, "\n"); return l }
	tests := []struct {
		name      string
		snap      *wire.EngineSnapshot
		max       int
		marker    string
		wantLines int  // -1: do not check
		wantLast  bool // the id of the 200th child is valid
	}{
		{"byte cut", snap("", false, kids...), 256, screen.ByteMarker, -1, false},
		{"byte cut wins over the engine's", snap("", true, kids...), 256, screen.ByteMarker, -1, false},
		{"engine cut under the limit", snap("", true, kids[:2]...), 4096, screen.EngineMarker, 3, false},
		{"fits", snap("", false, kids...), 1 << 20, "", 201, true},
		{"root alone over the limit", &wire.EngineSnapshot{Root: wire.SemanticNode{Ref: wire.NodeRef{ID: "root"}, Role: wire.Str("document"),
			Name: wire.Str(strings.Repeat("x", 500)), Children: kids[:1]}}, 100, screen.ByteMarker, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := screen.New(tt.snap, "b1", screen.Options{MaxBytes: tt.max})
			l := listing(s.Full())
			if tt.marker == "" {
				if strings.Contains(l, "[observation truncated") {
					t.Fatalf("marker without a cut:\n%s", l)
				}
			} else if !strings.HasSuffix(l, "\n"+tt.marker) {
				t.Fatalf("listing does not end with %q:\n%s", tt.marker, l)
			}
			if tt.marker == screen.ByteMarker && len(s.Lines) > 1 && len(l) > tt.max {
				t.Errorf("listing is %d bytes, over the limit %d", len(l), tt.max)
			}
			if strings.Contains(l, "engine stopped") && tt.marker == screen.ByteMarker {
				t.Errorf("both markers:\n%s", l)
			}
			if tt.wantLines >= 0 && len(s.Lines) != tt.wantLines {
				t.Errorf("%d lines, want %d", len(s.Lines), tt.wantLines)
			}
			if s.Lines[0].ID != "root" {
				t.Errorf("first line %q", s.Lines[0].ID)
			}
			if _, ok := s.IDs["c199"]; ok != tt.wantLast {
				t.Errorf("id of the last node valid = %v, want %v", ok, tt.wantLast)
			}
			if len(s.IDs) != len(s.Lines) {
				t.Errorf("%d ids for %d lines", len(s.IDs), len(s.Lines))
			}
		})
	}
}
