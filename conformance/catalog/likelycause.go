package catalog

import (
	"regexp"
	"strings"
)

// likelyCause is, per requirement, the usual reason an engine fails it,
// written from the specification's text: one sentence a vendor can act on.
// Every MUST requirement has one (TestLikelyCauseCoversEveryMust), and so
// do the SHOULD ones.
var likelyCause = map[string]string{
	"WIRE-001":  "Content-Length counts bytes of UTF-8, not characters or UTF-16 units, and the header part ends with \\r\\n\\r\\n before exactly that many bytes of JSON.",
	"WIRE-002":  "The writer adds header fields of its own, or labels the content with a charset other than utf-8; only Content-Length and Content-Type may be written.",
	"WIRE-003":  "The reader assumes one message per read() or a fixed header order, instead of buffering bytes until a whole header part and Content-Length bytes of content have arrived.",
	"WIRE-004":  "Content that does not parse is half-executed or repaired (bad UTF-8 replaced by U+FFFD) instead of being answered -32700 or dropped; or the reader stops reading without closing.",
	"WIRE-006":  "The JSON-RPC library's batch support is still on: a JSON array must get one -32600 with id null and none of its elements run.",
	"WIRE-008":  "The response writer does not echo the request's id unchanged (same JSON type), drops \"jsonrpc\": \"2.0\", or writes result and error together, a response twice, or inside an array.",
	"WIRE-009":  "Unknown methods are not answered -32601 (answered with another code, or not at all), or notifications with an unknown method are answered although notifications never get a response.",
	"WIRE-010":  "Params are not validated against the method's schema before running it: array params, a missing or mistyped member and an out-of-enum value must get -32602 and do nothing.",
	"WIRE-011":  "Requests are dispatched one at a time: a slow session/open blocks the reader, so later requests wait; read and answer requests concurrently (§1.5).",
	"WIRE-012":  "The serializer writes null for absent optional members (e.g. omitempty missing); an absent member must be left out, never null.",
	"WIRE-013":  "A result, error or notification does not match its schema in §3.8/§5.13: a missing required member, a wrong type, or an extra member where the schema closes the object.",
	"LIFE-001":  "initialize does not answer {protocolVersion: 1, manifest}, or the manifest differs between role run and role worker.",
	"LIFE-002":  "initialize accepts a protocolVersion other than the integer 1 or an unknown role instead of answering -32602 and staying uninitialized.",
	"LIFE-003":  "Requests before initialize are executed instead of being answered -32002 (server not initialized).",
	"LIFE-004":  "A second initialize is accepted again (or breaks the connection) instead of getting -32600 while the connection keeps working.",
	"LIFE-005":  "The server sends engine/log or other messages as soon as it starts, before the client's initialized notification arrived.",
	"LIFE-006":  "After shutdown the server keeps serving requests; every request after it, a second shutdown included, must get -32600.",
	"LIFE-007":  "The process does not exit promptly after exit, or exits with the wrong status: 0 after shutdown and exit, 1 after exit alone.",
	"LIFE-008":  "The server does not treat end of stdin as a close: it keeps running (or waits for an in-flight method) instead of exiting within 5000 ms.",
	"LIFE-009":  "lifecycle/init does not answer null, or init after dispose leaves the engine in a state where neither INVALID_STATE nor a working re-init results.",
	"LIFE-010":  "lifecycle/dispose assumes init ran before it; on a connection that never received init it must still answer null.",
	"LIFE-011":  "startAttempt rejects valid params (screens true or false), or engine/observe does not work inside the attempt it opened.",
	"LIFE-013":  "endAttempt is not idempotent: with no attempt open, or after a startAttempt that was aborted, it must still answer null.",
	"LIFE-014":  "settleAttempt waits for something that never happens, or answers after its timeoutMs, when nothing is pending.",
	"LIFE-015":  "A failing first settleAttempt leaves its failure behind: the second call, with no operation between, repeats the same code and message.",
	"LIFE-016":  "A lifecycle hook ignores its timeoutMs and its signal's $/abort, so it answers late or never.",
	"LIFE-017":  "prepare answers workers outside 1..slots or env values that are not strings, or fails for slots 0.",
	"LIFE-018":  "lifecycle/finish assumes prepare ran before it; it must answer null either way.",
	"LIFE-019":  "shutdown is answered before an earlier request of the same connection, which must be answered first (§2.4, D9).",
	"MAN-001":   "The manifest breaks its schema (§3.8): an unknown member, spiVersion other than 1, an empty name or version, or an invalid platform or workers.",
	"MAN-002":   "A method listed in the manifest is not implemented (answered -32601 or -32002).",
	"MAN-003":   "A method the manifest does not list is still served; an unlisted ENGINE_METHODS member must get -32601.",
	"MAN-004":   "The manifest is built from per-process state (time, random, environment), so two connections announce different manifests.",
	"MAN-005":   "The manifest breaks a dependency rule (§3.3): engine/perform without engine/observe or actions, engine/performAt without pointerActions, or a kinds list without its method.",
	"MAN-006":   "The manifest breaks a dependency rule (§3.3) for engine/locate or keyboard/*: they need engine/observe, type and press come together, dismiss only with both.",
	"MAN-007":   "The manifest lists state/capture without state/restore, or a video method without its pair and artifacts/screenshot.",
	"MAN-008":   "tapModifiers is not a boolean, or true without engine/perform.",
	"MAN-009":   "The manifest serveEngine announces is not describeEngine's: methods out of ENGINE_METHODS order, or lifecycle/startAttempt and endAttempt missing.",
	"OBS-001":   "The snapshot misses a required part: a root with a non-empty ref.id, a viewport with positive width and height, or a node member of §5.5.",
	"OBS-002":   "The root's ref.id is regenerated per observation or after session/restart or reset; it must stay the same.",
	"OBS-003":   "Node ids are derived from something that repeats (index among siblings, text), so two nodes of one snapshot share a ref.id.",
	"OBS-004":   "Node ids are reused after a node is removed (a counter reset, or an id taken from the position in the tree).",
	"OBS-005":   "Long texts are not cut at 256 (name) or 512 (text, value, selection) UTF-16 units, or are cut somewhere other than at the end.",
	"OBS-006":   "The password field's value or selection is reported although states.secure is true.",
	"OBS-007":   "A state is not mapped from the surface: checked, disabled, focused, hidden, secure, pressed or a heading's level.",
	"OBS-009":   "pixels are not padded standard base64 of a PNG of width × height, or mediaType or scale is missing or wrong.",
	"OBS-010":   "maskedRegionCount undercounts (each node with states.secure: true is a masked region), or the pixels show a secure field's typed characters: the inner part of its rect is not one colour (D75).",
	"OBS-011":   "treeUnavailable is sent without options.pixelFallback, without pixels, or with a root carrying more than ref.",
	"OBS-012":   "location is reported unnormalized; compare and report it after WHATWG URL serialization.",
	"LOC-001":   "locate waits for its timeoutMs when nothing matches instead of answering [] at once.",
	"LOC-002":   "locate returns one match or a different order; every match comes, in document order.",
	"LOC-003":   "locate mints new ref ids instead of the ids engine/observe gives the same nodes.",
	"LOC-004":   "A role query matches roles loosely or ignores name, states (absent as false) or level, or returns hidden nodes.",
	"LOC-005":   "visible: true is not applied everywhere: under scope, inside filter.has, and before index.",
	"LOC-006":   "text and label queries return every container that echoes a descendant's text instead of only the innermost node.",
	"LOC-007":   "A query kind reads the wrong member: label→name, placeholder→attributes.placeholder, displayValue→value, testId→testId, text→name or text.",
	"LOC-008":   "scope includes the scope node itself, or non-descendants, in the result.",
	"LOC-009":   "filter.hasText or filter.has reads the wrong nodes: hasText own or descendant text, has strict descendants, both together.",
	"LOC-010":   "index first, last or a number is applied to the wrong list, or an index past the end errors instead of giving [].",
	"LOC-011":   "Text patterns are not whitespace-normalized, or exact is inverted: exact true is whole and case-sensitive, false a case-insensitive substring.",
	"LOC-012":   "Regular expressions follow the host language, not ECMAScript: a case unsupported must fail UNSUPPORTED_CAPABILITY, never give another result.",
	"LOC-013":   "A frame selector matching no document returns [] or another error instead of FRAME_NOT_FOUND.",
	"LOC-014":   "A selector expression gives an error other than UNSUPPORTED_CAPABILITY, or on web a CSS selector does not return the matching nodes in document order.",
	"LOC-015":   "A frame selector matching two documents picks one instead of failing FRAME_AMBIGUOUS, retryable false.",
	"ACT-001":   "An action kind dispatches the wrong gesture, or dispatches it twice or not at all.",
	"ACT-002":   "longPress is released too early: at least 100 ms without durationMs, at least durationMs with it.",
	"ACT-003":   "fill appends to the old value (no clear first), or clear leaves text behind.",
	"ACT-004":   "The sensitive fill value is logged or echoed in an error; it must never leave the engine (or the action fails UNSUPPORTED_CAPABILITY).",
	"ACT-005":   "press maps named keys, modifiers or Shift++ wrongly, or sends a different key instead of failing UNSUPPORTED_CAPABILITY.",
	"ACT-006":   "check/uncheck toggles instead of setting, or acts on the stateless switch instead of failing UNSUPPORTED_CAPABILITY.",
	"ACT-007":   "focus does not focus the node, or hover does not move the pointer onto the target.",
	"ACT-008":   "scrollIntoView does not scroll, or swipe scrolls the wrong way: down raises the scroll offset, up lowers it.",
	"ACT-009":   "The root ref is treated as stale after session/restart or later observations; swipe on the root must still scroll.",
	"ACT-010":   "selectOption resolves a label string, {label}, {value} or {index} against the wrong attribute.",
	"ACT-011":   "setInputFiles sets only one file, or does not take the absolute paths given.",
	"ACT-012":   "dragTo does not deliver a drop on the target's node.",
	"ACT-013":   "A removed node's ref is acted on (or fails with another code) instead of failing NODE_STALE, retryable true, with nothing dispatched.",
	"ACT-014":   "The ref's revision is compared: a ref with the current id must perform whatever its revision.",
	"ACT-015":   "An undeclared action kind is performed anyway instead of failing UNSUPPORTED_CAPABILITY.",
	"ACT-016":   "tap on a disabled node clicks, or fails retryable; it must fail NOT_ACTIONABLE or OPERATION_TIMEOUT, not retryable, and click nothing.",
	"ACT-017":   "tap modifiers are not held during the click.",
	"PTR-001":   "performAt coordinates are not CSS pixels of the viewport (device pixels, or relative to the wrong origin).",
	"PTR-002":   "longPress at a point is released too early or lands elsewhere.",
	"PTR-003":   "dragTo or swipeTo starts or ends more than 1 CSS pixel away from point or target.",
	"PTR-004":   "swipe at a point scrolls the page instead of the container under the point, or the wrong way.",
	"PTR-005":   "An undeclared pointer kind is performed anyway instead of failing UNSUPPORTED_CAPABILITY.",
	"KEY-001":   "keyboard/type loses or reorders characters (accented, non-BMP) or does not send a keydown per character.",
	"KEY-002":   "keyboard/type's replace is ignored or inverted.",
	"KEY-003":   "keyboard/type with nothing focused succeeds or fails retryable instead of NOT_ACTIONABLE, not retryable.",
	"KEY-004":   "keyboard/press maps named keys, modifiers or Shift++ wrongly, or sends another key instead of failing UNSUPPORTED_CAPABILITY.",
	"KEY-005":   "A key outside the grammar is sent anyway, or mapped to some key, instead of -32602 or UNSUPPORTED_CAPABILITY.",
	"KEY-006":   "keyboard/dismiss fails when no on-screen keyboard is shown; it must answer null either way.",
	"STATE-001": "state/capture's result misses format, version or data, or expiresAt is not an RFC 3339 time after the capture.",
	"STATE-002": "state/restore does not bring back the persisted storage (or does it only on the same connection).",
	"STATE-003": "state/restore merges into the current storage instead of replacing it.",
	"STATE-004": "The captured state's secret content (a cookie value) is logged or echoed in an error.",
	"ART-001":   "artifacts/screenshot returns both path and data, neither, or data without mediaType image/png.",
	"ART-002":   "The screenshot path is absolute, uses \\, has a .. segment, or names no PNG under artifactsDir when the answer is sent.",
	"ART-003":   "Screenshot data is not padded standard base64 of a PNG (MIME line breaks, no padding), often only where the server cannot write artifactsDir and falls back to data.",
	"ART-006":   "The screenshot shows the password field's typed characters: the mask is missing, drawn at the wrong scale, or only on one of the two forms (path, data).",
	"ART-004":   "stopVideo segments are out of order, name missing files or URLs without mediaType, or carry a startedAt outside the attempt.",
	"SESS-001":  "session/open answers before the page is shown, or the next observation still shows the previous page.",
	"SESS-002":  "session/open of an unreachable URL answers null instead of an error.",
	"SESS-003":  "session/back does not navigate back, or fails with no history instead of answering null.",
	"SESS-004":  "After session/restart or reset the previous location is still reported.",
	"SESS-005":  "session/reset keeps persisted storage; it must clear it.",
	"SESS-006":  "session/restart clears persisted storage; it must keep it.",
	"SIG-001":   "A request whose signal is already aborted is run anyway; aborted at send means answer with an error at once, doing nothing.",
	"SIG-003":   "$/abort is not honored while session/open is in flight (signals not registered, or the navigation not cancellable).",
	"SIG-005":   "An error answering an aborted request is marked retryable.",
	"SIG-007":   "$/abort is answered (it is a notification: never answer it, not even with an error), or its unknown id disturbs the requests in flight or later ones.",
	"SIG-008":   "Signals are registered only after the request starts running, so a $/abort written right after it is missed (§1.5, §7.3).",
	"SIG-009":   "The signal table keeps one request per signal id; aborting a shared id must reach every request carrying it.",
	"SIG-010":   "A forgotten signal id is still remembered as aborted, so a new request reusing it fails or cannot be aborted.",
	"SIG-011":   "dispose's reuseSignal is not honored: a later $/abort of that id disturbs the connection.",
	"ERR-001":   "-32000 errors are written without data.type engine or e2e.",
	"ERR-002":   "Engine error data carries a code outside ENGINE_ERROR_CODES or a non-boolean retryable.",
	"ERR-003":   "retryable: true is set on an engine error other than NODE_STALE and FRAME_NOT_FOUND.",
	"ERR-004":   "e2e error data has a category outside the five, an empty code, a non-boolean retryable, or details that is not an object.",
	"ERR-005":   "An error's data carries members other than stack, errno and cause for codes other than -32000, or those have the wrong types, or cause nests too deep.",
	"ERR-006":   "An error is written with an empty message; every error message must say something.",
	"ERR-007":   "Secret values (E2E_SECRET_* env, resolveSecret answers, sensitive fills) are logged or echoed in errors, raw or encoded (JSON-escaped, base64, percent-encoded).",
	"S2C-001":   "attempt/* messages are sent outside the attempt (before startAttempt, after endAttempt's answer) or with another attempt's id.",
	"S2C-002":   "attempt/screen is sent in an attempt started with screens false, or carries an invalid snapshot.",
	"S2C-003":   "A log or notification text has a line break, an invalid source or level, or environment facts that are not scalars under non-empty keys.",
	"S2C-004":   "The server sends a request other than attempt/resolveSecret, invalid params, or reuses an id of a pending request.",
	"S2C-005":   "attempt/deriveSecret is not answered while the server's resolveSecret is pending (the reader blocks on the pending request).",
	"S2C-006":   "A SECRET_UNAVAILABLE answer to attempt/resolveSecret breaks the connection or the operation waiting on it.",
	"S2C-007":   "The server blocks its reader while waiting for its own resolveSecret answer, so other requests and $/abort wait too.",
	"S2C-008":   "attempt/deriveSecret for a derivation with no pending request is answered instead of -32602.",
	"TRN-001":   "Something prints to stdout (a log line, a library banner, a panic): over spawn, stdout carries only framed protocol messages; log to stderr.",
	"TRN-002":   "SIGTERM is caught and ignored, or cleanup takes longer than 5000 ms.",
	"TRN-003":   "The socket server serves one connection at a time.",
	"TRN-004":   "The socket server stops accepting after a connection closes.",
	"TRN-005":   "One connection closing without shutdown tears down state the other connections share.",
	"TRN-006":   "After exit the server keeps the connection open instead of closing it within 2000 ms.",
	"CLI-001":   "The client library does not validate a declared manifest against §3.3 (or resolveLocators) before connecting.",
	"CLI-002":   "The client library accepts a served manifest differing from the declared one, or a protocolVersion other than 1.",
	"CLI-003":   "The client library does not fail a call on a connection that ended with ENGINE_FAILURE and the transport's diagnostics.",
	"CLI-004":   "The client library classifies received errors against §8.6 wrongly (e.g. keeps a retryable NOT_ACTIONABLE retryable).",
	"CLI-005":   "The client library sends an operation before init or after dispose, or an unlisted method or undeclared kind, instead of failing locally.",
	"CLI-006":   "The client library opens a run connection without prepare or finish listed, or sends dispose for a worker that never ran init.",
	"CLI-007":   "The client library sends an aborted signal without aborted: true, several $/abort for one id per connection, or reuses an id.",
	"CLI-008":   "The client library does not send the OPERATION_TIMEOUT reason when the budget runs out, or waits past 5000 ms after $/abort.",
	"CLI-009":   "The client library delivers attempt/* notifications outside the open attempt, or answers resolveSecret for an unknown attempt.",
	"CLI-010":   "The client library answers undeclared secrets, skips deriveSecret, or answers before registering the values for redaction.",
	"CLI-011":   "The client library does not write {data, mediaType} screenshots under screenshots/ of the attempt's directory.",
	"CLI-012":   "The client library's resolveLocators does not observe once without options and resolve the expression locally.",
	"CLI-013":   "The client library's close sequence or its SIGTERM/SIGKILL timing is wrong.",
	"CLI-014":   "The client library calls the server method despite a session hook, answers a server request other than resolveSecret, or keeps a malformed connection.",

	// SHOULD requirements (warnings).
	"WIRE-005":  "The envelope is not validated: a wrong or missing jsonrpc, a boolean or fractional id, or a non-string method must get -32600, not run.",
	"WIRE-007":  "The reader trusts Content-Length: above 64 MiB, or without a valid one, close the connection at once instead of waiting for content.",
	"LIFE-012":  "startAttempt with an attempt open replaces it (or succeeds) instead of failing engine INVALID_STATE.",
	"OBS-008":   "pixels are captured by default; they come only with options.pixels: true.",
	"OBS-013":   "engine/observe has side effects on the page (focus, hover or clicks while reading the tree).",
	"ACT-018":   "tap ignores modifiers it cannot hold and clicks plainly, instead of failing UNSUPPORTED_CAPABILITY.",
	"STATE-005": "state/restore accepts a foreign format (or fails with another code) instead of e2e SESSION_INVALID, category configuration.",
	"ART-005":   "stopVideo without startVideo fails or returns null instead of [].",
	"SIG-002":   "An operation aborted at send answers its own error instead of the abort's reason (code, message and data as given).",
	"SIG-004":   "An aborted in-flight request answers its own error instead of the $/abort's reason.",
	"SIG-006":   "An aborted in-flight request without a reason answers something other than engine CANCELLED, retryable false.",
	"SIG-012":   "session/open ignores its timeoutMs and waits for the slow page.",
}

// causeRefinement is the likely cause of one way of failing requirements,
// recognised by what the failure says: the row of likelyCause is the usual
// cause, a refinement the cause of a failure that shows another.
type causeRefinement struct {
	ids   []string
	shows func(reason string) bool
	cause string
}

// causeRefinements are checked in order; the first that shows in a
// failure gives its likely cause. Each was written from a saboteur fault
// that fails its requirements that way (TestKillMatrix checks the pairs
// in killCauses).
var causeRefinements = []causeRefinement{
	{
		ids:   []string{"WIRE-001", "WIRE-003"},
		shows: stdoutNoise,
		cause: "Something other than the protocol writer prints to stdout (a log line, a banner, an echo of the app's console, a panic): the reader met a line that is no header field where a frame should start; over spawn stdout carries only framed messages, so log to stderr.",
	},
	{
		ids:   []string{"WIRE-001"},
		shows: func(reason string) bool { return strings.Contains(reason, "a second Content-Length field") },
		cause: "The writer emits Content-Length twice (a framework's header plus one added by hand, or two writers sharing stdout); a header part carries each field once.",
	},
	{
		ids:   []string{"SIG-007"},
		shows: func(reason string) bool { return strings.Contains(reason, "signal id of an earlier $/abort") },
		cause: "The server remembers the ids of every $/abort (a set of aborted ids filled before the request arrives) and aborts a later request that carries one; a $/abort whose id matches nothing in flight must be dropped and forgotten at once.",
	},
	{
		ids:   []string{"SIG-007"},
		shows: func(reason string) bool { return strings.Contains(reason, "$/abort for the string") },
		cause: "Signal ids are compared as text (or as any JSON value that prints alike): a $/abort for the string \"5\" must not abort the request whose signal id is the integer 5; compare type and value.",
	},
}

// protocolHeaderRE is the start of a header field the protocol writes
// (§1.1: Content-Length and Content-Type); a line the reader broke at that
// starts otherwise was printed by something else.
var protocolHeaderRE = regexp.MustCompile(`(?i)^content-(?:length|type)\s*:`)

// brokenLineRE finds the line a stream broke at, as the reader quotes it.
var brokenLineRE = regexp.MustCompile(`header line (?:without CRLF: )?"((?:[^"\\]|\\.)*)"`)

// stdoutNoise reports whether a failure shows the stream breaking at a
// line that starts no header field of the protocol: something else
// printed to stdout.
func stdoutNoise(reason string) bool {
	m := brokenLineRE.FindStringSubmatch(reason)
	return m != nil && !protocolHeaderRE.MatchString(m[1])
}

// LikelyCause is the likely cause of requirement id failed for reason:
// the usual cause of its failures (one sentence a vendor can act on,
// written from the specification's text), or the cause of the way of
// failing the reason shows (causeRefinements); "" for an unknown id.
func LikelyCause(id, reason string) string {
	for _, r := range causeRefinements {
		for _, rid := range r.ids {
			if rid == id && r.shows(reason) {
				return r.cause
			}
		}
	}
	return likelyCause[id]
}
