package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/e2e-conform/toolkit/protocol/rpc"
	"github.com/e2e-conform/toolkit/protocol/wire"
)

// probeInit runs lifecycle/init once, with the suite's valid params, on a
// raw connection of its own, right after discovery. The spec lets it
// fail: "Errors: any; a failure is infrastructure and no attempt starts"
// (§4.3), as an engine fails whose environment lacks what it drives (the
// web engine without Chromium). Such an engine is not in breach of any
// rule, and nothing that needs an initialized worker can be checked on
// it: when the probe's init is answered with an error, initRefused says
// so, and every spec whose own lifecycle/init then gets an error ends not
// verified (skipWhenInitRefused), never failed. An init that succeeds here
// changes nothing: a later init that fails fails its spec as before. The
// error is what stopped the probe (a request the engine did not answer is
// an *rpc.NoAnswerError), for the caller to report when the probe used up
// the first spec's budget.
func (e *runEnv) probeInit(ctx context.Context) (err error) {
	if !e.Manifest.Lists(wire.MethodInit) {
		return nil
	}
	// A raw connection: every frame of the probe is checked like any
	// other (framing, result shapes, shutdown's null), so that a fault the
	// engine shows first here is reported, not swallowed.
	r, err := e.openRaw(ctx)
	if err != nil {
		return nil // the specs that open connections report it
	}
	defer func() { _ = r.Close(5 * time.Second) }()
	defer func() {
		// Said before the close, which can take its 5 s (an engine
		// stopped with SIGSTOP) and outlast the first spec's budget and
		// its grace period: the report then still names the request the
		// engine left unanswered.
		if na := (*rpc.NoAnswerError)(nil); errors.As(err, &na) {
			AddReportEntry("warning", "the suite probed lifecycle/init before the specs: "+err.Error())
		}
	}()
	if _, err := r.Initialize(ctx); err != nil {
		return err
	}
	env := e.cfg.Env
	if env == nil {
		env = map[string]string{}
	}
	p, err := json.Marshal(wire.InitParams{RunID: e.nextID("run"), TargetName: "conformance", ProjectRoot: e.Artifacts,
		Env: env, Signal: wire.SignalRef{ID: wire.IntSignalID(1)}})
	if err != nil {
		return nil
	}
	f, err := r.Call(ctx, "1", wire.MethodInit, string(p))
	if err != nil {
		return err
	}
	if eo := f.Error(); eo != nil {
		e.initRefused = fmt.Errorf("the engine answered lifecycle/init with valid params with error %d %q at the start of the run (§4.3 allows it: \"Errors: any\"), so nothing that needs an initialized worker can be checked here", eo.Code, e.Redact(clip(eo.Message)))
		return nil
	}
	if e.Manifest.Lists(wire.MethodDispose) {
		if _, err := r.Call(ctx, "2", wire.MethodDispose, `{"signal":{"id":2},"timeoutMs":5000}`); err != nil {
			return err
		}
	}
	if _, err := r.Call(ctx, "3", wire.MethodShutdown, ""); err != nil {
		return err
	}
	return r.Notify(wire.MethodExit, "")
}

// skipWhenInitRefused ends the running spec not verified when the probe
// found lifecycle/init refused (probeInit) and eo, this spec's answer to
// its own lifecycle/init, is an error too.
func (e *runEnv) skipWhenInitRefused(eo *wire.ErrorObject) {
	if e.initRefused != nil && eo != nil {
		Skip(notVerified + e.initRefused.Error())
	}
}

// skipWhenInitErr is skipWhenInitRefused for a client call's error.
func (e *runEnv) skipWhenInitErr(err error) {
	e.skipWhenInitRefused(fxWireError(err))
}

// initOutcome classifies the answer to a second lifecycle/init (LIFE-009):
// "null", "INVALID_STATE", or what else it was.
func initOutcome(f *frame) string {
	eo := f.Error()
	if eo == nil {
		return string(f.Result())
	}
	if d := dataOf(eo); eo.Code == wire.CodeEngineError && d.Type == "engine" && d.Code == "INVALID_STATE" {
		return "INVALID_STATE"
	}
	return fmt.Sprintf("error %d %q", eo.Code, eo.Message)
}
