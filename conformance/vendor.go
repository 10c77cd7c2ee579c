package conformance

import (
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// RunTests runs the suite inside a vendor's own `go test`, once for each
// engine configuration (a spawn command, a listening address, several
// builds of one engine…):
//
//	func TestConformance(t *testing.T) {
//		conformance.RunTests(t,
//			conformance.Config{Name: "stdio", Spawn: []string{"./bin/my-engine"}},
//			conformance.Config{Name: "tcp", Connect: "127.0.0.1:7000"})
//	}
//
// Failing requirements fail the test with their IDs (ginkgo labels);
// requirements that do not apply are skipped with the reason. Select with
// ginkgo's -ginkgo.label-filter (e.g. '!fixture' for the core profile).
// Like every ginkgo suite, it runs once per test binary. (It is the
// equivalent of ginkgo's RunSpecs, named apart from it.)
func RunTests(t *testing.T, cfgs ...Config) bool {
	t.Helper()
	gomega.RegisterFailHandler(ginkgo.Fail)
	for _, cfg := range cfgs {
		if err := cfg.validate(); err != nil {
			t.Fatalf("conformance: %v", err)
		}
		(&suite{cfg: cfg}).register()
	}
	sc, rc := ginkgo.GinkgoConfiguration()
	sc.RandomizeAllSpecs = false
	rc.SilenceSkips = true
	return ginkgo.RunSpecs(t, "e2e-conform", sc, rc)
}
