package catalog

import (
	"strings"
	"testing"
)

func TestLikelyCauseCoversEveryMust(t *testing.T) {
	for _, r := range All() {
		if r.Level != Must || r.Withdrawn() {
			continue
		}
		if strings.TrimSpace(likelyCause[r.ID]) == "" {
			t.Errorf("%s (MUST) has no likely cause", r.ID)
		}
	}
	for id := range likelyCause {
		if _, ok := Lookup(id); !ok {
			t.Errorf("likelyCause names %s, which is not in the catalog", id)
		}
	}
}

func TestEveryRequirementHasASection(t *testing.T) {
	for _, r := range All() {
		if !strings.HasPrefix(r.Section, "§") || len(r.Section) < 3 {
			t.Errorf("%s: section %q", r.ID, r.Section)
		}
	}
}

// TestLikelyCauseOf: a failure that shows another cause than the usual
// one gets that cause (issue 28 §5: stdout noise read as a framing bug,
// SIG-007's remembered and text-compared ids).
func TestLikelyCauseOf(t *testing.T) {
	for _, tc := range []struct {
		id, reason string
		refined    bool
	}{
		{"WIRE-001", `the stream broke at a header line without CRLF: "saboteur: a request failed\n" on conn 5 (raw)`, true},
		{"WIRE-001", `header line "saboteur 1.0.0 ready\n" does not end with CRLF`, true},
		{"WIRE-001", `header line "Content-Length: 12\n" does not end with CRLF`, false},
		{"WIRE-001", `the stream broke at a frame of Content-Length 95 whose content is not UTF-8 JSON`, false},
		{"WIRE-001", `the stream broke at a second Content-Length field (103, after 110)`, true},
		{"SIG-007", `engine/observe carrying the signal id of an earlier $/abort for an unknown id: want a result`, true},
		{"SIG-007", `answered CANCELLED after $/abort for the string "5" and the integer 990003`, true},
		{"SIG-007", `$/abort for ids the server never saw: want no response`, false},
		{"TRN-001", `header line "saboteur 1.0.0 ready\n" does not end with CRLF`, false},
	} {
		got := LikelyCause(tc.id, tc.reason)
		if refined := got != likelyCause[tc.id]; refined != tc.refined || got == "" {
			t.Errorf("%s %q: cause %q (refined %v, want %v)", tc.id, tc.reason, got, refined, tc.refined)
		}
	}
}
