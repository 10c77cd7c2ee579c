// Package rpc carries JSON-RPC 2.0 messages with LSP Content-Length framing
// for the e2e engine protocol (spec §1), on github.com/sourcegraph/jsonrpc2.
//
// [Stream] is a [jsonrpc2.ObjectStream] that replaces the library's
// VSCodeObjectCodec reader, which closes the connection on any fault and
// buffers whatever Content-Length announces. Stream enforces the framing
// rules of spec §1.1–§1.4 before a message reaches jsonrpc2:
//
//   - the header part is at most 4096 bytes, its field names match without
//     regard to case, Content-Length is a decimal integer without sign, a
//     Content-Type charset other than utf-8/utf8 is a framing fault;
//   - a Content-Length above the receive limit (64 MiB by default) is refused
//     before any content is read or buffered;
//   - content that is not UTF-8 JSON, a batch, and JSON that is not a
//     JSON-RPC 2.0 message are classified.
//
// What happens on a fault depends on the [Mode]. A server stream answers
// content faults itself (-32700 or -32600, with the message's id when it has
// a valid one) and keeps reading; header faults are fatal after one error
// response. A client stream treats every fault as fatal (spec §1.3, D10).
// Fatal faults end ReadObject with a [*FrameError], which makes jsonrpc2
// close the connection; [Stream.Err] keeps it for diagnostics.
//
// Writes marshal the message, refuse content above the limit, and write the
// same frame VSCodeObjectCodec writes (a Content-Length header, CRLFCRLF, the
// content), header and content in one Write so that messages never
// interleave.
package rpc
