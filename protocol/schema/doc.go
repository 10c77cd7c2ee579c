// Package schema holds the JSON Schemas (draft 2020-12) of the e2e engine
// protocol, embedded in the binary, and validates manifests, params,
// results and server-to-client messages against them.
//
// # Files
//
// Files returns the three published schemas:
//
//   - schemas/engine-manifest-v1.schema.json: the manifest, verbatim from
//     §3.8 of the specification.
//   - schemas/engine-types-v1.schema.json: the data types, verbatim from
//     §5.13. It refers to the manifest schema by its relative $id.
//   - schemas/engine-methods-v1.schema.json: this package's own schema, with
//     one $defs entry per message the client sends: <Name>Params for the
//     params and <Name>Result for the result of a request, where <Name> is
//     the method with its group capitalized (engine/performAt is
//     EnginePerformAt, lifecycle/startAttempt is LifecycleStartAttempt,
//     $/abort is Abort, initialize is Initialize). It refers to the types
//     schema.
//
// Load registers the three documents with the compiler under
// https://e2e-conform.invalid/schemas/<file>, against which their relative
// $ids and $refs resolve; the compiler's loader refuses every other URL, so
// nothing is ever fetched.
//
// # Validation
//
// A Set holds the compiled schemas; it is immutable and safe for concurrent
// use, and the package keeps no mutable state of its own. Every Validate
// method decodes the instance with numbers kept as json.Number, so integers
// and fractions are judged exactly, and returns nil or an *Error listing
// every Violation, each located by an RFC 6901 pointer into the instance,
// sorted by pointer (array indexes numerically), then rule, then message.
// Messages are deterministic English built from the library's error kinds:
// "got null, want string", "missing member \"operation\"",
// "unknown member \"x\"", "duplicate of item 0 (\"tap\")".
//
// The validator library reports a failed oneOf as one error per form. This
// package folds that tree: for a union tagged by a "kind" or "type" member
// (LocatorAction, LocatorExpression, PointerAction, TextPattern, error data)
// it reports only the violations of the form whose tag matches, or one
// violation such as `/action/kind: unknown LocatorAction kind "teleport"`
// when no form does. An untagged union (SelectOption, VideoSegment,
// ScreenshotResult, an index, the prepare result) reports the form the
// instance most resembles (the one declaring most of its members), or one
// violation naming every form.
//
// ValidateManifest reports the manifest schema's structural violations and
// the dependency rules of §3.3 (ManifestRules) in words; the schema's
// if/then dependency branches are never reported raw, and where a rule and
// a schema check flag the same pointer only the rule is kept. It returns nil
// exactly when the schema accepts the manifest. ValidateResult of
// initialize and ValidateType of InitializeResult give the manifest at
// /manifest the same treatment.
//
// # Decisions
//
// Where the specification leaves room, this package decides:
//
//   - Integers are judged by value, as JSON Schema does: 1.0 and 1e0 are the
//     integer 1 (protocolVersion, spiVersion), 2.0 is a valid workers. The
//     string "1" is not. A Go decoder into an int field rejects 1.0, so the
//     wire layer should decode numbers as json.Number.
//   - Patterns are ECMA-262 regular expressions: "\S" and "\s" take the
//     ECMAScript whitespace set of §10.3 (Unicode spaces included), so a
//     manifest name of only U+00A0 or U+3000 is rejected, as ManifestRules
//     also does. Go's RE2 "\S" would accept it.
//   - The "date-time" format is asserted (timestamps are RFC 3339, §0.4), so
//     EngineState.expiresAt and VideoSegment.startedAt must be RFC 3339.
//     contentEncoding and contentMediaType stay annotations: the base64 of
//     ScreenshotResult.data is not checked (the client also accepts
//     unpadded base64, D33); ObservationPixels.data has a pattern, which is.
//   - A nil or empty raw is absent params. initialized, shutdown and exit
//     accept absent params, null and any object (unknown members are
//     ignored, §1.6); arrays are refused. Every other method needs an
//     object. An absent result is always a violation.
//   - initializationOptions is a JsonValue: any JSON value, null included.
//     Every other params member has a type or $ref, so null is refused
//     wherever the type does not name it (§1.6, D11).
//   - keyboard/press key, like LocatorAction press key, must be a non-empty
//     string; the key grammar of §5.9 is not a schema matter (D64 lets a
//     server answer UNSUPPORTED_CAPABILITY instead of -32602).
//   - lifecycle/finish timeoutMs is a number of at least 0, like the other
//     cleanup budgets. Strings the tables type as plain string (runId,
//     targetName, projectRoot, artifactsDir, url, text, label) may be empty;
//     attemptId may not (§4.4). Absolute paths and URLs are not checked.
//   - Regexp flags must be a subsequence of "dgimsuvy" (D56): "gi" is
//     canonical and accepted, "ig" is refused.
//   - Manifest rules: a missing or non-array methods is reported as M1, a
//     missing name, version or spiVersion as M12. Rules whose "Why" column
//     is empty give the rule itself after the colon. Unknown members and
//     propertyNames failures point at the member (/x), a missing member at
//     the object, a duplicate at the later item.
//   - Invalid UTF-8 is invalid JSON (§1.3). Duplicate object members keep
//     the last value, and lone surrogate escapes decode to U+FFFD (§1.6).
package schema
