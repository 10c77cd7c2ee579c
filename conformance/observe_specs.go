package conformance

// Observation: spec §4.8, §5.4, §5.5; catalog OBS.
//
// The specs read snapshots off a raw connection: the client library
// decodes them leniently (unknown state keys are dropped) and fails a whole
// connection on a malformed one, while these specs must see every member as
// sent. Observations are taken on the engine's start surface and, when the
// engine lists session/open, on the fixture server's root page (a plain
// document: no fixture screen is needed, and a web engine then observes more
// than a blank page).
func observeSpecs(s *suite) {
	observeSnapshotSpecs(s)
	observePixelsSpecs(s)
	observeNodeSpecs(s)
	observePageSpecs(s)
	observeLimitSpecs(s)
}
