package conformance

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// probeInit runs lifecycle/init once, with the suite's valid params, on a
// client connection of its own, right after discovery. The spec lets it
// fail: "Errors: any; a failure is infrastructure and no attempt starts"
// (§4.3), as an engine fails whose environment lacks what it drives (the
// web engine without Chromium). Such an engine is not in breach of any
// rule, and nothing that needs an initialized worker can be checked on
// it: when the probe's init is answered with an error, initRefused says
// so, and every spec whose own lifecycle/init then gets an error ends not
// verified (skipWhenInitRefused), never failed. An init that succeeds here
// changes nothing: a later init that fails fails its spec as before.
func (e *Env) probeInit(ctx context.Context) {
	if !e.Manifest.Lists(wire.MethodInit) {
		return
	}
	c, _, err := e.Open(ctx, wire.RoleWorker)
	if err != nil {
		return // the specs that open connections report it
	}
	defer func() { _ = c.Close(5 * time.Second) }()
	err = c.Init(ctx, wire.InitParams{RunID: e.nextID("run"), TargetName: "conformance", ProjectRoot: e.Artifacts, Env: e.cfg.Env})
	if eo := fxWireError(err); eo != nil {
		e.initRefused = fmt.Errorf("the engine answered lifecycle/init with valid params with error %d %q at the start of the run (§4.3 allows it: \"Errors: any\"), so nothing that needs an initialized worker can be checked here", eo.Code, e.Redact(clip(eo.Message)))
		return
	}
	if err == nil && e.Manifest.Lists(wire.MethodDispose) {
		_ = c.Dispose(ctx, 5000, nil)
	}
}

// skipWhenInitRefused ends the running spec not verified when the probe
// found lifecycle/init refused (probeInit) and eo, this spec's answer to
// its own lifecycle/init, is an error too.
func (e *Env) skipWhenInitRefused(eo *wire.ErrorObject) {
	if e.initRefused != nil && eo != nil {
		Skip(notVerified + e.initRefused.Error())
	}
}

// skipWhenInitErr is skipWhenInitRefused for a client call's error.
func (e *Env) skipWhenInitErr(err error) {
	e.skipWhenInitRefused(fxWireError(err))
}
