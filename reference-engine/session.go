package webengine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
	"github.com/e2e-conform/toolkit/reference-engine/inpage"
)

// closeBudget bounds how long closing a tab or a browser context may take.
const closeBudget = 5 * time.Second

// stopLoadingBudget bounds stopping a navigation whose session/open was
// aborted: well inside the 2000 ms an aborted request has to be answered
// (§7.7).
const stopLoadingBudget = 500 * time.Millisecond

// session is one browser context: an attempt's (or, for operations sent
// outside any attempt, the engine's own until the next attempt starts), with
// at most one page (tab), created on first use.
type session struct {
	e  *Engine
	br *browser
	a  *server.Attempt // nil outside attempts
	bc cdp.BrowserContextID

	mu       sync.Mutex
	tab      *tab
	origins  map[string]bool // origins the session's pages visited (state capture)
	shots    int             // screenshots taken
	segments int             // video segments started
	video    *video
	closed   bool

	dialog dialogLatch // a dialog nobody handled, failing the next operation
}

// tab is the session's page: a chromedp context bound to one target, and the
// goroutine pumping its events.
type tab struct {
	s      *session
	ctx    context.Context // chromedp target context; no deadline
	cancel context.CancelFunc
	events chan any
	done   chan struct{}

	mu       sync.Mutex
	mouseX   float64
	mouseY   float64
	location string
}

// session returns the current session, creating one (a fresh browser
// context) for attempt a when there is none. A session whose browser went
// away (a crashed Chromium, a dropped connection to a remote browser) is
// not replaced within its attempt — its pages and storage are gone, and a
// silent fresh context would pass for them —: its operations fail with
// ENGINE_FAILURE, and the next attempt gets a new browser.
func (e *Engine) session(ctx context.Context, a *server.Attempt) (*session, error) {
	e.mu.Lock()
	if s := e.sess; s != nil {
		e.mu.Unlock()
		if err := s.br.alive(); err != nil {
			return nil, engineerr.New(engineerr.EngineFailure, "%v during the attempt; the next attempt starts a new browser", err)
		}
		return s, nil
	}
	e.mu.Unlock()
	if a == nil {
		e.mu.Lock()
		a = e.attempt
		e.mu.Unlock()
	}
	br, err := e.browser(ctx)
	if err != nil {
		return nil, err
	}
	bc, err := newBrowserContext(ctx, br)
	if err != nil {
		return nil, err
	}
	s := &session{e: e, br: br, a: a, bc: bc, origins: map[string]bool{}}
	e.mu.Lock()
	if e.sess != nil { // another call won the race
		other := e.sess
		e.mu.Unlock()
		s.close(ctx)
		return other, nil
	}
	e.sess = s
	e.mu.Unlock()
	if a != nil {
		a.Environment(map[string]any{
			"browser":  "chromium",
			"version":  br.version,
			"viewport": fmt.Sprintf("%dx%d", e.opts.Width, e.opts.Height),
			"scale":    1,
			"headless": !e.opts.Headed,
		})
	}
	return s, nil
}

// newBrowserContext creates an isolated browser context.
func newBrowserContext(ctx context.Context, br *browser) (cdp.BrowserContextID, error) {
	if err := br.alive(); err != nil {
		return "", engineerr.New(engineerr.EngineFailure, "%v", err)
	}
	cctx, cancel := bounded(br.bctx, ctx)
	defer cancel()
	res, err := chromedp.CallBrowser(cctx, target.CreateBrowserContext, target.CreateBrowserContextParams{DisposeOnDetach: ptr(true)})
	if err != nil {
		return "", classify(ctx, cctx, "creating a browser context", false, err)
	}
	return res.BrowserContextID, nil
}

// page returns the operation's page, opening about:blank when the session
// has none yet.
func (e *Engine) page(ctx context.Context, op server.Operation) (*tab, error) {
	s, err := e.session(ctx, op.Attempt)
	if err != nil {
		return nil, err
	}
	return s.page(ctx)
}

// page returns the session's tab, creating it when needed.
func (s *session) page(ctx context.Context) (*tab, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, engineerr.New(engineerr.InvalidState, "the session was closed")
	}
	if s.tab != nil {
		return s.tab, nil
	}
	t, err := s.newTab(ctx)
	if err != nil {
		return nil, err
	}
	s.tab = t
	return t, nil
}

// newTab opens a page in the session's browser context with the reader's
// init script and the viewport. s.mu is held.
func (s *session) newTab(ctx context.Context) (*tab, error) {
	t := &tab{s: s, events: make(chan any, 4096), done: make(chan struct{}), location: "about:blank"}
	t.ctx, t.cancel = chromedp.NewContext(s.br.bctx, chromedp.WithExistingBrowserContext(s.bc), chromedp.WithListener(t.listen))
	// The tab's first Run must use the tab's own context: chromedp ties the
	// target's event handling to it.
	done := make(chan error, 1)
	go func() {
		done <- chromedp.Do(t.ctx,
			chromedp.EmulateViewport(int64(s.e.opts.Width), int64(s.e.opts.Height)),
			func(ctx context.Context, tt *chromedp.Target) (chromedp.Void, error) {
				_, err := cdp.Call(ctx, tt, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
					Source: inpage.InitScript(), RunImmediately: ptr(true)})
				return chromedp.Void{}, err
			},
		)
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		t.cancel()
		<-done
		return nil, context.Cause(ctx)
	}
	if err != nil {
		t.cancel()
		return nil, classify(ctx, ctx, "opening a page", false, err)
	}
	go t.pump()
	return t, nil
}

// close ends the tab: the target closes and the pump stops.
func (t *tab) close() {
	t.cancel()
	<-t.done
}

// closeTab closes the session's page (restart, reset); the video segment of
// that page ends first. s.mu is held.
func (s *session) closeTab(ctx context.Context) {
	if s.video != nil {
		s.video.endSegment(ctx)
	}
	if s.tab != nil {
		s.tab.close()
		s.tab = nil
	}
}

// close ends the session: video, page and browser context.
func (s *session) close(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	s.closeTab(ctx)
	if s.br.alive() == nil {
		cctx, cancel := context.WithTimeout(s.br.bctx, closeBudget)
		defer cancel()
		_, _ = chromedp.CallBrowser(cctx, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: s.bc})
	}
}

// listen receives the tab's events on chromedp's reading goroutine: it must
// neither block nor call CDP, so it only queues (dropping past the queue's
// capacity; the pump keeps up with any realistic page).
func (t *tab) listen(ev any) {
	switch ev.(type) {
	case *page.EventFrameNavigated, *page.EventNavigatedWithinDocument, *page.EventJavascriptDialogOpening,
		*runtime.EventConsoleAPICalled, *runtime.EventExceptionThrown,
		*network.EventResponseReceived, *network.EventLoadingFailed, *network.EventRequestWillBeSent:
		select {
		case t.events <- ev:
		default:
		}
	}
}

// pump handles the tab's events until the tab closes: navigation lines,
// dialogs (dismissed, from their own goroutine) and the app log.
func (t *tab) pump() {
	defer close(t.done)
	reqURL := map[network.RequestID]string{}
	for {
		select {
		case <-t.ctx.Done():
			return
		case ev := <-t.events:
			switch ev := ev.(type) {
			case *page.EventFrameNavigated:
				if ev.Frame != nil && ev.Frame.ParentID == "" {
					t.navigated(ev.Frame.URL + ev.Frame.URLFragment)
				}
			case *page.EventNavigatedWithinDocument:
				t.navigatedWithin(ev.URL)
			case *page.EventJavascriptDialogOpening:
				go t.answerDialog(ev)
			case pumpBarrier:
				close(ev)
			case *runtime.EventConsoleAPICalled:
				t.console(ev)
			case *runtime.EventExceptionThrown:
				t.exception(ev)
			case *network.EventRequestWillBeSent:
				if ev.Request != nil && len(reqURL) < 10000 {
					reqURL[ev.RequestID] = ev.Request.URL
				}
			case *network.EventResponseReceived:
				delete(reqURL, ev.RequestID)
				if r := ev.Response; r != nil && r.Status >= 400 && !(r.Status == 404 && strings.HasSuffix(pathOf(r.URL), "/favicon.ico")) {
					level := "warning"
					if r.Status >= 500 {
						level = "error"
					}
					t.appLog("network", level, fmt.Sprintf("%d %s %s", r.Status, r.StatusText, Redact(r.URL)))
				}
			case *network.EventLoadingFailed:
				u := reqURL[ev.RequestID]
				delete(reqURL, ev.RequestID)
				if ev.Canceled || strings.Contains(ev.ErrorText, "ERR_ABORTED") {
					continue
				}
				t.appLog("network", "error", fmt.Sprintf("request failed: %s %s", ev.ErrorText, Redact(u)))
			}
		}
	}
}

// navigated records a main-frame document change.
func (t *tab) navigated(u string) {
	t.mu.Lock()
	t.location = u
	t.mu.Unlock()
	if o := originOf(u); o != "" {
		t.s.mu.Lock()
		t.s.origins[o] = true
		t.s.mu.Unlock()
	}
	if a := t.s.a; a != nil {
		a.Navigation("navigated to " + Redact(u))
	}
}

// navigatedWithinDocument records a same-document URL change (history API,
// fragment).
func (t *tab) navigatedWithin(u string) {
	t.mu.Lock()
	changed := t.location != u
	t.location = u
	t.mu.Unlock()
	if a := t.s.a; a != nil && changed {
		a.Navigation("navigated within the page to " + Redact(u))
	}
}

// Location returns the page's current URL.
func (t *tab) url() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.location
}

// dismiss answers a JavaScript dialog nobody handles (the engine offers
// no handler): web-engine §2.11, "Dialogs: unhandled → dismissed and the
// *next* operation fails INVALID_STATE "unhandled <type> dialog:
// <message>"; unknown type → ENGINE_FAILURE". The failure is latched
// before the dialog is answered — the operation the dialog interrupted
// (a tap whose handler calls confirm) returns only once it is answered,
// so the operation after it finds the latch set — and so is one
// attempt/appLog entry that says what happened. A beforeunload dialog dismissed keeps the
// page. It runs on its own goroutine.
func (t *tab) dismiss(ev *page.EventJavascriptDialogOpening) {
	err, level := dialogError(ev.Type, ev.Message)
	t.s.dialog.latch(err)
	// Logged before the answer too: the entry is written before the
	// answer of the operation the dialog interrupted.
	t.appLog("system", level, err.Message+" (dismissed; the next operation fails)")
	ctx, cancel := context.WithTimeout(t.ctx, closeBudget)
	defer cancel()
	_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
}

// console turns console warnings, errors and failed asserts into app log
// lines.
func (t *tab) console(ev *runtime.EventConsoleAPICalled) {
	var level string
	switch ev.Type {
	case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
		level = "error"
	case runtime.ConsoleAPICalledTypeWarning:
		level = "warning"
	default:
		return
	}
	parts := make([]string, 0, len(ev.Args))
	for _, a := range ev.Args {
		parts = append(parts, remoteText(a))
	}
	text := strings.Join(parts, " ")
	if strings.HasPrefix(text, "Failed to load resource:") {
		return // the network line says it
	}
	if st := ev.StackTrace; st != nil && len(st.CallFrames) > 0 {
		f := st.CallFrames[0]
		text += fmt.Sprintf(" (at %s:%d)", Redact(f.URL), f.LineNumber+1)
	}
	t.appLog("console", level, text)
}

// exception turns an uncaught exception into an app log line.
func (t *tab) exception(ev *runtime.EventExceptionThrown) {
	d := ev.ExceptionDetails
	if d == nil {
		return
	}
	text := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		text = strings.SplitN(d.Exception.Description, "\n", 2)[0]
	}
	t.appLog("error", "error", text)
}

// appLog sends one app log line to the attempt (one line, bounded).
func (t *tab) appLog(source, level, text string) {
	a := t.s.a
	if a == nil {
		return
	}
	text = strings.Join(strings.Fields(text), " ")
	if len(text) > 2000 {
		text = engineerr.CutUTF8(text, 2000) + "…"
	}
	a.AppLog(wire.AppLogEntry{Source: source, Level: level, Text: text})
}

// remoteText renders a console argument.
func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if len(o.Value) > 0 {
		s := string(o.Value)
		if uq, err := unquote(s); err == nil {
			return uq
		}
		return s
	}
	if o.UnserializableValue != "" {
		return string(o.UnserializableValue)
	}
	return o.Description
}

// originOf returns scheme://host[:port] of an http(s) URL, "" otherwise.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

func pathOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Path
}

// Redact projects a URL for lines and observations: origin and path, a
// query shown as "?…", a fragment as "#…", user info dropped; data: and
// javascript: URLs reduced to their scheme.
//
// Implements: ERR-007.
func Redact(raw string) string {
	if raw == "" || raw == "about:blank" {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(unreadable URL)"
	}
	switch u.Scheme {
	case "data", "javascript":
		return u.Scheme + ":…"
	case "http", "https", "ws", "wss", "file":
	default:
		if u.Opaque != "" {
			return u.Scheme + ":…"
		}
	}
	var b strings.Builder
	b.WriteString(u.Scheme)
	b.WriteString("://")
	b.WriteString(u.Host)
	b.WriteString(u.EscapedPath())
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteString("?…")
	}
	if u.Fragment != "" {
		b.WriteString("#…")
	}
	return b.String()
}

// ---- session methods ----

// Open implements server.SessionOpener: navigate and wait for the load
// event, within the operation's budget. Only http, https and about:blank
// are opened.
//
// Implements: SESS-001, SESS-002, OBS-012.
func (e *Engine) Open(ctx context.Context, op server.Operation, raw string) error {
	u, err := url.Parse(raw)
	if raw != "about:blank" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		scheme := "no scheme"
		if err == nil && u.Scheme != "" {
			scheme = "the scheme " + u.Scheme + ":"
		}
		return engineerr.NewE2E(engineerr.CategoryTest, "INVALID_ARGUMENT", "cannot open %q: %s is refused; only http(s) URLs and about:blank", Redact(raw), scheme)
	}
	t, cctx, done, err := e.begin(ctx, op)
	if err != nil {
		return err
	}
	defer done()
	err = chromedp.Do(cctx, chromedp.Navigate(raw))
	if err != nil {
		if cctx.Err() != nil {
			t.stopLoading()
		}
		return navError(ctx, cctx, raw, err)
	}
	// The app log line of a document that answered >= 400 ("404 Not
	// Found <url>") is sent before the answer: a client reads the status
	// of the navigation there.
	t.flush(cctx)
	return nil
}

// stopLoading stops the tab's pending navigation after its session/open's
// signal aborted or its budget ran out: otherwise Chromium goes on loading
// the page, which shows when the server answers, long after the error
// answer, and the next navigation may fail with net::ERR_ABORTED.
//
// Implements: SIG-003.
func (t *tab) stopLoading() {
	ctx, cancel := context.WithTimeout(t.ctx, stopLoadingBudget)
	defer cancel()
	_, _ = chromedp.Call(ctx, page.StopLoading, cdp.Empty{})
}

// navError classifies a navigation failure: net::ERR_* texts keep their
// name (with errno details for refused connections).
//
// Implements: SESS-002.
func navError(ctx, cctx context.Context, raw string, err error) error {
	var le *chromedp.LoadError
	if errorsAs(err, &le) {
		msg := fmt.Sprintf("navigation failed: %s at %s", le.Error(), Redact(raw))
		ee := &engineerr.EngineError{Code: engineerr.EngineFailure, Message: msg}
		if strings.Contains(msg, "ERR_CONNECTION_REFUSED") {
			ee.Details.Errno = "ECONNREFUSED"
		}
		return ee
	}
	return classify(ctx, cctx, "session/open of "+Redact(raw), false, err)
}

// Back implements server.SessionBacker: one history entry back (no-op at
// the first entry), waiting for the load.
//
// Implements: SESS-003.
func (e *Engine) Back(ctx context.Context, op server.Operation) error {
	t, cctx, done, err := e.begin(ctx, op)
	if err != nil {
		return err
	}
	defer done()
	h, err := chromedp.Call(cctx, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return classify(ctx, cctx, "session/back", false, err)
	}
	if h.CurrentIndex <= 0 || int(h.CurrentIndex) >= len(h.Entries) {
		return nil
	}
	entry := h.Entries[h.CurrentIndex-1]
	if _, err := chromedp.Call(cctx, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: entry.ID}); err != nil {
		return classify(ctx, cctx, "session/back", false, err)
	}
	// Wait for the entry's document to be complete by polling it: a page
	// restored from the back-forward cache fires no load event (waiting for
	// one hung session/back now and then).
	want, _ := json.Marshal(entry.URL)
	check := `location.href === ` + string(want) + ` && document.readyState === "complete"`
	for delay := 10 * time.Millisecond; ; delay = min(delay*2, 200*time.Millisecond) {
		var done bool
		err := t.eval(cctx, check, &done)
		if err == nil && done {
			return nil
		}
		if err != nil && cctx.Err() != nil {
			return classify(ctx, cctx, "session/back", false, err)
		}
		tm := time.NewTimer(delay)
		select {
		case <-cctx.Done():
			tm.Stop()
			return classify(ctx, cctx, "session/back", false, context.Cause(cctx))
		case <-tm.C: // polling the page's state, bounded by the budget
		}
	}
}

// Restart implements server.SessionRestarter: the page closes and a blank
// one opens in the same browser context (storage kept).
//
// Implements: SESS-004, SESS-006, OBS-002.
func (e *Engine) Restart(ctx context.Context, op server.Operation) error {
	octx, cancel := opContext(ctx, op)
	defer cancel()
	s, err := e.session(octx, op.Attempt)
	if err != nil {
		return classify(ctx, octx, "session/restart", false, err)
	}
	if err := s.dialog.take(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return engineerr.New(engineerr.InvalidState, "the session was closed")
	}
	s.closeTab(octx)
	t, err := s.newTab(octx)
	if err != nil {
		return classify(ctx, octx, "session/restart", false, err)
	}
	s.tab = t
	return s.resumeVideo(octx)
}

// Reset implements server.SessionResetter: a clean browser context (storage
// cleared) with a blank page.
//
// Implements: SESS-004, SESS-005, OBS-002.
func (e *Engine) Reset(ctx context.Context, op server.Operation) error {
	octx, cancel := opContext(ctx, op)
	defer cancel()
	s, err := e.session(octx, op.Attempt)
	if err != nil {
		return classify(ctx, octx, "session/reset", false, err)
	}
	if err := s.dialog.take(); err != nil {
		return err
	}
	return classify(ctx, octx, "session/reset", false, s.replaceContext(octx, nil))
}

// replaceContext swaps the session's browser context for a new one, seeded
// by seed when non-nil, and opens a blank page in it.
func (s *session) replaceContext(ctx context.Context, seed func(ctx context.Context, t *tab, bc cdp.BrowserContextID) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return engineerr.New(engineerr.InvalidState, "the session was closed")
	}
	s.closeTab(ctx)
	old := s.bc
	bc, err := newBrowserContext(ctx, s.br)
	if err != nil {
		return err
	}
	s.bc = bc
	s.origins = map[string]bool{}
	if s.br.alive() == nil {
		cctx, cancel := context.WithTimeout(s.br.bctx, closeBudget)
		_, _ = chromedp.CallBrowser(cctx, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: old})
		cancel()
	}
	t, err := s.newTab(ctx)
	if err != nil {
		return err
	}
	s.tab = t
	if seed != nil {
		if err := seed(ctx, t, bc); err != nil {
			return err
		}
	}
	return s.resumeVideo(ctx)
}
