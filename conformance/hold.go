package conformance

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// holdPrefix is the path under which the suite's HTTP server holds its
// answer to a page until the suite releases it. It names no fixture screen:
// a spec that keeps a request in flight this way needs no fixture (TRN-005),
// only an engine that loads the URL it opens.
const holdPrefix = "/e2e-conform/hold/"

// heldPage is one URL of the suite's HTTP server whose answer the suite
// holds: Arrived is closed when the engine's request for it arrives, and
// the page is answered once Release is called. Dropped reports whether the
// requester went away before the answer.
type heldPage struct {
	Path    string
	Arrived chan struct{}
	release chan struct{}
	once    sync.Once
	rel     sync.Once

	mu        sync.Mutex
	dropped   bool
	droppedAt time.Time
}

// Release lets the held page be answered (idempotent).
func (h *heldPage) Release() { h.rel.Do(func() { close(h.release) }) }

// Dropped reports whether a request for the page went away before its
// answer, and when.
func (h *heldPage) Dropped() (bool, time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dropped, h.droppedAt
}

// holds are the held pages of the run, by path.
type holds struct {
	mu    sync.Mutex
	pages map[string]*heldPage
}

// hold registers a new held page on the fixture server; it is released
// when the spec ends.
func (e *runEnv) hold() *heldPage { return e.fixtures.hold(holdPrefix + e.nextID("page")) }

// hold registers a new held page at path.
func (f *fixtureServer) hold(path string) *heldPage {
	h := &heldPage{Path: path, Arrived: make(chan struct{}), release: make(chan struct{})}
	f.held.mu.Lock()
	if f.held.pages == nil {
		f.held.pages = map[string]*heldPage{}
	}
	f.held.pages[h.Path] = h
	f.held.mu.Unlock()
	return h
}

// serveHold answers a held page once it is released; an unknown path gets
// 404.
func (f *fixtureServer) serveHold(w http.ResponseWriter, r *http.Request) {
	f.held.mu.Lock()
	h := f.held.pages[strings.TrimSuffix(r.URL.Path, "/")]
	f.held.mu.Unlock()
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h.once.Do(func() { close(h.Arrived) })
	select {
	case <-h.release:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>e2e-conform held page</title><p>e2e-conform: a page the suite held until it released it</p>\n"))
	case <-r.Context().Done():
		h.mu.Lock()
		if !h.dropped {
			h.dropped, h.droppedAt = true, time.Now()
		}
		h.mu.Unlock()
	}
}

// openHeld writes session/open of a new held page (released when the spec
// ends) and reads until the engine's fetch of it arrives or the open is
// answered, for at most 10 s. It returns the page and the open's id.
func (s *pipelinedConn) openHeld(ctx context.Context) (*heldPage, string) {
	h := s.e.hold()
	DeferCleanup(h.Release)
	id := s.id()
	s.write(id, wire.MethodOpen, s.openParams(s.e.FixtureURL+h.Path, id, 30000))
	actx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	go func() {
		select {
		case <-h.Arrived:
			cancel() // the fetch arrived: stop reading
		case <-actx.Done():
		}
	}()
	for !s.answered(id) {
		if _, err := s.next(actx); err != nil {
			break
		}
	}
	return h, id
}
