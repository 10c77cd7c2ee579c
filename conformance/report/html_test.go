package report

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/e2e-conform/toolkit/internal/chromium"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The markup planted in what a run records: each must render as text.
const (
	scriptReason = `the engine answered <script>window.__pwned = 1</script> & "quoted"`
	imgReason    = `<img src=x onerror="window.__pwned = 2">`
	scriptFrames = "  conn 1 (client) send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"engine/observe\"}\n  conn 1 (client) recv {\"x\":\"</pre><script>window.__pwned = 3</script>\"}\n"
	// badUTF8Frames is an exchange of a framing fault: bytes that are
	// not UTF-8 sent and read back.
	badUTF8Frames = "  conn 2 (raw) send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"foo/\xff\xfe\"}\n" +
		"  conn 2 (raw) recv {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"no \xc3\"}}\n"
)

// handMadeResult is a small non-conformant run with one requirement of
// every status and markup in its reasons, messages and frames.
func handMadeResult() *Result {
	r := &Result{
		Suite: "e2e-conform", SuiteVersion: SuiteVersion, Engine: "engine ./my-engine", Profile: ProfileCore, Transport: "spawn",
		Manifest: &wire.Manifest{Name: "my-engine", Version: "1.0", SPIVersion: 1, Methods: []string{"engine/observe"}},
		Verdict:  "non-conformant", ExitCode: ExitNonConformant, Reason: "3 MUST requirement(s) failed",
		Counts:   map[Status]int{Passed: 2, Failed: 3, NotVerified: 1, NotApplicable: 1, NotSelected: 1, ExpectedFailure: 1},
		Warnings: []string{"WIRE-005 (SHOULD): <b>bold</b> claim"},
		Provenance: &Provenance{SuiteVersion: SuiteVersion, SpecVersion: "1", Catalog: "c0ffee", EngineCommand: []string{"./my-engine", "<b>flag"},
			EngineBinary: "/work/my-engine", EngineSHA256: "5ha256of7heengine", Host: "linux/amd64"},
		Requirements: []RequirementResult{
			// Catalog order is not the page's: the page puts failures first.
			{ID: "WIRE-002", Area: "WIRE", Level: "MUST", Statement: "Only two header fields.", Status: Passed,
				Specs: []string{"writes two header fields"}, Evidence: map[string]int{"header part read": 12}},
			{ID: "TRN-001", Area: "TRN", Level: "SHOULD", Statement: "stdout carries only frames.", Status: NotSelected, Reason: "left out by --skip"},
			{ID: "WIRE-001", Area: "WIRE", Level: "MUST", Statement: "Frames are `Content-Length` framed, `<b>x</b>` too.", Status: Failed, Reason: scriptReason,
				Specs: []string{"frames every message"}, Evidence: map[string]int{"frame read and framed": 12}},
			{ID: "WIRE-004", Area: "WIRE", Level: "MUST", Statement: "Content that is not UTF-8 executes nothing.", Status: Failed,
				Reason: "failed: got a response with id 1 ({\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"no \ufffd\"}}); want nothing executed (`-32700` at most)",
				Specs:  []string{"content that is not UTF-8 executes nothing"}},
			{ID: "OBS-001", Area: "OBS", Level: "MUST", Statement: "observe returns a tree.", Status: Failed, Reason: imgReason,
				Specs: []string{"observes a tree"}},
			{ID: "OBS-002", Area: "OBS", Level: "MUST", Statement: "observe has a viewport.", Status: Passed, Specs: []string{"observes a tree"},
				Evidence: map[string]int{"observation validated": 1}},
			{ID: "ERR-001", Area: "ERR", Level: "MUST", Statement: "Errors have codes.", Status: NotVerified, Reason: "no error drawn"},
			{ID: "MAN-001", Area: "MAN", Level: "MUST", Statement: "The manifest lists methods.", Status: NotApplicable, Reason: "withdrawn"},
			{ID: "LIFE-003", Area: "LIFE", Level: "MUST", Statement: "Requests before initialize get -32002.", Status: ExpectedFailure,
				Reason: "failed: got -32601, want -32002", Baseline: "fixed in 2.0", Specs: []string{"answers -32002 before initialize"}},
		},
		Specs: []SpecResult{
			{Text: "frames every message", Requirements: []string{"WIRE-001"}, Status: Failed, Message: "failed: " + scriptReason,
				LastFrames: scriptFrames, Evidence: Evidence{"WIRE-001": {"frame read and framed": 12}}, Duration: 12 * time.Millisecond},
			{Text: "writes two header fields", Requirements: []string{"WIRE-002"}, Status: Passed, Duration: time.Millisecond},
			{Text: "observes a tree", Requirements: []string{"OBS-001", "OBS-002"}, Status: Failed, Message: "failed: " + imgReason,
				LastFrames: "  recv {\"result\":{}}\n"},
			{Text: "content that is not UTF-8 executes nothing", Requirements: []string{"WIRE-004"}, Status: Failed,
				Message: "failed: got a response with id 1", LastFrames: badUTF8Frames, FrameTimes: []int64{812, 1_204_000}},
			{Text: "answers -32002 before initialize", Requirements: []string{"LIFE-003"}, Status: Failed, Message: "failed: got -32601, want -32002",
				LastFrames: "  conn 4 (raw) send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"engine/observe\"}\n  conn 4 (raw) recv {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"x\"}}\n"},
		},
		Latency: []MethodLatency{
			{Method: "initialize", Count: 3, P50Ms: 40.1, P90Ms: 60.2, P99Ms: 60.2, MaxMs: 60.2},
			{Method: "engine/observe", Count: 10, Errors: 1, P50Ms: 0.7, P90Ms: 1.6, P99Ms: 5.2, MaxMs: 5.2},
		},
		Duration: 2 * time.Second,
	}
	r.Explain() // sections and explanations, as Run and Merge do
	return r
}

// catalogResult is a run summarised the way Run does it (summarize over
// the whole catalog): every area, most requirements unverified, latency
// as the suite's recorder gives it.
func catalogResult() *Result {
	in := RunInput{Reached: true, Transport: "spawn", Manifest: wire.Manifest{Name: "catalog-engine", Version: "2", SPIVersion: 1,
		Methods: []string{wire.MethodObserve, wire.MethodOpen}},
		// The suite's recorder's table for 20 observe calls of 0…19 ms
		// (one an error) and one initialize of 50 ms.
		Latency: []MethodLatency{
			{Method: wire.MethodInitialize, Count: 1, P50Ms: 50, P90Ms: 50, P99Ms: 50, MaxMs: 50},
			{Method: wire.MethodObserve, Count: 20, Errors: 1, P50Ms: 9, P90Ms: 17, P99Ms: 19, MaxMs: 19},
		}}
	specs := []SpecResult{
		{Text: "frames every message", Requirements: []string{"WIRE-001"}, Status: Failed, Message: "failed: " + scriptReason,
			LastFrames: scriptFrames, Evidence: Evidence{"WIRE-001": {"frame read and framed": 3}}},
		{Text: "writes two header fields", Requirements: []string{"WIRE-002"}, Status: Passed,
			Evidence: Evidence{"WIRE-002": {"header part read": 3}}},
	}
	res := Summarize(Scope{Engine: "engine ./catalog-engine", Profile: ProfileCore}, in, specs, nil)
	return &res
}

func TestHTMLReportEscapesAndStaysOffline(t *testing.T) {
	// fetching matches a tag that would load something (an <a href> is a
	// link to follow, not a fetch: the sections link to the spec).
	fetching := regexp.MustCompile(`(?i)<(link|img|iframe|object|embed|source|video|audio)\b|<[a-z]+[^>]*\s(src|srcset|data)=|<(?:[b-z]|a[a-z])[a-z]*[^>]*\shref=`)
	for _, tc := range []struct {
		name string
		r    *Result
	}{{"hand-made", handMadeResult()}, {"catalog", catalogResult()}} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := tc.r.RenderHTML()
			if err != nil {
				t.Fatal(err)
			}
			html := string(page)
			if n := strings.Count(strings.ToLower(html), "<script"); n != 1 {
				t.Errorf("%d <script elements, want the report's own one", n)
			}
			// Nothing to fetch: no element with a source or a link, no
			// CSS import or url().
			if m := fetching.FindString(html); m != "" {
				t.Errorf("the page fetches: %q", m)
			}
			for _, bad := range []string{"<img", "<b>bold", "@import", "url("} {
				if strings.Contains(html, bad) {
					t.Errorf("the page contains %q", bad)
				}
			}
			if !strings.Contains(html, "&lt;script&gt;window.__pwned = 1&lt;/script&gt;") {
				t.Error("the reason's <script> is not escaped as text")
			}
			if p := tc.r.Provenance; p != nil && (!strings.Contains(html, `<td id="engine-sha256">`+p.EngineSHA256+`</td>`) || !strings.Contains(html, "&lt;b&gt;flag")) {
				t.Error("the provenance table does not show the engine binary's SHA-256, or does not escape the command")
			}
			if !strings.Contains(html, "default-src 'none'") {
				t.Error("no Content-Security-Policy forbidding fetches")
			}
		})
	}
}

// findChromium returns Chromium's path: $E2E_CHROMIUM, Debian's
// /usr/bin/chromium, or chromium on PATH.
func findChromium() (string, error) {
	for _, p := range []string{os.Getenv("E2E_CHROMIUM"), chromium.DefaultPath} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return exec.LookPath("chromium")
}

// processesWithEnv lists the processes whose environment holds kv.
func processesWithEnv(kv string) []int {
	dirs, _ := os.ReadDir("/proc")
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, v := range bytes.Split(env, []byte{0}) {
			if string(v) == kv {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// TestHTMLReportInChromium opens one HTML report in one headless Chromium:
// the first card is the failure, the not selected requirements show only
// when asked for, the status and area filters and the area chart work,
// markup from the run stays inert text, the failing frame is highlighted,
// nothing is logged (no console error, exception or CSP violation), and a
// screenshot of the first screen shows a page (its path and size logged;
// -artifacts keeps it). Chromium runs with a private profile and TMPDIR
// under t.TempDir(), and nothing of it is left once it is stopped.
func TestHTMLReportInChromium(t *testing.T) {
	path, err := findChromium()
	if err != nil {
		t.Skipf("no Chromium binary (neither $E2E_CHROMIUM, %s nor chromium on PATH; `make browser` installs it): %v", chromium.DefaultPath, err)
	}
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := "TMPDIR=" + tmp
	bctx, stop, err := chromium.Start(path, chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.WindowSize(1200, 900),
		chromedp.Env(marker))
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	procfs := runtime.GOOS == "linux" // the process count reads /proc
	if procfs && len(processesWithEnv(marker)) == 0 {
		t.Fatal("no Chromium process carries the test's TMPDIR: the leak check below would prove nothing")
	}
	// One page: the hand-made run (every status, markup, a framing
	// fault's bytes that are not UTF-8, an expected failure).
	r := handMadeResult()
	file := filepath.Join(dir, "report.html")
	if err := r.WriteHTML(file); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(bctx)
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	shot := filepath.Join(t.ArtifactDir(), "report.png")
	checkReportPage(ctx, t, r, "file://"+file, shot)
	cancelT()
	cancel()
	// A graceful close (Browser.close) lets Chromium remove what it keeps
	// in TMPDIR; stop then reaps it.
	if err := chromedp.Cancel(bctx); err != nil {
		t.Errorf("closing Chromium: %v", err)
	}
	stop()
	stopped = true
	if left := processesWithEnv(marker); procfs && len(left) > 0 {
		t.Errorf("Chromium processes %v outlive stop", left)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("Chromium left %v in its TMPDIR", names)
	}
}

// visibleJS lists the status and area of every requirement card shown, in
// page order, and its ID.
const visibleJS = `[...document.querySelectorAll(".req")].filter(e => e.checkVisibility()).map(e => e.dataset.status + " " + e.dataset.area + " " + e.id)`

// countStatus counts r's requirements of status st.
func countStatus(r *Result, st Status) int {
	n := 0
	for _, rr := range r.Requirements {
		if rr.Status == st {
			n++
		}
	}
	return n
}

// checkReportPage opens the report at url: no console error, no CSP
// violation, no exception; the first card is a failure, the not selected
// requirements are folded until asked for; the filters, the chart and the
// run's markup behave; a screenshot is written to shot.
func checkReportPage(ctx context.Context, t *testing.T, r *Result, url, shot string) {
	t.Helper()
	// Every console message of level error or warning, every log entry
	// (CSP violations are logged there) and every uncaught exception.
	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		var p string
		switch ev := ev.(type) {
		case *cdpruntime.EventConsoleAPICalled:
			if ev.Type == cdpruntime.ConsoleAPICalledTypeError || ev.Type == cdpruntime.ConsoleAPICalledTypeWarning || ev.Type == cdpruntime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				p = "console." + string(ev.Type) + ": " + strings.Join(args, " ")
			}
		case *cdpruntime.EventExceptionThrown:
			p = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				p += " " + ev.ExceptionDetails.Exception.Description
			}
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning || ev.Entry.Source == cdplog.EntrySourceSecurity {
				p = "log " + string(ev.Entry.Source) + " " + string(ev.Entry.Level) + ": " + ev.Entry.Text
			}
		}
		if p != "" {
			mu.Lock()
			problems = append(problems, p)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#filters"))); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	verdict, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#verdict")))
	if err != nil {
		t.Fatal(err)
	}
	if want := "verdict: " + r.Verdict + " · exit " + strconv.Itoa(r.ExitCode); strings.TrimSpace(verdict) != want {
		t.Errorf("verdict %q, want %q", verdict, want)
	}
	all, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](visibleJS))
	if err != nil {
		t.Fatal(err)
	}
	// Failures first; the not selected folded away.
	notSelected := countStatus(r, NotSelected)
	if notSelected == 0 || countStatus(r, Failed) == 0 {
		t.Fatal("the run must have a failure and a requirement not selected for this test to mean anything")
	}
	if len(all) != len(r.Requirements)-notSelected {
		t.Fatalf("%d requirement cards shown before filtering, want %d (all but the %d not selected)", len(all), len(r.Requirements)-notSelected, notSelected)
	}
	if !strings.HasPrefix(all[0], string(Failed)+" ") {
		t.Errorf("the first card shown is %q, want a failure (cards shown: %v)", all[0], all)
	}
	// The first card is also the first thing of its kind on the screen:
	// its top within the first screen.
	if top, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector(".req").getBoundingClientRect().top`)); err != nil || top > 900 {
		t.Errorf("the first card starts at %v px (%v): below the first screen", top, err)
	}
	// The fold's toggle event comes after the click: wait for the counter
	// to follow it.
	counterIs := func(n int) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](`document.getElementById("shown").textContent === "`+strconv.Itoa(n)+`"`,
			chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(10*time.Second))
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#not-selected > summary")), counterIs(len(r.Requirements))); err != nil {
		t.Errorf("unfold the not selected requirements: the counter does not reach %d: %v", len(r.Requirements), err)
	}
	if unfolded, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](visibleJS)); len(unfolded) != len(r.Requirements) {
		t.Errorf("after unfolding: %d cards shown, want every one of %d", len(unfolded), len(r.Requirements))
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#not-selected > summary")), counterIs(len(r.Requirements)-notSelected)); err != nil {
		t.Errorf("fold the not selected requirements again: the counter does not reach %d: %v", len(r.Requirements)-notSelected, err)
	}
	areas := map[string]bool{}
	for _, rr := range r.Requirements {
		areas[rr.Area] = true
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#areas tbody tr").length`))
	if err != nil || rows != len(areas) {
		t.Errorf("area table: %d rows (%v), want %d", rows, err, len(areas))
	}
	if cols, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#chart .col").length`)); err != nil || cols != len(areas) {
		t.Errorf("area chart: %d columns (%v), want %d", cols, err, len(areas))
	}

	// Status filters (the not selected one unfolds them), then the area
	// filter on top of one, then the chart's column for an area.
	for _, st := range []Status{Failed, Passed, NotVerified, ExpectedFailure, NotSelected} {
		want := countStatus(r, st)
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#filter-"+statusClass(st)))); err != nil {
			t.Fatalf("click the %s filter: %v", st, err)
		}
		shown, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](visibleJS))
		if err != nil {
			t.Fatal(err)
		}
		if len(shown) != want {
			t.Errorf("filter %s: %d cards shown, want %d", st, len(shown), want)
		}
		for _, s := range shown {
			if !strings.HasPrefix(s, string(st)+" ") {
				t.Errorf("filter %s shows a card %q", st, s)
			}
		}
		counter, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#shown")))
		if counter != strconv.Itoa(want) {
			t.Errorf("filter %s: the counter says %q, want %d", st, counter, want)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#filter-passed")),
		chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById("area-filter"); s.value = "WIRE"; s.dispatchEvent(new Event("change")); })()`)); err != nil {
		t.Fatal(err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](visibleJS))
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) == 0 {
		t.Error("passed WIRE requirements: none shown")
	}
	for _, s := range shown {
		if !strings.HasPrefix(s, "passed WIRE ") {
			t.Errorf("filter passed + WIRE shows a card %q", s)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#filter-all")),
		chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById("area-filter"); s.value = ""; s.dispatchEvent(new Event("change")); })()`)); err != nil {
		t.Fatal(err)
	}
	if back, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](visibleJS)); len(back) != len(r.Requirements)-notSelected {
		t.Errorf("after all: %d cards shown, want %d (the not selected folded again)", len(back), len(r.Requirements)-notSelected)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#chart .col[data-area="OBS"]`))); err != nil {
		t.Fatal(err)
	}
	if obs, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](visibleJS)); len(obs) == 0 || !allHavePrefixAfter(obs, " OBS ") {
		t.Errorf("the chart's OBS column shows %v", obs)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#chart .col[data-area="OBS"]`))); err != nil {
		t.Fatal(err)
	}

	// The run's markup is text; the failing frame is highlighted.
	type inert struct {
		Pwned   bool   `json:"pwned"`
		Scripts int    `json:"scripts"`
		Images  int    `json:"images"`
		Reason  string `json:"reason"`
		Frames  string `json:"frames"`
		Failing string `json:"failing"`
		Code    string `json:"code"`
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[inert](`({
		pwned: window.__pwned !== undefined,
		scripts: document.scripts.length,
		images: document.images.length,
		reason: document.querySelector("#req-WIRE-001 .reason").textContent,
		frames: document.querySelector("#req-WIRE-001 pre.frames").textContent,
		failing: document.querySelector("#req-WIRE-004 .seq-row.failing .frame").textContent,
		code: document.querySelector("#req-WIRE-001 .statement code").textContent,
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if got.Pwned || got.Scripts != 1 || got.Images != 0 {
		t.Errorf("markup of the run became live: %+v", got)
	}
	if !strings.Contains(got.Reason, "<script>window.__pwned = 1</script>") {
		t.Errorf("the reason does not read as text: %q", got.Reason)
	}
	if !strings.Contains(got.Frames, "</pre><script>window.__pwned = 3</script>") {
		t.Errorf("the frames do not read as text: %q", got.Frames)
	}
	if !strings.Contains(got.Failing, `"no \xc3"`) {
		t.Errorf("the highlighted frame of WIRE-004 reads %q, want the answer with its byte escaped", got.Failing)
	}
	if got.Code != "Content-Length" {
		t.Errorf("the statement's code span reads %q", got.Code)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#latency tbody tr").length`)); err != nil || n != len(r.Latency) {
		t.Errorf("latency table: %d rows (%v), want %d", n, err, len(r.Latency))
	}

	// Back to the first screen for the screenshot.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`)); err != nil {
		t.Fatal(err)
	}
	data, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shot, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the first screen: %s (%d bytes; go test -artifacts keeps it)", shot, len(data))
	checkScreenshot(t, data)
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("the page reported: %s", p)
	}
}

// allHavePrefixAfter reports whether every card line holds sub after its
// status.
func allHavePrefixAfter(lines []string, sub string) bool {
	for _, l := range lines {
		if !strings.Contains(l, sub) {
			return false
		}
	}
	return true
}

// checkScreenshot: a PNG of a real page, not a blank one.
func checkScreenshot(t *testing.T, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 400 || b.Dy() < 300 {
		t.Fatalf("screenshot of %dx%d", b.Dx(), b.Dy())
	}
	colours := map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	if len(colours) < 16 {
		t.Errorf("the screenshot has %d colours: a blank page?", len(colours))
	}
}
