package catalog

import (
	"fmt"
	"strings"

	"github.com/e2e-conform/toolkit/protocol/wire"
)

// Facts is what applicability is decided on (spec §11, "Applies when").
type Facts struct {
	// Manifest is the manifest the engine announced.
	Manifest wire.Manifest
	// Transport is how the suite reaches the server: "spawn" or "socket".
	Transport string
	// TapModifiersPresent: the manifest carries a tapModifiers member (true
	// or not), which a decoded Manifest cannot show when it is not true.
	TapModifiersPresent bool
	// Sent reports whether the server has sent a message during the run:
	// "attempt/resolveSecret", or "attempt/resolveSecret with derivation".
	Sent func(what string) bool
}

// Applies decides whether r applies to an engine: it returns true, or false
// and the reason in words ("the manifest does not list engine/locate").
func (r Requirement) Applies(f Facts) (bool, string) {
	return evaluate(r.AppliesWhen, f)
}

// Parts returns the parts of a requirement that applies part by part (a
// list of kinds, or one marked "each when listed"), each with whether it
// applies: e.g. ACT-001 gives action:tap, action:doubleTap and
// action:secondaryTap. Other requirements give one part, themselves.
func (r Requirement) Parts(f Facts) map[string]bool {
	expr, each := strings.CutSuffix(strings.TrimSpace(r.AppliesWhen), " (each when listed)")
	conj := splitConj(expr)
	out := map[string]bool{}
	if each || allKinds(conj) {
		for _, c := range conj {
			ok, _ := evaluate(c, f)
			out[c] = ok
		}
		return out
	}
	ok, _ := evaluate(r.AppliesWhen, f)
	out[r.AppliesWhen] = ok
	return out
}

func splitConj(expr string) []string {
	if strings.HasPrefix(expr, "when it sends ") {
		return []string{expr} // "… with derivation" is one condition
	}
	expr = strings.ReplaceAll(expr, ", with ", ", ")
	expr = strings.ReplaceAll(expr, " with ", ", ")
	parts := strings.Split(expr, ", ")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func allKinds(conj []string) bool {
	for _, c := range conj {
		if !strings.HasPrefix(c, "action:") && !strings.HasPrefix(c, "pointer:") {
			return false
		}
	}
	return len(conj) > 1
}

func evaluate(expr string, f Facts) (bool, string) {
	expr, each := strings.CutSuffix(strings.TrimSpace(expr), " (each when listed)")
	conj := splitConj(expr)
	if each || allKinds(conj) {
		var why []string
		for _, c := range conj {
			ok, reason := evaluate(c, f)
			if ok {
				return true, ""
			}
			why = append(why, reason)
		}
		return false, strings.Join(why, "; ")
	}
	for _, c := range conj {
		alts := strings.Split(c, " or ")
		ok, why := false, []string{}
		for _, a := range alts {
			got, reason := atom(strings.TrimSpace(a), f)
			if got {
				ok = true
				break
			}
			why = append(why, reason)
		}
		if !ok {
			return false, strings.Join(why, ", and ")
		}
	}
	return true, ""
}

func atom(a string, f Facts) (bool, string) {
	m := f.Manifest
	switch {
	case a == "always":
		return true, ""
	case a == "toolkit":
		return false, "checked by the toolkit's own tests against a scripted peer"
	case a == "spawn" || a == "socket":
		if f.Transport == a {
			return true, ""
		}
		return false, fmt.Sprintf("the suite reaches the server by %s, not %s", orNone(f.Transport), a)
	case a == "an operation method":
		for _, meth := range m.Methods {
			if wire.IsOperationMethod(meth) {
				return true, ""
			}
		}
		return false, "the manifest lists no operation method"
	case a == "tapModifiers: true":
		if m.TapModifiers {
			return true, ""
		}
		return false, "the manifest does not declare tapModifiers: true"
	case a == "no tapModifiers: true":
		if !m.TapModifiers {
			return true, ""
		}
		return false, "the manifest declares tapModifiers: true"
	case a == "tapModifiers present":
		// A decoded manifest cannot tell false from absent; false is
		// written as absent by describeEngine (§3.5).
		if m.TapModifiers || f.TapModifiersPresent {
			return true, ""
		}
		return false, "the manifest has no tapModifiers"
	case strings.HasPrefix(a, "when it sends "):
		what := strings.TrimPrefix(a, "when it sends ")
		if f.Sent != nil && f.Sent(what) {
			return true, ""
		}
		return false, fmt.Sprintf("the server never sent %s during the run", what)
	case strings.HasPrefix(a, "action:"):
		k := strings.TrimPrefix(a, "action:")
		if m.Lists(wire.MethodPerform) && m.HasAction(k) {
			return true, ""
		}
		return false, fmt.Sprintf("the manifest's actions do not list %s", k)
	case strings.HasPrefix(a, "pointer:"):
		k := strings.TrimPrefix(a, "pointer:")
		if m.Lists(wire.MethodPerformAt) && m.HasPointerAction(k) {
			return true, ""
		}
		return false, fmt.Sprintf("the manifest's pointerActions do not list %s", k)
	case strings.HasSuffix(a, "/*"):
		group := strings.TrimSuffix(a, "*")
		for _, meth := range m.Methods {
			if strings.HasPrefix(meth, group) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("the manifest lists no %s method", a)
	case wire.IsEngineMethod(a):
		if m.Lists(a) {
			return true, ""
		}
		return false, fmt.Sprintf("the manifest does not list %s", a)
	}
	return false, fmt.Sprintf("unknown applicability %q", a)
}

func orNone(s string) string {
	if s == "" {
		return "an unknown transport"
	}
	return s
}
