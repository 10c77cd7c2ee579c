package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/locate"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The steps of the fixture specs of the observe, locate, state, session and
// errors areas (catalog rows with Fixture = yes). They work on client
// connections: a screen of the fixture contract (conformance/fixture) is
// staged with e.stage, its nodes are found by the contract's test ids, and
// exact error objects are read back with engineerr.Wire (the client would
// otherwise classify them: e.g. FRAME_AMBIGUOUS with retryable: true
// becomes ENGINE_FAILURE).

// The staging rule, one for every spec that opens a fixture URL (§11,
// Fixture: "an engine whose surface the suite cannot stage reports these
// requirements as not verified, never as passed"): an engine that answers
// session/open of a fixture URL with an error refused to stage it, and the
// spec is not verified, whichever requirement it checks. An open that gets
// null stages the page, and what follows is judged. Anything else (a
// result other than null, a connection that failed) is no refusal: it is
// judged too.

// fxOpen opens the fixture URL u on a client connection under the staging
// rule.
func (e *runEnv) fxOpen(ctx context.Context, c *client.Conn, op client.Op, u string) {
	err := c.Open(ctx, op, u)
	if err == nil {
		return
	}
	if eo := fxWireError(err); eo != nil {
		stagingRefused(u, eo)
	}
	Expect(err).NotTo(HaveOccurred(), "session/open of the fixture URL %s: want null or an error response, got %s", u, fxDescribeError(err))
}

// stagingRefused ends the running spec as not verified: the engine
// answered session/open of the fixture URL u with the error eo (the staging
// rule).
func stagingRefused(u string, eo *wire.ErrorObject) {
	Skip(notVerified + fmt.Sprintf("the engine refused to stage the fixture URL %s: session/open answered %d %q", u, eo.Code, eo.Message))
}

// fxStage stages screen s (its path, or path when not "", e.g. a storage
// path with a query) and returns the first observation showing its marker.
func (e *runEnv) fxStage(ctx context.Context, c *client.Conn, op client.Op, s fixture.Screen, path string) *wire.EngineSnapshot {
	if path == "" {
		path = s.Path
	}
	return e.stage(ctx, c, op, path, s.Marker)
}

// fxObserve sends engine/observe without options.
func fxObserve(ctx context.Context, c *client.Conn, op client.Op, what string) *wire.EngineSnapshot {
	snap, err := c.Observe(ctx, op, nil)
	Expect(err).NotTo(HaveOccurred(), "engine/observe %s: want a snapshot, got an error", what)
	return snap
}

// fxNode returns the node of contract element el in snap, failing the spec
// when the observation lacks it.
func fxNode(snap *wire.EngineSnapshot, s fixture.Screen, el fixture.Element) *wire.SemanticNode {
	n := el.Find(&snap.Root)
	Expect(n).NotTo(BeNil(), "the %s fixture's node with test id %q (role %q, name %q): want it in the observation (the fixture contract shows it), got no such node",
		s.Name, el.TestID, el.Role, el.Name)
	return n
}

// fxCanPerform reports whether the engine declares engine/perform with the
// action kind.
func (e *runEnv) fxCanPerform(kind string) bool {
	return e.Manifest.Lists(wire.MethodPerform) && e.Manifest.HasAction(kind)
}

// fxNeed skips the running spec as not verified unless the engine lists
// every method given: the spec needs them to stage or read back the
// fixture, although its requirement applies without them.
func (e *runEnv) fxNeed(why string, methods ...string) {
	for _, m := range methods {
		if !e.Manifest.Lists(m) {
			Skip(notVerified + fmt.Sprintf("the engine does not list %s, which the suite needs %s", m, why))
		}
	}
}

// fxWireError returns the error object an engine answered, as it was on the
// wire, or nil when err did not come from the engine (or is nil).
func fxWireError(err error) *wire.ErrorObject {
	if err == nil {
		return nil
	}
	return engineerr.Wire(err)
}

// fxDescribeError renders err for a failure message: the wire object when
// there is one.
func fxDescribeError(err error) string {
	if eo := fxWireError(err); eo != nil {
		return fmt.Sprintf("error %d %q with data %s", eo.Code, eo.Message, orDefault(clip(string(eo.Data)), "none"))
	}
	return fmt.Sprintf("error %v", err)
}

// fxIsEngineCode reports whether err is the engine error code on the wire.
func fxIsEngineCode(err error, code string) bool {
	eo := fxWireError(err)
	if eo == nil || eo.Code != wire.CodeEngineError {
		return false
	}
	d := dataOf(eo)
	return d.Type == "engine" && d.Code == code
}

// fxCanary returns a fresh canary value: prefix and 16 random hex digits.
func fxCanary(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// fxSecrets returns every value registered with e.Secret so far.
func (e *runEnv) fxSecrets() []string {
	return append([]string(nil), e.secrets.values()...)
}

// fxLeaks returns where each of values appears: in lines (stderr lines, or
// messages received), labelled where.
// One automaton over every form of values (leakscan.go) reads each line
// once.
func fxLeaks(where string, lines, values []string) []string {
	var out []string
	m := newLeakMatcher(values)
	for i, l := range lines {
		for _, h := range m.find(l) { // raw or encoded (leaks.go)
			out = append(out, fmt.Sprintf("%s %d holds a canary, %s (%s)", where, i+1, h.form, clip(redactForms(l, values[h.secret]))))
		}
	}
	return out
}

// fxAttemptWithEnv is e.Attempt with env added to the lifecycle/init env
// (the suite's configured env first, env winning on a clash).
func (e *runEnv) fxAttemptWithEnv(ctx context.Context, c *client.Conn, env map[string]string) client.Op {
	run := e.nextID("run")
	if e.Manifest.Lists(wire.MethodInit) {
		all := map[string]string{}
		for k, v := range e.cfg.Env {
			all[k] = v
		}
		for k, v := range env {
			all[k] = v
		}
		err := c.Init(ctx, wire.InitParams{RunID: run, TargetName: "conformance", ProjectRoot: e.Artifacts, Env: all})
		e.skipWhenInitErr(err)
		Expect(err).NotTo(HaveOccurred(), "lifecycle/init with the canary env: want null, got %s", fxDescribeError(err))
	}
	attempt := e.nextID("attempt")
	dir, err := os.MkdirTemp(e.Artifacts, attempt+"-")
	Expect(err).NotTo(HaveOccurred(), "creating the attempt's artifacts directory")
	err = c.StartAttempt(ctx, wire.StartAttemptParams{AttemptID: attempt, ArtifactsDir: dir})
	Expect(err).NotTo(HaveOccurred(), "lifecycle/startAttempt: want null, got %s", fxDescribeError(err))
	return client.Op{RunID: run, AttemptID: attempt}
}

// ---- statuses ----

// fxStatus reads a status of the contract in snap, failing the spec when it
// is missing or not in the contract's format.
func fxStatus(snap *wire.EngineSnapshot, s fixture.Screen, st fixture.Status) string {
	n := fxNode(snap, s, st.Element)
	v, ok := st.Read(&snap.Root)
	Expect(ok).To(BeTrue(), "the %s fixture's status %q: want the text \"%s: …\", got %s", s.Name, st.TestID, st.Label, fxText(n.Text))
	return v
}

// fxStored reads the storage fixture's persisted values.
func fxStored(snap *wire.EngineSnapshot) []string {
	return fixture.ParseList(fxStatus(snap, fixture.Storage(), fixture.StorageValues()))
}

func fxText(p *string) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("%q", *p)
}

// ---- locate ----

// Builders of locator expressions.

func fxExact(s string) wire.TextPattern { return wire.StringPattern(s, true) }
func fxLoose(s string) wire.TextPattern { return wire.StringPattern(s, false) }

// fxQuery is a query expression; opts adjust the query.
func fxQuery(kind string, value wire.TextPattern, opts ...func(*wire.SemanticQuery)) wire.LocatorExpression {
	q := &wire.SemanticQuery{Kind: kind, Value: value}
	for _, o := range opts {
		o(q)
	}
	return wire.LocatorExpression{Kind: wire.ExprQuery, Query: q}
}

// fxRole is a role query (its value's exact flag is ignored, §5.6).
func fxRole(role string, opts ...func(*wire.SemanticQuery)) wire.LocatorExpression {
	return fxQuery(wire.QueryRole, fxExact(role), opts...)
}

func fxNamed(p wire.TextPattern) func(*wire.SemanticQuery) {
	return func(q *wire.SemanticQuery) { q.Name = &p }
}

func fxVisible(q *wire.SemanticQuery) { q.Visible = wire.Bool(true) }

func fxLevel(n int64) func(*wire.SemanticQuery) {
	return func(q *wire.SemanticQuery) { q.Level = wire.Int(n) }
}

// fxStateFilter filters a role query by states.
func fxStateFilter(st wire.QueryStates) func(*wire.SemanticQuery) {
	return func(q *wire.SemanticQuery) { q.States = &st }
}

func fxPressed(v bool) func(*wire.SemanticQuery) {
	return func(q *wire.SemanticQuery) { q.States = &wire.QueryStates{Pressed: wire.Bool(v)} }
}

func fxTestID(id string, opts ...func(*wire.SemanticQuery)) wire.LocatorExpression {
	return fxQuery(wire.QueryTestID, fxExact(id), opts...)
}

func fxScoped(x, scope wire.LocatorExpression) wire.LocatorExpression {
	x.Scope = &scope
	return x
}

func fxFilter(source wire.LocatorExpression, hasText *wire.TextPattern, has *wire.LocatorExpression) wire.LocatorExpression {
	return wire.LocatorExpression{Kind: wire.ExprFilter, Source: &source, HasText: hasText, Has: has}
}

func fxIndex(source wire.LocatorExpression, pos string, n int64) wire.LocatorExpression {
	return wire.LocatorExpression{Kind: wire.ExprIndex, Source: &source, Index: wire.Index{Pos: pos, N: n}}
}

func fxPattern(p wire.TextPattern) *wire.TextPattern { return &p }
func fxExpr(x wire.LocatorExpression) *wire.LocatorExpression {
	return &x
}

// fxCase is one locate case: an expression and the contract elements (by
// test id, any order) the answer must hold, in document order.
type fxCase struct {
	what string
	expr wire.LocatorExpression
	want []string
	// mayRefuse accepts an UNSUPPORTED_CAPABILITY error instead of the
	// answer (the regexp cases of LOC-012).
	mayRefuse bool
	// noReference leaves out the comparison with the §10 reference (whose
	// RE2 translation refuses what ECMAScript evaluates).
	noReference bool
}

// fxIDIndex maps the ids of snap to their test ids (or "" when none) and
// document positions.
type fxIDIndex struct {
	testID map[string]string
	pos    map[string]int
}

func fxIndexOf(snap *wire.EngineSnapshot) fxIDIndex {
	x := fxIDIndex{testID: map[string]string{}, pos: map[string]int{}}
	i := 0
	snap.Root.Walk(func(n *wire.SemanticNode) bool {
		if n.TestID != nil {
			x.testID[n.Ref.ID] = *n.TestID
		}
		if _, seen := x.pos[n.Ref.ID]; !seen {
			x.pos[n.Ref.ID] = i
		}
		i++
		return true
	})
	return x
}

// render names ids by their test ids: `dup-first (n12)`.
func (x fxIDIndex) render(ids []string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		if t, ok := x.testID[id]; ok {
			parts[i] = fmt.Sprintf("%s (%s)", t, id)
		} else if _, observed := x.pos[id]; observed {
			parts[i] = fmt.Sprintf("a node without test id (%s)", id)
		} else {
			parts[i] = fmt.Sprintf("%q, an id the observation does not hold", id)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// fxContractHidden reports whether the contract element with test id id is
// hidden (an engine may leave a hidden node out of its tree, §4.8: "a
// reported hidden node").
func fxContractHidden(id string) bool {
	for _, el := range fixture.AllElements() {
		if el.TestID == id {
			return el.States["hidden"]
		}
	}
	return false
}

// fxWantIDs maps the test ids of a case to the observation's ids, in
// document order; a hidden element the engine does not report is left out.
// missing lists the elements the observation lacks otherwise.
func fxWantIDs(snap *wire.EngineSnapshot, x fxIDIndex, testIDs []string) (ids []string, missing []string) {
	for _, t := range testIDs {
		n := fixture.FindByTestID(&snap.Root, t)
		switch {
		case n != nil:
			ids = append(ids, n.Ref.ID)
		case fxContractHidden(t):
		default:
			missing = append(missing, t)
		}
	}
	slices.SortStableFunc(ids, func(a, b string) int { return x.pos[a] - x.pos[b] })
	return ids, missing
}

// fxHiddenAsObserved returns the answer a case wants when the §10
// reference over the engine's own observation leaves out a hidden element
// the contract's answer holds: the reference's answer (an index then counts
// without that element too). An engine may report a hidden node without
// the member a query reads (accname gives a hidden node that nothing
// references the empty name), and what it reports is judged by the OBS
// requirements, not by locate. Otherwise it returns want: a visible element
// the reference misses stays wanted.
func fxHiddenAsObserved(want, refIDs []string, x fxIDIndex) []string {
	for _, id := range want {
		if !slices.Contains(refIDs, id) && fxContractHidden(x.testID[id]) {
			return refIDs
		}
	}
	return want
}

func fxIDs(nodes []wire.SemanticNode) []string {
	out := make([]string, len(nodes))
	for i := range nodes {
		out[i] = nodes[i].Ref.ID
	}
	return out
}

// fxCheckCases sends every case to engine/locate right after snap was
// taken (the surface does not change between them) and returns what is
// wrong: an answer other than the contract's elements (their ids taken from
// the observation, LOC-003), in document order, or other than the §10
// reference over the engine's own observation.
func fxCheckCases(ctx context.Context, c *client.Conn, op client.Op, snap *wire.EngineSnapshot, cases []fxCase) []string {
	x := fxIndexOf(snap)
	var problems []string
	for _, k := range cases {
		want, missing := fxWantIDs(snap, x, k.want)
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("%s: the observation lacks the fixture's nodes %v, so the case cannot be judged", k.what, missing))
			continue
		}
		var refIDs []string
		haveRef := false
		if !k.noReference {
			expr := k.expr
			if ref, rerr := locate.ResolveExpression(&expr, []*wire.SemanticNode{&snap.Root}, locate.Options{}); rerr == nil {
				haveRef = true
				for _, n := range ref {
					refIDs = append(refIDs, n.Ref.ID)
				}
				want = fxHiddenAsObserved(want, refIDs, x)
			}
		}
		got, err := c.Locate(ctx, op, k.expr)
		if err != nil {
			if k.mayRefuse && fxIsEngineCode(err, string(engineerr.UnsupportedCapability)) {
				continue
			}
			alt := ""
			if k.mayRefuse {
				alt = " or UNSUPPORTED_CAPABILITY"
			}
			problems = append(problems, fmt.Sprintf("%s: want %s%s, got %s", k.what, x.render(want), alt, fxDescribeError(err)))
			continue
		}
		gotIDs := fxIDs(got)
		if !slices.Equal(gotIDs, want) {
			problems = append(problems, fmt.Sprintf("%s: want %s, got %s", k.what, x.render(want), x.render(gotIDs)))
			continue
		}
		if !haveRef {
			continue
		}
		if !slices.Equal(gotIDs, refIDs) {
			problems = append(problems, fmt.Sprintf("%s: the §10 reference over the engine's own observation answers %s, the engine answered %s",
				k.what, x.render(refIDs), x.render(gotIDs)))
		}
	}
	return problems
}

// fxLocateCases stages screen s in a new attempt (on a pooled worker
// connection) and checks cases on it.
func (e *runEnv) fxLocateCases(ctx context.Context, s fixture.Screen, cases []fxCase) {
	c, op, _ := e.pooledAttempt(ctx)
	snap := e.fxStage(ctx, c, op, s, "")
	problems := fxCheckCases(ctx, c, op, snap, cases)
	Expect(problems).To(BeEmpty(), "engine/locate on the %s fixture, %d of %d case(s) wrong: %s", s.Name, len(problems), len(cases), strings.Join(problems, "; "))
}

// ---- URLs ----

// fxSerializeURL serializes an absolute http(s) URL as the WHATWG URL
// standard does for what the suite opens (loopback hosts, plain paths,
// queries): scheme and host lower-cased, the scheme's default port dropped,
// an empty path written "/". about:blank stays itself.
func fxSerializeURL(s string) (string, error) {
	if s == "about:blank" {
		return s, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	if !u.IsAbs() || u.Host == "" {
		return "", fmt.Errorf("%q is not an absolute URL with a host", s)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		u.Host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		u.Host = "[" + host + "]"
	} else {
		u.Host = host
	}
	if u.Path == "" && (u.Scheme == "http" || u.Scheme == "https") {
		u.Path = "/"
	}
	return u.String(), nil
}

// fxEventually polls observations for up to d until ok accepts one, and
// returns the last observation and whether it was accepted.
func fxEventually(ctx context.Context, c *client.Conn, op client.Op, d time.Duration, what string, ok func(*wire.EngineSnapshot) bool) (*wire.EngineSnapshot, bool) {
	deadline := time.Now().Add(d)
	for {
		snap := fxObserve(ctx, c, op, what)
		if ok(snap) {
			return snap, true
		}
		if time.Now().After(deadline) {
			return snap, false
		}
		select {
		case <-ctx.Done():
			return snap, false
		case <-time.After(100 * time.Millisecond): // polling an observation, the harness's own way
		}
	}
}

// ---- states ----

// fxStateKeys are the eight state keys (§5.5).
var fxStateKeys = []string{"checked", "disabled", "selected", "expanded", "pressed", "focused", "hidden", "secure"}

// fxStates renders a node's reported states.
func fxStates(n *wire.SemanticNode) string {
	var parts []string
	for _, k := range fxStateKeys {
		if v := fxStateOf(n, k); v != nil {
			parts = append(parts, fmt.Sprintf("%s: %v", k, *v))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// fxStateOf returns the reported state k, nil when absent.
func fxStateOf(n *wire.SemanticNode, k string) *bool {
	s := n.States
	if s == nil {
		return nil
	}
	return map[string]*bool{"checked": s.Checked, "disabled": s.Disabled, "selected": s.Selected, "expanded": s.Expanded,
		"pressed": s.Pressed, "focused": s.Focused, "hidden": s.Hidden, "secure": s.Secure}[k]
}

// fxStateProblems compares every element of screen s with its node in
// snap: each of the eight states as the contract lists it (absent reads as
// false on both sides, §5.5) and the heading level. A hidden element the
// engine does not report is not judged (§4.8 speaks of reported hidden
// nodes).
func fxStateProblems(snap *wire.EngineSnapshot, s fixture.Screen) []string {
	var out []string
	for _, el := range s.Elements {
		if el.TestID == fixture.MarkerTestID {
			continue
		}
		n := el.Find(&snap.Root)
		if n == nil {
			if !el.States["hidden"] {
				out = append(out, fmt.Sprintf("%s: no node with test id %q (role %q, name %q)", s.Name, el.TestID, el.Role, el.Name))
			}
			continue
		}
		for _, k := range fxStateKeys {
			if want, got := el.States[k], n.State(k); want != got {
				out = append(out, fmt.Sprintf("%s: %s: want states.%s %v, got states %s", s.Name, el.TestID, k, want, fxStates(n)))
			}
		}
		if el.Level > 0 && (n.Level == nil || *n.Level != int64(el.Level)) {
			got := "none"
			if n.Level != nil {
				got = fmt.Sprint(*n.Level)
			}
			out = append(out, fmt.Sprintf("%s: %s: want level %d, got %s", s.Name, el.TestID, el.Level, got))
		}
	}
	return out
}

// ---- storage ----

// fxCaptureStored opens a new connection and attempt, clears persisted
// state with session/reset when listed, stages the storage screen so that
// it stores each of values, checks that it shows exactly them, and returns
// the state captured then, with the connection and operation it was
// captured on (closed when the spec ends). A screen that does not store
// the values, or still shows others (persisted across connections, with no
// session/reset to clear them), cannot give the state the spec needs: not
// verified.
func (e *runEnv) fxCaptureStored(ctx context.Context, values []string) (*wire.EngineState, *client.Conn, client.Op) {
	c, op, _ := e.inAttempt(ctx)
	if e.Manifest.Lists(wire.MethodReset) {
		err := c.Reset(ctx, op)
		Expect(err).NotTo(HaveOccurred(), "session/reset before storing %v: want null, got %s", values, fxDescribeError(err))
	}
	var snap *wire.EngineSnapshot
	for _, v := range values {
		snap = e.fxStage(ctx, c, op, fixture.Storage(), fixture.StoragePath(v))
	}
	got := fxStored(snap)
	if missing := fxWithout(values, got); len(missing) > 0 {
		Skip(notVerified + fmt.Sprintf("the storage fixture opened with the query %s=… did not store %v (it shows %v), so no state holding them could be captured", fixture.StorageSetParam, missing, got))
	}
	if extra := fxWithout(got, values); len(extra) > 0 {
		Skip(notVerified + fmt.Sprintf("the storage fixture shows %v besides the values %v the spec stored, and nothing cleared them (session/reset is not listed or kept them): no state holding only the spec's values could be captured", extra, values))
	}
	st, err := c.Capture(ctx, op)
	Expect(err).NotTo(HaveOccurred(), "state/capture while the storage fixture stores %v: want a state, got %s", values, fxDescribeError(err))
	return st, c, op
}

// fxWithout returns the members of l that are not in drop.
func fxWithout(l, drop []string) []string {
	var out []string
	for _, x := range l {
		if !slices.Contains(drop, x) {
			out = append(out, x)
		}
	}
	return out
}

// ---- lifecycle ----

// fxEnd ends the attempt of c (endAttempt, dispose, when listed) and
// closes c, each bounded by a few seconds and whatever its outcome: the
// calling spec judges what happened before, and LIFE-013/016 judge these
// calls. A spawned server's stderr has been read to its end once Close
// returns.
func (e *runEnv) fxEnd(ctx context.Context, c *client.Conn) {
	for _, m := range []string{wire.MethodEndAttempt, wire.MethodDispose} {
		if !e.Manifest.Lists(m) {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		if m == wire.MethodEndAttempt {
			_ = c.EndAttempt(cctx, 2000)
		} else {
			_ = c.Dispose(cctx, 2000, nil)
		}
		cancel()
	}
	_ = c.Close(5 * time.Second)
}

// fxRunWithEnv opens a run connection and sends lifecycle/prepare and
// lifecycle/finish (those listed) with env added to the suite's env, then
// closes it. Their outcomes are LIFE-017/018's concern, and a run
// connection that cannot be opened LIFE-001's and MAN-004's: both are
// noted and passed over (their errors were searched for canaries like
// every other).
func (e *runEnv) fxRunWithEnv(ctx context.Context, env map[string]string) {
	rc, _, err := e.Open(ctx, wire.RoleRun)
	if err != nil {
		noteEntry("a run connection could not be opened (%v): lifecycle/prepare and lifecycle/finish did not carry the env canary", err)
		return
	}
	defer rc.Close(5 * time.Second)
	all := map[string]string{}
	for k, v := range e.cfg.Env {
		all[k] = v
	}
	for k, v := range env {
		all[k] = v
	}
	run := e.nextID("run")
	if e.Manifest.Lists(wire.MethodPrepare) {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, _ = rc.Prepare(cctx, wire.PrepareParams{RunID: run, TargetName: "conformance", ProjectRoot: e.Artifacts, Slots: 1, Env: all})
		cancel()
	}
	if e.Manifest.Lists(wire.MethodFinish) {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_ = rc.Finish(cctx, wire.FinishParams{RunID: run, TargetName: "conformance", Env: all, TimeoutMs: 3000})
		cancel()
	}
}
