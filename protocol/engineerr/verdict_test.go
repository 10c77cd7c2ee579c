package engineerr

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestCheckObject: the verdict names the requirement each malformed error
// object breaks, and passes what the toolkit's own encoder writes.
func TestCheckObject(t *testing.T) {
	deep := `{"code":-32603,"message":"x"}`
	for i := 0; i < MaxCauseDepth+1; i++ {
		deep = `{"code":-32603,"message":"x","data":{"cause":` + deep + `}}`
	}
	for _, tc := range []struct {
		name, raw, want string // want: the requirement broken, "" for none
	}{
		{"engine error", `{"code":-32000,"message":"m","data":{"type":"engine","code":"NODE_STALE","retryable":true}}`, ""},
		{"e2e error", `{"code":-32000,"message":"m","data":{"type":"e2e","category":"test","code":"T","retryable":false,"details":{}}}`, ""},
		{"plain error with stack", `{"code":-32601,"message":"m","data":{"stack":"s","errno":2}}`, ""},
		{"empty message", `{"code":-32601,"message":""}`, "ERR-006"},
		{"no data.type", `{"code":-32000,"message":"m","data":{}}`, "ERR-001"},
		{"unknown engine code", `{"code":-32000,"message":"m","data":{"type":"engine","code":"node_stale","retryable":false}}`, "ERR-002"},
		{"retryable as a string", `{"code":-32000,"message":"m","data":{"type":"engine","code":"CANCELLED","retryable":"false"}}`, "ERR-002"},
		{"retryable CANCELLED", `{"code":-32000,"message":"m","data":{"type":"engine","code":"CANCELLED","retryable":true}}`, "ERR-003"},
		{"unknown category", `{"code":-32000,"message":"m","data":{"type":"e2e","category":"Test","code":"T","retryable":false}}`, "ERR-004"},
		{"details not an object", `{"code":-32000,"message":"m","data":{"type":"e2e","category":"test","code":"T","retryable":false,"details":[]}}`, "ERR-004"},
		{"foreign data member", `{"code":-32602,"message":"m","data":{"field":"x"}}`, "ERR-005"},
		{"stack not a string", `{"code":-32602,"message":"m","data":{"stack":1}}`, "ERR-005"},
		{"errno a float", `{"code":-32602,"message":"m","data":{"errno":1.5}}`, "ERR-005"},
		{"cause not an object", `{"code":-32602,"message":"m","data":{"cause":"x"}}`, "ERR-005"},
		{"causes too deep", deep, "ERR-005"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ps := CheckObject(json.RawMessage(tc.raw))
			var got []string
			for _, p := range ps {
				got = append(got, p.Requirement)
			}
			switch {
			case tc.want == "" && len(ps) > 0:
				t.Errorf("problems %v, want none", ps)
			case tc.want != "" && !strings.Contains(strings.Join(got, " "), tc.want):
				t.Errorf("problems %v, want one of %s", ps, tc.want)
			}
		})
	}
}

// TestEncodedErrorsPassTheVerdict: every error the toolkit encodes, of
// every engine code and e2e category, with causes, passes CheckObject.
func TestEncodedErrorsPassTheVerdict(t *testing.T) {
	var errs []error
	for _, c := range Codes() {
		errs = append(errs, New(c, "engine %s", c))
	}
	for _, cat := range []Category{CategoryTest, CategoryConfiguration, CategoryInfrastructure, CategoryInternal, CategoryInterrupted} {
		errs = append(errs, NewE2E(cat, "CODE", "e2e %s", cat))
	}
	errs = append(errs, errors.New("plain"), Infrastructure("infrastructure"))
	for _, err := range errs {
		raw, jerr := json.Marshal(Encode(err))
		if jerr != nil {
			t.Fatal(jerr)
		}
		if _, ps := CheckObject(raw); len(ps) > 0 {
			t.Errorf("%v encodes as %s, which breaks %v", err, raw, ps)
		}
	}
}
