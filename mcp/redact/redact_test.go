package redact

import (
	"bytes"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	r := New()
	r.Add("apiKey", `s3cr3t "value" & <x>`)
	r.Add("pw", "hunter22")
	tests := []struct{ name, in, want string }{
		{"plain", "the key is hunter22.", "the key is <secret:pw>."},
		{"case", "HUNTER22", "<secret:pw>"},
		{"json", `{"v":"s3cr3t \"value\" \u0026 \u003cx\u003e"}`, `{"v":"<secret:apiKey>"}`},
		{"html", "s3cr3t &#34;value&#34; &amp; &lt;x&gt;", "<secret:apiKey>"},
		{"percent", "q=s3cr3t+%22value%22+%26+%3Cx%3E", "q=<secret:apiKey>"},
		{"nothing", "hello", "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	r.Remove("pw")
	if got := r.String("hunter22"); got != "hunter22" {
		t.Errorf("after Remove: %q", got)
	}
}

func TestHeldTail(t *testing.T) {
	r := New()
	r.Add("pw", "hunter22")
	if n := r.HeldTail("abc hunt"); n != 4 {
		t.Errorf("HeldTail = %d, want 4", n)
	}
	if n := r.HeldTail("abc"); n != 0 {
		t.Errorf("HeldTail = %d, want 0", n)
	}
}

func TestWriter(t *testing.T) {
	r := New()
	r.Add("pw", "hunter22")
	var b bytes.Buffer
	w := NewWriter(r, &b)
	if _, err := w.Write([]byte("log hunter22\n")); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "hunter22") {
		t.Errorf("leak: %q", b.String())
	}
}
