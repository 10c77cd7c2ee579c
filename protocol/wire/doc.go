// Package wire holds the Go types of every message of the e2e engine protocol,
// version 1 (spec §2–§8): the initialize handshake, the manifest, the params and
// results of every engine method, the data types they carry and the
// server-to-client messages, plus the protocol's constants and the key grammar.
//
// Encoding rules:
//
//   - An optional member is a pointer, a nil slice or map, or a zero value
//     tagged omitempty; it is never written as JSON null ("absent" and null stay
//     distinct, spec §0.4). JsonValue members are [json.RawMessage]: nil is
//     absent, the bytes "null" are a JSON null.
//   - Tagged unions (LocatorAction, PointerAction, LocatorExpression,
//     TextPattern, SelectOption, VideoSegment, ScreenshotResult) are flat structs
//     with a Kind and the members of every variant; they marshal only the
//     members of their kind and unmarshal strictly: an unknown kind, or a member
//     a kind requires that is missing, is a [*DecodeError] naming the kind and
//     the JSON pointer of the offending member.
//   - Unknown members are ignored everywhere (spec §1.6); checking the closed
//     manifest and nulls where a type forbids them is the job of the schemas in
//     package schema, which peers run on untrusted input before decoding.
package wire
