package conformance

// transportSpecs registers the TRN specs (catalog TRN).
func transportSpecs(s *suite) {}
