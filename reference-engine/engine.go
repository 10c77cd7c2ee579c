package webengine

import (
	"context"
	"io"
	"log/slog"

	"github.com/e2e-conform/toolkit/protocol/server"
	"github.com/e2e-conform/toolkit/protocol/transport"
)

// Options configure the engine; initializationOptions override them per
// connection.
type Options struct {
	// ExecutablePath is Chromium's binary; "" means $E2E_CHROMIUM, else
	// /usr/bin/chromium.
	ExecutablePath string
	// Headed shows the browser window.
	Headed bool
	// FFmpegPath is ffmpeg's binary; "" looks it up in $PATH. Without
	// ffmpeg the engine leaves video out of its manifest.
	FFmpegPath string
	// Logger receives operator diagnostics; nil discards them.
	Logger *slog.Logger
}

// Engine is one connection's web engine.
type Engine struct {
	opts Options
}

// Info returns the engine's static manifest members.
func (e *Engine) Info() server.Info {
	return server.Info{Name: "e2e-web-engine", Version: "0.1.0", Platform: "web"}
}

// Factory returns a server.Factory building an engine from base and the
// connection's initializationOptions.
func Factory(base Options) server.Factory {
	return func(ctx context.Context, initializationOptions []byte) (server.Engine, error) {
		return &Engine{opts: base}, nil
	}
}

// Transport returns a loopback transport serving a new engine on every
// connection (the in-process "built-in web engine").
func Transport(base Options) transport.Transport {
	return transport.Loopback("e2e-web-engine", func(ctx context.Context, rwc io.ReadWriteCloser) error {
		return server.ServeFactory(ctx, Factory(base), rwc, server.Options{})
	})
}
