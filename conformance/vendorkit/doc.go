// Package vendorkit is the vendor kit's worked example: the conformance
// suite run inside an engine vendor's own `go test` (conformance.RunTests),
// against several configurations of one engine in one call. Its test,
// vendorkit_test.go, is the example to copy:
//
//	func TestConformance(t *testing.T) {
//		results := conformance.RunTests(t,
//			conformance.Config{Name: "stdio", Spawn: []string{"./bin/my-engine"}},
//			conformance.Config{Name: "tcp", Connect: "127.0.0.1:7000", Only: []string{"WIRE", "LIFE"}},
//			conformance.Config{Name: "known bugs", Spawn: []string{"./bin/my-engine"},
//				ExpectedFailures: map[string]string{"LIFE-004": "a second initialize is accepted (bug 12)"}})
//		_ = results[0].WriteJUnit("junit.xml")
//	}
//
// RunTests runs once per test binary (it is a ginkgo suite): give every
// configuration to one call. `go test` names the failing requirements;
// `go test -v` adds ginkgo's per-spec stream. See `go doc
// github.com/e2e-conform/toolkit/conformance RunTests` and `go doc
// github.com/e2e-conform/toolkit/conformance Config`.
package vendorkit
