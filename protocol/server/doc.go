// Package server serves an engine implementation over the e2e engine
// protocol (spec §2–§9): one connection with ServeEngine or ServeFactory,
// stdin and stdout with ServeStdio, every connection a TCP listener
// accepts with ServeListener, and in-process with LoopbackTransport.
//
// An engine is a Go value implementing Engine (its static manifest members)
// and any of the capability interfaces — Observer, Locator, Performer,
// PointerPerformer, Keyboard, KeyboardDismisser, StateKeeper, Screenshotter,
// VideoRecorder, the Session* interfaces and the lifecycle hooks (Preparer,
// Finisher, Initializer, AttemptStarter, AttemptSettler, AttemptEnder,
// Disposer). DescribeEngine derives the manifest from them; ServeEngine
// refuses to serve an engine whose manifest breaks the dependency rules.
//
// What the server does for every engine:
//
//   - protocol state: -32002 before initialize, -32600 for a second
//     initialize and after shutdown, -32601 for methods the manifest does
//     not list, -32602 for params that break the method's schema or the key
//     grammar (§2.7); malformed frames are answered and the connection kept
//     (package rpc);
//   - signals (§7): every SignalRef a request carries is registered before
//     the next message is read, and becomes the context the engine method
//     receives; $/abort cancels it with the decoded reason as
//     context.Cause; an operation aborted at send is answered without
//     calling the engine; ids are forgotten on $/abort, after the endAttempt
//     response (attempt-scoped ids), or when nothing uses them any more;
//   - attempts (§4.4–§4.6, §6.7): startAttempt and endAttempt are answered
//     for every engine; an overlapping startAttempt is INVALID_STATE; a
//     second endAttempt is null; Attempt's messages are dropped once the
//     endAttempt response is written;
//   - errors (§8.5): engineerr values are encoded with the coercion rule, an
//     abort reason the engine returns is written back as received, an error
//     after an abort is never retryable, other errors are -32603, and a
//     panic in engine code is an engine ENGINE_FAILURE with its stack;
//   - concurrency (§1.5, D28): each request runs in its own goroutine, so
//     engines must be safe for concurrent use; cleanup methods, $/abort,
//     exit and attempt/deriveSecret never wait behind an operation;
//   - shutdown (§2.4–§2.6): shutdown is answered after every earlier
//     request; a connection that ends without it aborts every live signal,
//     and ServeEngine returns ErrClosedWithoutShutdown (exit status 1 for
//     ServeStdio).
//
// Decisions where the spec leaves room: a request reusing the id of a
// request still pending on the connection is answered -32600 (the earlier
// one still gets its own answer); notifications an engine sends before the
// client's initialized are queued (up to 1024) and flushed when it arrives;
// lifecycle/dispose on a connection that never received lifecycle/init, and
// lifecycle/finish on one that never received lifecycle/prepare, answer
// null without calling the engine when it implements those hooks.
package server
