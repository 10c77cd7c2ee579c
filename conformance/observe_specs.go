package conformance

// observeSpecs registers the OBS specs (catalog OBS).
func observeSpecs(s *suite) {}
