package conformance

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"testing"
)

// TestFindLeak checks every form leaks.go counts as "contains" (ERR-007),
// and that other text is not taken for a leak.
func TestFindLeak(t *testing.T) {
	secret := "e2e-conform-canary-0123456789abcdef" + canaryTail
	goJSON, _ := json.Marshal(map[string]string{"line": "env " + secret})
	for _, c := range []struct{ name, text, form string }{
		{"raw", "x " + secret + " y", "raw"},
		{"Go JSON", string(goJSON), "JSON-escaped"},
		{"ASCII JSON", `{"m":"` + upperUnicodeEscapes(asciiJSONEscape(secret)) + `"}`, "JSON-escaped (ASCII)"},
		{"base64 aligned", base64.StdEncoding.EncodeToString([]byte(secret)), "base64"},
		{"base64 basic auth", "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+secret)), "base64"},
		{"base64url offset 1", base64.RawURLEncoding.EncodeToString([]byte("u" + secret + "tail")), "base64url"},
		{"percent", "https://app.test/?p=" + url.QueryEscape(secret), "percent-encoded"},
		{"base64 inside JSON", `{"h":"` + base64.StdEncoding.EncodeToString([]byte("ab"+secret)) + `"}`, "base64"},
	} {
		form, ok := findLeak(c.text, secret)
		if !ok || form != c.form {
			t.Errorf("%s: findLeak = %q, %v; want %q", c.name, form, ok, c.form)
		}
	}
	for _, text := range []string{"", "e2e-conform-canary-0123456789abcdeX", `{"a":"e2e-conform-canary-"}`, base64.StdEncoding.EncodeToString([]byte("e2e-conform-canary-0123"))} {
		if form, ok := findLeak(text, secret); ok {
			t.Errorf("findLeak(%q) = %q: want no leak", text, form)
		}
	}
}
