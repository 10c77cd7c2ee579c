package report

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// renderPage renders r's HTML report with opts.
func renderPage(t *testing.T, r *Result, opts HTMLOptions) string {
	t.Helper()
	page, err := r.RenderHTMLWith(opts)
	if err != nil {
		t.Fatal(err)
	}
	return string(page)
}

// cardIDRE finds the requirement cards of a page in order.
var cardIDRE = regexp.MustCompile(`<div class="req [a-z-]+" id="req-([A-Z0-9-]+)"`)

// cardOrder is the IDs of a page's cards in page order.
func cardOrder(page string) []string {
	var out []string
	for _, m := range cardIDRE.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

// card is the markup of the card of id (up to the next card).
func card(t *testing.T, page, id string) string {
	t.Helper()
	start := strings.Index(page, `id="req-`+id+`"`)
	if start < 0 {
		t.Fatalf("no card for %s", id)
	}
	rest := page[start+1:]
	if end := strings.Index(rest, `<div class="req `); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// onlyRun is the result of an --only TRN-001,ERR-006 run summarised as Run
// does: TRN-001 (late in the catalog) failed, ERR-006 passed, every other
// spec not selected.
func onlyRun() *Result {
	in := RunInput{Reached: true, Transport: "spawn", Manifest: wire.Manifest{Name: "only-engine", Version: "1", SPIVersion: 1,
		Methods: []string{wire.MethodObserve, wire.MethodOpen}}}
	var specs []SpecResult
	for _, r := range catalog.All() {
		s := SpecResult{Text: "checks " + r.ID, Requirements: []string{r.ID}, Status: NotSelected, Message: "not selected by --only"}
		switch r.ID {
		case "TRN-001":
			s.Status, s.Message = Failed, "failed: got `CANCELLED`; want the abort's reason"
			s.LastFrames = "  conn 1 (client) send {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"engine/observe\"}\n  conn 1 (client) recv {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n"
			s.FrameTimes = []int64{5, 70}
		case "ERR-006":
			s.Status, s.Evidence = Passed, Evidence{"ERR-006": {FrameFloor: 2}}
		}
		specs = append(specs, s)
	}
	res := Summarize(Scope{Engine: "engine ./only-engine", Profile: ProfileCore, Only: []string{"TRN-001", "ERR-006"}}, in, specs, nil)
	res.Explain()
	return &res
}

func TestHTMLCardsFailuresFirstNotSelectedFolded(t *testing.T) {
	page := renderPage(t, handMadeResult(), HTMLOptions{})
	want := []string{"WIRE-001", "WIRE-004", "OBS-001", // failed (MUST), in the run's order
		"ERR-001",             // not verified
		"LIFE-003",            // expected failure
		"WIRE-002", "OBS-002", // passed
		"MAN-001", // not applicable
		"TRN-001", // not selected, folded
	}
	if got := cardOrder(page); !slices.Equal(got, want) {
		t.Errorf("cards in the order %v, want %v", got, want)
	}
	fold := strings.Index(page, `<details id="not-selected">`)
	if fold < 0 || fold > strings.Index(page, `id="req-TRN-001"`) || fold < strings.Index(page, `id="req-MAN-001"`) {
		t.Error("the not selected requirement is not folded apart after the others (or the fold is open)")
	}

	// An --only run: one failure among 160 not selected ones, first.
	only := renderPage(t, onlyRun(), HTMLOptions{})
	order := cardOrder(only)
	if len(order) != len(catalog.All()) || order[0] != "TRN-001" {
		t.Fatalf("--only run: %d cards, the first %v", len(order), order[:min(3, len(order))])
	}
	fold = strings.Index(only, `<details id="not-selected">`)
	if fold < 0 || fold > strings.Index(only, `id="req-WIRE-001"`) || fold < strings.Index(only, `id="req-ERR-006"`) {
		t.Error("--only run: the not selected requirements are not folded after the selected ones")
	}
	if strings.Count(only[fold:], `<div class="req not-selected"`) != len(order)-2-strings.Count(only[:fold], `<div class="req not-applicable"`) {
		t.Error("--only run: a card that is not 'not selected' sits in the fold")
	}
}

func TestHTMLBytesThatAreNotUTF8AreEscaped(t *testing.T) {
	r := handMadeResult()
	r.Reason += " \xff"
	r.Requirements[0].Statement += " \xfe"
	page := renderPage(t, r, HTMLOptions{})
	if !utf8.ValidString(page) {
		t.Fatal("the page is not valid UTF-8")
	}
	for _, want := range []string{`foo/\xff\xfe`, `no \xc3`, `failed \xff`, `fields. \xfe`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	// Bytes kept as text: the sequence diagram's row of the bad frame
	// says so in its summary.
	if !strings.Contains(card(t, page, "WIRE-004"), "not UTF-8 (") {
		t.Error("the frame that is not UTF-8 is not summarised as such")
	}
}

func TestHTMLCodeSpansAreCode(t *testing.T) {
	page := renderPage(t, handMadeResult(), HTMLOptions{})
	c := card(t, page, "WIRE-001")
	if !strings.Contains(c, "<code>Content-Length</code>") || !strings.Contains(c, "<code>&lt;b&gt;x&lt;/b&gt;</code>") {
		t.Errorf("the statement's code spans are not rendered as code (markup in them escaped):\n%s", c)
	}
	if strings.Contains(c, "`Content-Length`") {
		t.Error("backquotes printed literally")
	}
	if got := markdownCode("a `<i>` b `c` `unclosed"); got != "a <code>&lt;i&gt;</code> b <code>c</code> `unclosed" {
		t.Errorf("markdownCode = %q", got)
	}
}

func TestHTMLFailingCardExplainsAndDrawsTheExchange(t *testing.T) {
	r := handMadeResult()
	page := renderPage(t, r, HTMLOptions{})
	for _, rr := range r.Requirements {
		if rr.Status != Failed {
			continue
		}
		c := card(t, page, rr.ID)
		sec, _ := catalog.Lookup(rr.ID)
		for _, want := range []string{
			`<a class="section" href="engine-protocol.md#` + catalog.SectionAnchor(sec.Section) + `">` + sec.Section + " ",
			`<p class="statement">`, `<dt>wanted</dt>`, `<dt>came</dt>`, `<dt>likely cause</dt>`, `<dt>checked by</dt>`,
			`<div class="seq">`, `<pre class="frames">`,
		} {
			if !strings.Contains(c, want) {
				t.Errorf("%s: the card lacks %q", rr.ID, want)
			}
		}
		if n := strings.Count(c, `seq-row failing`); n != 1 {
			t.Errorf("%s: %d highlighted frames, want 1", rr.ID, n)
		}
		if strings.Index(c, `<div class="seq">`) > strings.Index(c, `<pre class="frames">`) {
			t.Errorf("%s: the raw frames come before the diagram", rr.ID)
		}
	}
	// WIRE-004's failure quotes the engine's answer: that frame is the
	// one highlighted, with the times of the spec's frames.
	c := card(t, page, "WIRE-004")
	failing := c[strings.Index(c, `seq-row failing`):]
	failing = failing[:strings.Index(failing, `<div class="lane"></div></div>`)]
	if !strings.Contains(failing, `no \xc3`) || !strings.Contains(failing, highlightCame) || !strings.Contains(failing, "← not UTF-8 (") {
		t.Errorf("WIRE-004 highlights the wrong frame:\n%s", failing)
	}
	if !strings.Contains(c, ">812 µs<") || !strings.Contains(c, ">1\u202f204\u202f000 µs<") {
		t.Error("WIRE-004's frames do not carry their µs")
	}
	// The expected failure is drawn too, marked as what it is.
	if c := card(t, page, "LIFE-003"); !strings.Contains(c, `badge expected-failure">expected failure<`) || !strings.Contains(c, "baseline: fixed in 2.0") || !strings.Contains(c, `seq-row failing`) {
		t.Error("the expected failure is not shown as one, with its baseline reason and diagram")
	}
	// A configured address of the specification.
	other := renderPage(t, r, HTMLOptions{SpecURL: "https://example.org/spec/engine-protocol.md"})
	if !strings.Contains(other, `href="https://example.org/spec/engine-protocol.md#13-malformed-input"`) {
		t.Error("HTMLOptions.SpecURL is not the sections' link")
	}
}

func TestParseExchange(t *testing.T) {
	text := "  conn 1 (client) send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"engine/observe\"}\n" +
		"  conn 1 (client) recv {\"jsonrpc\":\"2.0\",\"id\":1,\n\"result\":{}}\n" + // a frame holding a line break
		"  … [300 bytes elided] …\n" +
		"  conn 2 (raw) send [1,2]\n" +
		"  conn 2 (raw) recv " + strings.Repeat("x", diagramFold+1) + "\n" +
		"  around the first WIRE-013 violation (a result that breaks its schema):\n" +
		"    conn 5 (client) send {\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}\n" +
		"    conn 5 (client) recv {\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32603,\"message\":\"boom\"}}\n"
	d := parseExchange(text, []int64{1, 20, 300, 4000})
	if len(d.Groups) != 2 || d.Groups[0].Caption != "" || !strings.HasPrefix(d.Groups[1].Caption, "around the first WIRE-013 violation") {
		t.Fatalf("groups %+v", d.Groups)
	}
	own := d.Groups[0].Rows
	type row struct {
		conn    string
		sent    bool
		time    string
		summary string
		elided  bool
		folded  bool
	}
	var got []row
	for _, f := range own {
		got = append(got, row{f.Conn, f.Sent, f.Time, f.Summary, f.Elided != "", f.Folded})
	}
	want := []row{
		{"conn 1 (client)", true, "1 µs", "engine/observe (id 1)", false, false},
		{"conn 1 (client)", false, "20 µs", "result (id 1)", false, false},
		{"", false, "", "", true, false},
		{"conn 2 (raw)", true, "300 µs", "batch of 2", false, false},
		{"conn 2 (raw)", false, "4\u202f000 µs", "not JSON", false, true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n%+v\nwant\n%+v", got, want)
	}
	if !d.Timed || !strings.Contains(own[1].Text, "\n\"result\"") {
		t.Errorf("timed %v, the broken frame %q", d.Timed, own[1].Text)
	}
	// Times that do not match the frames are not shown rather than
	// shown against the wrong frames.
	if u := parseExchange(text, []int64{1, 2}); u.Timed || u.Groups[0].Rows[0].Time != "" {
		t.Error("mismatched times were shown")
	}

	// Highlight: a quoted frame first, then the violation's last frame
	// read, then the last frame read, then the last frame sent.
	for _, tc := range []struct {
		name, came, text string
		want             string // the highlighted frame's summary
		why              string
	}{
		{"quoted", `a response ({"jsonrpc":"2.0","id":1,` + "\n" + `"result":{}}) where none was due`, text, "result (id 1)", highlightCame},
		{"violation", "something else", text, "error -32603 boom (id 9)", highlightViolation},
		{"last read", "something else", "  conn 1 (client) send {\"id\":1,\"method\":\"a\"}\n  conn 1 (client) recv {\"id\":1,\"result\":1}\n  conn 1 (client) send {\"id\":2,\"method\":\"b\"}\n", "result (id 1)", highlightLastRead},
		{"unanswered", "nothing: no frame came from the server", "  conn 1 (client) send {\"id\":1,\"method\":\"a\"}\n  conn 1 (client) send {\"id\":2,\"method\":\"b\"}\n", "b (id 2)", highlightUnanswered},
	} {
		d := parseExchange(tc.text, nil)
		d.highlight(tc.came, "failed: "+tc.came)
		var marked []string
		for _, g := range d.Groups {
			for _, f := range g.Rows {
				if f.Failing {
					marked = append(marked, f.Summary)
				}
			}
		}
		if len(marked) != 1 || marked[0] != tc.want || d.Highlighted != tc.why {
			t.Errorf("%s: highlighted %v (%q), want %q (%q)", tc.name, marked, d.Highlighted, tc.want, tc.why)
		}
	}
}

func TestFrameSummary(t *testing.T) {
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`:                        "initialized (notification)",
		`{"jsonrpc":"2.0","id":"a","method":"engine/observe"}`:                        `engine/observe (id "a")`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`: "error -32700 parse error (id null)",
		`{"jsonrpc":"2.0","id":4,"result":null}`:                                      "result (id 4)",
		"{\"method\":\"foo/\xff\"}":                                                   "not UTF-8 (18 bytes)",
		`Content-Length: 3`:                                                           "not JSON",
	} {
		if got := frameSummary(in); got != want {
			t.Errorf("frameSummary(%q) = %q, want %q", in, got, want)
		}
	}
	if got := formatMicros(1234567); got != "1\u202f234\u202f567 µs" {
		t.Errorf("formatMicros = %q", got)
	}
}
