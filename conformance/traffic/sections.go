package traffic

import (
	"strings"

	"github.com/e2e-conform/toolkit/conformance/catalog"
)

// sectionOf is the section of the specification requirement id comes from:
// the catalog's for a catalog ID, the ID itself for a client rule named by
// its section ("§1.4").
func sectionOf(id string) string {
	if r, ok := catalog.Lookup(id); ok {
		return r.Section
	}
	if strings.HasPrefix(id, "§") {
		return id
	}
	return ""
}

// Harness rules without a catalog row are named by the section that states
// them. The catalog's CLI rows (CLI-007, CLI-013) name the rest.
const (
	// RuleClientIDs: "A sender MUST NOT reuse an id while a request with
	// it is pending in the same direction" (§1.4); "Batches MUST NOT be
	// sent" (D3); a response answers a pending request.
	RuleClientIDs = "§1.4"
	// RuleClientFraming: the header part and content of §1.1–§1.2.
	RuleClientFraming = "§1.1"
	// RuleClientOrder: "the client sends initialized before any other
	// message" once initialize is answered (§2.2).
	RuleClientOrder = "§2.2"
	// RuleClientParams: the params of a request or notification the
	// client sends validate against the method's params schema (the
	// methods of §2–§7; protocol/schema's <Name>Params).
	RuleClientParams = "§5.13"
	// RuleSignalRef: a SignalRef's aborted is only ever true and reason
	// comes only with it (§7.1).
	RuleSignalRef = "§7.1"
	// RuleAbortedAtSend: any server MUST answer a request aborted at
	// send with an error and MUST NOT act on the surface (§7.5, D24).
	RuleAbortedAtSend = "§7.5"
)
