// Package policy holds the MCP host's security checks on agent input (spec
// mcp.md §6.4, §6.5): which URLs navigate may open, which files upload
// may send, and which config file open_session may read.
package policy

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/e2e-conform/toolkit/mcp/mcperr"
)

// MaxUploadFiles is the most files one upload call may send (decision 10).
const MaxUploadFiles = 64

func deny(format string, args ...any) error { return mcperr.New(mcperr.PolicyDenied, format, args...) }

func invalid(format string, args ...any) error {
	return mcperr.New(mcperr.InvalidArgument, format, args...)
}

// ResolveURL resolves raw against base (which may be "") and checks the
// navigation policy: only http:, https: and the exact about:blank pass. A
// relative URL without a base is APP_URL_REQUIRED; a malformed URL or
// another scheme is POLICY_DENIED. Nothing is repaired.
func ResolveURL(raw, base string) (string, error) {
	if raw == "about:blank" {
		return raw, nil
	}
	if strings.TrimSpace(raw) != raw || raw == "" || strings.ContainsAny(raw, "\x00\r\n\t") {
		return "", deny("malformed URL: %q", raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", deny("malformed URL: %q", raw)
	}
	if u.Scheme == "" {
		if strings.HasPrefix(raw, "//") {
			return "", deny("malformed URL: %q", raw)
		}
		if base == "" {
			return "", &mcperr.Error{Code: mcperr.AppURLRequired, Message: fmt.Sprintf("%q is relative and the target has no app URL", raw)}
		}
		b, err := url.Parse(base)
		if err != nil {
			return "", deny("malformed base URL: %q", base)
		}
		u = b.ResolveReference(u)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return "", deny("malformed URL: %q", raw)
		}
		return u.String(), nil
	default:
		return "", deny("forbidden URL scheme: %s:", strings.ToLower(u.Scheme))
	}
}

// NavigateArg checks what an agent gave navigate before it is resolved: an
// absolute URL (any scheme: ResolveURL's policy refuses the ones it does not
// open), or a path — starting with "/", "./", "../", "?" or "#" — without
// whitespace. Anything else ("not a url", "example.com") is
// INVALID_ARGUMENT rather than a path under the app URL that opens a 404
// page.
func NavigateArg(raw string) error {
	if raw == "about:blank" {
		return nil
	}
	ok := false
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" {
		ok = true
	}
	for _, p := range []string{"/", "./", "../", "?", "#"} {
		if strings.HasPrefix(raw, p) && !strings.HasPrefix(raw, "//") {
			ok = true
		}
	}
	if !ok {
		return invalid("navigate: %q is neither an absolute http(s) URL (https://host/…) nor a path (/…, ./…, ?…)", raw)
	}
	if strings.ContainsAny(raw, " \t\r\n\x00") {
		return invalid("navigate: %q contains whitespace: percent-encode it (%%20)", raw)
	}
	return nil
}

// UploadPaths checks the files of one upload call against the project root
// (spec §6.5) and returns their absolute paths. Refused: more than
// MaxUploadFiles, blank or absolute paths, paths that leave the root
// (also through a symlink), hidden files or directories, missing files and
// anything that is not a regular file.
func UploadPaths(root string, files []string) ([]string, error) {
	if len(files) == 0 {
		return nil, invalid("upload requires one or more non-empty project-relative file paths")
	}
	if len(files) > MaxUploadFiles {
		return nil, invalid("upload takes at most %d files at once", MaxUploadFiles)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("project root %q: %w", root, err)
	}
	out := make([]string, 0, len(files))
	for _, p := range files {
		abs, err := uploadPath(root, realRoot, p)
		if err != nil {
			return nil, err
		}
		out = append(out, abs)
	}
	return out, nil
}

func uploadPath(root, realRoot, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", invalid("upload requires one or more non-empty project-relative file paths")
	}
	if filepath.IsAbs(p) {
		return "", deny("%q is outside the project root; only files inside the project can be uploaded", p)
	}
	joined := filepath.Join(root, p)
	if !inside(root, joined) {
		return "", deny("%q is outside the project root; only files inside the project can be uploaded", p)
	}
	if hidden(filepath.Clean(p)) {
		return "", deny("%q is a hidden file or sits under a hidden directory; those are never uploaded", p)
	}
	real, err := filepath.EvalSymlinks(joined)
	if errors.Is(err, os.ErrNotExist) {
		return "", invalid("no file at %q under the project root", p)
	}
	if err != nil {
		return "", invalid("%q cannot be read: %v", p, err)
	}
	if !inside(realRoot, real) {
		return "", deny("%q is outside the project root; only files inside the project can be uploaded", p)
	}
	rel, _ := filepath.Rel(realRoot, real)
	if hidden(rel) {
		return "", deny("%q is a hidden file or sits under a hidden directory; those are never uploaded", p)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", invalid("no file at %q under the project root", p)
	}
	if !fi.Mode().IsRegular() {
		return "", invalid("%q is not a regular file", p)
	}
	return real, nil
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func hidden(rel string) bool {
	for _, seg := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(seg, ".") && seg != "." && seg != ".." {
			return true
		}
	}
	return false
}

// ProjectRoot is the project root of a server started in cwd: the nearest
// directory from cwd upward that holds .git (the repository root), else cwd
// itself.
func ProjectRoot(cwd string) string {
	d := filepath.Clean(cwd)
	for {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return filepath.Clean(cwd)
		}
		d = parent
	}
}

// ConfigPath checks the config path an agent passed to open_session:
// relative to cwd (or absolute), it must stay inside root once `..` and
// every symlink are resolved, and be neither hidden nor under a hidden
// directory (`.env`, `.git/…`), else POLICY_DENIED: the agent cannot make
// the host read an arbitrary file. It returns the path to load, resolved;
// a path that does not exist is returned as given, for the loader to
// report.
func ConfigPath(root, cwd, p string) (string, error) {
	outside := func() error {
		return deny("%q is outside the project root %s; open_session reads only config files inside the project", p, root)
	}
	joined := p
	if !filepath.IsAbs(joined) {
		joined = filepath.Join(cwd, joined)
	}
	joined = filepath.Clean(joined)
	if !inside(root, joined) {
		return "", outside()
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("project root %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(joined)
	if errors.Is(err, os.ErrNotExist) {
		return joined, nil
	}
	if err != nil {
		return "", deny("%q cannot be resolved inside the project root: %v", p, err)
	}
	if !inside(realRoot, real) {
		return "", outside()
	}
	if rel, _ := filepath.Rel(realRoot, real); hidden(rel) {
		return "", deny("%q is a hidden file or sits under a hidden directory; open_session reads no config from there", p)
	}
	return real, nil
}
