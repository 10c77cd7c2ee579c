package media

import (
	"errors"
	"fmt"
	"os/exec"
)

// FindFFmpeg returns the path of the ffmpeg binary. A non-empty path must
// name an executable file (or a command found in $PATH); an empty path
// looks up "ffmpeg" in $PATH. The error says what is missing and where it
// was looked for.
func FindFFmpeg(path string) (string, error) {
	name := path
	if name == "" {
		name = "ffmpeg"
	}
	found, err := exec.LookPath(name)
	if err != nil {
		if path == "" {
			return "", fmt.Errorf("ffmpeg not found in $PATH (video recording needs it; install ffmpeg or set its path): %w", err)
		}
		if errors.Is(err, exec.ErrDot) {
			return "", fmt.Errorf("ffmpeg path %q resolves relative to the current directory; give an absolute path: %w", path, err)
		}
		return "", fmt.Errorf("ffmpeg not found at %q (not an executable file): %w", path, err)
	}
	return found, nil
}
