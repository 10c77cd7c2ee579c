package main

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// No output of a run shows a secret value: not the canaries the suite
// hands out, not the values an engine derives from them (registered before
// the frame carrying them is shown), not in --verbose, the console, ginkgo's
// own stream or the reports.
func TestNoOutputShowsASecret(t *testing.T) {
	derived := base64.StdEncoding.EncodeToString([]byte("saboteur:s3cr3t-canary-e2e-conform-login")) // the saboteur's derivation
	for _, fault := range []string{""} {
		dir := t.TempDir()
		// A credential passed in the engine command (an assignment whose
		// name reads as one, a URL's query value) is masked too.
		spawn := "env E2E_POOL_TOKEN=tok-in-command-77 POOL_URL=ws://pool/?t=tok-in-url-78 " + filepath.Join(bins(t), "saboteur")
		if fault != "" {
			spawn += " --fault " + fault
		}
		cmd := exec.Command(filepath.Join(bins(t), "e2e-conform"), "--spawn", spawn, "--profile", "full", "--only", "S2C-005,ERR-007",
			"--verbose", "--json", filepath.Join(dir, "r.json"), "--junit", filepath.Join(dir, "j.xml"))
		out, _ := cmd.CombinedOutput()
		texts := map[string]string{"output": string(out)}
		for _, f := range []string{"r.json", "j.xml"} {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatalf("fault %q: %v\n%s", fault, err, out)
			}
			texts[f] = string(data)
		}
		if !strings.Contains(string(out), "attempt/deriveSecret") {
			t.Fatalf("fault %q: the run never asked for a derivation, so it proves nothing:\n%s", fault, out)
		}
		for where, text := range texts {
			for _, secret := range []string{"s3cr3t-canary", derived, "tok-in-command-77", "tok-in-url-78"} {
				if i := strings.Index(text, secret); i >= 0 {
					t.Errorf("fault %q: %s shows %q: …%s…", fault, where, secret, text[max(0, i-80):min(len(text), i+80)])
				}
			}
		}
	}
}
