package conformance

// performSpecs registers the ACT specs (catalog ACT).
func performSpecs(s *suite) {}
