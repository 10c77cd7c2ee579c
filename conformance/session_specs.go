package conformance

// sessionSpecs registers the SESS specs (catalog SESS).
func sessionSpecs(s *suite) {}
