// Command e2e-web-engine serves the reference web engine (package
// reference-engine) on stdin and stdout, or on TCP with --listen: an engine
// server on chromedp driving Debian's headless Chromium, or a remote
// browser (a pool) with --cdp-endpoint.
//
//	e2e-web-engine [--listen host:port] [--chromium PATH | --cdp-endpoint URL [--cdp-header "Name: value"]...] [--headed] [--no-video] [-v]
package main

import (
	"os"

	webengine "github.com/e2e-conform/toolkit/reference-engine"
)

func main() { os.Exit(webengine.Main(os.Args[1:], os.Stdout, os.Stderr)) }
