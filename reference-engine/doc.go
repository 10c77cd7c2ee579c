// Package webengine is the reference web engine: an engine server for the
// e2e engine protocol on chromedp, driving Debian's headless Chromium,
// written clean room from ../shared/spec/web-engine.md. Command
// cmd/e2e-web-engine serves it over stdio or TCP; Transport serves it in
// process (the MCP host's built-in web engine).
//
// # Shape
//
// One Chromium per engine (per connection), started by the first operation
// that needs a page — lifecycle/init only checks that Chromium is there and
// that a directory for its files can be made (an engine that cannot start
// its browser answers init with the cause), so a connection that never
// touches a page (lifecycle, wire and manifest checks) never starts one —
// and kept warm across attempts; killed at once
// by lifecycle/dispose or when the connection ends (the engine is an
// io.Closer): its profile is thrown away, so an orderly close would only
// cost time. One browser context per attempt, created when the attempt's
// first operation needs a page; one page (tab) per browser context, opened
// at about:blank. Web-engine decision 3 says Chromium starts in
// lifecycle/init; no rule observes when it starts, and isolation (one
// Chromium per engine process, one fresh browser context per attempt) is
// kept. Chromium's files live in one $TMPDIR/e2e-chromium-<pid>-… directory
// of the engine; when that path is too long for Chromium's singleton socket
// (a Unix socket path has at most 107 bytes: a TMPDIR of about 40
// characters, macOS's default one), each Chromium's own TMPDIR and
// XDG_RUNTIME_DIR go in a second one, /tmp/e2e-chromium-<pid>-…, removed
// and swept the same way (TestLongTempDirWorksAndLeavesNothing, with a
// TMPDIR of 100 characters). Chromium runs in the engine's process group with a
// parent-death signal; ffmpeg too: nothing outlives the engine, even a
// SIGKILLed one (TestNoProcessOutlivesTheEngine).
//
// Which Chromium: web-engine decision 4 names Debian's /usr/bin/chromium,
// overridden by initializationOptions.executablePath or E2E_CHROMIUM. With
// neither set, a headless engine launches Debian's headless shell,
// /usr/bin/chromium-headless-shell (package chromium-headless-shell, the
// same source and version), when it is installed, and /usr/bin/chromium
// otherwise; a headed one always launches /usr/bin/chromium (the shell has
// no window). Playwright launches the headless shell for headless Chromium
// too. Measured here: 0.15 s from launch to a loaded page against 0.46 s,
// and e2e-conform --profile full against this engine 49 s against 78–83 s
// (116 of its connections start a browser). The full Chromium also starts
// two chrome_crashpad_handler processes that leave its process group; the
// shell starts none. The choice is written down here and in
// reference-engine/README.md; executablePath /usr/bin/chromium gives the
// spec's literal default.
//
// Observation and locate run one in-page pass of the clean-room reader
// (package inpage) per call, in the same mode, returned as one JSON string; ids n<k> are stamped on the
// elements (stable while they live, the root is "root"), from ranges the
// engine reserves per call so that no two documents share an id. Actions
// use trusted CDP input (Input.dispatchMouseEvent, dispatchKeyEvent,
// insertText), masks and video live in package media, state in package
// storage.
//
// # Rulings (web-engine spec, decisions 8–12)
//
//   - Locate and observe agree by construction (decision 8): engine/locate
//     reads the page exactly as engine/observe does (the same walk, nodes,
//     fields, cuts at 256 and 512 UTF-16 units, projected attributes and node
//     budget) and answers with the reference resolution of engine-protocol
//     §10 over that read. Its answer is what client-side resolution over an
//     observation would give, node for node (TestLocateAgreesWithObserve), and
//     a located id is always one an observation shows.
//   - One node budget, inpage.NodeBudget (3,000, all documents, the root
//     counted): web-engine §2.2 caps an observation at 3,000 nodes, and
//     decision 8 makes locate answer over what an observation holds, so
//     locate's read stops where an observation's does (an element past the
//     cut is found by neither; the larger locate budget of 20,000 is gone).
//   - Locate resolves in the page: its read is sparse (inpage.Plan). The page
//     walks and counts exactly as for an observation but builds only the
//     nodes that may match a query, has-text pattern or selector of the
//     expression (a superset: string patterns are prefiltered by §10.3's
//     normalization, ASCII-only inexact ones by case; regular expressions
//     keep every node with the field), each with its whole subtree; names are
//     computed only for those. The §10 resolver (protocol/locate, the
//     reference) then runs over the sparse tree, where it answers exactly
//     what it answers over the whole read (TestLocateDifferential on
//     generated pages). Expressions with a frame expression, plans with a
//     selector the page cannot parse, and answers holding the root are
//     resolved over the whole read instead. So a <textarea>'s
//     content (its text nodes) is its text for text queries, as in the
//     observation, and an <option> carries no value: displayValue matches
//     inputs, textareas and selects (and a contenteditable editing host,
//     whose value the observation carries, web-engine §2.3), never an
//     option. The nodes locate returns are then fully read (§2.5: "each
//     fully read (node mode: full text, all attributes, no cuts)";
//     acceptance item 13), in one more evaluate for those nodes only: text
//     is the element's whole innerText, attributes are every attribute as
//     getAttribute reads it (the test-id attribute is testId, a secure
//     field's value is never shown), a name, value or selection the read
//     cut at 256 or 512 units is whole (TestLocatedNodesAreFullyRead). Ids,
//     roles, states and rects are the observation's: what matched is what
//     an observation shows.
//   - Tables follow HTML-AAM as Playwright computes it (decision 9): a <th>
//     with scope col/colgroup is a columnheader, row/rowgroup a rowheader;
//     without scope, a header cell between two header cells, or without a
//     filled data cell beside it, is a columnheader, one beside a data cell
//     with content a rowheader, and the lone header cell of a one-row table
//     has no role. A <td> is a gridcell when its table's role is grid or
//     treegrid, else a cell. The row groups, rows and cells of a table whose
//     role is presentation or none take that role (they are not table roles
//     and are listed only for their text or test id); a part with a role of
//     its own keeps it, and a table nested in a cell starts afresh.
//   - SVG follows SVG-AAM and accname (decision 9): an <svg>'s first <title>
//     child names it (after aria-labelledby and aria-label) and is what it
//     contributes to a name from content, so a button holding only a titled
//     icon is named by the title; an <svg> without a role is an image when it
//     has a name of its own (a <title> child, aria-label or
//     aria-labelledby). An untitled, unlabelled svg has no role (Playwright
//     calls every svg img): decorative icons stay out of role queries.
//   - Text under aria-hidden is not text (decision 10): the aria-hidden
//     element itself keeps its role and name (a role query never matches it,
//     it is states.hidden) but carries no text, and what is under it is not
//     walked, so no text query finds it; visible: true drops it too (§2.5's
//     "aria-hidden but painted counts as visible" is overruled). Hidden by
//     CSS or the hidden attribute, an element keeps its text (the fixture
//     contract's hidden twins).
//   - Plain queries reach into same-origin frames (decision 11): every
//     readable nested document is stitched under its iframe node, and §10
//     resolves over all of it, unlike Playwright's page-level locators; a
//     frame expression scopes a query to one nested document.
//   - Remote browsers (decision 12): with Options.CDPEndpoint
//     (--cdp-endpoint, $E2E_CDP_ENDPOINT, initializationOptions.cdpEndpoint,
//     with CDPHeaders / --cdp-header / cdpHeaders) the engine attaches to a
//     browser it does not own through chromedp's remote allocator and never
//     launches or kills it. A ws:// or wss:// endpoint is dialled as given
//     (no rewriting: a pool's token lives in the query); an http:// or
//     https:// one is resolved through its /json/version
//     (webSocketDebuggerUrl, the endpoint's query added to it). One
//     connection per engine browser, opened by the first page; one browser
//     context per attempt, created with disposeOnDetach and disposed at the
//     attempt's end, so that only what the engine created is closed and a
//     dropped connection or a killed engine leaves nothing
//     (TestRemoteBrowserAttachesAndLeavesNothing). A dropped connection
//     fails the rest of its attempt with ENGINE_FAILURE (its pages are gone)
//     and the next attempt reconnects (TestRemoteConnectionDropReconnects).
//     A 429 or 503 answer (a pool at capacity, at /json/version or at the
//     websocket handshake) is retried with back-off, 250 ms doubling to 4 s
//     or the pool's Retry-After, for up to 30 s; then the start fails with
//     infrastructure ENVIRONMENT_UNAVAILABLE, the code engine-protocol §8.4
//     lists for an environment that is not available
//     (TestRemotePoolBusyBacksOff). The remote browser's version goes to
//     engine/log (D29) and attempt/environment. The endpoint's query, user
//     info and headers are secrets: log lines and errors show the endpoint
//     redacted (origin and path, "?…") and scrubbed of them.
//
// # Choices where the specs leave room (or disagree)
//
//   - Hidden elements are reported with states.hidden and no rect, but what
//     is under them is not walked. The web-engine spec prunes hidden subtrees
//     entirely; the conformance suite's fixture contract lists hidden twins
//     with states.hidden (OBS-007, LOC-005, LOC-010), so the element itself is
//     kept. Locate resolves over the same nodes (decision 8, above).
//   - Actionability: each action kind's checks (visible, enabled, editable,
//     stable over two animation frames, in the viewport after one
//     scrollIntoView, receives the pointer at its point) are retried with a
//     0/20/100/100/500 ms backoff for at most 2 s and never past the
//     operation's budget; a blocker that outlasts that is NOT_ACTIONABLE naming
//     it ("… intercepts pointer events"). The harness retries; the engine does
//     not hold a whole 30 s budget on a disabled button.
//   - Pixel fallback: when the tree read misses its share of the budget
//     (all but min(2 s, a quarter)), a fresh masked screenshot is returned
//     with treeUnavailable and truncated. Masks need the reader's secure-field
//     rects, so a page whose main thread hangs gets OPERATION_TIMEOUT: pixels
//     are never sent unmasked.
//   - Input dispatched before a budget ran out turns the failure into
//     ACTION_MAY_HAVE_COMMITTED; nothing dispatched is OPERATION_TIMEOUT.
//   - The root takes swipe (a viewport wheel by the viewport's extent times
//     0.5, 0.75 or 1.5) and focus (the active element blurs); other actions on
//     the root have no effect.
//   - check/uncheck on an element with no checked state (the fixture's
//     stateless switch: role switch without aria-checked) is
//     UNSUPPORTED_CAPABILITY; uncheck on a radio is NOT_ACTIONABLE.
//   - session/open refuses every scheme but http, https and about:blank with
//     the e2e error INVALID_ARGUMENT (as the protocol's other engines do; the
//     web-engine spec's decision 6 says ENGINE_FAILURE). Failed navigations
//     are ENGINE_FAILURE "navigation failed: net::ERR_…", with errno
//     ECONNREFUSED for a refused connection.
//   - State is {format: "playwright-storage-state", version: 1} holding
//     cookies and the localStorage (and plain IndexedDB records) of every
//     origin the session visited; restore replaces the browser context. A
//     state of another format is SESSION_INVALID (configuration).
//   - Keyboard: ControlOrMeta is Control; characters not on the US layout are
//     typed as IME commits (one input event each); keyboard/press of such a
//     character is UNSUPPORTED_CAPABILITY.
//   - JavaScript dialogs (web-engine §2.11): the protocol offers no dialog
//     handler, so by default every dialog is unhandled: dismissed at once (a
//     confirm answers false, a prompt null, a beforeunload keeps the page),
//     one attempt/appLog line (system, warning), and the next operation
//     fails with INVALID_STATE "unhandled <type> dialog: <message>" (the
//     first such dialog since the last operation, thrown once); a type other
//     than alert, confirm, prompt and beforeunload makes it ENGINE_FAILURE
//     (TestUnhandledDialogs). Every operation takes it but
//     artifacts/stopVideo, which only ends a recording.
//   - Extension: the client notification "web/dialogs" {attemptId, accept,
//     promptText?} (DialogsMethod) sets the open attempt's dialog policy.
//     With accept true every dialog of a known type is accepted (a prompt
//     answers promptText, else its default; a beforeunload leaves the
//     page), one attempt/appLog line (system, info) says "accepted <type>
//     dialog: <message>", and nothing fails. Engines that do not know the
//     notification ignore it (engine protocol §1.4), so a client may send it
//     to any engine; the MCP host's dialogs tool does (mcp/README.md).
//   - session/open answers after the app log line of a document that
//     answered >= 400 ("404 Not Found <url>", network) was sent: the
//     protocol's session/open result is null, so that line is where a
//     client reads a navigation's HTTP status.
//   - attempt/appLog: console warnings, errors and failed asserts (with the
//     script position), uncaught exceptions, responses >= 400 (a missing
//     favicon aside) and failed requests (aborts aside); URLs in lines are
//     redacted to origin and path ("?…" and "#…" mark a query and fragment).
//     attempt/navigation: one line per main-frame URL change.
//     attempt/environment: {browser, version, viewport, scale, headless}, sent
//     when the attempt's browser context is created.
//   - Cleanup budgets (LIFE-016): endAttempt and dispose answer within their
//     timeoutMs (less a margin of at most 200 ms) or as soon as their signal
//     aborts, whatever Chromium does. A close that takes longer goes on in the
//     background; dispose then kills Chromium before answering, so nothing it
//     must release stays running, and its reaping and the removal of its
//     profile finish in the background. A Chromium that never exits (a
//     SIGSTOPped one) is killed so too (TestDisposeKillsAStoppedChromium). Close (the connection's end) waits
//     for every background close.
//   - Video: one segment per page, video/video.webm then
//     video/video-part<n>.webm (session/restart and session/reset start a new
//     one); without ffmpeg the engine leaves video out of its manifest.
package webengine
