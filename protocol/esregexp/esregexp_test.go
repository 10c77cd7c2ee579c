package esregexp

import (
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// golden is testdata/golden.json, written by testdata/gen_golden.mjs.
type golden struct {
	Node    string `json:"node"`
	Unicode string `json:"unicode"`
	Match   []struct {
		Source, Flags, Subject string
		Expect                 bool
		Deviation              string
	}
	Unsupported []struct {
		Source, Flags, Construct string
		NodeValid                bool
	}
	Syntax []struct {
		Source, Flags, NodeError string
	}
}

func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func loadGolden(t testing.TB) golden {
	var g golden
	readJSON(t, "golden.json", &g)
	if len(g.Match) == 0 || len(g.Unsupported) == 0 || len(g.Syntax) == 0 {
		t.Fatal("golden.json has an empty table")
	}
	return g
}

// TestGolden checks every match case against the result node computed.
func TestGolden(t *testing.T) {
	g := loadGolden(t)
	agree, deviations := 0, 0
	for _, c := range g.Match {
		re, err := Compile(c.Source, c.Flags)
		if err != nil {
			t.Errorf("Compile(%q, %q): %v", c.Source, c.Flags, err)
			continue
		}
		got := re.MatchString(c.Subject)
		want := c.Expect
		if c.Deviation != "" {
			want = !want // a documented deviation
		}
		if got != want {
			t.Errorf("/%s/%s on %q: got %v, ECMAScript %v (deviation %q); RE2 %s",
				c.Source, c.Flags, c.Subject, got, c.Expect, c.Deviation, re)
			continue
		}
		if c.Deviation != "" {
			deviations++
		} else {
			agree++
		}
	}
	t.Logf("%d cases agree with %s (Unicode %s); %d documented deviations", agree, g.Node, g.Unicode, deviations)
}

// TestRandomCorpus replays testdata/random.json: what node rejects is a
// SyntaxError; what it accepts is refused or gives node's result on every
// subject.
func TestRandomCorpus(t *testing.T) {
	var data struct {
		Cases []struct {
			Source, Flags string
			Syntax        bool
			Subjects      []string
			Results       []bool
		}
	}
	readJSON(t, "random.json", &data)
	if len(data.Cases) < 1000 {
		t.Fatalf("random.json has %d cases", len(data.Cases))
	}
	counts := map[string]int{}
	for _, c := range data.Cases {
		re, err := Compile(c.Source, c.Flags)
		var se *SyntaxError
		var ue *UnsupportedError
		switch {
		case c.Syntax:
			if !errors.As(err, &se) {
				t.Errorf("/%s/%s: got %v, want SyntaxError", c.Source, c.Flags, err)
			}
			counts["syntax"]++
		case errors.As(err, &ue):
			counts["unsupported"]++
		case err != nil:
			t.Errorf("/%s/%s: %v", c.Source, c.Flags, err)
		default:
			counts["translated"]++
			for i, sub := range c.Subjects {
				if got := re.MatchString(sub); got != c.Results[i] {
					t.Errorf("/%s/%s on %q: got %v, ECMAScript %v; RE2 %s", c.Source, c.Flags, sub, got, c.Results[i], re)
				}
			}
		}
	}
	t.Logf("random corpus: %v", counts)
}

// TestUnsupported checks the refused patterns and their constructs.
func TestUnsupported(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Unsupported {
		if !c.NodeValid {
			t.Errorf("/%s/%s: node rejects it, so it belongs in the syntax table", c.Source, c.Flags)
		}
		for _, fn := range []func(string, string) error{
			func(s, f string) error { _, err := Compile(s, f); return err },
			func(s, f string) error { _, err := Translate(s, f); return err },
		} {
			err := fn(c.Source, c.Flags)
			var ue *UnsupportedError
			if !errors.As(err, &ue) {
				t.Errorf("/%s/%s: got %v, want UnsupportedError", short(c.Source), c.Flags, err)
				continue
			}
			if ue.Construct != c.Construct || ue.Source != c.Source || ue.Flags != c.Flags {
				t.Errorf("/%s/%s: construct %q, want %q", short(c.Source), c.Flags, ue.Construct, c.Construct)
			}
		}
	}
}

// TestSyntaxErrors checks that what node rejects is a SyntaxError here too.
func TestSyntaxErrors(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Syntax {
		_, err := Compile(c.Source, c.Flags)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("/%s/%s: got %v, want SyntaxError (node: %s)", c.Source, c.Flags, err, c.NodeError)
			continue
		}
		if se.Source != c.Source || se.Flags != c.Flags || se.Reason == "" {
			t.Errorf("/%s/%s: incomplete error %+v", c.Source, c.Flags, se)
		}
		if _, err := Translate(c.Source, c.Flags); !errors.As(err, &se) {
			t.Errorf("Translate(%q, %q): got %v, want SyntaxError", c.Source, c.Flags, err)
		}
	}
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func TestValidFlags(t *testing.T) {
	for _, f := range []string{"", "d", "g", "i", "m", "s", "u", "v", "y", "dgimsuy", "dgimsvy", "gi", "iy", "imsu", "uy"} {
		if !ValidFlags(f) {
			t.Errorf("ValidFlags(%q) = false", f)
		}
	}
	for _, f := range []string{"uv", "gimsuvy", "ig", "gg", "x", "I", "yg", " ", "g ", "dgimsuvyy", "\x00", "é"} {
		if ValidFlags(f) {
			t.Errorf("ValidFlags(%q) = true", f)
		}
		_, err := Compile("a", f)
		var fe *FlagsError
		if !errors.As(err, &fe) || fe.Flags != f {
			t.Errorf("Compile(a, %q): got %v, want FlagsError", f, err)
		}
		if !strings.Contains(err.Error(), "dgimsuvy") || !strings.Contains(err.Error(), strconv.Quote(f)) {
			t.Errorf("FlagsError message %q names neither flags nor rule", err)
		}
		// Flags are checked before the source.
		if _, err := Translate("(", f); !errors.As(err, &fe) {
			t.Errorf("Translate((, %q): got %v, want FlagsError", f, err)
		}
	}
}

func TestErrorMessages(t *testing.T) {
	_, err := Compile("(?<=a)b", "i")
	if got, want := err.Error(), "regular expression /(?<=a)b/i uses lookbehind (?<=, which this engine cannot evaluate"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	_, err = Compile("a**", "")
	if got, want := err.Error(), "invalid regular expression /a**/: Nothing to repeat"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSyntaxBeforeUnsupported: an invalid pattern is a SyntaxError even when
// it also uses a construct RE2 lacks, wherever the two occur.
func TestSyntaxBeforeUnsupported(t *testing.T) {
	for _, src := range []string{"(?=a)(", "a{1001}[", `\1(`, `(?<=x)[`, `[\q{a}]\`, `\p{Alphabetic}\p{Foo}`} {
		flags := ""
		if strings.Contains(src, `\p`) {
			flags = "u"
		}
		if strings.Contains(src, `\q`) {
			flags = "v"
		}
		var se *SyntaxError
		if _, err := Compile(src, flags); !errors.As(err, &se) {
			t.Errorf("/%s/%s: got %v, want SyntaxError", src, flags, err)
		}
	}
}

// TestTranslation pins translations the protocol's table spells out.
func TestTranslation(t *testing.T) {
	cases := []struct{ source, flags, want string }{
		{"abc", "", "abc"},
		{"a|b", "y", `\A(?:a|b)`},
		{"^a$", "m", `(?m)^a$`},
		{"a.b", "", `a[^\n\r\x{2028}\x{2029}]b`},
		{"a.b", "s", `a(?s:.)b`},
		{"(?<year>x)", "", `(?P<year>x)`},
		{"(?<ünï>x)", "", `(x)`},
		{"[^]", "", `(?s:.)`},
		{"[]", "", `[^\x{0}-\x{10ffff}]`},
		{`\u00e9`, "", `\x{e9}`},
		{`\u{1F600}`, "u", `\x{1f600}`},
		{`\x41\cJ\0`, "", `A\n\x{0}`},
		{`[\b]`, "", `\x{8}`},
		{`\/\.\-`, "", `\/\.\-`},
		{`a{2,5}?b{3}c{4,}`, "", `a{2,5}?b{3}c{4,}`},
		{`\d\D\w\W`, "", `\d\D\w\W`},
		{`\p{L}\P{Lu}\p{Script=Greek}\p{sc=Latn}\p{gc=Nd}`, "u", `\p{L}\P{Lu}\p{Greek}\p{Latin}\p{Nd}`},
		{"k", "i", `[Kk]`},
		{"k", "iu", `[Kk\x{212a}]`},
		{"(?i:a)b", "", `(?:[Aa])b`},
		{"(?m:^)", "", `(?m:^)`},
		{"{", "", `\{`},
		{"a{,2}", "", `a\{\,2\}`},
		{`\s`, "", `[\t-\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`},
		{`[^\s]`, "", `[^\t-\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`},
	}
	for _, c := range cases {
		got, err := Translate(c.source, c.flags)
		if err != nil || got != c.want {
			t.Errorf("Translate(%q, %q) = %q, %v; want %q", c.source, c.flags, got, err, c.want)
		}
	}
}

// TestCompileMatchesTranslate: Compile compiles exactly what Translate returns.
func TestCompileMatchesTranslate(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Match {
		src, err := Translate(c.Source, c.Flags)
		if err != nil {
			t.Fatal(err)
		}
		re, err := Compile(c.Source, c.Flags)
		if err != nil {
			t.Fatal(err)
		}
		if re.String() != src {
			t.Errorf("/%s/%s: Compile gives %q, Translate %q", c.Source, c.Flags, re, src)
		}
	}
}

// TestNormalizedSubjects: on normalized text (§10.3) the m and s flags and
// the ECMAScript \s set make no difference, as §10.4 states.
func TestNormalizedSubjects(t *testing.T) {
	subjects := []string{"", "a b", "x", "a b c", "héllo wörld", "😀 x"}
	for _, src := range []string{`^a`, `b$`, `^.*$`, `a\sb`, `^\S+$`, `. .`, `^[^]*$`} {
		for _, sub := range subjects {
			var results []bool
			for _, flags := range []string{"", "m", "s", "ms"} {
				re, err := Compile(src, flags)
				if err != nil {
					t.Fatal(err)
				}
				results = append(results, re.MatchString(sub))
			}
			if slices.Contains(results, !results[0]) {
				t.Errorf("/%s/ on %q differs across m and s: %v", src, sub, results)
			}
		}
	}
}

// TestCaseFoldTables compares the case-insensitive classes with the ones
// node computed (testdata/casefold.json), ignoring characters package
// unicode (Unicode 15.0) does not assign yet.
func TestCaseFoldTables(t *testing.T) {
	var data struct {
		WithoutU, WithU [][]rune
	}
	readJSON(t, "casefold.json", &data)
	for _, tc := range []struct {
		name  string
		node  [][]rune
		table *foldTable
	}{
		{"without u", data.WithoutU, legacyFold},
		{"with u", data.WithU, unicodeFold},
	} {
		if len(tc.node) < 1000 {
			t.Fatalf("%s: only %d classes in casefold.json", tc.name, len(tc.node))
		}
		nodeClass := make(map[rune][]rune)
		for _, k := range tc.node {
			for _, c := range k {
				nodeClass[c] = k
			}
		}
		assigned := func(k []rune) []rune {
			var out []rune
			for _, c := range k {
				if !unicode.Is(unicode.Cn, c) {
					out = append(out, c)
				}
			}
			return out
		}
		classOf := func(m map[rune][]rune, c rune) []rune {
			if k, ok := m[c]; ok {
				return assigned(k)
			}
			return []rune{c}
		}
		tc.table.init()
		check := func(c rune) {
			if unicode.Is(unicode.Cn, c) {
				return // newer than package unicode
			}
			want := classOf(nodeClass, c)
			got := classOf(tc.table.class, c)
			if !slices.Equal(got, want) {
				t.Errorf("%s: class of %U is %U, node says %U", tc.name, c, got, want)
			}
		}
		for c := range nodeClass {
			check(c)
		}
		for _, c := range tc.table.chars {
			check(c)
		}
	}
}

// TestScriptNames compares esScripts with the Script values node accepts
// (testdata/scripts.json).
func TestScriptNames(t *testing.T) {
	var data struct {
		Groups  [][]string
		Invalid []string
	}
	readJSON(t, "scripts.json", &data)
	norm := func(groups [][]string) []string {
		var out []string
		for _, g := range groups {
			g = slices.Clone(g)
			slices.Sort(g)
			out = append(out, strings.Join(g, " "))
		}
		slices.Sort(out)
		return out
	}
	var ours [][]string
	for _, line := range esScripts {
		ours = append(ours, strings.Fields(line))
	}
	if got, want := norm(ours), norm(data.Groups); !slices.Equal(got, want) {
		t.Errorf("esScripts differs from scripts.json:\n got %q\nwant %q", got, want)
	}
	for _, n := range data.Invalid {
		var se *SyntaxError
		if _, err := Compile(`\p{sc=`+n+`}`, "u"); !errors.As(err, &se) {
			t.Errorf(`\p{sc=%s}: got %v, want SyntaxError`, n, err)
		}
	}
	// Every script package unicode knows is reachable and exact.
	for name, table := range unicode.Scripts {
		re, err := Compile(`^\p{Script=`+name+`}$`, "u")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		first := rune(0)
		if len(table.R16) > 0 {
			first = rune(table.R16[0].Lo)
		} else {
			first = rune(table.R32[0].Lo)
		}
		if !re.MatchString(string(first)) || re.MatchString("\u0378") {
			t.Errorf("%s: wrong set %s", name, re)
		}
	}
}

// TestPropertyNames: General_Category values and aliases map onto RE2.
func TestPropertyNames(t *testing.T) {
	for name := range unicode.Categories {
		for _, src := range []string{`\p{` + name + `}`, `\p{gc=` + name + `}`, `\P{General_Category=` + name + `}`} {
			if _, err := Compile(src, "u"); err != nil {
				t.Errorf("%s: %v", src, err)
			}
		}
	}
	for alias, name := range unicode.CategoryAliases {
		a, err1 := Translate(`[\p{`+alias+`}]`, "u")
		b, err2 := Translate(`[\p{`+name+`}]`, "u")
		if err1 != nil || err2 != nil || a != b {
			t.Errorf("%s: %q %v, %s: %q %v", alias, a, err1, name, b, err2)
		}
	}
	for _, n := range esBinaryProperties {
		_, err := Compile(`\p{`+n+`}`, "u")
		switch n {
		case "Any", "ASCII", "Assigned":
			if err != nil {
				t.Errorf("%s: %v", n, err)
			}
		default:
			var ue *UnsupportedError
			if !errors.As(err, &ue) {
				t.Errorf("%s: got %v, want UnsupportedError", n, err)
			}
		}
	}
}

// TestSetEmission checks emitSet on sets whose shortest form varies.
func TestSetEmission(t *testing.T) {
	cases := []struct {
		set  runeSet
		want string
	}{
		{nil, `[^\x{0}-\x{10ffff}]`},
		{fullSet, `(?s:.)`},
		{subtract(fullSet, surrogateSet), `(?s:.)`},
		{single('-'), `\-`},
		{single('a'), `a`},
		{runeSet{{'a', 'b'}}, `[ab]`},
		{runeSet{{'a', 'c'}}, `[a-c]`},
		{digitSet, `\d`},
		{digitSet.complement(maxCodePoint), `\D`},
		{single('\n').complement(maxCodePoint), `[^\n]`},
	}
	for _, c := range cases {
		got := emitSet(c.set)
		if got != c.want {
			t.Errorf("emitSet(%v) = %q, want %q", c.set, got, c.want)
		}
		re := regexp.MustCompile(`^` + got + `$`)
		for _, r := range []rune{0, 'a', '-', '\n', 0x10FFFF, 0xFFFD} {
			if in := c.set.contains(r); re.MatchString(string(r)) != in {
				t.Errorf("emitSet(%v) = %q disagrees on %U", c.set, got, r)
			}
		}
	}
}

func BenchmarkCompile(b *testing.B) {
	patterns := []struct{ source, flags string }{
		{`^Submit$`, ""},
		{`sign\s*in`, "i"},
		{`(?<year>\d{4})-(?<month>\d{2})-\d{2}`, ""},
		{`^[\w.+-]+@[\w-]+\.[\w.-]+$`, "u"},
		{`\p{Lu}\p{Ll}+`, "u"},
		{`caf\u00e9|na\u00efve`, "iu"},
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range patterns {
			if _, err := Compile(p.source, p.flags); err != nil {
				b.Fatal(err)
			}
		}
	}
}
