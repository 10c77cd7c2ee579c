package conformance

// performSpecs registers the ACT specs (catalog ACT): engine/perform on the
// fixture screens, spec §4.10 and §5.8. See screenclient.go for how the
// specs act (current refs, the suite's revisions, polling for effects).
//
// Requirements that apply part by part (ACT-001, -003, -006, -007, -008)
// check each listed kind only when the manifest lists it.
//
// Decisions where the catalog leaves room (each repeated at its spec):
//   - "Gets null" (ACT-001, ACT-002, PTR-001) is read off the recorded
//     response frame: the client library reports success for any result
//     of a void method.
//   - ACT-015 and PTR-005 need a kind missing from the manifest's list;
//     when the list is complete the requirement cannot be exercised and is
//     reported not verified, never passed.
//   - ACT-009 checks the catalog's session/restart (and several
//     observations back), not session/reset.
//   - ACT-004 searches stderr only when the suite spawned the server.
//   - ACT-016 gives the tap a 1 s budget, within which the engine may wait
//     for actionability.
//   - A listed part that cannot be checked on the fixture (ACT-008: no
//     rect, or the node already in view) makes the spec not verified once
//     the other parts ran.
func performSpecs(s *suite) {
	performTapSpecs(s)
	performTextSpecs(s)
	performStateSpecs(s)
	performScrollSpecs(s)
	performInputSpecs(s)
	performRefSpecs(s)
	performRefusalSpecs(s)
}
