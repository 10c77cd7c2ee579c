package webengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/e2e-conform/toolkit/protocol/engineerr"
)

// A remote browser (web-engine spec, decision 12) is one the engine attaches
// to over the Chrome DevTools Protocol instead of launching it: a browser
// pool (Browserless-style), a container, a Chromium another process owns.
// The engine never launches or kills it: it opens one websocket connection
// per engine browser, creates one browser context per attempt in it, closes
// only those, and closes its connection when it is done. Browser contexts
// are created with disposeOnDetach, so a connection that drops (or an
// engine that is killed) leaves none behind either.

// Pool back-off: a 429 or 503 answer of the endpoint (a pool at capacity)
// is retried after poolBackoffMin, doubling up to poolBackoffMax (or the
// pool's Retry-After, up to poolBackoffMax), for at most poolRetryBudget
// from the first try; then the start fails with ENVIRONMENT_UNAVAILABLE.
// An operation waiting for the browser still ends with its own budget.
const (
	poolBackoffMin  = 250 * time.Millisecond
	poolBackoffMax  = 4 * time.Second
	poolRetryBudget = 30 * time.Second
	// poolDialTimeout bounds one /json/version lookup and one websocket
	// handshake.
	poolDialTimeout = 10 * time.Second
)

// CodeEnvironmentUnavailable is the infrastructure code of a browser pool
// that stayed at capacity (429/503) through the back-off (spec §8.4).
const CodeEnvironmentUnavailable = "ENVIRONMENT_UNAVAILABLE"

// endpoint is a remote browser's CDP endpoint: a ws:// or wss:// address,
// dialled as given (no rewriting: a pool's token lives in its query), or an
// http:// or https:// one, whose /json/version names the websocket address
// (the endpoint's query is kept on both requests). Header goes with every
// request to it. Its String is redacted; scrub takes its secrets out of any
// text.
type endpoint struct {
	u       *url.URL
	header  http.Header
	secrets []string // longest first
}

// errEndpoint classifies an endpoint that is not one (configuration).
var errEndpoint = errors.New("not a CDP endpoint")

// parseEndpoint reads a CDP endpoint and its headers. Its errors carry the
// redacted address only.
func parseEndpoint(raw string, header http.Header) (*endpoint, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: the address %s does not parse", errEndpoint, Redact(raw))
	}
	switch u.Scheme {
	case "ws", "wss", "http", "https":
	default:
		return nil, fmt.Errorf("%w: %s has the scheme %q; want ws, wss, http or https", errEndpoint, Redact(raw), u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%w: %s has no host", errEndpoint, Redact(raw))
	}
	ep := &endpoint{u: u, header: header.Clone()}
	ep.secrets = secretsOf(raw, u, header)
	return ep, nil
}

// secretsOf lists what of an endpoint must never be shown: the address
// itself, its user info, its query and every query value (raw and
// decoded), and every header value.
func secretsOf(raw string, u *url.URL, header http.Header) []string {
	var s []string
	add := func(v string) {
		if v != "" {
			s = append(s, v)
		}
	}
	if u.RawQuery != "" || u.User != nil {
		add(raw)
	}
	if u.User != nil {
		add(u.User.String())
		p, _ := u.User.Password()
		add(p)
		add(u.User.Username())
	}
	add(u.RawQuery)
	for _, vs := range u.Query() {
		for _, v := range vs {
			add(v)
			add(url.QueryEscape(v))
		}
	}
	for _, vs := range header {
		for _, v := range vs {
			add(v)
			if _, tok, ok := strings.Cut(v, " "); ok { // "Bearer <token>"
				add(tok)
			}
		}
	}
	sort.Slice(s, func(i, j int) bool { return len(s[i]) > len(s[j]) })
	return slices.Compact(s)
}

// String is the redacted address: origin and path, "?…" for a query.
func (ep *endpoint) String() string { return Redact(ep.u.String()) }

// scrub replaces every secret of the endpoint in s with "…".
func (ep *endpoint) scrub(s string) string {
	for _, sec := range ep.secrets {
		s = strings.ReplaceAll(s, sec, "…")
	}
	return s
}

// busyError is a 429 or 503 answer of the endpoint: a pool at capacity.
type busyError struct {
	status     int
	retryAfter time.Duration // 0 when the answer named none
}

func (b *busyError) Error() string {
	return fmt.Sprintf("the browser pool answered %d %s", b.status, http.StatusText(b.status))
}

// busyStatus reports whether an HTTP status is a pool's "come back later".
func busyStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable
}

// handshakeStatus reads the status of a failed websocket handshake from
// chromedp's error text ("unexpected status \"503 Service Unavailable\"");
// the error has no exported type to read it from.
var handshakeStatus = regexp.MustCompile(`unexpected status "(\d{3})`)

// statusOf returns the HTTP status a failed dial names, 0 when none.
func statusOf(err error) int {
	m := handshakeStatus.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// retryAfter reads a Retry-After header in seconds (0 when absent or a
// date).
func retryAfter(h http.Header) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// versionInfo is the part of /json/version the engine reads.
type versionInfo struct {
	Browser              string `json:"Browser"`
	WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
}

// wsURL returns the websocket address to dial: the endpoint itself for
// ws:// and wss://; for http:// and https://, the webSocketDebuggerUrl of
// its /json/version (the endpoint's path prefix and query kept), with the
// endpoint's query added to it.
func (ep *endpoint) wsURL(ctx context.Context) (string, error) {
	if ep.u.Scheme == "ws" || ep.u.Scheme == "wss" {
		return ep.u.String(), nil
	}
	vu := *ep.u
	vu.Path = strings.TrimSuffix(vu.Path, "/") + "/json/version"
	vu.RawPath = ""
	vu.Fragment = ""
	ctx, cancel := context.WithTimeout(ctx, poolDialTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, vu.String(), nil)
	if err != nil {
		return "", err
	}
	for k, vs := range ep.header {
		req.Header[k] = slices.Clone(vs)
	}
	// A client of its own, without keep-alive: nothing of it outlives the
	// lookup.
	hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, DisableKeepAlives: true}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("looking up the websocket address: %w", err)
	}
	defer resp.Body.Close()
	if busyStatus(resp.StatusCode) {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return "", &busyError{status: resp.StatusCode, retryAfter: retryAfter(resp.Header)}
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("looking up the websocket address: /json/version answered %s", resp.Status)
	}
	var vi versionInfo
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&vi); err != nil {
		return "", fmt.Errorf("looking up the websocket address: /json/version: %w", err)
	}
	ws, err := url.Parse(vi.WebSocketDebuggerURL)
	if err != nil || (ws.Scheme != "ws" && ws.Scheme != "wss") || ws.Host == "" {
		return "", fmt.Errorf("looking up the websocket address: /json/version has no webSocketDebuggerUrl (got %q)", Redact(vi.WebSocketDebuggerURL))
	}
	if q := ep.u.RawQuery; q != "" {
		if ws.RawQuery == "" {
			ws.RawQuery = q
		} else {
			ws.RawQuery += "&" + q
		}
	}
	return ws.String(), nil
}

// attach connects to the remote browser of o, backing off while the pool
// answers 429 or 503, and waits until it answers Browser.getVersion.
// Cancelling root stops the tries or closes the connection (never the
// browser).
func attach(root context.Context, o Options) (*browser, error) {
	ep, err := parseEndpoint(o.CDPEndpoint, o.CDPHeaders)
	if err != nil {
		return nil, engineerr.InvalidConfig("%v", err)
	}
	budget := o.poolBudget
	if budget <= 0 {
		budget = poolRetryBudget
	}
	start := time.Now()
	delay := poolBackoffMin
	for try := 1; ; try++ {
		b, err := attachOnce(root, ep)
		if err == nil {
			o.Logger.Info("attached to a remote browser", "endpoint", ep.String(), "version", b.version, "tries", try)
			return b, nil
		}
		if root.Err() != nil {
			return nil, engineerr.Infrastructure("attaching to the browser at %s: stopped", ep)
		}
		var busy *busyError
		if !errors.As(err, &busy) {
			return nil, engineerr.Infrastructure("attaching to the browser at %s: %s", ep, ep.scrub(err.Error()))
		}
		wait := max(delay, min(busy.retryAfter, poolBackoffMax))
		if time.Since(start)+wait > budget {
			return nil, engineerr.NewE2E(engineerr.CategoryInfrastructure, CodeEnvironmentUnavailable,
				"the browser pool at %s stayed at capacity: %v on each of %d tries over %s", ep, busy, try, time.Since(start).Round(time.Millisecond))
		}
		o.Logger.Warn("the browser pool is at capacity; retrying", "endpoint", ep.String(), "status", busy.status, "try", try, "wait", wait)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-root.Done():
			t.Stop()
			return nil, engineerr.Infrastructure("attaching to the browser at %s: stopped", ep)
		}
		delay = min(delay*2, poolBackoffMax)
	}
}

// attachOnce is one try of attach. A 429 or 503 answer is a *busyError.
func attachOnce(root context.Context, ep *endpoint) (*browser, error) {
	ws, err := ep.wsURL(root)
	if err != nil {
		return nil, err
	}
	opts := []remote.Option{remote.NoModifyURL, remote.WithDialTimeout(poolDialTimeout)}
	if len(ep.header) > 0 {
		opts = append(opts, remote.WithDialHTTPHeader(ep.header))
	}
	actx, acancel := remote.NewAllocator(root, ws, opts...)
	// The first context of an attaching allocator owns no tab: its
	// cancellation closes the connection only.
	bctx, bcancel := chromedp.NewContext(actx)
	v, err := chromedp.CallBrowser(bctx, cdpbrowser.GetVersion, cdp.Empty{})
	if err != nil {
		bcancel()
		acancel()
		if code := statusOf(err); busyStatus(code) {
			return nil, &busyError{status: code}
		}
		return nil, err
	}
	return &browser{remote: ep, actx: actx, acancel: acancel, bctx: bctx, bcancel: bcancel, version: v.Product}, nil
}
