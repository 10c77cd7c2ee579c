package conformance

// signalSpecs registers the SIG specs (catalog SIG).
func signalSpecs(s *suite) {}
