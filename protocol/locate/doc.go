// Package locate is the client-side locate resolution of the e2e engine
// protocol (spec §10): [ResolveExpression] answers a [wire.LocatorExpression]
// over the nodes of a semantic tree, [MatchesQuery] and [MatchesText] are the
// predicates it uses, [Normalize] is the whitespace normalization of §10.3, and
// [Compile] turns a [wire.TextPattern] into a reusable [Matcher].
//
// The client uses it for a handle with resolveLocators: true (§10, D17), and
// an engine over a semantic tree may answer engine/locate with it (§4.9); it
// is the reference an engine with a native query engine must reproduce.
//
// # Semantics
//
// ResolveExpression follows the pseudo-code of §10.1 literally: the candidate
// list starts as every node under the top-level nodes, themselves included, in
// document order (depth-first pre-order, children in array order); "strict
// descendant of X" excludes X; text and label queries keep only their
// innermost matches, role and the other kinds keep every match; every answer
// is in document order with each node at most once, and the nodes returned are
// the caller's own nodes (pointers into the tree it passed), so their ids
// share the observation's id space. An empty answer is a non-nil empty slice,
// which encodes as the JSON array [].
//
// Text patterns compare the §10.3 normalization of both sides (every maximal
// run of ECMAScript whitespace becomes one U+0020, then the ends are trimmed):
// exact string patterns code point by code point, inexact ones as a substring
// after mapping each code point by the Unicode simple lowercase mapping (D35,
// Go's [unicode.ToLower], which implements the simple mapping of
// UnicodeData.txt: U+0130 lowers to "i", not to "i̇"). Regexp patterns are
// ECMAScript and are translated to RE2 by package esregexp (§10.4, D34).
//
// # Errors
//
//   - A selector expression without [Options.Selector]: an
//     [engineerr.EngineError] UNSUPPORTED_CAPABILITY, not retryable.
//   - Any frame expression: FRAME_NOT_FOUND, not retryable (a semantic tree
//     has no nested documents).
//   - A role query whose value is not a string pattern: ENGINE_FAILURE
//     "role query value must be a string" (D47; a server answers such params
//     with -32602 before calling this package).
//   - A regexp the translator refuses: UNSUPPORTED_CAPABILITY with
//     esregexp's message, the *esregexp.UnsupportedError as Cause.
//   - A source that is not a valid ECMAScript pattern: the e2e error
//     {category: test, code: INVALID_ARGUMENT}, the *esregexp.SyntaxError as
//     Cause. Flags outside §5.6 (not a subsequence of "dgimsuvy", or both u
//     and v) are the same e2e INVALID_ARGUMENT here, with an
//     *esregexp.FlagsError as Cause; a server answers them with -32602 before
//     calling this package (§5.6), so only in-process callers see it.
//   - Any other error of the translator (none is expected): ENGINE_FAILURE
//     with it as Cause.
//   - An error returned by Options.Selector is passed through unchanged.
//
// # Decisions where the spec leaves room
//
//   - Errors do not depend on the tree. The reference evaluates lazily, so a
//     bad pattern, a role query with a regexp value, a frame or a selector
//     without a selector language fails only once evaluation reaches it (a
//     refused regexp in a query matching no node would answer []).
//     ResolveExpression instead checks and compiles the whole expression
//     before it looks at any node, in evaluation order (a query's scope before
//     its query, its value before its name; a filter's source, then hasText,
//     then has; an index's source), and fails with the first error evaluation
//     could raise on some tree. A frame's source is never examined, as in the
//     reference. A harness that polls locate thus fails at once instead of
//     answering [] until a node appears. MatchesQuery likewise checks the
//     query before it looks at the node.
//   - Shapes the wire decoder rejects but a Go caller can build (a nil
//     expression, query or source, an unknown expression, query or pattern
//     kind, an index position other than "first", "last" or "", a cyclic
//     expression) fail with ENGINE_FAILURE, the code D47 keeps for the role
//     case. A filter with neither hasText nor has answers its source, as the
//     pseudo-code does; a negative numeric index answers [].
//   - Options.Selector must answer a subset of the candidates it was given;
//     its answer is put in document order without duplicates, and a node that
//     is not one of the candidates (or nil) fails with ENGINE_FAILURE. It is
//     not called over an empty candidate list (the answer could only be []).
//   - hasText tests n itself (always a candidate) and n's strict descendants
//     among the candidates; the visible flag of queries plays no part in it.
//   - Nil top-level nodes are skipped; a top-level node that is another
//     top-level node or lies under one counts once, in the document order of
//     the outer tree. Normal callers pass [snapshot.root].
//   - Bytes that are not UTF-8 (which encoding/json never produces) are kept
//     by Normalize and compared bytewise by exact patterns; the inexact
//     comparison reads each as U+FFFD.
//
// # Cost
//
// One resolution flattens the tree once (pre-order index and subtree end, so
// "strict descendant of" is an interval test), compiles each pattern once,
// and works on sorted index lists: a query is linear in its candidates, the
// innermost rule and scope are linear, hasText is linear plus a binary search
// per source match, and has resolves its expression once per source match
// over that match's subtree (O(matches × candidates) at worst).
package locate
