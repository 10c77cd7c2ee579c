package conformance

import (
	"encoding/base64"
	"io"
	"net/url"
	"strings"
	"testing"
)

func TestRedactSecrets(t *testing.T) {
	canary := "s3cr3t-canary-login/ü&x"
	derived := base64.StdEncoding.EncodeToString([]byte("user:" + canary))
	cases := []struct {
		name, in string
		secrets  []string
		gone     []string // must not survive
		kept     string   // must survive
	}{
		{"raw", "a " + canary + " b", []string{canary}, []string{canary}, "a [redacted] b"},
		{"percent-encoded", "path /?q=" + url.QueryEscape(canary), []string{canary}, []string{url.QueryEscape(canary)}, "path /?q="},
		{"JSON-escaped non-ASCII", `{"v":"s3cr3t-canary-login/\u00fc&x"}`, []string{canary}, []string{`s3cr3t-canary-login/\u00fc&x`}, `{"v":"`},
		{"derived holding the canary goes whole", `"values":["` + derived + `"]`, []string{canary, derived}, []string{derived, "user:"}, `"values":["[redacted]"]`},
		{"short secret raw only", "ab cd YWI=", []string{"ab"}, []string{"ab "}, "YWI="},
	}
	for _, c := range cases {
		got := redactSecrets(c.in, c.secrets)
		for _, g := range c.gone {
			if strings.Contains(got, g) {
				t.Errorf("%s: %q still holds %q", c.name, got, g)
			}
		}
		if !strings.Contains(got, c.kept) {
			t.Errorf("%s: %q lost %q", c.name, got, c.kept)
		}
	}
}

func TestRegisterDerived(t *testing.T) {
	e := &runEnv{}
	e.registerDerived([]byte(`{"jsonrpc":"2.0","id":3,"result":{"values":["dGhlLWRlcml2ZWQ=","x"]}}`))
	e.registerDerived([]byte(`{"jsonrpc":"2.0","id":4,"result":{"other":["not-a-secret"]}}`))
	got := e.Redact("dGhlLWRlcml2ZWQ= not-a-secret")
	if got != "[redacted] not-a-secret" {
		t.Errorf("%q: want the derived value redacted and nothing else", got)
	}
}

// slowReader hands out its text n bytes per Read, so a secret is cut
// across reads.
type slowReader struct {
	s string
	n int
}

func (r *slowReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	k := min(r.n, len(p), len(r.s))
	copy(p, r.s[:k])
	r.s = r.s[k:]
	return k, nil
}

func TestCopyRedacted(t *testing.T) {
	secret := "s3cr3t-canary-stream"
	redact := func(s string) string { return redactSecrets(s, []string{secret}) }
	long := strings.Repeat("x", 3*redactChunk) + secret + strings.Repeat("y", redactChunk) // no newline at all
	cases := []struct {
		name, in string
		step     int
	}{
		{"a secret cut across reads", "[FAILED] got " + secret + " in the error\nnext line\n", 5},
		{"one byte per read", "a " + secret + "\n", 1},
		{"a line longer than the bound", long, 4096},
		{"no final newline", "tail " + secret, 3},
	}
	for _, c := range cases {
		var out strings.Builder
		copyRedacted(&out, &slowReader{c.in, c.step}, redact)
		got := out.String()
		if strings.Contains(got, secret) || strings.Contains(got, "canary-stream") {
			t.Errorf("%s: the secret went through", c.name)
		}
		if want := redact(c.in); got != want {
			t.Errorf("%s: %d bytes out, want %d (the text redacted, nothing lost)", c.name, len(got), len(want))
		}
	}
}
