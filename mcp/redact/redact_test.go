package redact

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/e2e-conform/toolkit/mcp/redact/redacttest"
)

var (
	encodings   = redacttest.Encodings()
	values      = redacttest.Values
	prefixRunes = redacttest.Prefix
)

func newTestRedactor() *Redactor {
	r := New()
	for _, v := range values {
		r.Add(v.Name, v.Value)
	}
	return r
}

func TestStringEveryEncoding(t *testing.T) {
	r := newTestRedactor()
	for _, v := range values {
		for _, e := range encodings {
			t.Run(v.Name+"/"+e.Name, func(t *testing.T) {
				form := e.Encode(v.Value)
				in := "path /?q=" + form + "&next=1 and more"
				want := "path /?q=" + Token(v.Name) + "&next=1 and more"
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

func TestCutEveryEncoding(t *testing.T) {
	r := newTestRedactor()
	for _, v := range values {
		n := utf8.RuneCountInString(v.Value)
		need := int(cutNeed(n))
		for _, e := range encodings {
			t.Run(v.Name+"/"+e.Name, func(t *testing.T) {
				for k := need; k < n; k++ {
					cut := e.Encode(prefixRunes(v.Value, k))
					in := "x = " + cut
					if got, want := r.Cut(in), "x = "+Token(v.Name); got != want {
						t.Errorf("Cut(%q) = %q, want %q", in, got, want)
					}
					// Cut in the middle of the next character's escape.
					next := e.Encode(prefixRunes(v.Value, k+1))[len(cut):]
					for j := 1; j < len(next); j++ {
						in := "x = " + cut + next[:j]
						if got, want := r.Cut(in), "x = "+Token(v.Name); got != want {
							t.Errorf("Cut(%q) = %q, want %q", in, got, want)
						}
					}
					// A cut link target ends in "…".
					if got, want := r.Cut("/p?q="+cut+"…"), "/p?q="+Token(v.Name)+"…"; got != want {
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
			t.Run(v.Name+"/"+e.Name, func(t *testing.T) {
				text := "log: " + e.Encode(v.Value) + " done\n"
				want := "log: " + Token(v.Name) + " done\n"
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
