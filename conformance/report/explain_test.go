package report

import (
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/catalog"
)

func TestLikelyCauseCoversEveryMust(t *testing.T) {
	for _, r := range catalog.All() {
		if r.Level != catalog.Must || r.Withdrawn() {
			continue
		}
		if strings.TrimSpace(likelyCause[r.ID]) == "" {
			t.Errorf("%s (MUST) has no likely cause", r.ID)
		}
	}
	for id := range likelyCause {
		if _, ok := catalog.Lookup(id); !ok {
			t.Errorf("likelyCause names %s, which is not in the catalog", id)
		}
	}
}

func TestEveryRequirementHasASection(t *testing.T) {
	for _, r := range catalog.All() {
		if !strings.HasPrefix(r.Section, "§") || len(r.Section) < 3 {
			t.Errorf("%s: section %q", r.ID, r.Section)
		}
	}
}

// gomegaMessage returns the failure message gomega writes for one
// assertion.
