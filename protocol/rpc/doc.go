// Package rpc carries JSON-RPC 2.0 messages with LSP Content-Length framing
// for the e2e engine protocol (spec §1): [Stream] reads and writes frames,
// [Conn] is a connection on a Stream (calls with ids 1, 2, 3, …, their
// responses, notifications, and a [Handler] for the peer's requests).
//
// Stream enforces the framing rules of spec §1.1–§1.4:
//
//   - the header part is at most 4096 bytes (it is refused as soon as 4096
//     bytes without its end are buffered: no longer header is ever read or
//     waited for), its field names match without regard to case,
//     Content-Length is a decimal integer without sign, a Content-Type
//     charset other than utf-8/utf8 is a framing fault;
//   - a Content-Length above the receive limit (64 MiB by default) is refused
//     before any content is read or buffered;
//   - content that is not UTF-8 JSON, a batch, and JSON that is not a
//     JSON-RPC 2.0 message are classified.
//
// What happens on a fault depends on the [Mode]. A server stream answers
// content faults itself (-32700 or -32600, with the message's id when it has
// a valid one) and keeps reading; header faults are fatal after one error
// response. A client stream treats every fault as fatal (spec §1.3, D10).
// Fatal faults end reading with a [*FrameError]; [Stream.Err] keeps it for
// diagnostics.
//
// Each frame is parsed once: one pass checks UTF-8 and JSON validity, one
// walk of the top-level object finds the envelope members, which stay raw
// bytes ([Message], [Request]) until the typed decoder of the method reads
// them. Ids are kept as written (negative and string ids need no mapping);
// a response is routed by its integer id to a ring of pending calls, not a
// map. A frame is built in a pooled buffer, its header in front of the
// content, and written with one Write under the stream's write lock by the
// goroutine that has it (no writer goroutine, so messages never interleave
// and a blocked peer blocks the writers, which is what bounds the server's
// write side).
//
// Until issue 11 the connection ran on github.com/sourcegraph/jsonrpc2
// (v0.2.3), the project card's named dependency; the hot path left it
// because the library decodes every message three times (into a
// map[string]interface{} with UseNumber, then re-marshals the params) and
// marshals every outgoing message twice, which the profile put at 57 % of
// the CPU of a no-op engine/observe. Measured with `make bench` on the
// same machine (2 cores, shared, nice 19): a no-op observe over loopback
// (Go client and Go server in one process) went from 372 to 147
// allocations and from 21.7 KB to 9.9 KB per call, and the server alone
// (driven by a client that only frames) from 223 to 102 allocations; the
// schema run on params, the remaining largest cost, is the subject of the
// typed params decoders. One implementation is kept: nothing in the module
// uses jsonrpc2 any more. The wire layout is the one jsonrpc2 wrote
// (requests' members in sorted order; a response's id, result or error,
// then jsonrpc), so traces and byte-level fixtures are unchanged.
package rpc
