package traffic

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// envelopeCases are contents whose reading by decodeMembers must equal
// encoding/json's: objects as frames carry them, and every way a content
// part can fail to be one.
var envelopeCases = []string{
	`{"jsonrpc":"2.0","id":7,"method":"foo/bar","params":{"a":[1,2,{"b":null}]}}`,
	` { "id" : "x" , "result" : null } `,
	`{"a":1,"a":2}`,
	`{"m\u0065thod":"x"}`,
	"{\"a\":\"\xff\xfe\"}",
	"{\"\xffkey\":1}",
	`{}`,
	`null`,
	`[]`,
	`[{"id":1}]`,
	`"text"`,
	`12`,
	``,
	` `,
	`{`,
	`{"a":}`,
	`{"a":1,}`,
	`{"a":1} {"b":2}`,
	`{"a":1}x`,
	`{"a":1}]`,
	`{"a":01}`,
	`{"a":1e}`,
	`{"a":"\x"}`,
	"{\"a\":\"\t\"}",
	`{'a':1}`,
	`{"a":NaN}`,
	"\xef\xbb\xbf{}",
	`{"a":` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `}`,
	`{"pad":"` + strings.Repeat("x", 1<<16) + `"}`,
}

func TestDecodeMembersMatchesUnmarshal(t *testing.T) {
	for _, c := range envelopeCases {
		checkEnvelope(t, []byte(c))
	}
}

func FuzzDecodeMembers(f *testing.F) {
	for _, c := range envelopeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(checkEnvelope)
}

// checkEnvelope fails t when decodeMembers reads content otherwise than
// Unmarshal into a map of raw values and json.Valid.
func checkEnvelope(t *testing.T, content []byte) {
	var want map[string]json.RawMessage
	err := json.Unmarshal(content, &want)
	wantValid := json.Valid(content)
	got, valid := decodeMembers(content)
	if valid != wantValid {
		t.Fatalf("%q: valid %v, json.Valid %v", clipQ(content), valid, wantValid)
	}
	if err != nil || want == nil {
		if got != nil {
			t.Fatalf("%q: members %v, Unmarshal none (%v)", clipQ(content), got, err)
		}
		return
	}
	if !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
		t.Fatalf("%q: members %q, Unmarshal %q", clipQ(content), got, want)
	}
}

func clipQ(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
