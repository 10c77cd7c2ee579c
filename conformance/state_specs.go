package conformance

// stateSpecs registers the STATE specs (catalog STATE).
func stateSpecs(s *suite) {}
