package webengine

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
	"github.com/e2e-conform/toolkit/reference-engine/media"
)

// label is a screenshot label as a file name part: [^A-Za-z0-9._-] → _,
// at most 64 bytes, "screenshot" when absent or empty.
func label(l *string) string {
	if l == nil {
		return "screenshot"
	}
	var b strings.Builder
	for _, r := range *l {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 64 {
			break
		}
	}
	s := strings.Trim(b.String(), ".")
	if s == "" {
		return "screenshot"
	}
	return s
}

// artifactsDir returns the attempt's artifacts directory when the engine
// can write there ("" otherwise).
func artifactsDir(a *server.Attempt) string {
	if a == nil || a.ArtifactsDir == "" || !filepath.IsAbs(a.ArtifactsDir) {
		return ""
	}
	return a.ArtifactsDir
}

// writeArtifact writes data at rel under dir.
func writeArtifact(dir, rel string, data []byte) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// Screenshot implements server.Screenshotter: a PNG of the viewport with
// every secure field painted black, written as screenshots/NNN-label.png
// under the attempt's artifacts directory, or returned as data when there
// is none.
//
// Implements: ART-001, ART-002, ART-003, ART-006.
func (e *Engine) Screenshot(ctx context.Context, op server.Operation, l *string) (*wire.ScreenshotResult, error) {
	t, cctx, done, err := e.begin(ctx, op)
	if err != nil {
		return nil, err
	}
	defer done()
	data, _, err := e.maskedPNG(cctx, t)
	if err != nil {
		return nil, classify(ctx, cctx, "artifacts/screenshot", false, err)
	}
	s := t.s
	s.mu.Lock()
	s.shots++
	n := s.shots
	s.mu.Unlock()
	if dir := artifactsDir(op.Attempt); dir != "" {
		rel := fmt.Sprintf("screenshots/%03d-%s.png", n, label(l))
		if err := writeArtifact(dir, rel, data); err == nil {
			return &wire.ScreenshotResult{Path: rel}, nil
		}
	}
	return &wire.ScreenshotResult{Data: base64.StdEncoding.EncodeToString(data), MediaType: "image/png"}, nil
}

// video is a session's recording: one segment per page.
type video struct {
	s    *session
	dir  string // "" when there is nowhere to write: nothing is recorded
	rec  *media.Recorder
	rel  string
	segs []wire.VideoSegment
}

// segmentName is the n-th segment's path (1-based): video/video.webm,
// video/video-part2.webm, ...
func segmentName(n int) string {
	if n <= 1 {
		return "video/video.webm"
	}
	return fmt.Sprintf("video/video-part%d.webm", n)
}

// startSegment records the session's current page. s.mu is held.
func (v *video) startSegment(ctx context.Context, t *tab) error {
	if v.dir == "" {
		return nil
	}
	v.s.segments++
	rel := segmentName(v.s.segments)
	p := filepath.Join(v.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return engineerr.New(engineerr.EngineFailure, "artifacts/startVideo: %v", err)
	}
	rec, err := media.StartRecorder(ctx, t.ctx, media.RecorderConfig{
		FFmpeg: v.s.e.ffmpeg, Path: p, Width: v.s.e.opts.Width, Height: v.s.e.opts.Height, Logger: v.s.e.log})
	if err != nil {
		return engineerr.New(engineerr.EngineFailure, "artifacts/startVideo: %v", err)
	}
	v.rec, v.rel = rec, rel
	return nil
}

// endSegment finishes the current segment (before its page closes).
func (v *video) endSegment(ctx context.Context) {
	if v.rec == nil {
		return
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	started, err := v.rec.Stop(sctx)
	if err != nil {
		v.s.e.log.Warn("a video segment could not be finished", "segment", v.rel, "error", err)
	} else {
		v.segs = append(v.segs, wire.VideoSegment{Path: v.rel, StartedAt: started.UTC().Format("2006-01-02T15:04:05.000Z")})
	}
	v.rec, v.rel = nil, ""
}

// resumeVideo starts a new segment on the session's new page while a
// recording runs. s.mu is held.
func (s *session) resumeVideo(ctx context.Context) error {
	if s.video == nil || s.tab == nil {
		return nil
	}
	return s.video.startSegment(ctx, s.tab)
}

// StartVideo implements server.VideoRecorder: recording starts on the
// current page (about:blank when none is open); restart and reset start a
// new segment. A second start while recording is a no-op.
//
// Implements: ART-004.
func (v VideoEngine) StartVideo(ctx context.Context, op server.Operation) error {
	t, cctx, done, err := v.begin(ctx, op)
	if err != nil {
		return err
	}
	defer done()
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.video != nil {
		return nil
	}
	vid := &video{s: s, dir: artifactsDir(op.Attempt)}
	if err := vid.startSegment(cctx, t); err != nil {
		return err
	}
	s.video = vid
	return nil
}

// StopVideo implements server.VideoRecorder: the recording's segments ([]
// when nothing was recorded).
//
// Implements: ART-004, ART-005.
func (v VideoEngine) StopVideo(ctx context.Context, op server.Operation) ([]wire.VideoSegment, error) {
	s, err := v.session(ctx, op.Attempt)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	vid := s.video
	s.video = nil
	if vid == nil {
		return []wire.VideoSegment{}, nil
	}
	vid.endSegment(ctx)
	if vid.segs == nil {
		return []wire.VideoSegment{}, nil
	}
	return vid.segs, nil
}
