package cli

import (
	"bytes"
	"testing"

	"github.com/e2e-conform/toolkit/mcp/redact"
	"github.com/e2e-conform/toolkit/mcp/redact/redacttest"
)

// TestStray: stray output reaches stderr prefixed and redacted, also a
// secret split over two writes and a cut start left at the end.
func TestStray(t *testing.T) {
	r := redact.New()
	r.Add("pw", "Hunter2!@x")
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"lines", []string{"a\nb\n"}, "e2e mcp: a\ne2e mcp: b\n"},
		{"split secret", []string{"pw=Hunt", "er2%21%40x done\n"}, "e2e mcp: pw=<secret:pw> done\n"},
		{"encoded", []string{"q=" + redacttest.EncodeURIComponent("Hunter2!@x") + "\n"}, "e2e mcp: q=<secret:pw>\n"},
		{"cut at the end", []string{"typed Hunter2!"}, "e2e mcp: typed <secret:pw>"},
		{"short start kept", []string{"typed Hun"}, "e2e mcp: typed Hun"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			s := NewStray(r, &b)
			for _, w := range tt.writes {
				if n, err := s.Write([]byte(w)); err != nil || n != len(w) {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}
