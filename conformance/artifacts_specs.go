package conformance

// artifactSpecs registers the ART specs (catalog ART).
func artifactSpecs(s *suite) {}
