package webengine

import (
	"encoding/json"
	"testing"
)

// TestTextBytesUnquote: the reader's answers are unquoted as encoding/json
// would: a string with escapes, wide and non-ASCII units and a surrogate
// pair through jsontext, a lone surrogate escape (which jsontext refuses)
// as encoding/json reads it (U+FFFD), and a value that is no string is an
// error, as encoding/json's.
func TestTextBytesUnquote(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		wantErr     bool
	}{
		{name: "plain", value: `"{\"v\":1}"`},
		{name: "escapes and wide units", value: `"{\"s\":\"\\u2026 é \\ud83d\\ude00 \\\\ \\n\"}"`},
		{name: "raw non-ASCII", value: `"é…😀"`},
		{name: "lone surrogate escape", value: `"a\ud800b"`},
		{name: "empty", value: `""`},
		{name: "a number", value: `12`, wantErr: true},
		{name: "not JSON", value: `"unterminated`, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want string
			wantErr := json.Unmarshal([]byte(tc.value), &want) != nil
			if wantErr != tc.wantErr {
				t.Fatalf("encoding/json error %v, the case says %v", wantErr, tc.wantErr)
			}
			tb := textBytes("left over from an earlier answer")
			err := tb.unquote([]byte(tc.value))
			if (err != nil) != tc.wantErr {
				t.Fatalf("unquote(%s) error %v, want error %v", tc.value, err, tc.wantErr)
			}
			if err == nil && string(tb) != want {
				t.Errorf("unquote(%s) = %q, encoding/json reads %q", tc.value, tb, want)
			}
		})
	}
}
