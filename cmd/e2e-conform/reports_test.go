package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// TestHTMLAndBadgeFlags: a real run against the saboteur writes the HTML
// report (its sections linked at --spec-url), the badge and the latency of
// its calls.
func TestHTMLAndBadgeFlags(t *testing.T) {
	dir := t.TempDir()
	html, badge, reportFile := filepath.Join(dir, "report.html"), filepath.Join(dir, "badge.svg"), filepath.Join(dir, "report.json")
	cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), "--spawn", filepath.Join(bins(t), "saboteur"), "--only", "WIRE-002",
		"--json", reportFile, "--html", html, "--badge", badge, "--spec-url", "https://example.org/spec/engine-protocol.md")
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != report.ExitConformant {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
	if !strings.Contains(string(out), "round trips per method (ms):") {
		t.Errorf("the summary has no latency table:\n%s", out)
	}
	var res report.Result
	data, err := os.ReadFile(reportFile)
	if err == nil {
		err = json.Unmarshal(data, &res)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Latency) == 0 || res.Latency[0].Method != "initialize" || res.Latency[0].Count < 1 {
		t.Errorf("latency %+v: want initialize first, called at least once", res.Latency)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"verdict: conformant · exit 0", `id="req-WIRE-002"`, `<table id="latency">`,
		`href="https://example.org/spec/engine-protocol.md#11-framing"`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	svg, err := os.ReadFile(badge)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("conformant (core)")) || !bytes.Contains(svg, []byte(`fill="#4c1"`)) {
		t.Errorf("badge:\n%s", svg)
	}
}

func TestHTMLAndBadgeRefusedWithRepeat(t *testing.T) {
	for _, flag := range []string{"--html", "--badge"} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"--repeat", "2", "--spawn", "x", flag, filepath.Join(t.TempDir(), "out")}, &stdout, &stderr)
		if code != report.ExitUsage || !strings.Contains(stderr.String(), "do not go with --repeat") {
			t.Errorf("%s with --repeat: exit %d, stderr %q", flag, code, stderr.String())
		}
	}
}
