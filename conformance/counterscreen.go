package conformance

import (
	"strings"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// The fixture screens these specs use. The fixture contract
// (conformance/fixture) is not final: these constants are the one place to
// align with it.
const (
	// counterPath is the counter screen's path on the fixture server,
	// counterMarker the marker it shows once staged.
	counterPath   = "/counter"
	counterMarker = "e2e-fixture:counter"
	// counterTapName is the name of the counter screen's button (role
	// button) that counts taps.
	counterTapName = "Tap"
	// slowPath is the navigation fixture's slow page. The suite's fixture
	// server answers the path /slow after 5 s, and an engine that stages
	// screens in memory treats the path /slow as its slow page. The query
	// is ignored by both; it makes an engine that simulates page loads by
	// a delay parameter (the example engine) treat the page as slow too.
	slowPath = "/slow?delay=5000"
	// secretPath is the page the S2C specs open to provoke an
	// attempt/resolveSecret: the form screen, whose password input
	// (passwordTestID, or role textbox named passwordName) they fill with
	// secretFill. The value is the saboteur's convention (its
	// DerivedSecretPrefix: resolve the secret name with a derivation and
	// fill its plaintext); another engine asks for secrets its own way.
	secretPath     = "/form"
	passwordTestID = "password-input"
	passwordName   = "Password"
	secretFill     = "derived-secret:e2e-conform-login"
	// probeMethod is a method outside §1.7, which every server answers
	// -32601 at once, whatever is in flight (WIRE-009, WIRE-011).
	probeMethod = "e2e-conform/probe"
)

// counterTap returns the counter screen's button that counts taps.
func counterTap(snap *wire.EngineSnapshot) *wire.SemanticNode {
	var found *wire.SemanticNode
	snap.Root.Walk(func(n *wire.SemanticNode) bool {
		if n.Role != nil && *n.Role == "button" && n.Name != nil && *n.Name == counterTapName {
			found = n
			return false
		}
		return true
	})
	return found
}

// screenText is what a screen shows: every node's name, text and value in
// document order. The counter is unchanged when this is (until the fixture
// contract names the node that shows the count, the whole screen is
// compared: a tap that was never performed changes nothing on it).
func screenText(snap *wire.EngineSnapshot) string {
	var b strings.Builder
	snap.Root.Walk(func(n *wire.SemanticNode) bool {
		for _, p := range []*string{n.Name, n.Text, n.Value} {
			if p != nil {
				b.WriteString(*p)
			}
			b.WriteByte('|')
		}
		b.WriteByte('\n')
		return true
	})
	return b.String()
}
