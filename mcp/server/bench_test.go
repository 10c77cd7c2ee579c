package server_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkOpenToFirstObservation measures open_session (config load,
// engine connection, init, attempt, navigate, first observe) and close, on
// the saboteur through the in-memory MCP transports.
func BenchmarkOpenToFirstObservation(b *testing.B) {
	e := newBenchEnv(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "open_session", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
		b.StopTimer()
		if _, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_session", Arguments: map[string]any{}}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkCallObserve measures `call observe` on an open session.
func BenchmarkCallObserve(b *testing.B) {
	e := newBenchEnv(b)
	ctx := context.Background()
	if res, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "open_session", Arguments: map[string]any{}}); err != nil || res.IsError {
		b.Fatal(err, res)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "call", Arguments: map[string]any{"tool": "observe"}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
