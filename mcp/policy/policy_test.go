package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func code(err error) string {
	var pe *Error
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
		raw, base, want, code, msg string
	}{
		{raw: "https://other.example/", want: "https://other.example/"},
		{raw: "http://localhost:3000/x?y=1", want: "http://localhost:3000/x?y=1"},
		{raw: "about:blank", want: "about:blank"},
		{raw: "/path", base: "http://127.0.0.1:9/app/", want: "http://127.0.0.1:9/path"},
		{raw: "/path", code: CodeAppURLRequired},
		{raw: "javascript:alert(1)", code: CodePolicyDenied, msg: "forbidden URL scheme: javascript:"},
		{raw: "file:///etc/passwd", code: CodePolicyDenied, msg: "forbidden URL scheme: file:"},
		{raw: "data:text/html,x", code: CodePolicyDenied, msg: "forbidden URL scheme: data:"},
		{raw: "view-source:file:///x", code: CodePolicyDenied, msg: "forbidden URL scheme: view-source:"},
		{raw: "about:config", code: CodePolicyDenied},
		{raw: "http://", code: CodePolicyDenied},
		{raw: " http://x", code: CodePolicyDenied},
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
		code  string
	}{
		{"ok", []string{"a.txt"}, ""},
		{"inner symlink", []string{"inner.txt"}, ""},
		{"none", nil, CodeInvalidArgument},
		{"blank", []string{" "}, CodeInvalidArgument},
		{"too many", many, CodeInvalidArgument},
		{"escape", []string{"../outside"}, CodePolicyDenied},
		{"absolute", []string{filepath.Join(outside, "secret.txt")}, CodePolicyDenied},
		{"hidden file", []string{".env"}, CodePolicyDenied},
		{"hidden dir", []string{".git/config"}, CodePolicyDenied},
		{"symlink out", []string{"link.txt"}, CodePolicyDenied},
		{"missing", []string{"nope.txt"}, CodeInvalidArgument},
		{"directory", []string{"dir"}, CodeInvalidArgument},
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
