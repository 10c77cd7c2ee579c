package conformance

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// TestLeakMatcherAgreesWithFindLeak: the automaton finds what the search
// value by value finds, in the same form, and nothing else.
func TestLeakMatcherAgreesWithFindLeak(t *testing.T) {
	secret := "e2e-conform-canary-0123456789abcdef" + canaryTail
	other := "s3cr3t-canary-other/ü&x"
	goJSON, _ := json.Marshal(map[string]string{"line": "env " + secret})
	texts := []string{
		"x " + secret + " y",
		string(goJSON),
		`{"m":"` + upperUnicodeEscapes(asciiJSONEscape(secret)) + `"}`,
		base64.StdEncoding.EncodeToString([]byte(secret)),
		"Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+secret)),
		base64.RawURLEncoding.EncodeToString([]byte("u" + secret + "tail")),
		"https://app.test/?p=" + url.QueryEscape(secret) + "&o=" + url.PathEscape(other),
		`{"h":"` + base64.StdEncoding.EncodeToString([]byte("ab"+secret)) + `"}`,
		"", "e2e-conform-canary-0123456789abcdeX", `{"a":"e2e-conform-canary-"}`,
		"both " + other + " and " + secret,
		// A partial match that fails inside a value whose prefix repeats:
		// the automaton's fail links restart the match before the byte
		// that failed.
		"sssss3cr3t-ccanary-rep", "s3cr3t-ccs3cr3t-ccanary-rep",
	}
	values := []string{secret, other, "short", "ssss3cr3t-ccanary-rep"}
	m := newLeakMatcher(values)
	for _, text := range texts {
		want := map[int]string{}
		for i, v := range values {
			if form, ok := findLeak(text, v); ok {
				want[i] = form
			}
		}
		got := map[int]string{}
		for _, h := range m.find(text) {
			got[h.secret] = h.form
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: the automaton found %v, the search value by value %v", clip(text), got, want)
		}
	}
}

// TestLeakMatcherRedactsLikeRedactSecrets: one pass of the automaton
// leaves nothing redactSecrets would have removed, and keeps the rest.
func TestLeakMatcherRedactsLikeRedactSecrets(t *testing.T) {
	canary := "s3cr3t-canary-login/ü&x"
	derived := base64.StdEncoding.EncodeToString([]byte("user:" + canary))
	cases := []struct {
		in      string
		secrets []string
	}{
		{"a " + canary + " b", []string{canary}},
		{"path /?q=" + url.QueryEscape(canary), []string{canary}},
		{`{"v":"s3cr3t-canary-login/\u00fc&x"}`, []string{canary}},
		{`"values":["` + derived + `"]`, []string{canary, derived}},
		{"ab cd YWI=", []string{"ab"}},
		{canary + canary + " " + canary[:10], []string{canary}},
	}
	for _, c := range cases {
		want := redactSecrets(c.in, c.secrets)
		got := newLeakMatcher(c.secrets).redact(c.in)
		if got != want {
			t.Errorf("%q: the automaton gives %q, redactSecrets %q", c.in, got, want)
		}
	}
}

// TestRedactManyValues: with thousands of values registered (more than the
// values searched one by one), every one is still redacted and the text
// between them kept.
func TestRedactManyValues(t *testing.T) {
	e := &runEnv{}
	var b strings.Builder
	for i := range maxSecretValues {
		v := fmt.Sprintf("s3cr3t-canary-flood-%05d", i)
		e.Secret(v)
		if i%97 == 0 {
			fmt.Fprintf(&b, "<%s>", url.QueryEscape(v))
		}
	}
	if e.canary("one-more-than-the-bound") {
		t.Errorf("canary past %d registered values: want refused", maxSecretValues)
	}
	got := e.Redact(b.String())
	if strings.Contains(got, "flood") || strings.Count(got, "<[redacted]>") != strings.Count(b.String(), "<") {
		t.Errorf("redaction of %d values: %s", maxSecretValues, clip(got))
	}
}

// TestSecretRequestBound: the requests of one attempt past
// maxSecretRequests are marked for SECRET_UNAVAILABLE and make S2C-004 not
// verified (never failed); another attempt counts afresh.
func TestSecretRequestBound(t *testing.T) {
	e := &runEnv{}
	mc := msgCtx{conn: e.newConn(roleRaw)}
	for i := 1; i <= maxSecretRequests+10; i++ {
		if ok := e.secretRequest(mc, "attempt-1"); ok != (i <= maxSecretRequests) {
			t.Fatalf("request %d: within the bound = %v", i, ok)
		}
	}
	if !e.secretRequest(mc, "attempt-2") {
		t.Errorf("the first request of another attempt: want within the bound")
	}
	note := e.uncheckedNote("S2C-004")
	for _, want := range []string{"more than 64 attempt/resolveSecret requests in attempt \"attempt-1\"", "no failure", "(10 such requests in the run)"} {
		if !strings.Contains(note, want) {
			t.Errorf("the S2C-004 note %q does not say %q", note, want)
		}
	}
	if len(e.Violations("S2C-004")) != 0 {
		t.Errorf("a flood recorded a S2C-004 violation: %v", e.Violations("S2C-004"))
	}
}

// BenchmarkCheckSecrets measures the leak check of one 64 KiB frame with
// maxSecretValues values registered.
func BenchmarkCheckSecrets(b *testing.B) {
	e := &runEnv{}
	for i := range maxSecretValues {
		e.Secret(fmt.Sprintf("s3cr3t-canary-flood-%05d", i))
	}
	frame := `{"jsonrpc":"2.0","method":"engine/log","params":{"line":"` + strings.Repeat("lorem ipsum ", 64<<10/12) + `"}}`
	b.ResetTimer()
	for range b.N {
		e.checkSecrets("a frame", frame)
	}
}
