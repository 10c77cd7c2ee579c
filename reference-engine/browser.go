package webengine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/e2e-conform/toolkit/internal/chromium"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
)

// browser is one Chromium process. Its process stays in the engine's
// process group (a spawned engine's group kill reaches it) and gets SIGKILL
// when the engine's thread dies (chromedp sets Pdeathsig on Linux);
// cancelling the allocator kills it. Everything it writes (profile,
// TMPDIR, HOME, crash dumps) is in its own directory, in, inside the
// engine's (Engine.dir); close removes it.
type browser struct {
	in      *chromium.Instance
	actx    context.Context
	acancel context.CancelFunc
	bctx    context.Context // the browser's first tab; never has a deadline
	bcancel context.CancelFunc
	version string
}

// launching is a Chromium start in progress (or finished: done closed).
type launching struct {
	done chan struct{}
	br   *browser
	err  error
	// kill stops the start or kills the started Chromium at once, without
	// waiting (the allocator's context is its child); br.close still reaps
	// the process and removes its profile directory.
	kill context.CancelFunc
}

// startLaunch starts Chromium in the background unless it runs or is
// starting, and returns the start.
func (e *Engine) startLaunch() *launching {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.launch != nil {
		return e.launch
	}
	root, kill := context.WithCancel(context.Background())
	l := &launching{done: make(chan struct{}), kill: kill}
	e.launch = l
	opts := e.opts
	dir, derr := e.chromiumDir()
	go func() {
		defer close(l.done)
		if derr != nil {
			l.err = engineerr.Infrastructure("%v", derr)
			return
		}
		l.br, l.err = launch(root, opts, dir)
	}()
	return l
}

// browser returns the running Chromium, starting it when needed and
// waiting for the start within ctx. A start that failed is forgotten, so
// the next call tries again.
func (e *Engine) browser(ctx context.Context) (*browser, error) {
	l := e.startLaunch()
	select {
	case <-l.done:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if l.err != nil {
		e.mu.Lock()
		if e.launch == l {
			e.launch = nil
		}
		e.mu.Unlock()
		l.kill()
		return nil, l.err
	}
	if err := l.br.alive(); err != nil {
		e.mu.Lock()
		if e.launch == l {
			e.launch = nil
		}
		e.mu.Unlock()
		l.br.close()
		l.kill()
		return nil, engineerr.New(engineerr.EngineFailure, "%v", err)
	}
	return l.br, nil
}

// chromiumDir returns the engine's directory for its Chromiums, creating
// it (and sweeping those of dead engines) the first time. e.mu is held.
func (e *Engine) chromiumDir() (*chromium.Dir, error) {
	if e.dir == nil {
		d, err := chromium.NewDir("")
		if err != nil {
			return nil, err
		}
		e.dir = d
	}
	return e.dir, nil
}

// checkExecutable resolves Chromium's path.
func checkExecutable(o *Options) error {
	if _, err := os.Stat(o.ExecutablePath); err != nil {
		p, lerr := exec.LookPath(o.ExecutablePath)
		if lerr != nil {
			return engineerr.Infrastructure("chromium not found at %s (set initializationOptions.executablePath or E2E_CHROMIUM; on Debian: apt-get install chromium): %v", o.ExecutablePath, err)
		}
		o.ExecutablePath = p
	}
	return nil
}

// launch starts Chromium with the flags this machine needs (no background
// networking: the network is closed) and waits until it answers. Cancelling
// root kills it (or stops the start).
func launch(root context.Context, o Options, dir *chromium.Dir) (*browser, error) {
	if err := checkExecutable(&o); err != nil {
		return nil, err
	}
	// A start can fail for a passing reason on a loaded machine (Chromium
	// exiting before it printed its DevTools address): one more try, in a
	// fresh instance directory, before the failure is the caller's.
	b, err := launchOnce(root, o, dir)
	if err != nil && root.Err() == nil {
		if o.Logger != nil {
			o.Logger.Warn("chromium did not start; trying once more", "error", err)
		}
		b, err = launchOnce(root, o, dir)
	}
	return b, err
}

// launchOnce is one try of launch.
func launchOnce(root context.Context, o Options, dir *chromium.Dir) (*browser, error) {
	in, err := dir.NewInstance()
	if err != nil {
		return nil, engineerr.Infrastructure("%v", err)
	}
	opts := chromium.AllocatorOptions(o.ExecutablePath, append(in.Options(),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints,InterestFeedContentSuggestions"),
		chromedp.WindowSize(o.Width, o.Height),
	)...)
	if o.Headed {
		opts = append(opts, chromedp.Flag("headless", false))
	}
	actx, acancel := chromedp.NewExecAllocator(root, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		bcancel()
		acancel()
		in.Remove()
		return nil, engineerr.Infrastructure("starting chromium (%s): %v", o.ExecutablePath, err)
	}
	v, err := chromedp.CallBrowser(bctx, cdpbrowser.GetVersion, cdp.Empty{})
	if err != nil {
		bcancel()
		acancel()
		in.Remove()
		return nil, engineerr.Infrastructure("chromium did not answer Browser.getVersion: %v", err)
	}
	return &browser{in: in, actx: actx, acancel: acancel, bctx: bctx, bcancel: bcancel, version: v.Product}, nil
}

// browserGrace is how long close lets Chromium close by itself (it then
// removes what it keeps in its TMPDIR) before it kills it.
const browserGrace = 2 * time.Second

// close stops Chromium (gracefully first, unless it was killed), waits
// until it is reaped and removes its directory.
func (b *browser) close() {
	chromium.Stop(b.bctx, b.bcancel, b.acancel, browserGrace)
	b.in.Remove()
}

// errBrowserGone is returned when Chromium went away under the engine.
var errBrowserGone = errors.New("the browser is gone")

// alive reports whether the browser still answers.
func (b *browser) alive() error {
	if err := b.bctx.Err(); err != nil {
		return fmt.Errorf("%w: %v", errBrowserGone, err)
	}
	return nil
}
