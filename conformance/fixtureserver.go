package conformance

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/e2e-conform/toolkit/conformance/fixture/web"
)

// fixtureServer is the suite's HTTP server on the loopback interface (spec
// §11): the fixture screens (package conformance/fixture/web: every screen
// of conformance/fixture as an HTML page, /slow after fixture.SlowDelay),
// and the held pages (hold.go) under holdPrefix.
type fixtureServer struct {
	srv  *http.Server
	url  string // its base URL, "http://127.0.0.1:port"
	held holds  // the pages it holds (hold.go)
}

// startFixtureServer starts serving on a free loopback port; close stops
// it.
func startFixtureServer() (*fixtureServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &fixtureServer{}
	mux := http.NewServeMux()
	mux.Handle("/", web.Handler())
	mux.HandleFunc(holdPrefix, f.serveHold)
	f.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	f.url = "http://" + l.Addr().String()
	go f.srv.Serve(l)
	return f, nil
}

// close shuts the server down, waiting up to a second for the requests in
// flight.
func (f *fixtureServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = f.srv.Shutdown(ctx)
}
