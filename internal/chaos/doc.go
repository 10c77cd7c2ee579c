// Package chaos holds the hostile-peer tests of issue 12 (its code is all
// in _test files, and the hostile engine in internal/chaos/hostile).
//
// Hostile engines against e2e-conform (TestHostileEngines): silent after
// initialize, SIGSTOP, exit mid-call, a 100 MB frame, an endless header
// line, a short body then EOF, bad Content-Length forms, bad UTF-8, deep
// nesting, unknown-id, stray-at-init and duplicate responses, a
// notification flood, a stderr flood, a setsid grandchild, a secret-request
// flood. Hostile clients against the servers: the example engine over TCP
// (TestExampleEngine*), the toolkit server library in this process
// (TestServer*: goroutines counted, goleak) and e2e-mcp over stdio
// (TestMCP*): a client that never reads, connections closed mid-frame,
// slowloris. Each case asserts its bound, the exit code, what the JSON
// report says happened, no process or TMPDIR entry left, and the peak RSS
// (ru_maxrss, /proc).
//
// No server adds an idle or partial-frame timeout: the engine protocol
// sets none (engine-protocol.md §1.1: a receiver MUST accept a message
// split anywhere; a worker connection may stay idle between tests as long
// as the harness likes). What bounds a slowloris client is what each
// connection may hold: a 4096-byte header part (§1.1), the content bytes
// that arrived (never the Content-Length announced: protocol/rpc grows a
// content buffer as it fills), and at most 256 requests in flight
// (protocol/server and mcp/stdio stop reading at the cap).
//
// `make test` runs the fast cases; `make chaos` (-chaos-slow) all of them.
package chaos
