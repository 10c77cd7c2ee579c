// Package dist holds the tests of what `make dist` ships: the release
// binaries (e2e-conform, e2e-mcp, e2e-web-engine) cross-compile with
// CGO_ENABLED=0 for every target of the Makefile's DIST_TARGETS, and every
// binary answers --version with its module version, VCS revision and Go
// version. It has no code of its own.
package dist
