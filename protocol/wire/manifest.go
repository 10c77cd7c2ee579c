package wire

import (
	"encoding/json"
	"slices"
)

// Manifest is the EngineManifest (spec §3.1): what a server is and which
// methods it answers.
type Manifest struct {
	Name           string   `json:"name"`
	Version        string   `json:"version"`
	SPIVersion     int      `json:"spiVersion"`
	Platform       string   `json:"platform,omitempty"`
	Workers        *int64   `json:"workers,omitempty"`
	Methods        []string `json:"methods"`
	Actions        []string `json:"actions,omitempty"`
	PointerActions []string `json:"pointerActions,omitempty"`
	TapModifiers   bool     `json:"tapModifiers,omitempty"`
}

// MarshalJSON writes methods as [] rather than null when empty.
func (m Manifest) MarshalJSON() ([]byte, error) {
	type plain Manifest
	p := plain(m)
	if p.Methods == nil {
		p.Methods = []string{}
	}
	return json.Marshal(p)
}

// Lists reports whether the manifest lists method.
func (m *Manifest) Lists(method string) bool { return contains(m.Methods, method) }

// HasAction reports whether kind is in actions.
func (m *Manifest) HasAction(kind string) bool { return contains(m.Actions, kind) }

// HasPointerAction reports whether kind is in pointerActions.
func (m *Manifest) HasPointerAction(kind string) bool { return contains(m.PointerActions, kind) }

// Normalized returns a copy whose methods are in ENGINE_METHODS order and
// whose actions and pointerActions are in their canonical orders (spec §3.6:
// they compare as sets). Unknown names keep their relative order at the end.
func (m Manifest) Normalized() Manifest {
	m.Methods = canonicalOrder(m.Methods, EngineMethods())
	m.Actions = canonicalOrder(m.Actions, LocatorActionKinds())
	m.PointerActions = canonicalOrder(m.PointerActions, PointerActionKinds())
	if m.Workers != nil {
		w := *m.Workers
		m.Workers = &w
	}
	return m
}

func canonicalOrder(list, order []string) []string {
	if list == nil {
		return nil
	}
	out := slices.Clone(list)
	rank := func(s string) int {
		if i := slices.Index(order, s); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}
