package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestListJSONGoesToTheFileAndHoldsTheFixtureSpecs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "list.json")
	out, err := exec.Command(filepath.Join(bins(t), "e2e-conform"), "--list", "--json", path).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var list struct {
		Specs []struct {
			Text    string `json:"text"`
			Fixture bool   `json:"fixture"`
		} `json:"specs"`
	}
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &list)
	}
	if err != nil {
		t.Fatalf("--list --json FILE wrote no JSON list: %v (stdout: %.200s)", err, out)
	}
	fixture := 0
	for _, s := range list.Specs {
		if s.Fixture {
			fixture++
		}
	}
	if fixture == 0 || fixture == len(list.Specs) {
		t.Errorf("the core listing has %d fixture specs of %d; want the fixture specs listed beside the others", fixture, len(list.Specs))
	}
}

func TestSummaryKeepsNotSelectedApart(t *testing.T) {
	cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), "--spawn", filepath.Join(bins(t), "saboteur"), "--only", "WIRE-003")
	out, _ := cmd.CombinedOutput()
	counts := regexp.MustCompile(`(\d+) passed, (\d+) failed, (\d+) not applicable, (\d+) not verified, (\d+) not selected`).FindStringSubmatch(string(out))
	if counts == nil {
		t.Fatalf("no count line apart for not selected:\n%s", out)
	}
	if counts[4] != "0" || counts[5] == "0" {
		t.Errorf("--only WIRE-003 against the saboteur: %s; want 0 not verified and the rest not selected", counts[0])
	}
	if !strings.Contains(string(out), "verdict: conformant (for the selection only: ") {
		t.Errorf("the verdict does not say it holds for the selection only:\n%s", out)
	}
}

func TestOnlyARequirementSelectsItsSpecs(t *testing.T) {
	// --only S2C-005 once selected nothing.
	path := filepath.Join(t.TempDir(), "list.json")
	out, err := exec.Command(filepath.Join(bins(t), "e2e-conform"), "--list", "--only", "S2C-005", "--json", path).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var list struct {
		Specs []struct {
			Requirements []string `json:"requirements"`
		} `json:"specs"`
	}
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &list)
	}
	if err != nil || len(list.Specs) == 0 {
		t.Fatalf("--only S2C-005 selects no spec (%v)", err)
	}
	for _, s := range list.Specs {
		if !strings.Contains(strings.Join(s.Requirements, ","), "S2C-005") {
			t.Errorf("--only S2C-005 selected a spec of %v", s.Requirements)
		}
	}
}

// TestListHonoursTheSelectionAndUsesTheReportKeys: --list --only SIG
// --json lists the SIG requirements only, under the JSON report's keys
// (id, area, level); --only SIGG, listed or run, is exit 2 naming SIG.
func TestListHonoursTheSelectionAndUsesTheReportKeys(t *testing.T) {
	out, err := exec.Command(filepath.Join(bins(t), "e2e-conform"), "--list", "--only", "SIG", "--json").Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var list struct {
		Requirements []map[string]any `json:"requirements"`
	}
	if err := json.Unmarshal(out, &list); err != nil || len(list.Requirements) == 0 {
		t.Fatalf("--list --only SIG --json: %v, %d requirements", err, len(list.Requirements))
	}
	for _, r := range list.Requirements {
		if r["area"] != "SIG" || !strings.HasPrefix(r["id"].(string), "SIG-") || r["level"] == nil {
			t.Errorf("--list --only SIG --json lists %v; want SIG requirements under id, area, level", r)
		}
	}
	for _, args := range [][]string{
		{"--list", "--only", "SIGG"},
		{"--spawn", filepath.Join(bins(t), "saboteur"), "--skip", "SIGG"},
	} {
		cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), args...)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), "unknown requirement, area or label SIGG; did you mean SIG?") {
			t.Errorf("%q: exit %d, %s; want 2 naming SIGG and SIG", args, code, out)
		}
	}
}
