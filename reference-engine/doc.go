// Package webengine is the reference web engine: an engine server (spec
// engine-protocol) on chromedp driving Debian's headless Chromium, written
// clean room from ../shared/spec/web-engine.md.
//
// Observation and locate run one injected in-page reader per document
// (package inpage); pixels, masks and video live in package media.
package webengine
