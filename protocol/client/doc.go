// Package client is the reference client of the e2e engine protocol (spec
// §2.9, §2.10, §6–§8, §10).
//
// Two levels:
//
//   - Open opens one connection over a transport, runs initialize, checks
//     the served manifest against the declared one (§3.6; a mismatch or a
//     protocolVersion other than 1 is an infrastructure ENGINE_FAILURE
//     naming the difference) and sends initialized. The returned Conn has a
//     typed method for every engine method; each call's context becomes its
//     signal: a context already done is sent aborted with its reason, one
//     cancelled mid-call sends one $/abort (with the cause as reason when it
//     is a classified error, OPERATION_TIMEOUT when the deadline passed,
//     none for a bare cancellation) and waits at most the abort grace (5 s)
//     for the answer. WithSignal shares one signal between calls.
//   - ConnectEngine validates a client configuration (INVALID_CONFIG for a
//     manifest that breaks §3.3 or a bad resolveLocators) and returns the
//     harness's engine handle: Prepare/Finish open and close the run
//     connection only when the manifest lists prepare or finish, and each
//     Worker opens its connection at Init and closes it at Dispose (finish
//     or dispose, shutdown, exit, close, within the cleanup budget). The
//     handle refuses what cannot be sent — calls outside Init..Dispose
//     (INVALID_STATE), unlisted methods, undeclared action kinds and
//     modifiers without tapModifiers (UNSUPPORTED_CAPABILITY) — without
//     sending anything; it answers Locate on the client with
//     ResolveLocators, runs session hooks instead of session methods, and
//     writes {data} screenshots under screenshots/ in the attempt's
//     artifact directory.
//
// Received errors are classified by engineerr.Decode (§8.6), with the
// coercion rule; -32601 for a listed method is an infrastructure
// ENGINE_FAILURE. A connection that ends, or a malformed message from the
// server (every result is validated against its schema), fails every
// pending and later call with an infrastructure ENGINE_FAILURE carrying the
// transport's diagnostics (a spawned server's exit status and last stderr
// lines); a failed connection is never reconnected (D42).
//
// Server messages reach Handlers: engine/log lines, and the attempt/*
// notifications of the open attempt only (the attempt closes when the
// endAttempt response arrives; others are dropped and noted in the
// diagnostics). attempt/resolveSecret is answered from Handlers.Secret:
// SECRET_UNAVAILABLE for an undeclared or valueless name, INVALID_STATE for
// an attempt that is not open, and with a derivation the client asks the
// server for the derived forms first; every form is passed to
// Handlers.Redact before the value is answered.
package client
