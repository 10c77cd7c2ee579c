package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The screen client of the action specs (perform, performAt and keyboard on the
// fixture screens: catalog ACT, PTR, KEY-001..004).
//
// These specs drive the engine through the client library, as the harness
// does: a fixture screen is staged with e.stage, every action goes to the
// current ref of its node, taken from an observation made right before the
// call, and every effect is read back through engine/observe with the
// fixture contract's readers (Status.Read, Element.Items, the key and
// pointer event parsers). Engine errors are read as the client classifies
// them (*engineerr.EngineError, after the coercion rule of §8.2: a
// retryable: true on any code but NODE_STALE and FRAME_NOT_FOUND arrives as
// ENGINE_FAILURE, which fails every check of a specific code).
//
// Revisions: like the harness (§5.5), the suite sends its own revision
// "b<n>" with every ref, n counting the observations of the spec; ACT-014
// sends "" and "zz9" instead.
//
// Timing: an effect is polled for, one observation every actPollEvery, for at
// most actEffectWait (the harness polls observations the same way); an effect
// that must not happen is watched for actQuietWait.

const (
	// actEffectWait bounds the wait for an action's effect to show.
	actEffectWait = 2 * time.Second
	// actQuietWait is how long the suite watches for an effect that must not
	// happen (a refused action that changes something after its answer).
	actQuietWait = 300 * time.Millisecond
	// actPollEvery is the interval between observations while waiting.
	actPollEvery = 50 * time.Millisecond
)

// screenClient is a client connection with an attempt started, a staged fixture
// screen, and the newest observation of it.
type screenClient struct {
	e      *runEnv
	c      *client.Conn
	op     client.Op
	msgs   *notifications
	screen fixture.Screen
	snap   *wire.EngineSnapshot
	obs    int // observations made, for the revisions the suite sends
}

// openScreenClient starts an attempt on a pooled worker connection
// (pool.go); the attempt ends when the spec ends.
func (e *runEnv) openScreenClient(ctx context.Context) *screenClient {
	c, op, msgs := e.pooledAttempt(ctx)
	return &screenClient{e: e, c: c, op: op, msgs: msgs}
}

// stage opens the fixture screen s (not verified when the engine cannot
// stage it) and keeps the first observation showing its marker.
func (a *screenClient) stage(ctx context.Context, s fixture.Screen) {
	a.snap = a.e.stage(ctx, a.c, a.op, s.Path, s.Marker)
	a.screen = s
	a.obs++
}

// observe takes a new observation and keeps it as the newest.
func (a *screenClient) observe(ctx context.Context) *wire.EngineSnapshot {
	snap, err := a.c.Observe(ctx, a.op, nil)
	Expect(err).NotTo(HaveOccurred(), "engine/observe of the %s screen: want a snapshot, got an error", a.screen.Name)
	a.snap = snap
	a.obs++
	return snap
}

// root is the root of the newest observation.
func (a *screenClient) root() *wire.SemanticNode { return &a.snap.Root }

// revision is the revision the suite gives refs of the newest observation.
func (a *screenClient) revision() string { return fmt.Sprintf("b%d", a.obs) }

// node returns el's node in the newest observation; the fixture contract
// requires every element to be shown once the marker is.
func (a *screenClient) node(el fixture.Element) *wire.SemanticNode {
	n := el.Find(a.root())
	Expect(n).NotTo(BeNil(), "the %s screen shows its marker but no node with test id %q (%s), which the fixture contract requires it to show",
		a.screen.Name, el.TestID, orDefault(el.Name, el.Role))
	return n
}

// refIn returns el's ref in the newest observation, with the suite's
// revision.
func (a *screenClient) refIn(el fixture.Element) wire.NodeRef {
	r := a.node(el).Ref
	r.Revision = a.revision()
	return r
}

// ref observes and returns el's current ref.
func (a *screenClient) ref(ctx context.Context, el fixture.Element) wire.NodeRef {
	a.observe(ctx)
	return a.refIn(el)
}

// rootRef observes and returns the root's current ref.
func (a *screenClient) rootRef(ctx context.Context) wire.NodeRef {
	a.observe(ctx)
	r := a.root().Ref
	r.Revision = a.revision()
	return r
}

// perform sends action to el's current ref.
func (a *screenClient) perform(ctx context.Context, el fixture.Element, action wire.LocatorAction) error {
	return a.c.Perform(ctx, a.op, a.ref(ctx, el), action)
}

// can reports whether the manifest declares the node action kind.
func (a *screenClient) can(kind string) bool {
	return a.e.Manifest.Lists(wire.MethodPerform) && a.e.Manifest.HasAction(kind)
}

// canPointer reports whether the manifest declares the pointer action kind.
func (a *screenClient) canPointer(kind string) bool {
	return a.e.Manifest.Lists(wire.MethodPerformAt) && a.e.Manifest.HasPointerAction(kind)
}

// status reads a status element of the newest observation.
func (a *screenClient) status(s fixture.Status) string {
	v, ok := s.Read(a.root())
	Expect(ok).To(BeTrue(), "the %s screen's status %q (test id %q) does not show the text %q followed by its value, as the fixture contract requires",
		a.screen.Name, s.Label, s.TestID, s.Label+": ")
	return v
}

// count reads a counter status of the newest observation.
func (a *screenClient) count(s fixture.Status) int {
	v := a.status(s)
	n, ok := fixture.ParseCount(v)
	Expect(ok).To(BeTrue(), "the %s screen's status %q shows %q, want a decimal counter", a.screen.Name, s.Label, v)
	return n
}

// offset reads an offset status ("x, y") of the newest observation.
func (a *screenClient) offset(s fixture.Status) (x, y float64) {
	v := a.status(s)
	x, y, ok := fixture.ParseOffset(v)
	Expect(ok).To(BeTrue(), "the %s screen's status %q shows %q, want an offset \"<x>, <y>\"", a.screen.Name, s.Label, v)
	return x, y
}

// value is el's observed value ("" and false when absent).
func (a *screenClient) value(el fixture.Element) (string, bool) {
	n := a.node(el)
	if n.Value == nil {
		return "", false
	}
	return *n.Value, true
}

// await observes until done accepts the newest observation, for at most
// actEffectWait; it reports whether done accepted one.
func (a *screenClient) await(ctx context.Context, done func() bool) bool {
	deadline := time.Now().Add(actEffectWait)
	for {
		a.observe(ctx)
		if done() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		actPause(ctx, actPollEvery)
	}
}

// quiet observes for actQuietWait and reports whether changed accepted an
// observation (the newest one kept is then the changed one).
func (a *screenClient) quiet(ctx context.Context, changed func() bool) bool {
	deadline := time.Now().Add(actQuietWait)
	for {
		a.observe(ctx)
		if changed() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		actPause(ctx, actPollEvery)
	}
}

// awaitCount waits for the counter s to leave before, then watches it for
// actQuietWait more, and returns its last value: a second, late delivery
// of one action shows in what the caller then compares.
func (a *screenClient) awaitCount(ctx context.Context, s fixture.Status, before int) int {
	if !a.await(ctx, func() bool { return a.count(s) != before }) {
		return a.count(s)
	}
	first := a.count(s)
	a.quiet(ctx, func() bool { return a.count(s) != first })
	return a.count(s)
}

// actPause sleeps d or until ctx ends.
func actPause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// center is the centre of el's rect in the newest observation; false when
// the node reports no rect.
func (a *screenClient) center(el fixture.Element) (wire.ViewportPoint, bool) {
	n := a.node(el)
	if n.Rect == nil {
		return wire.ViewportPoint{}, false
	}
	return wire.ViewportPoint{X: n.Rect.X + n.Rect.Width/2, Y: n.Rect.Y + n.Rect.Height/2}, true
}

// pointIn returns a point of el's rect clipped to the viewport, at the
// fractions fx, fy of its width and height, moved to a quarter pixel so
// that a rounding engine shows. It skips the spec as not verified when
// the node reports no rect or lies outside the viewport: the suite then has
// no point to act at.
func (a *screenClient) pointIn(el fixture.Element, fx, fy float64) wire.ViewportPoint {
	n := a.node(el)
	if n.Rect == nil {
		Skip(notVerified + fmt.Sprintf("the %s screen's node %q reports no rect, so the suite has no point on it to act at", a.screen.Name, el.TestID))
	}
	vp := a.snap.Viewport
	x0, y0 := math.Max(n.Rect.X, 0), math.Max(n.Rect.Y, 0)
	x1, y1 := math.Min(n.Rect.X+n.Rect.Width, vp.Width), math.Min(n.Rect.Y+n.Rect.Height, vp.Height)
	if x1-x0 < 4 || y1-y0 < 4 {
		Skip(notVerified + fmt.Sprintf("the %s screen's node %q (rect %+v) does not lie inside the %vx%v viewport, so the suite has no point on it to act at",
			a.screen.Name, el.TestID, *n.Rect, vp.Width, vp.Height))
	}
	x := math.Floor(x0+(x1-x0)*fx) + 0.25
	y := math.Floor(y0+(y1-y0)*fy) + 0.25
	return wire.ViewportPoint{X: x, Y: y}
}

// click gives el a primary click by the first means the manifest declares:
// the tap action, the press action with Enter, or a pointer tap at the
// centre of its rect. It reports false when it has none (the caller
// decides whether its spec can go on).
func (a *screenClient) click(ctx context.Context, el fixture.Element) bool {
	switch {
	case a.can(wire.ActionTap):
		err := a.perform(ctx, el, wire.LocatorAction{Kind: wire.ActionTap})
		Expect(err).NotTo(HaveOccurred(), "tap on %q to prepare the check: want null, got an error", el.TestID)
	case a.can(wire.ActionPress):
		err := a.perform(ctx, el, wire.LocatorAction{Kind: wire.ActionPress, Key: "Enter"})
		Expect(err).NotTo(HaveOccurred(), "press Enter on %q to prepare the check: want null, got an error", el.TestID)
	case a.canPointer(wire.ActionTap):
		a.observe(ctx)
		pt, ok := a.center(el)
		if !ok {
			return false
		}
		err := a.c.PerformAt(ctx, a.op, pt, wire.PointerAction{Kind: wire.ActionTap})
		Expect(err).NotTo(HaveOccurred(), "pointer tap at %v on %q to prepare the check: want null, got an error", pt, el.TestID)
	default:
		return false
	}
	return true
}

// focus gives el the focus: the focus action, or else a click. Without
// either the spec is not verified.
func (a *screenClient) focus(ctx context.Context, el fixture.Element) {
	if a.can(wire.ActionFocus) {
		err := a.perform(ctx, el, wire.LocatorAction{Kind: wire.ActionFocus})
		Expect(err).NotTo(HaveOccurred(), "focus on %q to prepare the check: want null, got an error", el.TestID)
		return
	}
	if !a.click(ctx, el) {
		Skip(notVerified + fmt.Sprintf("the suite focuses %q with the focus, tap or press action or a pointer tap, and the manifest declares none of them (or the node reports no rect)", el.TestID))
	}
}

// actEngineError returns the engine error err carries, nil when it carries
// none.
func actEngineError(err error) *engineerr.EngineError {
	var ee *engineerr.EngineError
	if errors.As(err, &ee) {
		return ee
	}
	return nil
}

// actExpectEngineError checks that err is an engine error with one of codes
// and returns it.
func actExpectEngineError(err error, what string, codes ...engineerr.Code) *engineerr.EngineError {
	want := make([]string, len(codes))
	for i, c := range codes {
		want[i] = string(c)
	}
	wantText := strings.Join(want, " or ")
	Expect(err).To(HaveOccurred(), "%s: want the engine error %s, got null", what, wantText)
	ee := actEngineError(err)
	Expect(ee).NotTo(BeNil(), "%s: want the engine error %s, got %v", what, wantText, err)
	Expect(slices.Contains(codes, ee.Code)).To(BeTrue(), "%s: want the engine error %s, got %s (%q)", what, wantText, ee.Code, ee.Message)
	return ee
}

// actLastResult returns the raw result of the newest response to method on
// the spec's client connection, read from the frames the suite recorded;
// false when the pair is no longer among them (or the response has no
// result).
func (e *runEnv) actLastResult(method string) (string, bool) {
	frames := e.exchanges.recent()
	for i := len(frames) - 1; i >= 0; i-- {
		if frames[i].dir != rpc.Sent {
			continue
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal([]byte(frames[i].content), &req) != nil || req.Method != method || req.ID == nil {
			continue
		}
		for _, f := range frames[i+1:] {
			var resp map[string]json.RawMessage
			if f.dir != rpc.Received || json.Unmarshal([]byte(f.content), &resp) != nil {
				continue
			}
			if _, isRequest := resp["method"]; isRequest || string(resp["id"]) != string(req.ID) {
				continue
			}
			res, ok := resp["result"]
			return string(res), ok
		}
		return "", false
	}
	return "", false
}

// actExpectVoid checks that a void call (engine/perform, engine/performAt)
// succeeded and, when its response is still among the recorded frames,
// that its result was exactly null: the client library reports success
// for any result of a void method, and the catalog's "gets null" is
// checked here.
func (e *runEnv) actExpectVoid(err error, method, what string) {
	Expect(err).NotTo(HaveOccurred(), "%s: want null, got an error", what)
	res, ok := e.actLastResult(method)
	if !ok {
		noteEntry("%s: the response was no longer among the recorded frames; its result was not compared with null", what)
		return
	}
	Expect(strings.TrimSpace(res)).To(Equal("null"), "%s: want the result null, got %s", what, clip(res))
}

// actDigest is what a screen shows, node by node in document order:
// role, name, text, value, test id and reported states, without ids or
// rects. An action that "changes nothing" leaves it equal.
func actDigest(root *wire.SemanticNode) []string {
	var out []string
	str := func(p *string) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%q", *p)
	}
	root.Walk(func(n *wire.SemanticNode) bool {
		var st []string
		for _, k := range []string{"checked", "disabled", "selected", "expanded", "pressed", "focused", "hidden", "secure"} {
			if n.State(k) {
				st = append(st, k)
			}
		}
		role := ""
		if n.Role != nil {
			role = *n.Role
		}
		out = append(out, fmt.Sprintf("%s testId=%s name=%s text=%s value=%s states=%s",
			orDefault(role, "(no role)"), str(n.TestID), str(n.Name), str(n.Text), str(n.Value), strings.Join(st, "+")))
		return true
	})
	return out
}

// actDigestChange describes the first difference between two digests, ""
// when they are equal.
func actDigestChange(before, after []string) string {
	for i := 0; i < len(before) || i < len(after); i++ {
		var b, a string
		if i < len(before) {
			b = before[i]
		}
		if i < len(after) {
			a = after[i]
		}
		if a != b {
			return fmt.Sprintf("node %d was %s and is now %s", i, orDefault(b, "(absent)"), orDefault(a, "(absent)"))
		}
	}
	return ""
}

// expectUnchanged watches the screen for actQuietWait and fails when it
// changes from before.
func (a *screenClient) expectUnchanged(ctx context.Context, before []string, what string) {
	var change string
	a.quiet(ctx, func() bool {
		change = actDigestChange(before, actDigest(a.root()))
		return change != ""
	})
	Expect(change).To(BeEmpty(), "%s: want the %s screen unchanged, but %s", what, a.screen.Name, change)
}

// actToken is a string no engine can guess or produce by chance.
func actToken() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// actTempFiles creates two small files under the run's artifacts directory
// and returns their absolute paths, in the order of their base names.
func (e *runEnv) actTempFiles() []string {
	dir, err := os.MkdirTemp(e.Artifacts, "input-files-")
	Expect(err).NotTo(HaveOccurred(), "creating a directory for setInputFiles")
	dir, err = filepath.Abs(dir)
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, name := range []string{"e2e-alpha.txt", "e2e-beta.txt"} {
		p := filepath.Join(dir, name)
		Expect(os.WriteFile(p, []byte("e2e-conform "+name+"\n"), 0o644)).To(Succeed(), "creating %s", p)
		out = append(out, p)
	}
	return out
}

// actBaseNames returns the base names of paths.
func actBaseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}

// ---- node action probes (ACT-014, ACT-015) ----

// actProbe is one node action kind tried on the fixture screen where its
// effect shows: the witness changes when the action takes effect.
type actProbe struct {
	kind   string
	screen fixture.Screen
	// target is the node acted on; nil is the root.
	target *fixture.Element
	// witness reads what the action changes, from the newest observation.
	witness func(a *screenClient) string
	// prepare, when set, brings the screen to a state where the action has
	// an effect, with declared kinds only; it reports false when it cannot.
	prepare func(ctx context.Context, a *screenClient) bool
	// action builds the action from the newest observation; nil is
	// {kind} alone.
	action func(a *screenClient) wire.LocatorAction
}

func actStatusWitness(s fixture.Status) func(a *screenClient) string {
	return func(a *screenClient) string { return a.status(s) }
}

func actValueWitness(el fixture.Element) func(a *screenClient) string {
	return func(a *screenClient) string {
		v, ok := a.value(el)
		if !ok {
			return "(no value)"
		}
		return fmt.Sprintf("%q", v)
	}
}

func actStateWitness(el fixture.Element, state string) func(a *screenClient) string {
	return func(a *screenClient) string { return fmt.Sprintf("%s: %v", state, a.node(el).State(state)) }
}

func actItemsWitness(el fixture.Element) func(a *screenClient) string {
	return func(a *screenClient) string { return strings.Join(el.Items(a.root()), " | ") }
}

func actElem(el fixture.Element) *fixture.Element { return &el }

// actProbes lists every LOCATOR_ACTION_KINDS member once, in the order
// ACT-014 prefers them (a kind whose effect needs no preparation first).
func actProbes() []actProbe {
	return []actProbe{
		{kind: wire.ActionTap, screen: fixture.Counter(), target: actElem(fixture.CounterTap()), witness: actStatusWitness(fixture.CounterTaps())},
		{kind: wire.ActionDoubleTap, screen: fixture.Counter(), target: actElem(fixture.CounterTap()), witness: actStatusWitness(fixture.CounterDoubleTaps())},
		{kind: wire.ActionSecondaryTap, screen: fixture.Counter(), target: actElem(fixture.CounterTap()), witness: actStatusWitness(fixture.CounterSecondaryTaps())},
		{kind: wire.ActionLongPress, screen: fixture.Counter(), target: actElem(fixture.CounterTap()), witness: actStatusWitness(fixture.CounterLongPresses())},
		{kind: wire.ActionFill, screen: fixture.Form(), target: actElem(fixture.FormName()), witness: actValueWitness(fixture.FormName()),
			action: func(*screenClient) wire.LocatorAction {
				return wire.LocatorAction{Kind: wire.ActionFill, Value: "e2e-conform probe"}
			}},
		{kind: wire.ActionCheck, screen: fixture.Form(), target: actElem(fixture.FormSubscribe()), witness: actStateWitness(fixture.FormSubscribe(), "checked")},
		{kind: wire.ActionSelectOption, screen: fixture.Form(), target: actElem(fixture.FormFruit()), witness: actStatusWitness(fixture.FormFruitStatus()),
			action: func(*screenClient) wire.LocatorAction {
				return wire.LocatorAction{Kind: wire.ActionSelectOption, Option: wire.SelectOption{By: "value", Text: fixture.FruitOptions()[1].Value}}
			}},
		{kind: wire.ActionSetInputFiles, screen: fixture.Form(), target: actElem(fixture.FormFiles()), witness: actStatusWitness(fixture.FormFilesStatus()),
			action: func(a *screenClient) wire.LocatorAction {
				return wire.LocatorAction{Kind: wire.ActionSetInputFiles, Paths: a.e.actTempFiles()}
			}},
		{kind: wire.ActionDragTo, screen: fixture.Form(), target: actElem(fixture.FormDragSource()), witness: actStatusWitness(fixture.FormDrops()),
			action: func(a *screenClient) wire.LocatorAction {
				t := a.refIn(fixture.FormDropTarget())
				return wire.LocatorAction{Kind: wire.ActionDragTo, Target: &t}
			}},
		{kind: wire.ActionPress, screen: fixture.Keys(), target: actElem(fixture.KeysInput()), witness: actItemsWitness(fixture.KeysLog()),
			action: func(*screenClient) wire.LocatorAction { return wire.LocatorAction{Kind: wire.ActionPress, Key: "x"} }},
		{kind: wire.ActionFocus, screen: fixture.Form(), target: actElem(fixture.FormName()), witness: actStateWitness(fixture.FormName(), "focused")},
		{kind: wire.ActionScrollIntoView, screen: fixture.Tree(), target: actElem(fixture.TreeBelowFold()), witness: actStatusWitness(fixture.TreeScrollOffset())},
		{kind: wire.ActionHover, screen: fixture.Counter(), target: actElem(fixture.CounterHoverTarget()), witness: actStatusWitness(fixture.CounterHovers()),
			prepare: func(ctx context.Context, a *screenClient) bool {
				if !a.can(wire.ActionHover) {
					return false
				}
				// The pointer is placed elsewhere first (ACT-007).
				err := a.perform(ctx, fixture.CounterTap(), wire.LocatorAction{Kind: wire.ActionHover})
				Expect(err).NotTo(HaveOccurred(), "hover on %q to place the pointer elsewhere: want null, got an error", fixture.CounterTap().TestID)
				return true
			}},
		{kind: wire.ActionClear, screen: fixture.Form(), target: actElem(fixture.FormName()), witness: actValueWitness(fixture.FormName()),
			prepare: func(ctx context.Context, a *screenClient) bool {
				if !a.can(wire.ActionFill) {
					return false
				}
				err := a.perform(ctx, fixture.FormName(), wire.LocatorAction{Kind: wire.ActionFill, Value: "to be cleared"})
				Expect(err).NotTo(HaveOccurred(), "fill of %q to give clear something to remove: want null, got an error", fixture.FormName().TestID)
				return true
			}},
		{kind: wire.ActionUncheck, screen: fixture.Form(), target: actElem(fixture.FormSubscribe()), witness: actStateWitness(fixture.FormSubscribe(), "checked"),
			prepare: func(ctx context.Context, a *screenClient) bool {
				if a.can(wire.ActionCheck) {
					err := a.perform(ctx, fixture.FormSubscribe(), wire.LocatorAction{Kind: wire.ActionCheck})
					Expect(err).NotTo(HaveOccurred(), "check of %q to give uncheck something to do: want null, got an error", fixture.FormSubscribe().TestID)
					return true
				}
				return a.click(ctx, fixture.FormSubscribe()) // a tap toggles the checkbox
			}},
		{kind: wire.ActionSwipe, screen: fixture.Tree(), witness: actStatusWitness(fixture.TreeScrollOffset()),
			action: func(*screenClient) wire.LocatorAction {
				return wire.LocatorAction{Kind: wire.ActionSwipe, Direction: wire.DirectionDown}
			}},
	}
}

// targetRef is the probe target's ref in the newest observation.
func (p actProbe) targetRef(a *screenClient) wire.NodeRef {
	if p.target == nil {
		r := a.root().Ref
		r.Revision = a.revision()
		return r
	}
	return a.refIn(*p.target)
}

// build returns the probe's action from the newest observation.
func (p actProbe) build(a *screenClient) wire.LocatorAction {
	if p.action != nil {
		return p.action(a)
	}
	return wire.LocatorAction{Kind: p.kind}
}

// targetName names the probe's target in messages.
func (p actProbe) targetName() string {
	if p.target == nil {
		return "the root"
	}
	return fmt.Sprintf("%q", p.target.TestID)
}

// ---- pointer probes (PTR-005) ----

// ptrProbe is one pointer action kind tried on the pointer screen.
type ptrProbe struct {
	kind   string
	action func(a *screenClient) (wire.ViewportPoint, wire.PointerAction)
}

// ptrProbes lists every POINTER_ACTION_KINDS member once.
func ptrProbes() []ptrProbe {
	at := func(kind string) ptrProbe {
		return ptrProbe{kind: kind, action: func(a *screenClient) (wire.ViewportPoint, wire.PointerAction) {
			return a.pointIn(fixture.PointerSurface(), 0.5, 0.5), wire.PointerAction{Kind: kind}
		}}
	}
	path := func(kind string) ptrProbe {
		return ptrProbe{kind: kind, action: func(a *screenClient) (wire.ViewportPoint, wire.PointerAction) {
			t := a.pointIn(fixture.PointerSurface(), 0.8, 0.7)
			return a.pointIn(fixture.PointerSurface(), 0.2, 0.3), wire.PointerAction{Kind: kind, Target: &t}
		}}
	}
	return []ptrProbe{
		at(wire.ActionTap), at(wire.ActionDoubleTap), at(wire.ActionSecondaryTap), at(wire.ActionLongPress), at(wire.ActionHover),
		path(wire.ActionDragTo),
		{kind: wire.ActionSwipe, action: func(a *screenClient) (wire.ViewportPoint, wire.PointerAction) {
			return a.pointIn(fixture.PointerScrollBox(), 0.5, 0.5), wire.PointerAction{Kind: wire.ActionSwipe, Direction: wire.DirectionDown}
		}},
		path(wire.ActionSwipeTo),
	}
}

// ---- pointer events (PTR) ----

// pointerEvents returns the pointer screen's log lines of the newest
// observation from index from on, parsed; a line that does not parse
// fails the spec.
func (a *screenClient) pointerEvents(from int) []fixture.PointerEvent {
	items := fixture.PointerLog().Items(a.root())
	var out []fixture.PointerEvent
	for i := from; i < len(items); i++ {
		ev, err := fixture.ParsePointerEvent(items[i])
		Expect(err).NotTo(HaveOccurred(), "the pointer screen's log line %d: want a pointer event line of the fixture contract", i)
		out = append(out, ev)
	}
	return out
}

// ptrOfKind keeps the events of kind.
func ptrOfKind(evs []fixture.PointerEvent, kind string) []fixture.PointerEvent {
	var out []fixture.PointerEvent
	for _, ev := range evs {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// ptrEventLines writes events back as log lines, for messages.
func ptrEventLines(evs []fixture.PointerEvent) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.String()
	}
	return out
}

// ptrLogLen is the length of the pointer log in the newest observation.
func (a *screenClient) ptrLogLen() int { return len(fixture.PointerLog().Items(a.root())) }

// ---- keys (ACT-005, KEY-001, KEY-004) ----

// actPressKeys are the keys ACT-005 and KEY-004 press: named keys, printable
// characters (the space both as "Space" and as " "), modifier combinations
// (ControlOrMeta among them) and Shift++. Keys a browser binds to its own
// commands (F5, F11, F12, Alt+Arrow, Control+W) are left out so that a web
// engine's page stays put, and Alt with a letter is left out because it
// produces another character on macOS. Tab comes last: it moves the focus
// off the input.
var actPressKeys = []string{"Enter", "Escape", "ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown", "Insert", "Backspace", "Delete", "F2", "Space",
	"a", "7", " ", "é", "Shift+a", "Control+a", "Shift+ArrowLeft", "Control+Shift+End", "ControlOrMeta+b", "Shift++", "Tab"}

// keyLog returns the keys screen's log lines of the newest observation.
func (a *screenClient) keyLog() []string { return fixture.KeysLog().Items(a.root()) }

// expectKeyDelivered checks one pressed key: the call either succeeded and
// the keys screen logged exactly one new keydown, of that key, or failed
// with UNSUPPORTED_CAPABILITY and the screen logged nothing. before is the
// log length when the key was sent. It reports whether the key was
// delivered (not refused).
func (a *screenClient) expectKeyDelivered(ctx context.Context, key string, err error, before int, what string) bool {
	k, perr := wire.ParseKey(key)
	Expect(perr).NotTo(HaveOccurred(), "the suite's key %q is in the grammar", key)
	if err != nil {
		actExpectEngineError(err, what, engineerr.UnsupportedCapability)
		var got []string
		a.quiet(ctx, func() bool {
			got = a.keyLog()
			return len(got) != before
		})
		Expect(len(got)).To(Equal(before), "%s failed with UNSUPPORTED_CAPABILITY, yet the keys screen logged %q: a refused key is never delivered", what, actTail(got, before))
		return false
	}
	a.await(ctx, func() bool { return len(a.keyLog()) > before })
	got := actTail(a.keyLog(), before)
	want := fixture.KeyEventFor(k, wire.ModControl).String()
	Expect(got).To(HaveLen(1), "%s: want exactly one new keydown in the keys screen's log (%q, or ControlOrMeta as Meta), got %d: %q", what, want, len(got), got)
	ev, ok := fixture.ParseKeyEvent(got[0])
	Expect(ok).To(BeTrue(), "%s: the keys screen logged %q, which is not a keydown line of the fixture contract", what, got[0])
	Expect(ev.Matches(k)).To(BeTrue(), "%s: want the keydown %q (ControlOrMeta as Control or Meta, a letter with Shift in either case), got %q: the key was delivered as another key", what, want, got[0])
	return true
}

// expectNoLateKeys watches the keys screen for actQuietWait after the last
// key of a spec: each key was checked right after its delivery, so a key
// delivered again later (a repeat never cancelled) shows only here or in
// a later key's check.
func (a *screenClient) expectNoLateKeys(ctx context.Context, what string) {
	a.observe(ctx)
	before := a.keyLog()
	var got []string
	a.quiet(ctx, func() bool {
		got = a.keyLog()
		return len(got) != len(before)
	})
	Expect(len(got)).To(Equal(len(before)), "%s: after the last key was checked, the keys screen logged %q: a key was delivered again later", what, actTail(got, len(before)))
}

// expectNoLatePointer watches the pointer screen for actQuietWait after a
// spec's last action: events of kind are counted at each action's first
// sign, so one performed again later shows only here.
func (a *screenClient) expectNoLatePointer(ctx context.Context, kind, what string) {
	a.observe(ctx)
	n := len(ptrOfKind(a.pointerEvents(0), kind))
	var got int
	a.quiet(ctx, func() bool {
		got = len(ptrOfKind(a.pointerEvents(0), kind))
		return got != n
	})
	Expect(got).To(Equal(n), "%s: after the last one was checked, the pointer screen logged %d %q event(s), %d before: an action was performed again later (%q)", what, got, kind, n, ptrEventLines(a.pointerEvents(0)))
}

// expectSomeKeyDelivered ends a key spec not verified when the engine
// refused every key with UNSUPPORTED_CAPABILITY: no delivery was seen.
func expectSomeKeyDelivered(delivered int, method string) {
	if delivered == 0 {
		skipNotVerified(method + " refused every key the suite pressed with UNSUPPORTED_CAPABILITY: no delivery was seen")
	}
}

// actTail returns l from index from on (nothing when l is shorter).
func actTail(l []string, from int) []string {
	if from >= len(l) {
		return nil
	}
	return l[from:]
}

// actTypedKeydowns checks that events, in order, hold a keydown for each
// character of text (ASCII letters and digits); it returns "" or what is
// missing. An upper-case letter may be logged with Shift held (a device
// keyboard types it so; a browser's synthetic typing does not).
func actTypedKeydowns(text string, events []string) string {
	j := 0
	for i, r := range text {
		found := false
		for ; j < len(events); j++ {
			ev, ok := fixture.ParseKeyEvent(events[j])
			if !ok {
				continue
			}
			if ev.Matches(wire.Key{Char: r}) || (unicode.IsUpper(r) && ev.Matches(wire.Key{Modifiers: []string{wire.ModShift}, Char: r})) {
				found = true
				j++
				break
			}
		}
		if !found {
			return fmt.Sprintf("no keydown of %q (character %d) after the keydowns of the characters before it", string(r), i)
		}
	}
	return ""
}

// actErrorText is everything an error carries that a reader sees: its
// message, stack and cause chain.
func actErrorText(err error) string {
	var b strings.Builder
	for depth := 0; err != nil && depth < 16; depth++ {
		b.WriteString(err.Error())
		b.WriteByte('\n')
		var d engineerr.Details
		switch t := err.(type) {
		case *engineerr.EngineError:
			d = t.Details
		case *engineerr.E2EError:
			d = t.Details
		case *engineerr.RemoteError:
			d = t.Details
		}
		b.WriteString(d.Stack)
		b.WriteByte('\n')
		err = errors.Unwrap(err)
	}
	return b.String()
}

// actIntersects reports whether r shares an area with the viewport.
func actIntersects(r wire.Rect, vp wire.ViewportSize) bool {
	return r.X < vp.Width && r.X+r.Width > 0 && r.Y < vp.Height && r.Y+r.Height > 0
}

// actPtr returns a pointer to v.
func actPtr[T any](v T) *T { return &v }
