package media

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/e2e-conform/toolkit/internal/chromium"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.uber.org/goleak"
)

// browserCtx is the one browser of this test binary, set by TestMain.
var browserCtx context.Context

func TestMain(m *testing.M) {
	if os.Getenv("MEDIA_TEST_ORPHAN") != "" {
		orphanHelper()
		return
	}
	bctx, stop, err := chromium.Start(chromium.DefaultPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	browserCtx = bctx
	code := m.Run()
	stop()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// testPNG returns a w x h opaque PNG where no pixel is black.
func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(10 + x%200), uint8(10 + y%200), 200, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestPNGSize(t *testing.T) {
	good := testPNG(t, 37, 11)
	tests := []struct {
		name    string
		data    []byte
		w, h    int
		wantErr string
	}{
		{"ok", good, 37, 11, ""},
		{"empty", nil, 0, 0, "too short"},
		{"short", good[:20], 0, 0, "too short"},
		{"not png", append([]byte("GIF89a.................."), good[24:]...), 0, 0, "signature"},
		{"no ihdr", func() []byte { b := bytes.Clone(good); copy(b[12:16], "IDAT"); return b }(), 0, 0, "IHDR"},
		{"zero width", func() []byte { b := bytes.Clone(good); copy(b[16:20], []byte{0, 0, 0, 0}); return b }(), 0, 0, "invalid dimensions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h, err := PNGSize(tt.data)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || w != tt.w || h != tt.h {
				t.Fatalf("PNGSize = %d, %d, %v; want %d, %d", w, h, err, tt.w, tt.h)
			}
		})
	}
}

func TestMaskPNG(t *testing.T) {
	const W, H = 40, 30
	src := testPNG(t, W, H)
	orig, _ := png.Decode(bytes.NewReader(src))
	tests := []struct {
		name      string
		rects     []Rect
		scale     float64
		black     image.Rectangle // pixels expected black (may be empty)
		unchanged bool            // output must be the same bytes
	}{
		{name: "no rects", unchanged: true, scale: 1},
		{name: "one rect", rects: []Rect{{5, 6, 10, 4}}, scale: 1, black: image.Rect(5, 6, 15, 10)},
		{name: "fractional widens", rects: []Rect{{5.5, 6.2, 2, 2}}, scale: 1, black: image.Rect(5, 6, 8, 9)},
		{name: "clipped", rects: []Rect{{-5, -5, 10, 8}}, scale: 1, black: image.Rect(0, 0, 5, 3)},
		{name: "clipped far edge", rects: []Rect{{35, 25, 100, 100}}, scale: 1, black: image.Rect(35, 25, 40, 30)},
		{name: "outside", rects: []Rect{{100, 100, 5, 5}}, scale: 1, unchanged: true},
		{name: "empty rect", rects: []Rect{{5, 5, 0, 5}, {5, 5, -3, 5}}, scale: 1, unchanged: true},
		{name: "scale 2", rects: []Rect{{2, 3, 4, 5}}, scale: 2, black: image.Rect(4, 6, 12, 16)},
		{name: "scale 0 means 1", rects: []Rect{{2, 3, 4, 5}}, scale: 0, black: image.Rect(2, 3, 6, 8)},
		{name: "whole", rects: []Rect{{0, 0, W, H}}, scale: 1, black: image.Rect(0, 0, W, H)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := MaskPNG(src, tt.rects, tt.scale)
			if err != nil {
				t.Fatal(err)
			}
			if tt.unchanged {
				if !bytes.Equal(out, src) {
					t.Fatal("output differs from input")
				}
				return
			}
			img, err := png.Decode(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			if img.Bounds() != orig.Bounds() {
				t.Fatalf("bounds %v, want %v", img.Bounds(), orig.Bounds())
			}
			for y := 0; y < H; y++ {
				for x := 0; x < W; x++ {
					got := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
					want := color.NRGBAModel.Convert(orig.At(x, y)).(color.NRGBA)
					if image.Pt(x, y).In(tt.black) {
						want = color.NRGBA{A: 255}
					}
					if got != want {
						t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, got, want)
					}
				}
			}
		})
	}
	t.Run("paletted input", func(t *testing.T) {
		p := image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.White, color.NRGBA{255, 0, 0, 255}})
		var buf bytes.Buffer
		if err := png.Encode(&buf, p); err != nil {
			t.Fatal(err)
		}
		out, err := MaskPNG(buf.Bytes(), []Rect{{0, 0, 2, 2}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		img, _ := png.Decode(bytes.NewReader(out))
		r, g, b, a := img.At(1, 1).RGBA()
		if r|g|b != 0 || a != 0xffff {
			t.Fatalf("masked pixel = %v", img.At(1, 1))
		}
		if r, _, _, _ := img.At(3, 3).RGBA(); r != 0xffff {
			t.Fatalf("outside pixel = %v", img.At(3, 3))
		}
	})
	t.Run("bad png", func(t *testing.T) {
		if _, err := MaskPNG([]byte("nope"), []Rect{{0, 0, 1, 1}}, 1); err == nil {
			t.Fatal("no error")
		}
	})
}

func TestFindFFmpeg(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Fatal("no ffmpeg in $PATH (make browser installs it)")
	}
	p, err := FindFFmpeg("")
	if err != nil || p == "" {
		t.Fatalf("FindFFmpeg(\"\") = %q, %v", p, err)
	}
	if p2, err := FindFFmpeg(p); err != nil || p2 != p {
		t.Fatalf("FindFFmpeg(%q) = %q, %v", p, p2, err)
	}
	_, err = FindFFmpeg("/nonexistent/dir/ffmpeg")
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/dir/ffmpeg") {
		t.Fatalf("missing path: err = %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err = FindFFmpeg("")
	if err == nil || !strings.Contains(err.Error(), "$PATH") {
		t.Fatalf("empty PATH: err = %v", err)
	}
}

// newPage opens a tab with a w x h viewport showing html.
func newPage(t *testing.T, w, h int, html string) (context.Context, context.CancelFunc) {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx)
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(int64(w), int64(h)),
		chromedp.Navigate("data:text/html,"+url.PathEscape(html)),
	); err != nil {
		cancel()
		t.Fatal(err)
	}
	return ctx, cancel
}

// ffmpegPath returns ffmpeg's path or skips the test.
func ffmpegPath(t *testing.T) string {
	t.Helper()
	p, err := FindFFmpeg("")
	if err != nil {
		t.Fatalf("%v (make browser installs ffmpeg)", err)
	}
	return p
}

type probe struct {
	Streams []struct {
		CodecName string `json:"codec_name"`
		Width     int    `json:"width"`
		Height    int    `json:"height"`
	} `json:"streams"`
	Format struct {
		Duration string `json:"duration"`
	} `json:"format"`
}

// checkWebM checks the EBML magic and probes the file; it returns the
// duration in seconds.
func checkWebM(t *testing.T, path string, w, h int) float64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 4 || !bytes.Equal(data[:4], []byte{0x1a, 0x45, 0xdf, 0xa3}) {
		t.Fatalf("file does not start with the EBML magic: % x", data[:min(4, len(data))])
	}
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height:format=duration", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var p probe
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("ffprobe output %s: %v", out, err)
	}
	if len(p.Streams) != 1 || p.Streams[0].CodecName != "vp8" || p.Streams[0].Width != w || p.Streams[0].Height != h {
		t.Fatalf("ffprobe: %s; want one vp8 stream %dx%d", out, w, h)
	}
	d, err := strconv.ParseFloat(p.Format.Duration, 64)
	if err != nil {
		t.Fatalf("duration %q: %v", p.Format.Duration, err)
	}
	return d
}

// processGone reports whether pid no longer exists (it was reaped).
func processGone(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return os.IsNotExist(err)
}

// ffmpegChildren returns the pids of the ffmpeg children of this process.
func ffmpegChildren(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		comm := s[strings.IndexByte(s, '(')+1 : i]
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == self && strings.HasPrefix(comm, "ffmpeg") {
			pids = append(pids, pid)
		}
	}
	return pids
}

const animatedPage = `<!doctype html><html><body style="margin:0">
<div id="box" style="width:100vw;height:100vh"></div>
<script>
window.ticks = 0;
function step(t) {
  window.ticks++;
  document.getElementById('box').style.background = 'hsl(' + Math.floor(t / 4) % 360 + ',80%,50%)';
  requestAnimationFrame(step);
}
requestAnimationFrame(step);
</script></body></html>`

func TestRecordAnimation(t *testing.T) {
	ff := ffmpegPath(t)
	const W, H = 640, 360
	pctx, pcancel := newPage(t, W, H, animatedPage)
	defer pcancel()
	if _, err := chromedp.Run(pctx, chromedp.Poll[bool](`window.ticks > 3`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("animation did not start: %v", err)
	}
	path := filepath.Join(t.TempDir(), "video.webm")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before := time.Now()
	r, err := StartRecorder(ctx, pctx, RecorderConfig{FFmpeg: ff, Path: path, Width: W, Height: H})
	if err != nil {
		t.Fatal(err)
	}
	pid := r.cmd.Process.Pid
	// Wait until frames flow and about one second is recorded.
	deadline := time.Now().Add(15 * time.Second)
	for {
		r.mu.Lock()
		n := r.received
		r.mu.Unlock()
		if n >= 10 && time.Since(r.startedAt) >= time.Second {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d screencast frames after 15 s", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	started, err := r.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if started.Before(before) || started.After(time.Now()) {
		t.Fatalf("startedAt %v outside the recording", started)
	}
	if !processGone(pid) {
		t.Fatalf("ffmpeg %d survives Stop", pid)
	}
	d := checkWebM(t, path, W, H)
	if d < 0.8 || d > 2.5 {
		t.Fatalf("duration %.2f s, want about 1 s", d)
	}
	colours := frameColours(t, path)
	distinct := map[[3]byte]bool{}
	for _, c := range colours {
		distinct[c] = true
	}
	if len(distinct) < 3 {
		t.Fatalf("%d frames with only %d distinct mean colours: the animation is not in the video", len(colours), len(distinct))
	}
	r.mu.Lock()
	t.Logf("frames received %d, coalesced %d, duration %.2f s", r.received, r.dropped, d)
	r.mu.Unlock()
	// A second Stop returns the same result.
	if _, err := r.Stop(ctx); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

func TestRecordStaticPage(t *testing.T) {
	ff := ffmpegPath(t)
	const W, H = 320, 240
	pctx, pcancel := newPage(t, W, H, `<body style="background:#123456">static</body>`)
	defer pcancel()
	path := filepath.Join(t.TempDir(), "static.webm")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := StartRecorder(ctx, pctx, RecorderConfig{FFmpeg: ff, Path: path, Width: W, Height: H})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	checkWebM(t, path, W, H)
	// The first frame (the screenshot) shows the page's colour #123456.
	for i, c := range frameColours(t, path) {
		if absDiff(c[0], 0x12) > 12 || absDiff(c[1], 0x34) > 12 || absDiff(c[2], 0x56) > 12 {
			t.Fatalf("frame %d mean colour %v, want about #123456", i, c)
		}
	}
}

func absDiff(a, b byte) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// frameColours decodes the video and returns the mean colour of each frame.
func frameColours(t *testing.T, path string) [][3]byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-vf", "scale=1:1:flags=area", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	var cs [][3]byte
	for i := 0; i+3 <= len(out); i += 3 {
		cs = append(cs, [3]byte{out[i], out[i+1], out[i+2]})
	}
	if len(cs) == 0 {
		t.Fatal("no frame decoded")
	}
	return cs
}

func TestRecorderEndsWithPageContext(t *testing.T) {
	ff := ffmpegPath(t)
	const W, H = 320, 240
	pctx, pcancel := newPage(t, W, H, animatedPage)
	defer pcancel()
	path := filepath.Join(t.TempDir(), "cancel.webm")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := StartRecorder(ctx, pctx, RecorderConfig{FFmpeg: ff, Path: path, Width: W, Height: H})
	if err != nil {
		t.Fatal(err)
	}
	pid := r.cmd.Process.Pid
	pcancel()
	select {
	case <-r.stopped:
	case <-time.After(15 * time.Second):
		t.Fatal("recording did not end with its page context")
	}
	if !processGone(pid) {
		t.Fatalf("ffmpeg %d survives the page context", pid)
	}
	if _, err := r.Stop(ctx); err != nil {
		t.Logf("Stop after the page ended: %v", err)
	}
	checkWebM(t, path, W, H)
}

func TestRecorderNoFrameAtAll(t *testing.T) {
	// The writer alone, with no screenshot and no frame: still a valid file.
	ff := ffmpegPath(t)
	path := filepath.Join(t.TempDir(), "black.webm")
	r := &Recorder{
		cfg:        RecorderConfig{FFmpeg: ff, Path: path, Width: 65, Height: 49},
		stderr:     &tailBuffer{max: 4096},
		exited:     make(chan struct{}),
		notify:     make(chan struct{}, 1),
		finish:     make(chan struct{}),
		writerDone: make(chan struct{}),
	}
	if err := r.startFFmpeg(); err != nil {
		t.Fatal(err)
	}
	go r.writeLoop(nil)
	close(r.finish)
	<-r.writerDone
	_ = r.stdin.Close()
	<-r.exited
	if r.writeErr != nil || r.waitErr != nil {
		t.Fatalf("write %v, wait %v%s", r.writeErr, r.waitErr, r.stderr.suffix())
	}
	checkWebM(t, path, 64, 48) // odd sizes round down to even
}

func TestNoFFmpegSurvives(t *testing.T) {
	// Runs last in this file: every recorder above was stopped.
	if pids := ffmpegChildren(t); len(pids) != 0 {
		t.Fatalf("ffmpeg children still running: %v", pids)
	}
}

func TestStartRecorderErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := StartRecorder(ctx, browserCtx, RecorderConfig{Path: "x", Width: 1, Height: 1}); err == nil {
		t.Fatal("no error without ffmpeg")
	}
	if _, err := StartRecorder(ctx, browserCtx, RecorderConfig{FFmpeg: "ffmpeg", Path: "x"}); err == nil {
		t.Fatal("no error without a size")
	}
	pctx, pcancel := chromedp.NewContext(browserCtx)
	pcancel()
	if _, err := StartRecorder(ctx, pctx, RecorderConfig{FFmpeg: "ffmpeg", Path: "x", Width: 1, Height: 1}); err == nil {
		t.Fatal("no error with an ended page context")
	}
	// A missing ffmpeg binary fails the start and leaves nothing running.
	pctx2, pcancel2 := newPage(t, 100, 100, "<p>x</p>")
	defer pcancel2()
	_, err := StartRecorder(ctx, pctx2, RecorderConfig{FFmpeg: "/nonexistent/ffmpeg", Path: filepath.Join(t.TempDir(), "v.webm"), Width: 100, Height: 100})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/ffmpeg") {
		t.Fatalf("err = %v", err)
	}
}

// orphanHelper runs in a child test process: it starts an ffmpeg encoder,
// prints its pid and waits to be killed.
func orphanHelper() {
	r := &Recorder{
		cfg:    RecorderConfig{FFmpeg: os.Getenv("MEDIA_TEST_ORPHAN"), Path: os.Getenv("MEDIA_TEST_ORPHAN_OUT"), Width: 64, Height: 48},
		stderr: &tailBuffer{max: 4096},
		exited: make(chan struct{}),
	}
	if err := r.startFFmpeg(); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(r.cmd.Process.Pid)
	select {}
}

func TestFFmpegDiesWithParent(t *testing.T) {
	// A stand-in for ffmpeg that ignores its input's end: only the parent
	// death signal can end it.
	dir := t.TempDir()
	ff := filepath.Join(dir, "fake-ffmpeg")
	if err := os.WriteFile(ff, []byte("#!/bin/sh\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MEDIA_TEST_ORPHAN="+ff, "MEDIA_TEST_ORPHAN_OUT="+filepath.Join(dir, "o.webm"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var line string
	if _, err := fmt.Fscanln(out, &line); err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("helper: %v", err)
	}
	pid, err := strconv.Atoi(line)
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("helper said %q", line)
	}
	if processGone(pid) {
		t.Fatal("ffmpeg not running in the helper")
	}
	_ = cmd.Process.Kill() // SIGKILL: no cleanup code runs in the helper
	_ = cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for !processGone(pid) {
		// ffmpeg is re-parented (init or a subreaper); when it is a zombie
		// it already died.
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(st), ')'); i > 0 && strings.HasPrefix(strings.TrimSpace(string(st)[i+1:]), "Z") {
				break
			}
		}
		if time.Now().After(deadline) {
			syscallKill(pid)
			t.Fatalf("ffmpeg %d survived its parent", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
