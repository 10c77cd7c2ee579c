package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestProvenanceNamesTheInterpretedScript: for `python3 -u engine.py` the
// provenance records the interpreter and also engine.py with its SHA-256;
// for a program that is no interpreter, an interpreter running code (-c)
// or a module (-m), or a script that is no file, no script is recorded.
func TestProvenanceNamesTheInterpretedScript(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "engine.py")
	body := []byte("print('engine')\n")
	if err := os.WriteFile(script, body, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	for _, c := range []struct {
		spawn      []string
		wantScript bool
	}{
		{[]string{"python3", "-u", script}, true},
		{[]string{"/usr/bin/python3.11", script, "--quiet"}, true},
		{[]string{"node", script}, true},
		{[]string{"sh", script}, true},
		{[]string{"python3", "-m", "engine"}, false},
		{[]string{"sh", "-c", "exec " + script}, false},
		{[]string{"python3", filepath.Join(dir, "engin.py")}, false},
		{[]string{"cat", script}, false},
		{[]string{script}, false},
	} {
		p := provenance(Config{Spawn: c.spawn}, time.Time{})
		got := p.EngineScript != "" || p.EngineScriptSHA256 != ""
		if got != c.wantScript || got && (p.EngineScript != script || p.EngineScriptSHA256 != hex.EncodeToString(sum[:])) {
			t.Errorf("%q: engineScript %q sha256 %q; want %v (%s, %x)", c.spawn, p.EngineScript, p.EngineScriptSHA256, c.wantScript, script, sum)
		}
	}
}
