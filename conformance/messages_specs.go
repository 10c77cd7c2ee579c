package conformance

// messageSpecs registers the S2C specs (catalog S2C).
func messageSpecs(s *suite) {}
