package conformance

// locateSpecs registers the LOC specs (catalog LOC).
func locateSpecs(s *suite) {}
