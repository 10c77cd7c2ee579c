package conformance

// keyboardSpecs registers the KEY specs (catalog KEY).
func keyboardSpecs(s *suite) {}
