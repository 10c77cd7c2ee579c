package locate_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/locate"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

func TestNormalize(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"LOC-011 empty", "", ""},
		{"LOC-011 already normal", "a b c", "a b c"},
		{"LOC-011 only whitespace", " \t\n ", ""},
		{"LOC-011 trims both ends", "  a  ", "a"},
		{"LOC-011 run of mixed whitespace", "a \t\n\v\f\r b", "a b"},
		{"LOC-011 single tab becomes a space", "a\tb", "a b"},
		{"LOC-011 no-break space", "a\u00a0b", "a b"},
		{"LOC-011 ogham space mark", "a\u1680b", "a b"},
		{"LOC-011 en quad to hair space", "a\u2000\u2005\u200ab", "a b"},
		{"LOC-011 line and paragraph separators", "a\u2028\u2029b", "a b"},
		{"LOC-011 narrow no-break, math and ideographic spaces", "a\u202f\u205f\u3000b", "a b"},
		{"LOC-011 BOM is whitespace", "\ufeffa\ufeff", "a"},
		{"LOC-011 NEL is not ECMAScript whitespace", "a\u0085b", "a\u0085b"},
		{"LOC-011 Mongolian vowel separator is not whitespace", "a\u180eb", "a\u180eb"},
		{"LOC-011 zero width space is not whitespace", "a\u200bb", "a\u200bb"},
		{"LOC-011 non-ASCII kept", "  Café\u2003ÉLAN ", "Café ÉLAN"},
		{"LOC-011 invalid UTF-8 kept", "a \xff  b", "a \xff b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := locate.Normalize(tc.in); got != tc.want {
				t.Fatalf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if got := locate.Normalize(tc.want); got != tc.want {
				t.Fatalf("Normalize is not idempotent on %q: %q", tc.want, got)
			}
		})
	}
}

// The whitespace set is exactly the one §10.3 lists.
func TestNormalizeWhitespaceSet(t *testing.T) {
	want := map[rune]bool{0x9: true, 0xA: true, 0xB: true, 0xC: true, 0xD: true, 0x20: true, 0xA0: true, 0x1680: true,
		0x2028: true, 0x2029: true, 0x202F: true, 0x205F: true, 0x3000: true, 0xFEFF: true}
	for r := rune(0x2000); r <= 0x200A; r++ {
		want[r] = true
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		s := "a" + string(r) + "b"
		isSpace := locate.Normalize(s) == "a b"
		if isSpace != want[r] {
			t.Fatalf("U+%04X: whitespace %v, want %v", r, isSpace, want[r])
		}
	}
}

func TestMatchesText(t *testing.T) {
	cases := []struct {
		name    string
		actual  string
		p       wire.TextPattern
		want    bool
		code    engineerr.Code
		e2eCode string
	}{
		{name: "LOC-011 exact equal after normalization", actual: " Save\tnow ", p: exact("Save now"), want: true},
		{name: "LOC-011 exact differs in case", actual: "Save", p: exact("save")},
		{name: "LOC-011 exact is not a substring", actual: "Save now", p: exact("Save")},
		{name: "LOC-011 exact empty matches whitespace only", actual: " \n", p: exact(""), want: true},
		{name: "LOC-011 inexact substring", actual: "Save now", p: sub("VE NO"), want: true},
		{name: "LOC-011 inexact empty matches anything", actual: "x", p: sub(""), want: true},
		{name: "LOC-011 inexact É lowers to é", actual: "ÉCOLE", p: sub("école"), want: true},
		{name: "LOC-011 inexact é in pattern against É", actual: "école", p: sub("ÉCO"), want: true},
		{name: "LOC-011 inexact Greek", actual: "ΣΟΦΙΑ", p: sub("σοφια"), want: true},
		{name: "LOC-011 inexact Cyrillic", actual: "ПРИВЕТ", p: sub("привет"), want: true},
		{name: "LOC-011 D35 simple mapping: İ lowers to i", actual: "İstanbul", p: sub("istanbul"), want: true},
		{name: "LOC-011 D35 simple mapping: capital sharp s lowers to ß", actual: "STRAẞE", p: sub("straße"), want: true},
		{name: "LOC-011 D35 simple mapping: no full folding of ß to ss", actual: "straße", p: sub("strasse")},
		{name: "LOC-011 D35 simple mapping: Kelvin sign lowers to k", actual: "\u212a", p: sub("k"), want: true},
		{name: "LOC-011 D35 lowercase pattern does not match a different letter", actual: "e", p: sub("é")},
		{name: "LOC-011 pattern whitespace is normalized", actual: "a b", p: sub(" a\u00a0\u00a0b "), want: true},
		{name: "LOC-012 regexp search", actual: "Save now", p: re("ve n", ""), want: true},
		{name: "LOC-012 regexp on normalized text", actual: "  Save \t now", p: re("^Save now$", ""), want: true},
		{name: "LOC-012 regexp i", actual: "SAVE", p: re("save", "i"), want: true},
		{name: "LOC-012 regexp y anchors at 0", actual: "xsave", p: re("save", "y")},
		{name: "LOC-012 regexp g keeps no state", actual: "save", p: re("save", "g"), want: true},
		{name: "LOC-012 regexp \\u00e9", actual: "café", p: re("\\u00e9$", ""), want: true},
		{name: "LOC-012 regexp named group", actual: "2024-05", p: re("^(?<y>\\d{4})-\\d\\d$", ""), want: true},
		{name: "LOC-012 regexp [^]", actual: "a b", p: re("a[^]b", ""), want: true},
		{name: "LOC-012 regexp lookbehind", actual: "ab", p: re("(?<=a)b", ""), code: engineerr.UnsupportedCapability},
		{name: "LOC-012 regexp backreference", actual: "aa", p: re("(a)\\1", ""), code: engineerr.UnsupportedCapability},
		{name: "LOC-012 invalid regexp", actual: "a", p: re("a)", ""), e2eCode: "INVALID_ARGUMENT"},
		{name: "LOC-012 invalid flags", actual: "a", p: re("a", "z"), e2eCode: "INVALID_ARGUMENT"},
		{name: "unknown pattern kind", actual: "a", p: wire.TextPattern{Kind: "glob"}, code: engineerr.EngineFailure},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := locate.MatchesText(tc.actual, &tc.p)
			if tc.code != "" || tc.e2eCode != "" {
				checkError(t, err, tc.code, tc.e2eCode, "", nil)
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("MatchesText(%q, %+v) = %v, %v; want %v", tc.actual, tc.p, got, err, tc.want)
			}
			m, err := locate.Compile(&tc.p)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // a compiled matcher gives the same answer every time
				if m.Match(tc.actual) != tc.want {
					t.Fatalf("Matcher.Match(%q) = %v", tc.actual, !tc.want)
				}
			}
		})
	}
}

// D35: exact:false lowers each code point by unicode.ToLower, the simple
// mapping; strings.ToLower must agree with it rune by rune.
func TestLowerIsSimpleMapping(t *testing.T) {
	var b strings.Builder
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		l := unicode.ToLower(r)
		b.Reset()
		b.WriteRune(r)
		if got := strings.ToLower(b.String()); got != string(l) {
			t.Fatalf("strings.ToLower(U+%04X) = %q, simple mapping %q", r, got, string(l))
		}
	}
	// Spot checks of UnicodeData simple lowercase mappings.
	for _, c := range [][2]rune{{'A', 'a'}, {'É', 'é'}, {0x130, 'i'}, {0x1E9E, 0xDF}, {0x3A3, 0x3C3}, {0x2126, 0x3C9}, {0x212A, 'k'}, {0x1F88, 0x1F80}, {0xDF, 0xDF}} {
		if got := unicode.ToLower(c[0]); got != c[1] {
			t.Fatalf("unicode.ToLower(U+%04X) = U+%04X, want U+%04X", c[0], got, c[1])
		}
	}
	// And the matcher uses it.
	for _, c := range []struct{ actual, pattern string }{{"\u0130", "i"}, {"\u1F88", "\u1F80"}} {
		if ok, err := locate.MatchesText(c.actual, ptr(sub(c.pattern))); err != nil || !ok {
			t.Fatalf("MatchesText(%q, %q) = %v, %v", c.actual, c.pattern, ok, err)
		}
	}
}

func TestCompileNil(t *testing.T) {
	_, err := locate.Compile(nil)
	checkError(t, err, engineerr.EngineFailure, "", "", nil)
	var m *locate.Matcher
	if m.Match("x") {
		t.Fatal("nil Matcher matched")
	}
}

func TestMatchesQuery(t *testing.T) {
	hiddenButton := el("hb", role("button"), name("Go"), hidden)
	plain := el("p", role("button"), name("Go"))
	noRole := el("nr", text("Go"))
	cases := []struct {
		name string
		node *wire.SemanticNode
		q    wire.SemanticQuery
		want bool
		code engineerr.Code
	}{
		{name: "LOC-004 role and name", node: &plain, q: wire.SemanticQuery{Kind: "role", Value: exact("button"), Name: ptr(exact("Go"))}, want: true},
		{name: "LOC-004 role name on a node without name reads empty", node: &noRole, q: wire.SemanticQuery{Kind: "role", Value: exact(""), Name: ptr(exact(""))}, want: true},
		{name: "LOC-004 role never matches hidden", node: &hiddenButton, q: wire.SemanticQuery{Kind: "role", Value: exact("button")}},
		{name: "LOC-004 role regexp value fails", node: &plain, q: wire.SemanticQuery{Kind: "role", Value: re("button", "")}, code: engineerr.EngineFailure},
		{name: "LOC-004 role regexp value fails on a hidden node too", node: &hiddenButton, q: wire.SemanticQuery{Kind: "role", Value: re("button", ""), Visible: wire.Bool(true)}, code: engineerr.EngineFailure},
		{name: "LOC-005 text hidden without visible", node: &hiddenButton, q: wire.SemanticQuery{Kind: "text", Value: exact("Go")}, want: true},
		{name: "LOC-005 text hidden with visible", node: &hiddenButton, q: wire.SemanticQuery{Kind: "text", Value: exact("Go"), Visible: wire.Bool(true)}},
		{name: "LOC-005 visible:false keeps hidden nodes", node: &hiddenButton, q: wire.SemanticQuery{Kind: "label", Value: exact("Go"), Visible: wire.Bool(false)}, want: true},
		{name: "LOC-007 label requires a name", node: &noRole, q: wire.SemanticQuery{Kind: "label", Value: sub("")}},
		{name: "LOC-007 text matches text", node: &noRole, q: wire.SemanticQuery{Kind: "text", Value: exact("Go")}, want: true},
		{name: "LOC-007 placeholder requires the attribute", node: &plain, q: wire.SemanticQuery{Kind: "placeholder", Value: sub("")}},
		{name: "LOC-007 displayValue requires a value", node: &plain, q: wire.SemanticQuery{Kind: "displayValue", Value: sub("")}},
		{name: "LOC-007 testId requires a test id", node: &plain, q: wire.SemanticQuery{Kind: "testId", Value: sub("")}},
		{name: "LOC-007 name, states and level are ignored off role", node: &noRole, q: wire.SemanticQuery{Kind: "text", Value: exact("Go"),
			Name: ptr(exact("nope")), Level: wire.Int(9), States: &wire.QueryStates{Checked: wire.Bool(true)}}, want: true},
		{name: "nil node", node: nil, q: wire.SemanticQuery{Kind: "text", Value: sub("")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := locate.MatchesQuery(tc.node, &tc.q)
			if tc.code != "" {
				checkError(t, err, tc.code, "", "", nil)
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("MatchesQuery = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	_, err := locate.MatchesQuery(&plain, nil)
	checkError(t, err, engineerr.EngineFailure, "", "", nil)
}
