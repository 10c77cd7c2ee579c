package webengine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/e2e-conform/toolkit/internal/chromium"
	"github.com/e2e-conform/toolkit/protocol/engineerr"
)

// browser is the engine's browser: a Chromium it launched, or a remote
// browser it attached to (remote != nil).
//
// A launched Chromium's process stays in the engine's process group (a
// spawned engine's group kill reaches it) and gets SIGKILL when the
// engine's thread dies (chromedp sets Pdeathsig on Linux); cancelling the
// allocator kills it. Everything it writes (profile, TMPDIR, HOME, crash
// dumps) is in its own directory, in, inside the engine's (Engine.dir);
// close removes it.
//
// A remote browser is never launched or killed: cancelling the allocator
// closes the engine's connection to it, nothing else.
type browser struct {
	in      *chromium.Instance // nil for a remote browser
	remote  *endpoint          // nil for a launched Chromium
	actx    context.Context
	acancel context.CancelFunc
	bctx    context.Context // the browser's first context; never has a deadline
	bcancel context.CancelFunc
	version string
}

// launching is a Chromium start in progress (or finished: done closed).
type launching struct {
	done chan struct{}
	br   *browser
	err  error
	// kill stops the start, or kills the started Chromium and its helpers
	// at once (killTree), without waiting (the allocator's context is its
	// child); br.close still reaps the process and removes its profile
	// directory. For a remote browser it closes the connection.
	kill func()
	// remote: the start attaches to a remote browser.
	remote bool
}

// killTree kills a started Chromium's whole process tree at once
// (browser.killTree); it does nothing while the start runs or after it
// failed, or for a remote browser.
func (l *launching) killTree() {
	select {
	case <-l.done:
		if l.br != nil {
			l.br.killTree()
		}
	default:
	}
}

// startLaunch starts the browser in the background (launches Chromium, or
// attaches to the remote browser) unless it runs or is starting, and
// returns the start.
func (e *Engine) startLaunch() *launching {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.launch != nil {
		return e.launch
	}
	root, cancel := context.WithCancel(context.Background())
	opts := e.opts
	l := &launching{done: make(chan struct{}), remote: opts.CDPEndpoint != ""}
	l.kill = func() {
		l.killTree()
		cancel()
	}
	e.launch = l
	var dir *chromium.Dir
	var derr error
	if opts.CDPEndpoint == "" {
		dir, derr = e.chromiumDir()
	}
	notice := e.notice
	go func() {
		defer close(l.done)
		if derr != nil {
			l.err = engineerr.Infrastructure("%v", derr)
			return
		}
		if opts.CDPEndpoint != "" {
			l.br, l.err = attach(root, opts)
			if l.err == nil && notice != nil {
				notice(fmt.Sprintf("%s: attached to the remote browser %s at %s", Name, l.br.version, l.br.remote))
			}
			return
		}
		l.br, l.err = launch(root, opts, dir)
	}()
	return l
}

// browser returns the running browser, starting it when needed and
// waiting for the start within ctx. A start that failed is forgotten, so
// the next call tries again; so is a browser that went away (a crashed
// Chromium, a dropped connection to a remote one), and a fresh one starts
// in its place, once per call.
func (e *Engine) browser(ctx context.Context) (*browser, error) {
	for try := 0; ; try++ {
		l := e.startLaunch()
		select {
		case <-l.done:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		if l.err != nil {
			e.forget(l)
			return nil, l.err
		}
		err := l.br.alive()
		if err == nil {
			return l.br, nil
		}
		e.forget(l)
		if try > 0 {
			return nil, engineerr.New(engineerr.EngineFailure, "%v", err)
		}
		e.log.Warn("the browser went away; starting a new one", "error", err)
	}
}

// forget detaches a failed start, or a browser that went away, from the
// engine and releases it.
func (e *Engine) forget(l *launching) {
	e.mu.Lock()
	if e.launch == l {
		e.launch = nil
	}
	e.mu.Unlock()
	if l.br != nil {
		l.br.close()
	}
	l.kill()
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
	if o.ExecutablePath == "" {
		o.ExecutablePath = chromium.DefaultFor(o.Headed)
	}
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
	// No startup window: the engine never uses the default browser
	// context's first tab (every attempt gets a browser context and a tab
	// of its own), and not opening it saves about a quarter of a start's
	// CPU time (a renderer and its page). The browser-level call below
	// starts Chromium and attaches to no target.
	opts = append(opts, chromedp.Flag("no-startup-window", true))
	actx, acancel := chromedp.NewExecAllocator(root, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	v, err := chromedp.CallBrowser(bctx, cdpbrowser.GetVersion, cdp.Empty{})
	if err != nil {
		bcancel()
		acancel()
		in.Remove()
		return nil, engineerr.Infrastructure("starting chromium (%s): %v", o.ExecutablePath, err)
	}
	return &browser{in: in, actx: actx, acancel: acancel, bctx: bctx, bcancel: bcancel, version: v.Product}, nil
}

// close kills a launched Chromium and all its helpers at once (an orderly
// Browser.close takes a few hundred milliseconds and only tidies a profile
// that is removed anyway), waits until it is reaped, ends what is left of its helpers and removes
// its directory; for a remote browser it closes the connection.
func (b *browser) close() {
	if b.remote != nil {
		b.bcancel()
		b.acancel()
		return
	}
	b.killTree()
	chromium.Stop(b.bctx, b.bcancel, b.acancel, 0)
	b.in.Remove()
}

// killTree sends SIGKILL to a launched Chromium's process and every
// helper of it at once (chromium.Instance.Kill); nothing for a remote
// browser. Safe to call more than once.
func (b *browser) killTree() {
	if b.in == nil {
		return
	}
	if c := chromedp.FromContext(b.bctx); c != nil && c.Browser != nil {
		if p := c.Browser.Process(); p != nil {
			b.in.Kill(p.Pid)
		}
	}
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
