package conformance

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/e2e-conform/toolkit/conformance/catalog"
	"github.com/e2e-conform/toolkit/conformance/report"
)

// The console of a run (Config.Progress): progress counted in
// requirements, each failure once when it happens. A requirement is done
// when every spec of the run that checks it has ended; the total is the
// number of requirements the run's specs check (its selection, its
// profile and its shard), so "[ 37/98]" reads "37 of the 98 requirements
// this run checks are done".

// progressTick is how often a live line redraws its clock while a spec
// runs.
const progressTick = time.Second

// defaultProgressWidth bounds a live line when the terminal's width is
// unknown.
const defaultProgressWidth = 100

// runWideArea is the area shown while the run-wide checks run.
const runWideArea = "run-wide"

// IsTerminal reports whether f is a terminal (false elsewhere than on
// unix). e2e-conform asks it of its stderr to choose Config.ProgressLive.
func IsTerminal(f *os.File) bool { return isTerminal(f) }

// progressLine is what one progress line says.
type progressLine struct {
	Done, Total int           // requirements done, of the run's
	Area        string        // the area of the spec running, or of the last one
	Elapsed     time.Duration // since the run started
	Failed      int           // requirements failed so far (expected failures aside)
	Spec        string        // the spec running ("" for none)
}

// render writes the line: "[ 37/160] SIG    12.4 s  1 failed", then the
// spec running, the whole clipped to width runes (0: no bound, no spec).
func (l progressLine) render(width int) string {
	digits := len(fmt.Sprint(l.Total))
	s := fmt.Sprintf("[%*d/%d] %-5s %5.1f s  %d failed", digits, l.Done, l.Total, l.Area, l.Elapsed.Seconds(), l.Failed)
	if l.Spec != "" && width > 0 {
		s += "  " + report.ConsoleLine(l.Spec)
	}
	if width > 0 && utf8.RuneCountInString(s) > width {
		s = string([]rune(s)[:width-1]) + "…"
	}
	return s
}

// progress is the console of one run. Its before and after run as
// ginkgo's ReportBeforeEach and ReportAfterEach (on ginkgo's goroutine);
// a live line's clock redraws from a ticker goroutine, hence the lock.
type progress struct {
	s      *suite
	w      io.Writer
	live   bool
	width  int
	report string // the JSON report's path, for --explain hints

	mu        sync.Mutex
	start     time.Time
	total     int
	remaining map[string]int // requirement → its specs of the run not ended yet
	printed   map[string]bool
	done      int
	failed    int
	area      string
	running   string
	reached   bool // "the engine was not reached" was said
	begun     bool
	stop      chan struct{}
	stopped   chan struct{}
}

// newProgress is the console of s's run, nil when its Config has no
// Progress writer.
func newProgress(s *suite) *progress {
	cfg := s.cfg
	if cfg.Progress == nil {
		return nil
	}
	p := &progress{s: s, w: cfg.Progress, live: cfg.ProgressLive, report: cfg.JSONReport, start: time.Now(),
		remaining: map[string]int{}, printed: map[string]bool{}, width: defaultProgressWidth}
	if f, ok := cfg.Progress.(*os.File); ok && p.live {
		if w := terminalWidth(f); w > 0 {
			p.width = w
		}
	}
	return p
}

// plan counts a spec registered for s that the run will run (selected by
// the configuration's label filter and its shard) against each of its
// requirements. ginkgo builds its tree, and so registers the specs, when
// the run starts: the first spec's before begins the console. A nil p
// plans nothing.
func (p *progress) plan(text string, ids, labels []string) {
	if p == nil || !p.s.selects(labels) || !p.s.holds(text) {
		return
	}
	for _, id := range ids {
		p.remaining[id]++
	}
}

// begin says what the run will check, and starts a live line's clock
// (once, the lock held).
func (p *progress) begin() {
	if p.begun {
		return
	}
	p.begun = true
	p.total = len(p.remaining)
	fmt.Fprintf(p.w, "checking %d requirement(s) of %s, profile %s\n", p.total, report.ConsoleLine(p.s.redact(p.s.name())), p.s.cfg.profile())
	if !p.live {
		return
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	p.stop, p.stopped = stop, stopped
	go func() {
		defer close(stopped)
		t := time.NewTicker(progressTick)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.mu.Lock()
				if p.stop != nil { // not finished meanwhile
					p.redraw()
				}
				p.mu.Unlock()
			case <-stop:
				return
			}
		}
	}()
}

// planned reports whether sr is a spec of the run (not one its selection
// leaves out).
func (p *progress) planned(sr types.SpecReport) bool {
	return sr.LeafNodeType == types.NodeTypeIt && p.s.selects(sr.Labels()) && p.s.holds(sr.LeafNodeText)
}

// before notes the spec about to run; without a live line, the area the
// run leaves gets its line.
func (p *progress) before(sr types.SpecReport) {
	if p == nil || !p.planned(sr) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.begin()
	area := specArea(sr.LeafNodeText, requirementLabels(sr.Labels()))
	if !p.live && p.area != "" && area != p.area {
		fmt.Fprintln(p.w, p.line("").render(0))
	}
	p.area, p.running = area, sr.LeafNodeText
	p.redraw()
}

// after counts the spec's requirements and prints each failure it brings
// the first time.
func (p *progress) after(sr types.SpecReport) {
	if p == nil || !p.planned(sr) {
		return
	}
	sp := liveSpec(sr)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = ""
	if p.s.discovery != nil && !p.reached {
		p.reached = true
		p.println("the engine could not be initialized: " + report.ClipRunes(report.ConsoleLine(p.s.redact(p.s.discovery.Error())), 300))
	}
	for _, id := range sp.Requirements {
		if n, ok := p.remaining[id]; ok {
			p.remaining[id] = n - 1
			if n == 1 {
				p.done++
			}
		}
		if sp.Status != report.Failed || p.printed[id] || !p.applies(id) {
			continue
		}
		p.printed[id] = true
		baseline, listed := p.s.cfg.ExpectedFailures[id]
		if !listed {
			p.failed++
		}
		r, _ := catalog.Lookup(id)
		p.println(report.FailureLine(id, r.Level, baseline, p.s.redact(sp.Message), p.report))
	}
	p.redraw()
}

// applies reports whether requirement id applies to the engine as far as
// the run knows yet (a failed spec of a requirement that does not apply
// is reported not applicable).
func (p *progress) applies(id string) bool {
	if p.s.env == nil || p.s.discovery != nil {
		return true
	}
	return p.s.applies(id)
}

// finish stops a live line's clock and leaves the last line on the
// console.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.begin() // a run whose selection holds no spec
	stop, stopped := p.stop, p.stopped
	p.stop = nil
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-stopped
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = ""
	l := p.line("done")
	if p.s.cfg.GinkgoStream {
		fmt.Fprintln(p.w) // ginkgo's stream ends without a line break
	}
	if p.live {
		fmt.Fprintf(p.w, "\r%s\x1b[K\n", l.render(p.width))
		return
	}
	if p.area != "" {
		fmt.Fprintln(p.w, p.line("").render(0))
	}
	fmt.Fprintln(p.w, l.render(0))
}

// line is the progress line now; area, when given, replaces the area.
func (p *progress) line(area string) progressLine {
	if area == "" {
		area = p.area
	}
	return progressLine{Done: p.done, Total: p.total, Area: area, Elapsed: time.Since(p.start), Failed: p.failed, Spec: p.running}
}

// redraw rewrites a live line in place.
func (p *progress) redraw() {
	if p.live {
		fmt.Fprintf(p.w, "\r%s\x1b[K", p.line("").render(p.width))
	}
}

// println prints a line above a live line, which it then redraws.
func (p *progress) println(s string) {
	if p.live {
		fmt.Fprintf(p.w, "\r\x1b[K%s\n", s)
		p.redraw()
		return
	}
	fmt.Fprintln(p.w, s)
}

// liveSpec is the spec result of sr as the report will give it, as far as
// one spec tells: a spec a signal or the run timeout cut did not fail
// (markInterrupted).
func liveSpec(sr types.SpecReport) report.SpecResult {
	sp := specsFrom(types.Report{SpecReports: types.SpecReports{sr}})[0]
	if sr.State == types.SpecStateInterrupted || (sr.State == types.SpecStateTimedout && strings.Contains(sr.Failure.Message, "suite timeout")) {
		sp.Status = report.NotVerified
	}
	return sp
}

// requirementLabels keeps the requirement IDs of a spec's labels.
func requirementLabels(labels []string) []string {
	var ids []string
	for _, l := range labels {
		if _, ok := catalog.Lookup(l); ok {
			ids = append(ids, l)
		}
	}
	return ids
}

// specArea is the area a spec's line shows: its first requirement's, or
// "run-wide" for the run-wide checks.
func specArea(text string, ids []string) string {
	if isRunWide(text) {
		return runWideArea
	}
	if len(ids) == 0 {
		return ""
	}
	r, _ := catalog.Lookup(ids[0])
	return r.Area
}
