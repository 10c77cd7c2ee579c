package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

var validCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+3`, `-12.0E-7`, `true`, `false`, `null`,
	` {"a" : [1, 2, {"b": null}], "c": "\u00e9\n\"\\\/"} `,
	`{"jsonrpc":"2.0","id":12,"method":"engine/observe","params":{"operation":{"signal":{"id":12}}}}`,
	`"é"`, `"\ud800"`, `"` + "\xed\xa0\x80" + `"`, "\"\xff\"", `"` + "\x01" + `"`,
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a"}`, `{1:2}`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`,
	`tru`, `nul`, `truex`, `"\x"`, `"\u12G4"`, `"\u123"`, `"abc`, `[1 2]`, `{"a":1 "b":2}`, `1 2`,
	"\"\t\"", `NaN`, `Infinity`, `[` + "\xc3" + `]`, "\xef\xbb\xbf{}",
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

func reference(b []byte) bool { return utf8.Valid(b) && json.Valid(b) }

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range validCases {
		if got, want := Valid([]byte(c)), reference([]byte(c)); got != want {
			t.Errorf("Valid(%.60q) = %v, utf8.Valid && json.Valid say %v", c, got, want)
		}
	}
}

// FuzzValid: Valid is exactly utf8.Valid && json.Valid.
func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), reference(b); got != want {
			t.Fatalf("Valid(%q) = %v, utf8.Valid && json.Valid say %v", b, got, want)
		}
		if valid, got := membersOf(b, 4); valid && strings.Join(got, "\n") != strings.Join(objectMembers(b), "\n") {
			t.Fatalf("ValidMembers(%q) members %q, Object %q", b, got, objectMembers(b))
		}
	})
}

// membersOf lists b's members through ValidMembers with room for room of
// them, completed by Object past that.
func membersOf(b []byte, room int) (bool, []string) {
	into := make([]Member, room)
	valid, n := ValidMembers(b, into)
	var got []string
	for _, m := range into[:min(n, room)] {
		got = append(got, string(m.Key(b))+"="+string(m.Value(b)))
	}
	if valid && n > room {
		i := 0
		Object(Trim(b), func(k, v []byte) bool {
			if i >= room {
				got = append(got, string(k)+"="+string(v))
			}
			i++
			return true
		})
	}
	return valid, got
}

func objectMembers(b []byte) []string {
	var want []string
	Object(Trim(b), func(k, v []byte) bool { want = append(want, string(k)+"="+string(v)); return true })
	return want
}

// TestValidMembers: ValidMembers reports the members Object does.
func TestValidMembers(t *testing.T) {
	for _, c := range append(validCases, `{"a":1,"b":[{"c":"}"}],"d":"x\"y","e":{},"f":[],"g":null}`) {
		for _, room := range []int{0, 2, 8} {
			b := []byte(c)
			valid, got := membersOf(b, room)
			if valid != reference(b) {
				t.Errorf("ValidMembers(%.60q) = %v, want %v", c, valid, !valid)
			}
			if valid && strings.Join(got, "\n") != strings.Join(objectMembers(b), "\n") {
				t.Errorf("ValidMembers(%.60q, room %d) members %q, Object %q", c, room, got, objectMembers(b))
			}
		}
	}
}

func BenchmarkValid(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":12,"method":"engine/observe","params":{"operation":{"signal":{"id":12},"timeoutMs":30000,"runId":"r","attemptId":"a","origin":"test"}}}`)
	b.Run("jsonscan", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			Valid(msg)
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			reference(msg)
		}
	})
}
