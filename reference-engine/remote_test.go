package webengine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/e2e-conform/toolkit/internal/chromium"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The token every remote test puts in the endpoint's query and headers:
// it must never appear in a log line or an error.
const (
	poolToken  = "pool-token-5f1c2a9e"
	poolBearer = "bearer-secret-77c1d0"
)

// pool is a listening Chromium standing in for a browser pool, closed at
// the end of t, with a CDP connection of the test's own to inspect it.
type pool struct {
	*chromium.Listening
	inspect context.Context // a browser-level chromedp context on it
}

func newPool(t *testing.T) *pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	l, err := chromium.Listen(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	actx, acancel := remote.NewAllocator(context.Background(), l.WebSocketURL, remote.NoModifyURL)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(func() { bcancel(); acancel() })
	// The first call connects, on the context itself: a deadline on it
	// would close the connection when it ends.
	if _, err := chromedp.CallBrowser(bctx, target.GetBrowserContexts, cdp.Empty{}); err != nil {
		t.Fatalf("connecting to the listening Chromium: %v", err)
	}
	return &pool{Listening: l, inspect: bctx}
}

// contents lists the browser's targets (pages and other kinds, with their
// browser contexts) and its browser contexts, sorted.
func (p *pool) contents(t *testing.T) (targets, contexts []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.inspect, 10*time.Second)
	defer cancel()
	ts, err := chromedp.CallBrowser(ctx, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatalf("Target.getTargets: %v", err)
	}
	for _, ti := range ts.TargetInfos {
		targets = append(targets, fmt.Sprintf("%s %s %s (context %s)", ti.Type, ti.TargetID, ti.URL, ti.BrowserContextID))
	}
	bcs, err := chromedp.CallBrowser(ctx, target.GetBrowserContexts, cdp.Empty{})
	if err != nil {
		t.Fatalf("Target.getBrowserContexts: %v", err)
	}
	for _, id := range bcs.BrowserContextIDs {
		contexts = append(contexts, string(id))
	}
	slices.Sort(targets)
	slices.Sort(contexts)
	return targets, contexts
}

// leavesNothing checks that the browser holds what it held before (the
// snapshot of contents) and still runs.
func (p *pool) leavesNothing(t *testing.T, targets, contexts []string) {
	t.Helper()
	if gone(p.Pid()) {
		t.Fatal("the remote browser is gone: the engine must never kill it")
	}
	gotT, gotC := p.contents(t)
	if !slices.Equal(gotT, targets) || !slices.Equal(gotC, contexts) {
		t.Fatalf("the engine left something in the remote browser:\ntargets %q\nwant    %q\ncontexts %q\nwant     %q", gotT, targets, gotC, contexts)
	}
}

// proxy is a TCP front door for the pool: its first busy connections are
// answered with an HTTP status (a pool at capacity) and closed; later ones
// are relayed to the browser. drop cuts every relayed connection.
type proxy struct {
	ln      net.Listener
	backend string
	status  string // e.g. "503 Service Unavailable"

	mu       sync.Mutex
	busy     int // connections still to refuse
	refused  int
	relayed  int
	requests []string // request lines of refused connections
	conns    []net.Conn
	wg       sync.WaitGroup
}

func newProxy(t *testing.T, backend string, busy int, status string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, backend: backend, busy: busy, status: status}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refuse := p.busy > 0
		if refuse {
			p.busy--
			p.refused++
		} else {
			p.relayed++
		}
		p.conns = append(p.conns, c)
		p.mu.Unlock()
		p.wg.Add(1)
		if refuse {
			go p.refuse(c)
		} else {
			go p.relay(c)
		}
	}
}

func (p *proxy) refuse(c net.Conn) {
	defer p.wg.Done()
	defer c.Close()
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	p.mu.Lock()
	p.requests = append(p.requests, req.Method+" "+req.URL.String()+" auth="+req.Header.Get("Authorization"))
	p.mu.Unlock()
	fmt.Fprintf(c, "HTTP/1.1 %s\r\nRetry-After: 0\r\nContent-Type: text/plain\r\nContent-Length: 9\r\nConnection: close\r\n\r\ntry later", p.status)
}

func (p *proxy) relay(c net.Conn) {
	defer p.wg.Done()
	defer c.Close()
	b, err := net.Dial("tcp", p.backend)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, b)
	p.mu.Unlock()
	defer b.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(b, c)
		b.Close()
	}()
	_, _ = io.Copy(c, b)
	c.Close()
	<-done
}

// drop closes every connection the proxy holds (a pool's load balancer
// cutting the websocket).
func (p *proxy) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) counts() (refused, relayed int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused, p.relayed
}

func (p *proxy) close() {
	p.ln.Close()
	p.drop()
	p.wg.Wait()
}

// syncBuffer is a log sink safe for the engine's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// remoteEngine is an engine attached to endpoint, logging at debug level
// into a buffer; its engine/log lines go to lines.
type remoteEngine struct {
	*Engine
	logs  *syncBuffer
	mu    sync.Mutex
	lines []string
}

func newRemoteEngine(t *testing.T, endpoint string, header http.Header, budget time.Duration) *remoteEngine {
	t.Helper()
	logs := &syncBuffer{}
	o := Options{NoVideo: true, CDPEndpoint: endpoint, CDPHeaders: header, poolBudget: budget,
		ExecutablePath: "/nonexistent/chromium", // a remote engine never launches one
		Logger:         slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	re := &remoteEngine{Engine: newEngine(o.withDefaults()), logs: logs}
	t.Cleanup(func() { re.Close() })
	if err := re.Init(context.Background(), server.InitInfo{Log: re.log}); err != nil {
		t.Fatalf("init: %v", err)
	}
	return re
}

func (re *remoteEngine) log(line string) {
	re.mu.Lock()
	defer re.mu.Unlock()
	re.lines = append(re.lines, line)
}

// noSecret fails when a token shows in the engine's logs, engine/log lines
// or the given errors.
func (re *remoteEngine) noSecret(t *testing.T, errs ...error) {
	t.Helper()
	re.mu.Lock()
	text := re.logs.String() + strings.Join(re.lines, "\n")
	re.mu.Unlock()
	for _, err := range errs {
		if err != nil {
			text += "\n" + err.Error()
		}
	}
	for _, s := range []string{poolToken, poolBearer} {
		if strings.Contains(text, s) {
			t.Fatalf("a secret of the endpoint shows in the engine's output:\n%s", text)
		}
	}
}

// attempt runs one attempt: open the page, observe it, end the attempt.
func (re *remoteEngine) attempt(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	if err := re.StartAttempt(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := re.Open(ctx, testOp, url); err != nil {
		t.Fatalf("open through the remote browser: %v", err)
	}
	snap, err := re.Observe(ctx, testOp, wire.EngineObserveOptions{})
	if err != nil {
		t.Fatalf("observe through the remote browser: %v", err)
	}
	if snap.Location != url {
		t.Fatalf("observed location %q, want %q", snap.Location, url)
	}
	if err := re.EndAttempt(ctx, server.Cleanup{TimeoutMs: 5000}); err != nil {
		t.Fatal(err)
	}
}

// TestRemoteBrowserAttachesAndLeavesNothing: with a CDP endpoint the engine
// attaches to a browser it does not own (a listening Chromium standing in
// for a pool), through a ws:// address with a token in its query and
// through an http:// one resolved by /json/version (query kept), with a
// header: it launches nothing, reports the browser's version (engine/log
// and attempt/environment), serves attempts each in a browser context of
// its own, and once disposed and closed has left nothing in the browser
// (no target, no browser context: Target.getTargets and
// Target.getBrowserContexts as before), which still runs. No token is ever
// shown.
func TestRemoteBrowserAttachesAndLeavesNothing(t *testing.T) {
	srv := pageServer(t)
	p := newPool(t)
	header := http.Header{"Authorization": {"Bearer " + poolBearer}}
	for _, tc := range []struct{ name, endpoint string }{
		{"ws", p.WebSocketURL + "?token=" + poolToken},
		{"http", p.HTTPURL + "/?token=" + poolToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			targets, contexts := p.contents(t)
			re := newRemoteEngine(t, tc.endpoint, header, 0)
			if _, dir := started(re.Engine); dir {
				t.Fatal("a remote engine made a Chromium directory")
			}
			re.attempt(t, srv.URL+"/")
			br, err := re.browser(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if br.remote == nil || br.in != nil || !strings.HasPrefix(br.version, "Chrome/") {
				t.Fatalf("the engine's browser is not the remote one (remote %v, launched %v, version %q)", br.remote != nil, br.in != nil, br.version)
			}
			re.mu.Lock()
			lines := strings.Join(re.lines, "\n")
			re.mu.Unlock()
			if !strings.Contains(lines, "attached to the remote browser "+br.version) {
				t.Fatalf("engine/log does not report the remote browser's version:\n%s", lines)
			}
			re.attempt(t, srv.URL+"/gen/30")
			if err := re.Dispose(context.Background(), server.DisposeInfo{TimeoutMs: 5000}); err != nil {
				t.Fatal(err)
			}
			if err := re.Close(); err != nil {
				t.Fatal(err)
			}
			p.leavesNothing(t, targets, contexts)
			re.noSecret(t)
		})
	}
}

// TestRemotePoolBusyBacksOff: a pool answering 503 (or 429) to the first
// tries, at the websocket handshake (ws://) or at /json/version (http://),
// is retried with back-off until it lets the engine in; the operation
// waiting for it succeeds. A pool that stays at capacity past the back-off
// budget fails the start with infrastructure ENVIRONMENT_UNAVAILABLE,
// naming the status, and shows no token.
func TestRemotePoolBusyBacksOff(t *testing.T) {
	srv := pageServer(t)
	p := newPool(t)
	backend := strings.TrimPrefix(p.HTTPURL, "http://")
	path := p.WebSocketURL[strings.Index(p.WebSocketURL, "/devtools/"):]
	header := http.Header{"Authorization": {"Bearer " + poolBearer}}
	for _, tc := range []struct {
		name, scheme, status string
		busy                 int
	}{
		{"ws/503", "ws", "503 Service Unavailable", 2},
		{"ws/429", "ws", "429 Too Many Requests", 1},
		{"http/503", "http", "503 Service Unavailable", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			targets, contexts := p.contents(t)
			px := newProxy(t, backend, tc.busy, tc.status)
			ep := "ws://" + px.addr() + path + "?token=" + poolToken
			if tc.scheme == "http" {
				ep = "http://" + px.addr() + "?token=" + poolToken
			}
			re := newRemoteEngine(t, ep, header, 0)
			re.attempt(t, srv.URL+"/")
			refused, relayed := px.counts()
			if refused != tc.busy || relayed == 0 {
				t.Fatalf("the pool refused %d and relayed %d connections; want %d refused, then relayed", refused, relayed, tc.busy)
			}
			px.mu.Lock()
			reqs := slices.Clone(px.requests)
			px.mu.Unlock()
			for _, r := range reqs {
				if !strings.Contains(r, "token="+poolToken) || !strings.Contains(r, "auth=Bearer "+poolBearer) {
					t.Fatalf("a refused request lost the endpoint's query or header: %q", r)
				}
			}
			if n := strings.Count(re.logs.String(), "at capacity"); n != tc.busy {
				t.Fatalf("the engine logged %d back-offs, want %d:\n%s", n, tc.busy, re.logs.String())
			}
			re.Close()
			p.leavesNothing(t, targets, contexts)
			re.noSecret(t)
		})
	}

	t.Run("stays busy", func(t *testing.T) {
		px := newProxy(t, backend, 1<<30, "503 Service Unavailable")
		re := newRemoteEngine(t, "ws://"+px.addr()+path+"?token="+poolToken, header, 1500*time.Millisecond)
		if err := re.StartAttempt(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		err := re.Open(context.Background(), testOp, srv.URL+"/")
		var e2 *engineerr.E2EError
		if !errors.As(err, &e2) || e2.Category != engineerr.CategoryInfrastructure || e2.Code != CodeEnvironmentUnavailable || !strings.Contains(e2.Message, "503") {
			t.Fatalf("open through a pool that stays at capacity: got %v; want infrastructure %s naming 503", err, CodeEnvironmentUnavailable)
		}
		if refused, _ := px.counts(); refused < 3 {
			t.Fatalf("the engine tried %d times within the back-off budget; want several", refused)
		}
		re.noSecret(t, err)
	})
}

// TestRemoteConnectionDropReconnects: the websocket to the pool is cut in
// the middle of an attempt (the proxy closes it). That attempt's next
// operation fails with ENGINE_FAILURE (its pages and storage are gone with
// the connection), the next attempt reconnects (a new connection reaches
// the pool) and works, and the browser contexts of both attempts are gone
// afterwards (disposeOnDetach).
func TestRemoteConnectionDropReconnects(t *testing.T) {
	srv := pageServer(t)
	p := newPool(t)
	targets, contexts := p.contents(t)
	backend := strings.TrimPrefix(p.HTTPURL, "http://")
	path := p.WebSocketURL[strings.Index(p.WebSocketURL, "/devtools/"):]
	px := newProxy(t, backend, 0, "")
	re := newRemoteEngine(t, "ws://"+px.addr()+path+"?token="+poolToken, nil, 0)
	ctx := context.Background()
	if err := re.StartAttempt(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := re.Open(ctx, testOp, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	br, err := re.browser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	px.drop()
	<-br.bctx.Done() // chromedp noticed the lost connection
	_, err = re.Observe(ctx, testOp, wire.EngineObserveOptions{})
	if engineerr.CodeOf(err) != engineerr.EngineFailure {
		t.Fatalf("observe after the connection dropped: got %v, want ENGINE_FAILURE", err)
	}
	if err := re.EndAttempt(ctx, server.Cleanup{TimeoutMs: 5000}); err != nil {
		t.Fatal(err)
	}
	re.attempt(t, srv.URL+"/")
	if _, relayed := px.counts(); relayed != 2 {
		t.Fatalf("%d connections reached the pool; want 2 (the first and the reconnection)", relayed)
	}
	again, err := re.browser(ctx)
	if err != nil || again == br {
		t.Fatalf("the engine did not reconnect (err %v)", err)
	}
	re.Close()
	p.leavesNothing(t, targets, contexts)
	re.noSecret(t, err)
}

// TestCDPEndpointOptions: initializationOptions.cdpEndpoint and cdpHeaders
// override the flags; an endpoint that is not one is INVALID_CONFIG and its
// message shows no token.
func TestCDPEndpointOptions(t *testing.T) {
	base := Options{CDPEndpoint: "ws://127.0.0.1:1/devtools/browser/x", CDPHeaders: http.Header{"X-A": {"1"}}}
	o, err := base.apply([]byte(`{"cdpEndpoint":"https://pool.example/?token=` + poolToken + `","cdpHeaders":{"Authorization":"Bearer ` + poolBearer + `"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.CDPEndpoint != "https://pool.example/?token="+poolToken || o.CDPHeaders.Get("Authorization") != "Bearer "+poolBearer || o.CDPHeaders.Get("X-A") != "1" {
		t.Fatalf("apply: endpoint %q headers %v", o.CDPEndpoint, o.CDPHeaders)
	}
	if base.CDPHeaders.Get("Authorization") != "" {
		t.Fatal("apply changed the base options' headers")
	}
	for _, bad := range []string{"ftp://pool.example/?token=" + poolToken, "ws:///?token=" + poolToken, "://?token=" + poolToken} {
		_, err := Options{}.apply([]byte(`{"cdpEndpoint":"` + bad + `"}`))
		var e2 *engineerr.E2EError
		if !errors.As(err, &e2) || e2.Code != "INVALID_CONFIG" {
			t.Fatalf("cdpEndpoint %q: got %v, want INVALID_CONFIG", bad, err)
		}
		if strings.Contains(err.Error(), poolToken) {
			t.Fatalf("cdpEndpoint %q: the error shows the token: %v", bad, err)
		}
	}
	ep, err := parseEndpoint("wss://user:pw-"+poolToken+"@pool.example/x?token="+poolToken+"&a=b", http.Header{"Authorization": {"Bearer " + poolBearer}})
	if err != nil {
		t.Fatal(err)
	}
	msg := ep.scrub(`could not dial "wss://user:pw-` + poolToken + `@pool.example/x?token=` + poolToken + `&a=b": Bearer ` + poolBearer)
	if strings.Contains(msg, poolToken) || strings.Contains(msg, poolBearer) || strings.Contains(ep.String(), poolToken) {
		t.Fatalf("scrub left a secret: %q (endpoint shown as %q)", msg, ep.String())
	}
}
