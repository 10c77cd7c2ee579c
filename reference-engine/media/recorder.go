package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// fps is the frame rate of the recording.
const fps = 25

// flushInterval is how often a frame that stays on screen is written out,
// so that Stop has at most this much video left to write.
const flushInterval = time.Second

// abortTimeout bounds the clean finish of a recording whose page context
// ended before Stop.
const abortTimeout = 5 * time.Second

// RecorderConfig configures a Recorder.
type RecorderConfig struct {
	// FFmpeg is the path of the ffmpeg binary (see FindFFmpeg).
	FFmpeg string
	// Path is the WebM file to write; it is created or truncated.
	Path string
	// Width and Height are the size of the video in pixels, normally the
	// viewport size in CSS pixels. Frames are scaled down to fit and padded
	// with black to this size. An odd size is rounded down to even (VP8
	// in yuv420p).
	Width, Height int
	// Logger receives diagnostics; nil discards them. Frame data is never
	// logged.
	Logger *slog.Logger
}

// Recorder records the screencast of one page to a VP8 WebM file through
// an ffmpeg child process. Create it with StartRecorder and end it with
// Stop. The ffmpeg child ends with Stop, with the page context, or with
// the parent process.
type Recorder struct {
	cfg       RecorderConfig
	log       *slog.Logger
	pageCtx   context.Context
	startedAt time.Time

	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stderr  *tailBuffer
	exited  chan struct{} // closed when cmd.Wait returned
	waitErr error         // set before exited is closed

	subCancel  context.CancelFunc // ends the frame subscription
	readerDone chan struct{}

	mu      sync.Mutex
	pending *frame        // newest frame not yet handed to the writer
	notify  chan struct{} // capacity 1: a frame is pending
	// counters, for diagnostics and tests
	received, dropped int

	finish     chan struct{} // closed to ask the writer to write the tail
	writerDone chan struct{}
	writeErr   error // set by the writer before writerDone is closed

	stopOnce sync.Once
	stopErr  error
	stopped  chan struct{} // closed when the recording is complete
	stopAsk  chan struct{} // closed when Stop is called
}

// frame is one JPEG image and the wall-clock time it appeared.
type frame struct {
	data []byte
	at   float64 // seconds since the Unix epoch
}

// StartRecorder starts recording the page of pageCtx, a chromedp context
// bound to one tab, into cfg.Path. ctx bounds the start only. The first
// frame is a screenshot taken at once, so that a page that never repaints
// still gives a valid video. The recording ends with Stop, or on its own
// (the file is still completed) when pageCtx ends.
func StartRecorder(ctx context.Context, pageCtx context.Context, cfg RecorderConfig) (*Recorder, error) {
	if cfg.FFmpeg == "" {
		return nil, errors.New("media: recorder needs the ffmpeg path")
	}
	if cfg.Path == "" {
		return nil, errors.New("media: recorder needs an output path")
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, fmt.Errorf("media: invalid video size %dx%d", cfg.Width, cfg.Height)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := pageCtx.Err(); err != nil {
		return nil, fmt.Errorf("media: page context already ended: %w", err)
	}
	r := &Recorder{
		cfg:        cfg,
		log:        log,
		pageCtx:    pageCtx,
		stderr:     &tailBuffer{max: 4096},
		exited:     make(chan struct{}),
		readerDone: make(chan struct{}),
		notify:     make(chan struct{}, 1),
		finish:     make(chan struct{}),
		writerDone: make(chan struct{}),
		stopped:    make(chan struct{}),
		stopAsk:    make(chan struct{}),
	}

	// Subscribe before the screencast starts, so that no frame is missed.
	subCtx, subCancel := context.WithCancel(pageCtx)
	r.subCancel = subCancel
	frames := chromedp.Events(subCtx, page.ScreencastFrame)

	opCtx, opCancel := bound(pageCtx, ctx)
	defer opCancel()

	// The first frame: a screenshot, so that a static page gives a video.
	var first *frame
	shot, err := chromedp.Call(opCtx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format:  page.CaptureScreenshotFormatJpeg,
		Quality: new(int64(90)),
	})
	if err != nil {
		log.Warn("video: first screenshot failed; the video starts with the first screencast frame", "err", err)
	} else {
		first = &frame{data: shot.Data}
	}

	if err := r.startFFmpeg(); err != nil {
		subCancel()
		return nil, err
	}

	r.startedAt = time.Now()
	if first != nil {
		first.at = epochSeconds(r.startedAt)
	}
	go r.writeLoop(first)

	_, err = chromedp.Call(opCtx, page.StartScreencast, page.StartScreencastParams{
		Format:        page.StartScreencastFormatJpeg,
		Quality:       new(int64(90)),
		MaxWidth:      int64(cfg.Width),
		MaxHeight:     int64(cfg.Height),
		EveryNthFrame: 1,
	})
	if err != nil {
		subCancel()
		close(r.readerDone)
		r.abort()
		_ = os.Remove(cfg.Path)
		return nil, fmt.Errorf("media: start screencast: %w", err)
	}
	go r.readLoop(subCtx, frames)
	go r.watch()
	log.Debug("video: recording started", "path", cfg.Path, "width", cfg.Width, "height", cfg.Height)
	return r, nil
}

// startFFmpeg starts the encoder child.
func (r *Recorder) startFFmpeg() error {
	// VP8 in yuv420p has even sizes: an odd size loses its last pixel.
	w, h := strconv.Itoa(evenSize(r.cfg.Width)), strconv.Itoa(evenSize(r.cfg.Height))
	// Scale a larger frame down to fit (aspect kept), pad with black, and
	// crop to the exact size (the scaler may round a size up by a pixel).
	vf := "scale=w='min(" + w + ",iw)':h='min(" + h + ",ih)':force_original_aspect_ratio=decrease," +
		"pad=w='max(" + w + ",iw)':h='max(" + h + ",ih)':x=0:y=0:color=black," +
		"crop=" + w + ":" + h + ":0:0"
	args := []string{
		"-loglevel", "error", "-nostdin",
		"-f", "image2pipe", "-avioflags", "direct", "-fpsprobesize", "0",
		"-probesize", "32", "-analyzeduration", "0", "-framerate", strconv.Itoa(fps),
		"-c:v", "mjpeg", "-i", "pipe:0",
		"-y", "-an", "-r", strconv.Itoa(fps),
		"-c:v", "vp8", "-qmin", "0", "-qmax", "50", "-crf", "8",
		"-deadline", "realtime", "-speed", "8", "-b:v", "1M", "-threads", "1",
		"-vf", vf, "-pix_fmt", "yuv420p",
		"-f", "webm", r.cfg.Path,
	}
	cmd := exec.Command(r.cfg.FFmpeg, args...)
	configureChild(cmd)
	cmd.Stdout = io.Discard
	cmd.Stderr = r.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("media: ffmpeg stdin: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("media: start ffmpeg %q: %w", r.cfg.FFmpeg, err)
	}
	r.cmd, r.stdin = cmd, stdin
	go func() {
		r.waitErr = cmd.Wait()
		close(r.exited)
	}()
	return nil
}

// readLoop takes the screencast frames, keeps the newest for the writer
// and acknowledges each one. It runs on its own goroutine (not in a
// listener), so it may call CDP. Chromium sends a bounded number of
// unacknowledged frames, and the writer's slot holds one, so memory stays
// bounded however slow ffmpeg is.
func (r *Recorder) readLoop(ctx context.Context, frames func(func(page.EventScreencastFrame, error) bool)) {
	defer close(r.readerDone)
	for ev, err := range frames {
		if err != nil {
			return
		}
		// The frame's swap time, unless it is far from this clock (a
		// browser on another machine): then the arrival time.
		at := epochSeconds(time.Now())
		if ev.Metadata != nil {
			if ts := float64(ev.Metadata.Timestamp); math.Abs(ts-at) < 2 {
				at = ts
			}
		}
		r.mu.Lock()
		if r.pending != nil {
			r.dropped++
		}
		r.pending = &frame{data: ev.Data, at: at}
		r.received++
		r.mu.Unlock()
		select {
		case r.notify <- struct{}{}:
		default:
		}
		if _, err := chromedp.Call(ctx, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: ev.SessionID}); err != nil {
			if ctx.Err() != nil {
				return
			}
			r.log.Debug("video: frame ack failed", "err", err)
		}
	}
}

// takePending returns the newest unwritten frame, or nil.
func (r *Recorder) takePending() *frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.pending
	r.pending = nil
	return f
}

// writeLoop feeds ffmpeg on a fixed 1/fps grid that starts at the first
// frame: output frame k shows the frame that was on screen at time k/fps.
// So each new frame writes the frame before it once per 1/fps second that
// it stayed on screen; a frame that Chromium replaced within the same
// grid step is skipped (a 60 Hz page would otherwise play 2.4 times too
// slow). A frame that stays longer than flushInterval is written out as
// time passes, so Stop has little left to write. On finish it writes the
// last frame up to now, at least once.
func (r *Recorder) writeLoop(first *frame) {
	defer close(r.writerDone)
	var (
		held       = first // the frame on screen
		heldWrites = 0     // how many times held was written
		origin     float64 // the time of output frame 0
		written    = 0     // output frames written so far
		failed     error   // first write error; later writes are skipped
	)
	if first != nil {
		origin = first.at
	}
	write := func(n int) {
		for ; n > 0 && failed == nil; n-- {
			if _, err := r.stdin.Write(held.data); err != nil {
				failed = err
			}
			written++
			heldWrites++
		}
	}
	// upTo writes held until the grid reaches time t.
	upTo := func(t float64, round func(float64) float64) {
		if held != nil {
			write(int(round((t-origin)*fps)) - written)
		}
	}
	next := func(f *frame) {
		if held == nil {
			origin = f.at
		} else {
			upTo(f.at, math.Round)
		}
		held, heldWrites = f, 0
	}
	tick := time.NewTicker(flushInterval)
	defer tick.Stop()
	for {
		select {
		case <-r.notify:
			if f := r.takePending(); f != nil {
				next(f)
			}
		case <-tick.C:
			upTo(epochSeconds(time.Now()), math.Floor)
		case <-r.finish:
			if f := r.takePending(); f != nil {
				next(f)
			}
			if held == nil {
				// Not even a screenshot: write one black frame so that the
				// file is a valid video.
				next(&frame{data: blackJPEG(r.cfg.Width, r.cfg.Height), at: epochSeconds(time.Now())})
			}
			upTo(epochSeconds(time.Now()), math.Round)
			if heldWrites == 0 {
				write(1)
			}
			r.writeErr = failed
			return
		}
	}
}

// watch finishes the recording on its own when the page context ends
// before Stop.
func (r *Recorder) watch() {
	select {
	case <-r.stopAsk:
	case <-r.pageCtx.Done():
		ctx, cancel := context.WithTimeout(context.Background(), abortTimeout)
		defer cancel()
		if _, err := r.Stop(ctx); err != nil {
			r.log.Warn("video: recording ended with its page", "err", err)
		}
	}
}

// Stop ends the recording: it stops the screencast, writes the last frame
// for the time it stayed on screen, closes ffmpeg's input and waits for
// ffmpeg to complete the file. When ctx ends first, ffmpeg is killed and
// the file may be incomplete. It returns the time the recording started.
// Stop may be called more than once; later calls wait for the first and
// return its result.
func (r *Recorder) Stop(ctx context.Context) (startedAt time.Time, err error) {
	r.stopOnce.Do(func() {
		close(r.stopAsk)
		r.stopErr = r.stop(ctx)
		close(r.stopped)
	})
	select {
	case <-r.stopped:
		return r.startedAt, r.stopErr
	case <-ctx.Done():
		return r.startedAt, ctx.Err()
	}
}

// stop runs the steps of Stop once.
func (r *Recorder) stop(ctx context.Context) error {
	if r.pageCtx.Err() == nil {
		cctx, cancel := bound(r.pageCtx, ctx)
		if _, err := chromedp.Call(cctx, page.StopScreencast, cdp.Empty{}); err != nil && r.pageCtx.Err() == nil {
			r.log.Debug("video: stop screencast failed", "err", err)
		}
		cancel()
	}
	r.subCancel()
	<-r.readerDone

	close(r.finish)
	var errs []error
	select {
	case <-r.writerDone:
	case <-ctx.Done():
		killChild(r.cmd) // unblocks a write to a stuck ffmpeg
		<-r.writerDone
		errs = append(errs, fmt.Errorf("media: writing the last frames: %w", ctx.Err()))
	}
	if r.writeErr != nil {
		errs = append(errs, fmt.Errorf("media: write to ffmpeg: %w", r.writeErr))
	}
	_ = r.stdin.Close()
	select {
	case <-r.exited:
	case <-ctx.Done():
		killChild(r.cmd)
		<-r.exited
		errs = append(errs, fmt.Errorf("media: waiting for ffmpeg: %w", ctx.Err()))
	}
	if r.waitErr != nil {
		errs = append(errs, fmt.Errorf("media: ffmpeg: %w%s", r.waitErr, r.stderr.suffix()))
	}
	r.mu.Lock()
	received, dropped := r.received, r.dropped
	r.mu.Unlock()
	r.log.Debug("video: recording stopped", "path", r.cfg.Path, "frames", received, "coalesced", dropped)
	return errors.Join(errs...)
}

// abort kills ffmpeg and waits for the writer, for a failed start.
func (r *Recorder) abort() {
	killChild(r.cmd)
	close(r.finish)
	<-r.writerDone
	_ = r.stdin.Close()
	<-r.exited
	close(r.stopAsk)
	close(r.stopped)
}

// bound returns a context that carries pageCtx's values and ends when
// either pageCtx or op ends.
func bound(pageCtx, op context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(pageCtx)
	stop := context.AfterFunc(op, cancel)
	return ctx, func() { stop(); cancel() }
}

// evenSize rounds n down to an even number, at least 2.
func evenSize(n int) int {
	return max(2, n&^1)
}

// epochSeconds returns t as seconds since the Unix epoch.
func epochSeconds(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}

// blackJPEG returns a black JPEG image of w x h pixels.
func blackJPEG(w, h int) []byte {
	img := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.Black), image.Point{}, draw.Src)
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 50})
	return buf.Bytes()
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write keeps the tail of p.
func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append([]byte(nil), b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

// suffix returns ": <stderr>" or "" when ffmpeg wrote nothing.
func (b *tailBuffer) suffix() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := string(bytes.TrimSpace(b.buf))
	if s == "" {
		return ""
	}
	return ": " + s
}
