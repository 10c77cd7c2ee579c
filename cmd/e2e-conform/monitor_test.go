package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// frames is msgs framed, one write.
func frames(msgs ...string) []byte {
	var b bytes.Buffer
	for _, m := range msgs {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(m), m)
	}
	return b.Bytes()
}

// TestMonitorCLI runs `e2e-conform monitor --judge engine` as a harness
// would spawn it: a session written to its stdin at once, then stdin
// closed (exit follows shutdown without waiting for its answer: a harness
// fault, CLI-013, not judged here). The bytes
// the engine wrote reach stdout (the same answers with or without the
// monitor), the exit status is the engine's unless --fail and a violation,
// and the JSON report names the violation and its side.
func TestMonitorCLI(t *testing.T) {
	dir := bins(t)
	conform, sab := filepath.Join(dir, "e2e-conform"), filepath.Join(dir, "saboteur")
	session := frames(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"t"},"role":"worker"}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"foo/bar","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`,
		`{"jsonrpc":"2.0","method":"exit"}`,
	)
	run := func(args ...string) (int, []byte, string) {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stdin = bytes.NewReader(session)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		_ = cmd.Run()
		return cmd.ProcessState.ExitCode(), out.Bytes(), errb.String()
	}
	cases := []struct {
		name     string
		fault    string
		fail     bool
		code     int
		violates string
	}{
		{"healthy", "", true, 0, ""},
		{"fault, without --fail", "error-code-string", false, 0, "WIRE-008"},
		{"fault, with --fail", "error-code-string", true, 1, "WIRE-008"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The engine's stdin and stdout are copied to files by tee:
			// what it read and wrote is compared with what crossed the
			// monitor.
			tmp := t.TempDir()
			in, eout := filepath.Join(tmp, "in"), filepath.Join(tmp, "out")
			script := "tee " + in + " | " + sab
			if c.fault != "" {
				script += " --fault " + c.fault
			}
			engine := []string{"sh", "-c", script + " | tee " + eout}
			report := filepath.Join(tmp, "m.json")
			args := []string{conform, "monitor", "--judge", "engine", "--json", report}
			if c.fail {
				args = append(args, "--fail")
			}
			code, out, stderr := run(append(append(args, "--"), engine...)...)
			read, _ := os.ReadFile(in)
			wrote, _ := os.ReadFile(eout)
			if !bytes.Equal(read, session) || !bytes.Equal(out, wrote) || len(out) == 0 {
				t.Errorf("bytes changed: the engine read %d of %d bytes written (equal: %v), the harness got %d of %d the engine wrote (equal: %v)",
					len(read), len(session), bytes.Equal(read, session), len(out), len(wrote), bytes.Equal(out, wrote))
			}
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s", code, c.code, stderr)
			}
			b, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				Verdict string `json:"verdict"`
				Monitor struct {
					Violations []struct{ Requirement, Side string }
				} `json:"monitor"`
			}
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			switch {
			case c.violates == "" && (len(r.Monitor.Violations) > 0 || !strings.HasPrefix(r.Verdict, "no violation seen in this traffic")):
				t.Errorf("verdict %q, violations %v", r.Verdict, r.Monitor.Violations)
			case c.violates != "" && (r.Verdict != "violations" || len(r.Monitor.Violations) == 0 || r.Monitor.Violations[0].Requirement != c.violates || r.Monitor.Violations[0].Side != "engine"):
				t.Errorf("verdict %q, violations %v, want %s by the engine", r.Verdict, r.Monitor.Violations, c.violates)
			}
			if !strings.Contains(stderr, "e2e-conform monitor: "+r.Verdict) {
				t.Errorf("stderr lacks the verdict:\n%s", stderr)
			}
		})
	}
	t.Run("the engine's exit status", func(t *testing.T) {
		cmd := exec.Command(conform, "monitor", "--", "sh", "-c", "cat >/dev/null; exit 7")
		cmd.Stdin = bytes.NewReader(session)
		_ = cmd.Run()
		if got := cmd.ProcessState.ExitCode(); got != 7 {
			t.Errorf("exit %d, want the engine's 7", got)
		}
	})
	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{{"monitor"}, {"monitor", "--judge", "nobody", "--", sab}, {"monitor", "--listen", "127.0.0.1:0"}} {
			cmd := exec.Command(conform, args...)
			cmd.Stdin = strings.NewReader("")
			out, _ := cmd.CombinedOutput()
			if cmd.ProcessState.ExitCode() != 2 {
				t.Errorf("%v: exit %d\n%s", args, cmd.ProcessState.ExitCode(), out)
			}
		}
	})
}

// TestMonitorEngineDiesWithIt: an engine does not outlive a monitor killed
// with SIGKILL (Linux: the engine's parent-death signal).
func TestMonitorEngineDiesWithIt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("parent-death signal: Linux")
	}
	conform := filepath.Join(bins(t), "e2e-conform")
	cmd := exec.Command(conform, "monitor", "--", "sh", "-c", "echo $$; exec sleep 300")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscan(out, &pid); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil && !zombie(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // polling the process table
	}
	if syscall.Kill(pid, 0) == nil && !zombie(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the engine %d outlived the monitor", pid)
	}
}

// zombie reports whether pid has exited and awaits its reaping.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] == "Z"
}
