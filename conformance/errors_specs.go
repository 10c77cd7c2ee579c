package conformance

// errorSpecs registers the ERR specs (catalog ERR).
func errorSpecs(s *suite) {}
