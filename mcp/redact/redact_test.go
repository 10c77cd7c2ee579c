package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// The encoders below write a value the way a browser or an engine does.

// jsURIEscape percent-encodes every UTF-8 byte of s except the characters
// in keep and ASCII letters and digits (encodeURIComponent keeps
// -_.!~*'(); encodeURI also ;,/?:@&=+$#).
func jsURIEscape(s, keep string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c < 0x80 && strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func encodeURIComponent(s string) string { return jsURIEscape(s, "-_.!~*'()") }
func encodeURI(s string) string          { return jsURIEscape(s, "-_.!~*'();,/?:@&=+$#") }

// formEncode is application/x-www-form-urlencoded as browsers write it.
func formEncode(s string) string {
	return strings.ReplaceAll(jsURIEscape(strings.ReplaceAll(s, " ", "\x00"), "*-._\x00"), "\x00", "+")
}

var named = map[rune]string{'&': "&amp;", '<': "&lt;", '>': "&gt;", '"': "&quot;", '\'': "&apos;",
	'!': "&excl;", '@': "&commat;", '/': "&sol;", ' ': "&nbsp;", 'ä': "&auml;", 'ö': "&ouml;", '+': "&plus;", '%': "&percnt;"}

// perRune encodes every rune of s with f (nil: as is).
func perRune(s string, f func(r rune, i int) string) string {
	var b strings.Builder
	i := 0
	for _, r := range s {
		if e := f(r, i); e != "" {
			b.WriteString(e)
		} else {
			b.WriteRune(r)
		}
		i++
	}
	return b.String()
}

func jsonU(r rune) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune{r}) {
		fmt.Fprintf(&b, `\u%04x`, u)
	}
	return b.String()
}

// encodings are the forms every text is tested with.
var encodings = []struct {
	name string
	enc  func(string) string
}{
	{"as is", func(s string) string { return s }},
	{"upper case", strings.ToUpper},
	{"encodeURIComponent", encodeURIComponent},
	{"encodeURIComponent lower hex", func(s string) string { return strings.ToLower(encodeURIComponent(s)) }},
	{"encodeURI", encodeURI},
	{"form", formEncode},
	{"html.EscapeString", html.EscapeString},
	{"html named", func(s string) string { return perRune(s, func(r rune, _ int) string { return named[r] }) }},
	{"html decimal", func(s string) string {
		return perRune(s, func(r rune, _ int) string { return fmt.Sprintf("&#%d;", r) })
	}},
	{"html hex", func(s string) string {
		return perRune(s, func(r rune, _ int) string { return fmt.Sprintf("&#x%X;", r) })
	}},
	{"html partly", func(s string) string {
		return perRune(s, func(r rune, i int) string {
			if i%2 == 1 {
				return fmt.Sprintf("&#x%x;", r)
			}
			return named[r]
		})
	}},
	{"json.Marshal", func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }},
	{"json \\u every char", func(s string) string { return perRune(s, func(r rune, _ int) string { return jsonU(r) }) }},
	{"json \\/", func(s string) string {
		return perRune(s, func(r rune, _ int) string {
			switch {
			case r == '/':
				return `\/`
			case r >= 0x80:
				return jsonU(r)
			}
			return ""
		})
	}},
	{"json in html", func(s string) string { b, _ := json.Marshal(s); return html.EscapeString(string(b[1 : len(b)-1])) }},
}

var values = []struct{ name, value string }{
	{"canary", "Cn4ry/S3cr3t&x"},
	{"hunter", "Hunter2!@x"},
	{"unicode", "pässwörd-😀-1"},
	{"quotes", `a b+c"d<e>'f`},
	{"escapelike", "p%41ss&lt;x1"},
}

func newTestRedactor() *Redactor {
	r := New()
	for _, v := range values {
		r.Add(v.name, v.value)
	}
	return r
}

func TestStringEveryEncoding(t *testing.T) {
	r := newTestRedactor()
	for _, v := range values {
		for _, e := range encodings {
			t.Run(v.name+"/"+e.name, func(t *testing.T) {
				form := e.enc(v.value)
				in := "path /?q=" + form + "&next=1 and more"
				want := "path /?q=" + Token(v.name) + "&next=1 and more"
				if got := r.String(in); got != want {
					t.Errorf("String(%q)\n got %q\nwant %q", in, got, want)
				}
			})
		}
	}
}

func TestStringWhitespaceAndNothing(t *testing.T) {
	r := New()
	r.Add("pw", "correct horse  battery")
	tests := []struct{ name, in, want string }{
		{"collapsed", "x correct horse battery y", "x <secret:pw> y"},
		{"newlines", "correct\nhorse\t\tbattery", "<secret:pw>"},
		{"form plus", "q=correct+horse+battery", "q=<secret:pw>"},
		{"nbsp entity", "correct&nbsp;horse battery", "<secret:pw>"},
		{"nothing", "hello 100% & \\ + %zz &#; \\u12 &bogus;", "hello 100% & \\ + %zz &#; \\u12 &bogus;"},
		{"a prefix only", "correct horse", "correct horse"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	r.Remove("pw")
	if got := r.String("correct horse battery"); got != "correct horse battery" {
		t.Errorf("after Remove: %q", got)
	}
}

func TestTwoValuesOverlapping(t *testing.T) {
	r := New()
	r.Add("a", "hunter22")
	r.Add("b", "22xyzxyz")
	if got := r.String("hunter22xyzxyz"); got != "<secret:a>xyzxyz" && got != "hunter<secret:b>" {
		t.Errorf("got %q", got)
	}
	if got := r.String("hunter22 22xyzxyz"); got != "<secret:a> <secret:b>" {
		t.Errorf("got %q", got)
	}
}

// prefixRunes is the first n runes of s.
func prefixRunes(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

func TestCutEveryEncoding(t *testing.T) {
	r := newTestRedactor()
	for _, v := range values {
		n := utf8.RuneCountInString(v.value)
		need := int(cutNeed(n))
		for _, e := range encodings {
			t.Run(v.name+"/"+e.name, func(t *testing.T) {
				for k := need; k < n; k++ {
					cut := e.enc(prefixRunes(v.value, k))
					in := "x = " + cut
					if got, want := r.Cut(in), "x = "+Token(v.name); got != want {
						t.Errorf("Cut(%q) = %q, want %q", in, got, want)
					}
					// Cut in the middle of the next character's escape.
					next := e.enc(prefixRunes(v.value, k+1))[len(cut):]
					for j := 1; j < len(next); j++ {
						in := "x = " + cut + next[:j]
						if got, want := r.Cut(in), "x = "+Token(v.name); got != want {
							t.Errorf("Cut(%q) = %q, want %q", in, got, want)
						}
					}
					// A cut link target ends in "…".
					if got, want := r.Cut("/p?q="+cut+"…"), "/p?q="+Token(v.name)+"…"; got != want {
						t.Errorf("Cut ellipsis = %q, want %q", got, want)
					}
				}
			})
		}
	}
}

func TestCutShortKept(t *testing.T) {
	r := New()
	r.Add("pw", "Hunter2!@x") // 10 characters: half is 5
	r.Add("long", "abcdefghijklmnopqrstuvwxyz")
	tests := []struct{ in, want string }{
		{"who: Hunt", "who: Hunt"},
		{"who: Hunte", "who: <secret:pw>"},
		{"who: abcdefg", "who: abcdefg"},
		{"who: abcdefgh", "who: <secret:long>"},
		{"who: Hunter2!@x", "who: <secret:pw>"},
		{"Hunter2!@x and Hunter2", "<secret:pw> and <secret:pw>"},
		// Eight characters of an encoded form mask even a shorter start.
		{"q=Hunt%65", "q=<secret:pw>"},
	}
	for _, tt := range tests {
		if got := r.Cut(tt.in); got != tt.want {
			t.Errorf("Cut(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// String never masks a start.
		if got := r.String(tt.in); strings.Contains(tt.in, "Hunter2!@x") == strings.Contains(got, "Hunter2!@x") && strings.Contains(tt.in, "Hunter2!@x") {
			t.Errorf("String(%q) = %q", tt.in, got)
		}
	}
}

func TestHeldTail(t *testing.T) {
	r := New()
	r.Add("pw", "hunter22")
	tests := []struct {
		in   string
		want int
	}{
		{"abc hunt", 4},
		{"abc", 0},
		{"abc hunter22", 0},
		{"abc %68un", 5},   // percent-encoded h
		{"abc &#x68;u", 7}, // hex reference
		{"abc %6", 2},      // an escape cut in the middle
		{"abc \\u006", 5},
		{"abc &amp", 4},
	}
	for _, tt := range tests {
		if n := r.HeldTail(tt.in); n != tt.want {
			t.Errorf("HeldTail(%q) = %d, want %d", tt.in, n, tt.want)
		}
	}
}

// TestWriterSplitAnywhere writes a text holding each value in each form as
// two writes split at every byte: the stream never shows the value.
func TestWriterSplitAnywhere(t *testing.T) {
	r := newTestRedactor()
	for _, v := range values {
		for _, e := range encodings {
			t.Run(v.name+"/"+e.name, func(t *testing.T) {
				text := "log: " + e.enc(v.value) + " done\n"
				want := "log: " + Token(v.name) + " done\n"
				for i := 1; i < len(text); i++ {
					var b bytes.Buffer
					w := NewWriter(r, &b)
					for _, part := range []string{text[:i], text[i:]} {
						if _, err := w.Write([]byte(part)); err != nil {
							t.Fatal(err)
						}
					}
					if err := w.Close(); err != nil {
						t.Fatal(err)
					}
					if b.String() != want {
						t.Fatalf("split at %d: %q, want %q", i, b.String(), want)
					}
				}
			})
		}
	}
}

func TestWriterFlushMasksCutStart(t *testing.T) {
	r := New()
	r.Add("pw", "Hunter2!@x")
	var b bytes.Buffer
	w := NewWriter(r, &b)
	if _, err := w.Write([]byte("typed Hunter2!")); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "typed " {
		t.Errorf("before flush: %q", got)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "typed <secret:pw>" {
		t.Errorf("after flush: %q", got)
	}
	// What is held back is bounded.
	b.Reset()
	r.Add("ws", "a                b-value") // a run of spaces is one character
	long := "x a" + strings.Repeat(" ", 2*MaxHeld)
	if _, err := w.Write([]byte(long)); err != nil {
		t.Fatal(err)
	}
	if len(w.held) > MaxHeld {
		t.Errorf("held %d bytes", len(w.held))
	}
}

func BenchmarkString(b *testing.B) {
	r := newTestRedactor()
	text := strings.Repeat(`#n12 textbox "Search" value="q=hello%20world&amp;x" [focused]`+"\n", 2000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = r.String(text)
	}
}
