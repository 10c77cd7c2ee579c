// Package chromium starts Debian's headless Chromium through chromedp with
// the flags this project needs everywhere (the reference engine and every
// test that drives a browser): no background networking (the network is
// closed), no component updates, no sync, no first-run UI, software GPU.
package chromium

import (
	"context"
	"fmt"

	"github.com/chromedp/chromedp"
)

// DefaultPath is Debian's Chromium.
const DefaultPath = "/usr/bin/chromium"

// AllocatorOptions returns chromedp's default allocator options (headless,
// a fresh profile directory, --no-sandbox as root) with path as the binary,
// the project's flags, and extra last.
func AllocatorOptions(path string, extra ...chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	if path == "" {
		path = DefaultPath
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("enable-unsafe-swiftshader", true),
	)
	return append(opts, extra...)
}

// Start starts Chromium and waits until it answers. browser is the
// browser's first context (derive tabs from it with chromedp.NewContext);
// stop ends Chromium, waits for it and removes its profile directory.
func Start(path string, extra ...chromedp.ExecAllocatorOption) (browser context.Context, stop func(), err error) {
	actx, acancel := chromedp.NewExecAllocator(context.Background(), AllocatorOptions(path, extra...)...)
	bctx, bcancel := chromedp.NewContext(actx)
	stop = func() {
		bcancel()
		acancel()
	}
	if err := chromedp.Do(bctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("starting chromium (%s): %w", path, err)
	}
	return bctx, stop, nil
}
