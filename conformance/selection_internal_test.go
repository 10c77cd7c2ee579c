package conformance

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/conformance/report"
)

// TestUnknownSelectionIsAUsageError: an --only or --skip word that is no
// requirement ID, area, label or section is a usage error naming it and
// the nearest name; known names (any case), sections and label-filter
// expressions pass.
func TestUnknownSelectionIsAUsageError(t *testing.T) {
	for _, c := range []struct {
		only, skip []string
		errHave    []string // nil: accepted
	}{
		{only: []string{"SIGG"}, errHave: []string{"--only", "unknown requirement, area or label SIGG", "did you mean SIG?"}},
		{skip: []string{"SIGG"}, errHave: []string{"--skip", "SIGG", "did you mean SIG?"}},
		{only: []string{"LIFE", "WIRE-0003"}, errHave: []string{"WIRE-0003", "did you mean WIRE-003?"}},
		{only: []string{"§99.1"}, errHave: []string{"§99.1"}},
		{only: []string{"xyzzyq"}, errHave: []string{"xyzzyq"}},
		{only: []string{"SIG", "sig", "WIRE-003", "fixture", "§7.5", "§7"}},
		{skip: []string{"fixture", "LIFE-001"}},
		{only: []string{"/SIG-00/"}},
	} {
		cfg := Config{Only: c.only, Skip: c.skip, Spawn: []string{"engine"}}
		err := cfg.validate()
		if c.errHave == nil {
			if err != nil {
				t.Errorf("only %q skip %q: %v; want it accepted", c.only, c.skip, err)
			}
			continue
		}
		if !errors.Is(err, report.ErrUsage) {
			t.Errorf("only %q skip %q: %v; want a usage error", c.only, c.skip, err)
			continue
		}
		for _, w := range c.errHave {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("only %q skip %q: the error %q does not say %q", c.only, c.skip, err, w)
			}
		}
	}
}

// TestSelectionBySection: --only §7.5 selects exactly the requirements
// whose section is §7.5, --only §7 those of §7 and its subsections, and
// --only SIG --skip SIG-001 the SIG requirements but SIG-001.
func TestSelectionBySection(t *testing.T) {
	ids := func(only, skip []string) []string {
		t.Helper()
		rs, err := SelectedRequirements(Config{Only: only, Skip: skip})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	var want75, want7, wantSIG []string
	for _, r := range catalog.All() {
		if r.Section == "§7.5" {
			want75 = append(want75, r.ID)
		}
		if strings.HasPrefix(r.Section, "§7.") {
			want7 = append(want7, r.ID)
		}
		if r.Area == "SIG" && r.ID != "SIG-001" {
			wantSIG = append(wantSIG, r.ID)
		}
	}
	if len(want75) == 0 {
		t.Fatal("no requirement of §7.5 in the catalog")
	}
	for _, c := range []struct {
		only, skip, want []string
	}{
		{[]string{"§7.5"}, nil, want75},
		{[]string{"§7"}, nil, want7},
		{[]string{"SIG"}, []string{"SIG-001"}, wantSIG},
		{nil, []string{"§7.5"}, slices.DeleteFunc(ids(nil, nil), func(id string) bool { return slices.Contains(want75, id) })},
	} {
		if got := ids(c.only, c.skip); !slices.Equal(got, c.want) {
			t.Errorf("only %q skip %q: %v; want %v", c.only, c.skip, got, c.want)
		}
	}
}
