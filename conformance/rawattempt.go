package conformance

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The raw attempt connection of the engine-agnostic UI specs (observe,
// locate, keyboard, state, artifacts, session; the snapshot checker they
// share is snapshotcheck.go). Those specs read results byte for byte —
// whether a member is present, whether a result is exactly null, which
// error code and data came back — so most of them drive a raw connection
// with an attempt started on it (rawAttemptConn) rather than the client
// library, which decodes, validates and classifies before a spec could
// look.

// rawAttemptConn is a raw connection, initialized, with lifecycle/init and
// lifecycle/startAttempt (those listed) done: the raw counterpart of
// e.inAttempt.
type rawAttemptConn struct {
	*rawConn
	e  *runEnv
	Op client.Op
	// Dir is the attempt's artifactsDir (created by the suite, under
	// e.Artifacts).
	Dir string
	// Started is when the startAttempt request was about to be written
	// (the lower bound of the attempt's window, ART-004).
	Started time.Time
	// run is the run id the connection's lifecycle/init gave.
	run  string
	next int
}

// openRawAttempt starts an attempt on a raw worker connection, ending the
// attempt (when listed) when the spec ends: on a pooled one (pool.go) when
// the manifest lists the attempt boundaries, else on a connection of its
// own, closed when the spec ends.
func (e *runEnv) openRawAttempt(ctx context.Context) *rawAttemptConn {
	var a *rawAttemptConn
	if e.pooling() {
		a = e.pooledRawAttempt(ctx)
	} else {
		a = &rawAttemptConn{rawConn: e.initialized(ctx), e: e}
		a.run = a.initWorker(ctx)
	}
	attempt := e.nextID("attempt")
	dir, err := os.MkdirTemp(e.Artifacts, attempt+"-")
	Expect(err).NotTo(HaveOccurred(), "creating the attempt's artifacts directory")
	a.Dir = dir
	a.Op = client.Op{RunID: a.run, AttemptID: attempt}
	a.Started = time.Now()
	if e.Manifest.Lists(wire.MethodStartAttempt) {
		id := a.id()
		p, err := json.Marshal(wire.StartAttemptParams{AttemptID: attempt, ArtifactsDir: dir, Signal: wire.SignalRef{ID: wire.IntSignalID(int64(id))}})
		Expect(err).NotTo(HaveOccurred())
		f, err := a.Call(ctx, fmt.Sprint(id), wire.MethodStartAttempt, string(p))
		Expect(err).NotTo(HaveOccurred(), "lifecycle/startAttempt")
		expectResult(f, "lifecycle/startAttempt")
	}
	if e.Manifest.Lists(wire.MethodEndAttempt) && !e.pooling() {
		DeferCleanup(func() { _ = a.endAttempt() })
	}
	return a
}

// initWorker sends lifecycle/init (when listed) on a's connection and
// returns the run id it gave.
func (a *rawAttemptConn) initWorker(ctx context.Context) string {
	e := a.e
	run := e.nextID("run")
	if e.Manifest.Lists(wire.MethodInit) {
		env := e.cfg.Env
		if env == nil {
			env = map[string]string{}
		}
		id := a.id()
		p, err := json.Marshal(wire.InitParams{RunID: run, TargetName: "conformance", ProjectRoot: e.Artifacts,
			Env: env, WorkerSlot: 0, Signal: wire.SignalRef{ID: wire.IntSignalID(int64(id))}})
		Expect(err).NotTo(HaveOccurred())
		f, err := a.Call(ctx, fmt.Sprint(id), wire.MethodInit, string(p))
		Expect(err).NotTo(HaveOccurred(), "lifecycle/init")
		e.skipWhenInitRefused(f.Error())
		expectResult(f, "lifecycle/init")
	}
	return run
}

// endAttempt sends lifecycle/endAttempt for a's attempt, bounded by a few
// seconds, and returns the response (nil when none came).
func (a *rawAttemptConn) endAttempt() *frame {
	cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	id := a.id()
	f, _ := a.Call(cctx, fmt.Sprint(id), wire.MethodEndAttempt, fmt.Sprintf(`{"signal":{"id":%d},"timeoutMs":5000}`, id))
	return f
}

// id returns the next request id of the connection, also used as the id of
// the request's signal (never reused on the connection).
func (a *rawAttemptConn) id() int {
	a.next++
	return a.next
}

// call sends an operation method whose params are the members given (a
// JSON object's members without braces, "" for none) plus the attempt's
// operation, and returns the response.
func (a *rawAttemptConn) call(ctx context.Context, method, members string) *frame {
	return a.callWithin(ctx, method, members, 30000)
}

// callWithin is call with operation.timeoutMs given.
func (a *rawAttemptConn) callWithin(ctx context.Context, method, members string, timeoutMs int) *frame {
	id := fmt.Sprint(a.id())
	op := fmt.Sprintf(`{"signal":{"id":%s},"timeoutMs":%d,"runId":%q,"attemptId":%q,"origin":"test"}`, id, timeoutMs, a.Op.RunID, a.Op.AttemptID)
	params := `{"operation":` + op + `}`
	if members != "" {
		params = `{` + members + `,"operation":` + op + `}`
	}
	f, err := a.Call(ctx, id, method, params)
	Expect(err).NotTo(HaveOccurred(), "%s: no response", method)
	return f
}

// resultObject decodes the result of f, which must be a result holding a JSON
// object, into its members.
func resultObject(f *frame, what string) map[string]json.RawMessage {
	raw := expectResult(f, what)
	var m map[string]json.RawMessage
	Expect(json.Unmarshal(raw, &m)).To(Succeed(), "%s: want a JSON object, got %s", what, clip(string(raw)))
	Expect(m).NotTo(BeNil(), "%s: want a JSON object, got %s", what, clip(string(raw)))
	return m
}

// observe sends engine/observe with options (a JSON object, "" for none)
// and returns the snapshot's members.
func (a *rawAttemptConn) observe(ctx context.Context, options string) map[string]json.RawMessage {
	members := ""
	if options != "" {
		members = `"options":` + options
	}
	return resultObject(a.call(ctx, wire.MethodObserve, members), "engine/observe with options "+orDefault(options, "absent"))
}

// expectNull checks that f is a successful response whose result is null.
func expectNull(f *frame, what string) {
	raw := strings.TrimSpace(string(expectResult(f, what)))
	Expect(raw).To(Equal("null"), "%s: want the result null, got %s", what, clip(raw))
}

// openFixtureRoot opens the fixture server's root page when the engine
// lists session/open, so that a web engine observes a document rather than
// its blank start page. Its outcome is SESS-001's concern, not the calling
// spec's: a failure is ignored.
func (a *rawAttemptConn) openFixtureRoot(ctx context.Context) {
	if a.e.Manifest.Lists(wire.MethodOpen) {
		a.call(ctx, wire.MethodOpen, fmt.Sprintf(`"url":%q`, a.e.FixtureURL+"/"))
	}
}

// stageRaw opens fixture screen s on the raw connection and returns the
// first observation (read as sent) whose root shows the screen's marker, or
// nil when the engine does not list session/open, the profile stages no
// fixture (core), the open fails or the marker does not show within 5 s.
// It serves specs whose requirement needs no fixture but whose clause is
// best exercised on one (a nil answer leaves the spec to what it checked
// without it).
func (a *rawAttemptConn) stageRaw(ctx context.Context, s fixture.Screen) map[string]json.RawMessage {
	if a.e.cfg.profile() != ProfileFull || !a.e.Manifest.Lists(wire.MethodOpen) {
		return nil
	}
	if a.call(ctx, wire.MethodOpen, fmt.Sprintf(`"url":%q`, a.e.FixtureURL+s.Path)).Error() != nil {
		return nil
	}
	marker, _ := json.Marshal(s.Marker)
	marker = marker[1 : len(marker)-1] // as it appears inside a JSON string
	deadline := time.Now().Add(5 * time.Second)
	for {
		snap := a.observe(ctx, "")
		if bytes.Contains(snap["root"], marker) {
			return snap
		}
		if time.Now().After(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(100 * time.Millisecond): // polling an observation, as e.stage does
		}
	}
}

// paddedBase64 is the padded standard alphabet, no whitespace (D33).
var paddedBase64 = regexp.MustCompile(`^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`)

// decodePNG decodes s, padded standard base64 of a PNG, and returns the
// image's dimensions.
func decodePNG(s string) (width, height int, err error) {
	if s == "" || !paddedBase64.MatchString(s) {
		return 0, 0, fmt.Errorf("not padded standard base64 (%q)", clip(s))
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return 0, 0, fmt.Errorf("not padded standard base64: %v", err)
	}
	return pngSize(b)
}

// pngSize decodes a whole PNG.
func pngSize(b []byte) (int, int, error) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return 0, 0, fmt.Errorf("not a PNG: %v", err)
	}
	r := img.Bounds()
	return r.Dx(), r.Dy(), nil
}

// sharesHost reports whether the suite shares the server's file system and
// clock: it spawned the server, or reaches it on a loopback address. A
// server reached on another address may run elsewhere; ART-002, ART-004
// and STATE-001 check files and times only when this holds (their
// statements say so for files and times; a loopback server in another
// mount namespace would be misjudged, and is not a setup the suite
// supports).
func (e *runEnv) sharesHost() (bool, string) {
	if e.Transport == "spawn" {
		return true, ""
	}
	host, _, err := net.SplitHostPort(e.cfg.Connect)
	if err == nil {
		if host == "localhost" {
			return true, ""
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			return true, ""
		}
	}
	return false, "the suite reaches the server at " + e.cfg.Connect + ", not on a loopback address, so it does not share its file system and clock"
}

// artifactPathProblem checks a path an engine returned (D44): relative to
// artifactsDir, "/" as separator, no ".." segment. It returns "" when the
// path is well formed.
func artifactPathProblem(p string) string {
	switch {
	case p == "":
		return "the path is empty"
	case strings.HasPrefix(p, "/"):
		return fmt.Sprintf("%q is absolute", p)
	case strings.Contains(p, `\`):
		return fmt.Sprintf("%q uses a backslash; the separator is /", p)
	case len(p) >= 2 && p[1] == ':':
		return fmt.Sprintf("%q starts with a drive letter: it is absolute", p)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return fmt.Sprintf("%q has a .. segment", p)
		}
	}
	return ""
}

// underDir resolves a well-formed relative path under dir.
func underDir(dir, p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }

// rfc3339 matches an RFC 3339 date-time (section 5.6), the form of
// expiresAt and startedAt (D51).
var rfc3339 = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$`)

// parseRFC3339 parses an RFC 3339 time, lower-case t and z included.
func parseRFC3339(s string) (time.Time, error) {
	if !rfc3339.MatchString(s) {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 date-time", s)
	}
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 date-time: %v", s, err)
	}
	return t, nil
}

// closedLoopbackURL returns an http URL on a loopback port nothing listens
// on: one the suite bound and released.
func closedLoopbackURL() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred(), "finding a free loopback port")
	addr := l.Addr().String()
	Expect(l.Close()).To(Succeed())
	return (&url.URL{Scheme: "http", Host: addr, Path: "/"}).String()
}

// isInvalidKeyAnswer reports whether f answers a key outside the grammar
// as KEY-005 allows: -32602, or -32000 engine UNSUPPORTED_CAPABILITY.
func isInvalidKeyAnswer(f *frame) (bool, string) {
	eo := f.Error()
	if eo == nil {
		return false, "the result " + clip(string(f.Result()))
	}
	if eo.Code == wire.CodeInvalidParams {
		return true, ""
	}
	d := dataOf(eo)
	if eo.Code == wire.CodeEngineError && d.Type == "engine" && d.Code == "UNSUPPORTED_CAPABILITY" {
		return true, ""
	}
	return false, fmt.Sprintf("error %d %q with data %s", eo.Code, eo.Message, clip(string(eo.Data)))
}

// noteEntry records an observation about a spec that passed without exercising
// all of its statement (an optional form the engine did not produce).
func noteEntry(format string, args ...any) {
	AddReportEntry("note", fmt.Sprintf(format, args...))
}

// firstFew keeps the first n of l, saying how many more there were.
func firstFew(l []string, n int) []string {
	if len(l) > n {
		return append(l[:n:n], fmt.Sprintf("… %d more", len(l)-n))
	}
	return l
}

// textInputID returns the ref.id of the first node of a raw tree whose role
// takes text (textbox, searchbox, combobox) and that is neither hidden nor
// disabled, "" when there is none.
func textInputID(raw json.RawMessage) string {
	var n struct {
		Ref struct {
			ID string `json:"id"`
		} `json:"ref"`
		Role     string            `json:"role"`
		States   map[string]bool   `json:"states"`
		Children []json.RawMessage `json:"children"`
	}
	if json.Unmarshal(raw, &n) != nil {
		return ""
	}
	switch n.Role {
	case "textbox", "searchbox", "combobox":
		if !n.States["hidden"] && !n.States["disabled"] && n.Ref.ID != "" {
			return n.Ref.ID
		}
	}
	for _, c := range n.Children {
		if id := textInputID(c); id != "" {
			return id
		}
	}
	return ""
}

// screenshotResponse is one artifacts/screenshot response.
type screenshotResponse struct {
	what string
	raw  json.RawMessage
	res  map[string]json.RawMessage
}

// screenshots takes two screenshots, without and with a label, and returns
// their results, each checked to be a JSON object.
func (a *rawAttemptConn) screenshots(ctx context.Context) []screenshotResponse {
	var out []screenshotResponse
	for _, label := range []string{"", "conformance check"} {
		what, members := "artifacts/screenshot without label", ""
		if label != "" {
			what, members = "artifacts/screenshot with label "+label, fmt.Sprintf(`"label":%q`, label)
		}
		f := a.call(ctx, wire.MethodScreenshot, members)
		res := resultObject(f, what)
		out = append(out, screenshotResponse{what: what, raw: f.Result(), res: res})
	}
	return out
}

// hostileScreenshotLabels are labels an engine must not turn into a path
// outside artifactsDir or to a file it did not write: a traversal, a
// leading slash, a slash with non-ASCII text, and a name longer than a
// file name may be.
func hostileScreenshotLabels() []string {
	return []string{"../../e2e-conform-escape", "/tmp/e2e-conform-absolute", "chart/2026 ✓ 日本語 ü", strings.Repeat("long-label-", 30)}
}

// hostileScreenshots takes one screenshot with each hostile label and
// returns the responses that are results; an error answer (an engine may
// refuse a label it cannot name a file after) is left out, said with By.
func (a *rawAttemptConn) hostileScreenshots(ctx context.Context) []screenshotResponse {
	var out []screenshotResponse
	for _, label := range hostileScreenshotLabels() {
		what := fmt.Sprintf("artifacts/screenshot with label %q", label)
		f := a.call(ctx, wire.MethodScreenshot, fmt.Sprintf(`"label":%q`, label))
		if eo := f.Error(); eo != nil {
			By(fmt.Sprintf("%s: answered error %d %q, no path to check", what, eo.Code, eo.Message))
			continue
		}
		out = append(out, screenshotResponse{what: what, raw: f.Result(), res: resultObject(f, what)})
	}
	return out
}

// encodeMembers encodes decoded members back to JSON.
func encodeMembers(m map[string]json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(m)
	return b
}

// unmarshalIfPresent decodes raw into v; absent raw leaves v as it is.
func unmarshalIfPresent(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, v)
}
