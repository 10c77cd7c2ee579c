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

	"github.com/e2e-conform/toolkit/protocol/engineerr"
)

// browser is one Chromium process. Its process stays in the engine's
// process group (a spawned engine's group kill reaches it) and gets SIGKILL
// when the engine's thread dies (chromedp sets Pdeathsig on Linux);
// cancelling the allocator kills it and removes its profile directory.
type browser struct {
	actx    context.Context
	acancel context.CancelFunc
	bctx    context.Context // the browser's first tab; never has a deadline
	bcancel context.CancelFunc
	version string
}

// browser returns the running Chromium, starting it when needed.
func (e *Engine) browser(ctx context.Context) (*browser, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.br != nil {
		return e.br, nil
	}
	br, err := launch(ctx, e.opts)
	if err != nil {
		return nil, err
	}
	e.br = br
	return br, nil
}

// launch starts Chromium with the flags this machine needs (no background
// networking: the network is closed) and waits until it answers.
func launch(ctx context.Context, o Options) (*browser, error) {
	if _, err := os.Stat(o.ExecutablePath); err != nil {
		if p, lerr := exec.LookPath(o.ExecutablePath); lerr == nil {
			o.ExecutablePath = p
		} else {
			return nil, engineerr.Infrastructure("chromium not found at %s (set initializationOptions.executablePath or E2E_CHROMIUM; on Debian: apt-get install chromium): %v", o.ExecutablePath, err)
		}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(o.ExecutablePath),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints,InterestFeedContentSuggestions"),
		chromedp.WindowSize(o.Width, o.Height),
	)
	if o.Headed {
		opts = append(opts, chromedp.Flag("headless", false))
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(bctx) }()
	select {
	case err := <-started:
		if err != nil {
			bcancel()
			acancel()
			return nil, engineerr.Infrastructure("starting chromium (%s): %v", o.ExecutablePath, err)
		}
	case <-ctx.Done():
		bcancel()
		acancel()
		<-started
		return nil, context.Cause(ctx)
	}
	v, err := chromedp.CallBrowser(bctx, cdpbrowser.GetVersion, cdp.Empty{})
	if err != nil {
		bcancel()
		acancel()
		return nil, engineerr.Infrastructure("chromium did not answer Browser.getVersion: %v", err)
	}
	return &browser{actx: actx, acancel: acancel, bctx: bctx, bcancel: bcancel, version: v.Product}, nil
}

// close stops Chromium and waits for it.
func (b *browser) close() {
	b.bcancel()
	b.acancel()
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
