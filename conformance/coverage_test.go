package conformance_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance"
)

// TestEveryMustIsCovered: every MUST of the catalog has a spec, or an entry
// in Untestable with its reason (issue 3: a catalog ID with neither fails).
func TestEveryMustIsCovered(t *testing.T) {
	dir := bins(t)
	out, err := exec.Command(filepath.Join(dir, "e2e-conform"), "--list", "--json", "--profile", "full").Output()
	if err != nil {
		t.Fatalf("--list --json: %v", err)
	}
	var list struct {
		Requirements []struct {
			ID    string   `json:"id"`
			Level string   `json:"level"`
			Specs []string `json:"specs"`
		} `json:"requirements"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	untestable := conformance.Untestable()
	covered, missing := 0, []string{}
	for _, r := range list.Requirements {
		if r.Level != "MUST" {
			continue
		}
		_, listed := untestable[r.ID]
		switch {
		case len(r.Specs) > 0:
			covered++
		case listed:
		default:
			missing = append(missing, r.ID)
		}
	}
	t.Logf("%d MUST requirements have specs, %d are listed untestable", covered, len(untestable))
	if len(missing) > 0 {
		t.Errorf("%d MUST requirements have neither a spec nor an Untestable entry: %s", len(missing), strings.Join(missing, " "))
	}
}
