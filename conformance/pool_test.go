package conformance_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/e2e-conform/toolkit/conformance/report"
)

// lifecycleOf reads a --trace file and returns, per connection of role
// ("client" or "raw") that started an attempt, the lifecycle methods the
// suite sent on it, in order.
func lifecycleOf(t *testing.T, path, role string) map[int][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var line struct {
			Conn   int    `json:"conn"`
			Role   string `json:"role"`
			Dir    string `json:"dir"`
			Method string `json:"method"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("trace line: %v", err)
		}
		if line.Role != role || line.Dir != "send" {
			continue
		}
		switch line.Method {
		case "lifecycle/init", "lifecycle/startAttempt", "lifecycle/endAttempt", "lifecycle/dispose", "shutdown":
			out[line.Conn] = append(out[line.Conn], line.Method)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for c, methods := range out {
		if !slices.Contains(methods, "lifecycle/startAttempt") {
			delete(out, c)
		}
	}
	return out
}

// TestPooledWorkerConnections: specs that need only an attempt on a worker
// share one connection of each kind (client library, raw) in §4's order (init once, then startAttempt and
// endAttempt, one attempt at a time, dispose and shutdown at the end), and
// a spec that fails does not hand its connection on: the next spec starts
// on a fresh one, and its verdict is the one it gets alone.
func TestPooledWorkerConnections(t *testing.T) {
	only := "OBS-004,OBS-006,OBS-013,LOC-003"
	attempts := []string{"lifecycle/startAttempt", "lifecycle/endAttempt"}
	want := []string{"lifecycle/init"}
	for range 4 {
		want = append(want, attempts...)
	}
	want = append(want, "lifecycle/dispose", "shutdown")

	trace := filepath.Join(t.TempDir(), "healthy.jsonl")
	code, _, out := conform(t, "--spawn", saboteurBin(t), "--profile", "full", "--only", only, "--trace", trace)
	if code != 0 {
		t.Fatalf("healthy saboteur: exit %d\n%s", code, out)
	}
	code, _, out = conform(t, "--spawn", saboteurBin(t), "--profile", "full", "--only", "OBS-001,OBS-003", "--trace", trace+".raw")
	if code != 0 {
		t.Fatalf("healthy saboteur, OBS-001 and OBS-003: exit %d\n%s", code, out)
	}
	raw := lifecycleOf(t, trace+".raw", "raw")
	if want := []string{"lifecycle/init", "lifecycle/startAttempt", "lifecycle/endAttempt", "lifecycle/startAttempt", "lifecycle/endAttempt"}; len(raw) != 1 {
		t.Errorf("healthy saboteur: want OBS-001 and OBS-003 on one raw connection, got %d: %v", len(raw), raw)
	} else {
		for _, got := range raw {
			if !slices.Equal(got, want) {
				t.Errorf("healthy saboteur: lifecycle on the pooled raw connection:\n got %v\nwant %v (a raw connection ends by closing its stream)", got, want)
			}
		}
	}
	conns := lifecycleOf(t, trace, "client")
	if len(conns) != 1 {
		t.Fatalf("healthy saboteur: want the four specs on one client connection, got %d: %v", len(conns), conns)
	}
	for _, got := range conns {
		if !slices.Equal(got, want) {
			t.Errorf("healthy saboteur: lifecycle on the pooled connection:\n got %v\nwant %v", got, want)
		}
	}

	// observe-side-effect fails OBS-013, the third of the four specs: its
	// connection is closed, LOC-003 starts on a new one and passes.
	trace = filepath.Join(t.TempDir(), "faulty.jsonl")
	_, res, out := conform(t, "--spawn", saboteurBin(t)+" --fault observe-side-effect", "--profile", "full", "--only", only, "--trace", trace)
	for id, st := range map[string]report.Status{"OBS-004": report.Passed, "OBS-006": report.Passed, "OBS-013": report.Failed, "LOC-003": report.Passed} {
		if got := requirement(t, res, id).Status; got != st {
			t.Errorf("observe-side-effect: %s %s, want %s\n%s", id, got, st, out)
		}
	}
	conns = lifecycleOf(t, trace, "client")
	if len(conns) != 2 {
		t.Fatalf("observe-side-effect: want two client connections (the failing spec's closed), got %d: %v", len(conns), conns)
	}
	var counts []int
	for _, got := range conns {
		n := 0
		for _, m := range got {
			if m == "lifecycle/startAttempt" {
				n++
			}
		}
		counts = append(counts, n)
	}
	if !(counts[0]+counts[1] == 4 && (counts[0] == 1 || counts[1] == 1)) {
		t.Errorf("observe-side-effect: want three attempts on the first connection and one on the second, got %v: %v", counts, conns)
	}
}
