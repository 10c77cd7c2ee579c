package conformance

// FindLeak exposes the ERR-007 search (leaks.go) to the external tests:
// the form in which text discloses secret, if it does.
func FindLeak(text, secret string) (string, bool) { return findLeak(text, secret) }

// IsRunWide exposes isRunWide to the external tests.
func IsRunWide(text string) bool { return isRunWide(text) }
