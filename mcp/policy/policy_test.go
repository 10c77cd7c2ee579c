package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
)

func code(err error) mcperr.Code {
	var pe *mcperr.Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	if err != nil {
		return "other"
	}
	return ""
}

func TestResolveURL(t *testing.T) {
	tests := []struct {
		raw, base, want, msg string
		code                 mcperr.Code
	}{
		{raw: "https://other.example/", want: "https://other.example/"},
		{raw: "http://localhost:3000/x?y=1", want: "http://localhost:3000/x?y=1"},
		{raw: "about:blank", want: "about:blank"},
		{raw: "/path", base: "http://127.0.0.1:9/app/", want: "http://127.0.0.1:9/path"},
		{raw: "/path", code: mcperr.AppURLRequired},
		{raw: "javascript:alert(1)", code: mcperr.PolicyDenied, msg: "forbidden URL scheme: javascript:"},
		{raw: "file:///etc/passwd", code: mcperr.PolicyDenied, msg: "forbidden URL scheme: file:"},
		{raw: "data:text/html,x", code: mcperr.PolicyDenied, msg: "forbidden URL scheme: data:"},
		{raw: "view-source:file:///x", code: mcperr.PolicyDenied, msg: "forbidden URL scheme: view-source:"},
		{raw: "about:config", code: mcperr.PolicyDenied},
		{raw: "http://", code: mcperr.PolicyDenied},
		{raw: " http://x", code: mcperr.PolicyDenied},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := ResolveURL(tt.raw, tt.base)
			if code(err) != tt.code {
				t.Fatalf("ResolveURL(%q) error %v, want code %q", tt.raw, err, tt.code)
			}
			if got != tt.want {
				t.Errorf("ResolveURL(%q) = %q, want %q", tt.raw, got, tt.want)
			}
			if tt.msg != "" && !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q lacks %q", err, tt.msg)
			}
		})
	}
}

func TestUploadPaths(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644))
	must(os.WriteFile(filepath.Join(root, ".env"), []byte("x"), 0o644))
	must(os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	must(os.WriteFile(filepath.Join(root, ".git", "config"), []byte("x"), 0o644))
	must(os.MkdirAll(filepath.Join(root, "dir"), 0o755))
	must(os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("x"), 0o644))
	must(os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")))
	must(os.Symlink(filepath.Join(root, "a.txt"), filepath.Join(root, "inner.txt")))
	many := make([]string, MaxUploadFiles+1)
	for i := range many {
		many[i] = "a.txt"
	}
	tests := []struct {
		name  string
		files []string
		code  mcperr.Code
	}{
		{"ok", []string{"a.txt"}, ""},
		{"inner symlink", []string{"inner.txt"}, ""},
		{"none", nil, mcperr.InvalidArgument},
		{"blank", []string{" "}, mcperr.InvalidArgument},
		{"too many", many, mcperr.InvalidArgument},
		{"escape", []string{"../outside"}, mcperr.PolicyDenied},
		{"absolute", []string{filepath.Join(outside, "secret.txt")}, mcperr.PolicyDenied},
		{"hidden file", []string{".env"}, mcperr.PolicyDenied},
		{"hidden dir", []string{".git/config"}, mcperr.PolicyDenied},
		{"symlink out", []string{"link.txt"}, mcperr.PolicyDenied},
		{"missing", []string{"nope.txt"}, mcperr.InvalidArgument},
		{"directory", []string{"dir"}, mcperr.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := UploadPaths(root, tt.files)
			if code(err) != tt.code {
				t.Fatalf("UploadPaths(%v) error %v, want code %q", tt.files, err, tt.code)
			}
			if err == nil && (len(got) != len(tt.files) || !filepath.IsAbs(got[0])) {
				t.Errorf("paths %v", got)
			}
		})
	}
}

func TestConfigPath(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	outsideDir := filepath.Join(base, "elsewhere")
	for _, d := range []string{filepath.Join(root, ".git"), filepath.Join(root, "sub", ".hidden"), outsideDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "e2e.config.json"))
	write(filepath.Join(root, "sub", "other.json"))
	write(filepath.Join(root, ".env"))
	write(filepath.Join(root, "sub", ".hidden", "e2e.config.json"))
	write(filepath.Join(outsideDir, "secret.json"))
	for link, target := range map[string]string{
		"out.json":  filepath.Join(outsideDir, "secret.json"),
		"outdir":    outsideDir,
		"in.json":   filepath.Join(root, "sub", "other.json"),
		"shadow":    "/etc/shadow",
		"dangling":  filepath.Join(outsideDir, "missing.json"),
		"sneak.cfg": filepath.Join(root, ".env"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	sub := filepath.Join(root, "sub")
	if got := ProjectRoot(sub); got != root {
		t.Fatalf("ProjectRoot(%s) = %s, want %s", sub, got, root)
	}
	tests := []struct {
		name, cwd, p string
		code         mcperr.Code
		want         string // the path returned ("" only checks the code)
	}{
		{"in the root", root, "e2e.config.json", "", filepath.Join(root, "e2e.config.json")},
		{"from a subdirectory up to the root", sub, "../e2e.config.json", "", filepath.Join(root, "e2e.config.json")},
		{"absolute inside", root, filepath.Join(root, "sub", "other.json"), "", filepath.Join(root, "sub", "other.json")},
		{"symlink inside", root, "in.json", "", filepath.Join(root, "sub", "other.json")},
		{"missing inside is the loader's", root, "nope.json", "", filepath.Join(root, "nope.json")},
		{"dot dot out", root, "../elsewhere/secret.json", mcperr.PolicyDenied, ""},
		{"dot dot through a subdirectory", sub, "../../elsewhere/secret.json", mcperr.PolicyDenied, ""},
		{"absolute outside", root, "/etc/passwd", mcperr.PolicyDenied, ""},
		{"symlink out", root, "out.json", mcperr.PolicyDenied, ""},
		{"symlinked directory out", root, "outdir/secret.json", mcperr.PolicyDenied, ""},
		{"symlink to /etc/shadow", root, "shadow", mcperr.PolicyDenied, ""},
		{"hidden file", root, ".env", mcperr.PolicyDenied, ""},
		{"hidden directory", root, "sub/.hidden/e2e.config.json", mcperr.PolicyDenied, ""},
		{"symlink to a hidden file", root, "sneak.cfg", mcperr.PolicyDenied, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ConfigPath(root, tt.cwd, tt.p)
			if code(err) != tt.code {
				t.Fatalf("ConfigPath(%q) = %q, %v; want code %q", tt.p, got, err, tt.code)
			}
			if tt.want != "" {
				want, _ := filepath.EvalSymlinks(filepath.Dir(tt.want))
				if want = filepath.Join(want, filepath.Base(tt.want)); got != want && got != tt.want {
					t.Errorf("ConfigPath(%q) = %q, want %q", tt.p, got, want)
				}
			}
			if err != nil && !strings.Contains(err.Error(), tt.p) {
				t.Errorf("message does not name the path: %v", err)
			}
		})
	}
	// The dangling symlink resolves nowhere: the loader reports it missing
	// only if it is inside; here it points outside, and must not load.
	if got, err := ConfigPath(root, root, "dangling"); err == nil && got != filepath.Join(root, "dangling") {
		t.Errorf("dangling: %q", got)
	}
}

// TestNavigateArg: navigate takes an absolute URL or a path; anything else
// is INVALID_ARGUMENT before it could open a 404 page under the app URL
// (issue 29).
func TestNavigateArg(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://app.test/x": true, "http://localhost:3000": true, "about:blank": true, "file:///etc/passwd": true,
		"/form": true, "./a": true, "../b": true, "?q=1": true, "#top": true,
		"not a url": false, "form": false, "example.com": false, "//evil.test/x": false, "/a b": false, "": false,
	} {
		err := NavigateArg(raw)
		if ok != (err == nil) {
			t.Errorf("NavigateArg(%q) = %v, want ok %v", raw, err, ok)
		}
		if err != nil && !errors.Is(err, mcperr.InvalidArgument) {
			t.Errorf("NavigateArg(%q) = %v, want INVALID_ARGUMENT", raw, err)
		}
	}
}
