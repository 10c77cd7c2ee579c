package conformance

// Untestable lists the catalog requirements this suite does not check
// against a third-party engine, each with the reason. Every MUST of the
// catalog has at least one spec or an entry here; TestEveryMustIsCovered
// fails otherwise.
func Untestable() map[string]string {
	toolkit := "checked by the toolkit's own tests against a scripted peer (protocol/client, TestCLI*); it binds the client library, not servers"
	return map[string]string{
		"CLI-001": toolkit, "CLI-002": toolkit, "CLI-003": toolkit, "CLI-004": toolkit, "CLI-005": toolkit,
		"CLI-006": toolkit, "CLI-007": toolkit, "CLI-008": toolkit, "CLI-009": toolkit, "CLI-010": toolkit,
		"CLI-011": toolkit, "CLI-012": toolkit, "CLI-013": toolkit, "CLI-014": toolkit,
		"MAN-009": "binds serveEnabled/describeEngine of the toolkit's server library: checked by protocol/server TestInitializeResultAndManifest",
	}
}
