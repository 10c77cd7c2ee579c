package conformance

// manifestSpecs registers the MAN specs (catalog MAN).
func manifestSpecs(s *suite) {}
