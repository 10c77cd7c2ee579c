// Package mutate is a schema-guided, protocol-aware mutation engine for the
// e2e engine protocol: a proxy that sits between a client and an engine
// server, relays the client's bytes unchanged and applies one mutation to
// what the engine sends. It measures which protocol rules the conformance
// suite actually checks, and doubles as a fault-injection proxy for client
// authors (command e2e-mutate).
//
// # Mutants
//
// Mutants lists every mutant. Member operators (drop, null, unknown-member,
// retype, enum-case, inc, dec, empty-string) apply at the sites that Sites
// finds by walking the JSON Schemas of package schema: every member of the
// result of each request the engine answers (by request method), of the
// params of each server-to-client message, and of the error object.
// Envelope operators change a response's id, jsonrpc, result and error;
// frame operators change the framing (Content-Length units, header name
// case, extra and conflicting headers, split and coalesced writes, a
// truncated frame); exchange operators duplicate, reorder, delay or drop
// responses, repeat a notification after its attempt ended, and swap an
// engine error's code or flip its retryable.
//
// Each mutant carries its classification from the specification: a
// MustDetect mutant breaks a schema or catalog rule (Mutant.Rule names the
// requirement), an Equivalent one breaks none, a MustPass one is legal and
// checks the suite's own tolerance (split frames, two frames in one read,
// reordered responses). The member classification is the typed table
// memberRules; where the verdict depends on the message (BySchema) the
// proxy validates the mutated message with package schema and records the
// verdict.
//
// # Relay
//
// Relay carries one connection; Spawn runs an engine as a child process
// around it. A mutant fires at the first eligible message (after
// Options.Seed of them); with a Record shared by the connections of a run
// it fires once per run, and the record keeps what fired. Every-frame
// mutants (the MustPass ones) apply to every eligible message.
//
// TestMutants runs the conformance suite through the proxy against the
// saboteur and the example engine: `go test ./conformance/mutate` runs a
// sample, `make mutants` every mutant, writing docs/mutants.md.
package mutate
