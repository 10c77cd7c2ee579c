package conformance

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/e2e-conform/toolkit/conformance/fixture"
	"github.com/e2e-conform/toolkit/protocol/client"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The fixture part of the run-wide workload (exercise.go), in the full
// profile only: the engine errors a conformant engine answers only on a
// fixture screen, so that a selection of run-wide requirements alone
// (`--only ERR-003 --profile full`) judges the error objects the fixture
// specs of a full run draw (ACT-016's NOT_ACTIONABLE, LOC-015's
// FRAME_AMBIGUOUS, LOC-013's FRAME_NOT_FOUND). Like the core part it
// fails nothing by itself: what comes is judged by the run-wide checks
// only, and a screen the engine does not stage (or a method it lacks)
// leaves its step out, noted in the summary.

// fixtureStep is one request of the fixture part, on the screen it needs.
type fixtureStep struct {
	what   string
	screen func() fixture.Screen
	// needs says whether the engine can take the step.
	needs func(m wire.Manifest) bool
	// send makes the request; snap is the staged screen's observation.
	send func(ctx context.Context, c *client.Conn, op client.Op, snap *wire.EngineSnapshot)
}

// fixtureSteps are the fixture part's requests, each quoting the sentence
// that makes the engine answer with the error.
func fixtureSteps() []fixtureStep {
	locates := func(m wire.Manifest) bool { return m.Lists(wire.MethodLocate) }
	frame := func(ctx context.Context, c *client.Conn, op client.Op, selector string) {
		src := wire.LocatorExpression{Kind: wire.ExprQuery, Query: &wire.SemanticQuery{Kind: wire.QueryTestID, Value: wire.StringPattern(fixture.FrameOneButton().TestID, true)}}
		_, _ = c.Locate(ctx, op, wire.LocatorExpression{Kind: wire.ExprFrame, Selector: selector, Source: &src})
	}
	return []fixtureStep{
		// §4.10: "A node that cannot take the action (disabled, obscured,
		// not editable) fails with NOT_ACTIONABLE; the engine MAY wait for
		// actionability within operation.timeoutMs and then fails with
		// NOT_ACTIONABLE or OPERATION_TIMEOUT." A 1 s budget, as ACT-016.
		{"tap on the counter's disabled button", fixture.Counter, func(m wire.Manifest) bool {
			return m.Lists(wire.MethodPerform) && m.HasAction(wire.ActionTap)
		}, func(ctx context.Context, c *client.Conn, op client.Op, snap *wire.EngineSnapshot) {
			n := fixture.CounterDisabled().Find(&snap.Root)
			if n == nil {
				return
			}
			tctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			_ = c.Perform(tctx, op, n.Ref, wire.LocatorAction{Kind: wire.ActionTap})
		}},
		// §4.9: "frame: zero matching nested documents → FRAME_NOT_FOUND
		// …; more than one → FRAME_AMBIGUOUS, retryable: false."
		{"a frame expression matching both nested documents", fixture.Frames, locates, func(ctx context.Context, c *client.Conn, op client.Op, _ *wire.EngineSnapshot) {
			frame(ctx, c, op, fixture.FramesSelector)
		}},
		{"a frame expression matching no nested document", fixture.Frames, locates, func(ctx context.Context, c *client.Conn, op client.Op, _ *wire.EngineSnapshot) {
			frame(ctx, c, op, fixture.NoFrameSelector)
		}},
	}
}

// runFixtureWorkload runs the fixture part once on a client connection of
// its own and says what it did.
func (e *runEnv) runFixtureWorkload(ctx context.Context) string {
	if !e.Manifest.Lists(wire.MethodOpen) || !e.Manifest.Lists(wire.MethodObserve) {
		return "the fixture part of the run-wide workload did not run: the engine lacks session/open or engine/observe"
	}
	c, _, err := e.Open(ctx, wire.RoleWorker)
	if err != nil {
		if c != nil {
			_ = c.Close(5 * time.Second)
		}
		return "the fixture part of the run-wide workload could not connect: " + err.Error()
	}
	op, err := e.Attempt(ctx, c)
	if err != nil {
		_ = c.Close(5 * time.Second)
		return "the fixture part of the run-wide workload could not start an attempt: " + err.Error()
	}
	defer e.fxEnd(ctx, c)
	var done, left []string
	staged := map[string]*wire.EngineSnapshot{}
	for _, st := range fixtureSteps() {
		if !st.needs(e.Manifest) {
			left = append(left, st.what+" (not declared)")
			continue
		}
		sc := st.screen()
		snap, ok := staged[sc.Path]
		if !ok {
			var why string
			snap, why = e.stageQuietly(ctx, c, op, sc)
			staged[sc.Path] = snap
			if snap == nil {
				left = append(left, "the "+sc.Name+" screen: "+why)
			}
		}
		if snap == nil {
			left = append(left, st.what)
			continue
		}
		st.send(ctx, c, op, snap)
		done = append(done, st.what)
	}
	s := fmt.Sprintf("the fixture part of the run-wide workload sent: %s", orDefault(strings.Join(done, "; "), "nothing"))
	if len(left) > 0 {
		s += "; left out: " + strings.Join(left, "; ")
	}
	return s
}

// stageQuietly is stage without a verdict: the observation of screen s
// once it shows its marker (within 5 s); nil and why when the engine
// refused to open it, an observation failed or the marker never showed.
func (e *runEnv) stageQuietly(ctx context.Context, c *client.Conn, op client.Op, s fixture.Screen) (*wire.EngineSnapshot, string) {
	octx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.Open(octx, op, e.FixtureURL+s.Path); err != nil {
		return nil, "session/open failed: " + fxDescribeError(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		snap, err := c.Observe(octx, op, nil)
		if err != nil {
			return nil, "engine/observe failed: " + fxDescribeError(err)
		}
		if findText(&snap.Root, s.Marker) != nil {
			return snap, ""
		}
		if time.Now().After(deadline) {
			return nil, "its marker did not show within 5 s"
		}
		select {
		case <-octx.Done():
			return nil, "the spec's budget ran out"
		case <-time.After(100 * time.Millisecond): // polling an observation, the harness's own way
		}
	}
}
