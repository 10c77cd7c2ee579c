package conformance

// pointerSpecs registers the PTR specs (catalog PTR).
func pointerSpecs(s *suite) {}
