package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenSessionConfigPath: open_session {config} reads only config files
// of the project, and a file that fails to load is never quoted.
func TestOpenSessionConfigPath(t *testing.T) {
	e := newEnv(t, envOpts{config: oneTarget})
	outside := filepath.Join(t.TempDir(), "secret.json")
	const secret = "rOOt-S3cr3t-value"
	if err := os.WriteFile(outside, []byte(`{"targets":"`+secret+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"shadow.json": "root:$6$" + secret + ":19000:0:99999:7:::\n",
		"bad.json":    `{"targets":[{"name":"` + secret + ` x","engine":{"builtin":"web"}}]}`,
		".env":        "API_KEY=" + secret + "\n",
	} {
		if err := os.WriteFile(filepath.Join(e.dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ config, want string }{
		{"/etc/passwd", `POLICY_DENIED: "/etc/passwd" is outside the project root`},
		{"../" + filepath.Base(filepath.Dir(outside)) + "/secret.json", "POLICY_DENIED: "},
		{outside, "POLICY_DENIED: "},
		{"link.json", `POLICY_DENIED: "link.json" is outside the project root`},
		{".env", `POLICY_DENIED: ".env" is a hidden file`},
		{"shadow.json", "CONFIG_LOAD_FAILED: "},
		{"bad.json", "INVALID_CONFIG: "},
		{"missing.json", "CONFIG_NOT_FOUND: "},
	}
	for _, tt := range tests {
		t.Run(tt.config, func(t *testing.T) {
			text, isErr, _ := e.call("open_session", map[string]any{"config": tt.config})
			if !isErr || !strings.HasPrefix(text, tt.want) {
				t.Errorf("open_session {config: %q} = %v %q, want %q…", tt.config, isErr, text, tt.want)
			}
			if strings.Contains(text, secret) || strings.Contains(text, "'r'") || strings.Contains(text, "root:") {
				t.Errorf("the file's content is quoted: %q", text)
			}
		})
	}
	// The project's own config still opens by path.
	id, _ := e.open(map[string]any{"config": "e2e.config.json"})
	if _, isErr, _ := e.call("close_session", map[string]any{"session": id}); isErr {
		t.Error("close failed")
	}
	if strings.Contains(e.logs.String(), secret) {
		t.Error("a file's content reached the log")
	}
}
