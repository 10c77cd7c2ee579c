package conformance

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// urlWatch is an HTTP listener the suite opens for one spec and whose
// connections it counts: an engine that reaches the URL (a browser's
// request, or a dial that checks reachability) connects to it (SIG-001,
// without a fixture screen).
type urlWatch struct {
	url     string
	conns   atomic.Int64
	reached chan struct{} // closed at the first connection
	once    sync.Once
}

// connections returns how many connections the listener accepted.
func (w *urlWatch) connections() int64 { return w.conns.Load() }

// reachedBy waits until the first connection or until deadline, whichever
// comes first, and returns how many connections the listener accepted: a
// request that must have no effect is watched this way for a late fetch.
func (w *urlWatch) reachedBy(ctx context.Context, deadline time.Time) int64 {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-w.reached:
	case <-t.C:
	case <-ctx.Done():
	}
	return w.connections()
}

// countingListener counts accepted connections.
type countingListener struct {
	net.Listener
	w *urlWatch
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.w.conns.Add(1)
		l.w.once.Do(func() { close(l.w.reached) })
	}
	return c, err
}

// watchURL opens a listener on the fixture server's host, serving a blank
// page at every path, closed when the spec ends.
func (e *runEnv) watchURL(ctx context.Context) *urlWatch {
	host := "127.0.0.1"
	if u, err := url.Parse(e.FixtureURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	Expect(err).NotTo(HaveOccurred(), "opening a watched listener")
	w := &urlWatch{url: "http://" + l.Addr().String() + "/e2e-conform-watched", reached: make(chan struct{})}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = rw.Write([]byte("<!doctype html><title>e2e-conform watched page</title><p>e2e-conform watched page</p>"))
	})}
	go srv.Serve(countingListener{l, w})
	DeferCleanup(func() { _ = srv.Close() })
	return w
}

// sameURL reports whether two URLs are equal after WHATWG serialization
// (fxSerializeURL), or as strings when one cannot be parsed.
func sameURL(a, b string) bool {
	sa, err1 := fxSerializeURL(a)
	sb, err2 := fxSerializeURL(b)
	if err1 != nil || err2 != nil {
		return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
	}
	return sa == sb
}

// watchQuietly runs check, which judges one observation, every actPollEvery
// until actQuietWait has passed since from (at least once): what must not
// happen is watched for as long as a refused action is (actQuietWait), so
// an effect that lands after the answer shows.
func watchQuietly(ctx context.Context, from time.Time, check func()) {
	for deadline := from.Add(actQuietWait); ; {
		actPause(ctx, actPollEvery) // polling the surface, as the harness does
		check()
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			return
		}
	}
}
